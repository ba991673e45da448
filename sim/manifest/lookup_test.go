package manifest

import (
	"testing"

	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
)

// Lookup, Scalar and Scalars read a document's tree as data: through
// aliases, from the document node in, null as an empty list.
func TestLookupFollowsAliases(t *testing.T) {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte(`
v: &v "--b"
base: &c {image: karpenter, args: [--a, *v]}
containers: [*c]
none: null
`), &doc))
	c := Lookup(&doc, "containers").Content[0]
	require.Equal(t, "karpenter", Scalar(Lookup(c, "image")))
	args, ok := Scalars(Lookup(c, "args"))
	require.True(t, ok)
	require.Equal(t, []string{"--a", "--b"}, args)
	args, ok = Scalars(Lookup(&doc, "none"))
	require.True(t, ok)
	require.Empty(t, args)
	_, ok = Scalars(Lookup(&doc, "base"))
	require.False(t, ok, "a mapping is not a list")
	require.Nil(t, Lookup(&doc, "base", "image", "deeper"))
	require.Equal(t, "", Scalar(Lookup(&doc, "missing")))
}
