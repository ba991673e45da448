package catalog

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSuggest(t *testing.T) {
	c := defaultCatalog(t)

	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"m5.larg", []string{"m5.large", "m5.xlarge", "m5a.large"}},
		{"m5.lrage", []string{"m5.large", "m5.xlarge", "m5a.large"}}, // transposition
		{" M5.LARGE ", []string{"m5.large", "m5.xlarge", "m5a.large"}},
		{"m7.xlarge", []string{"m7a.xlarge", "m7g.xlarge", "m7i.xlarge"}},
		{"p4d.24xl", []string{"p4d.24xlarge"}},
		{"m5.huge", []string{"m5.large", "m5.xlarge", "m5.2xlarge"}}, // same-family fill
		{"foo", nil},
		{"", nil},
	} {
		got := Suggest(c, tc.in)
		require.Equal(t, tc.want, got, tc.in)
		require.LessOrEqual(t, len(got), 3)
		for _, n := range got {
			_, ok := c.Lookup(n)
			require.True(t, ok, n)
		}
	}
	require.Contains(t, Suggest(c, "m5.larg"), "m5.large")
	require.Nil(t, Suggest(nil, "m5.large"))
}
