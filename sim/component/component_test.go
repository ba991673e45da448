package component

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

func TestKindOf(t *testing.T) {
	for apiVersion, want := range map[string]Kind{
		"karpenter.sh/v1":       {Group: "karpenter.sh", Kind: "NodePool"},
		"karpenter.sh/v1alpha5": {Group: "karpenter.sh", Kind: "NodePool"},
		"v1":                    {Kind: "NodePool"},
		"":                      {Kind: "NodePool"},
	} {
		require.Equal(t, want, KindOf(&manifest.Document{APIVersion: apiVersion, Kind: "NodePool"}), apiVersion)
	}
	require.Equal(t, "NodePool.karpenter.sh", Kind{Group: "karpenter.sh", Kind: "NodePool"}.String())
	require.Equal(t, "Pod", Kind{Kind: "Pod"}.String())
}

type fake struct {
	name  string
	kinds []Kind
}

func (f fake) Name() string                                { return f.name }
func (f fake) Kinds() []Kind                               { return f.kinds }
func (fake) Settings() (string, any)                       { return "", nil }
func (fake) Compile(Env, Input) (Config, []Warning, error) { return nil, nil, nil }
func (fake) Build(Deps, Config) (Model, error)             { return nil, nil }

// A registry finds components by name and by group and kind, in
// registration order, and refuses a second component of a name or kind.
func TestRegistry(t *testing.T) {
	var r Registry
	a := fake{name: "a", kinds: []Kind{{Group: "a.io", Kind: "Pool"}}}
	b := fake{name: "b", kinds: []Kind{{Group: "b.io", Kind: "Pool"}}}
	r.Register(a)
	r.Register(b)
	require.Equal(t, []Component{a, b}, r.All())
	c, ok := r.ForKind(Kind{Group: "b.io", Kind: "Pool"})
	require.True(t, ok)
	require.Equal(t, "b", c.Name())
	_, ok = r.ForKind(Kind{Kind: "Pool"})
	require.False(t, ok, "never by kind alone")
	_, ok = r.Lookup("c")
	require.False(t, ok)
	require.PanicsWithValue(t, "component: a registered twice", func() { r.Register(fake{name: "a"}) })
	require.PanicsWithValue(t, "component: kind Pool.a.io registered by both a and c", func() { r.Register(fake{name: "c", kinds: a.kinds}) })

	cs := Configs{{Name: "a", Config: 1}, {Name: "b", Config: 2}}
	got, ok := cs.Get("b")
	require.True(t, ok)
	require.Equal(t, 2, got)
	_, ok = cs.Get("z")
	require.False(t, ok)
}
