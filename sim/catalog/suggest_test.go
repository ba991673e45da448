package catalog

import (
	"github.com/clustersim/clustersim/sim/manifest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSuggest(t *testing.T) {
	c, err := Default()
	require.NoError(t, err)

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

func TestOSADistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"m5.large", "m5.large", 0},
		{"m5.larg", "m5.large", 1},
		{"m5.lrage", "m5.large", 1},
		{"m5.large", "m5a.large", 1},
		{"kitten", "sitting", 3},
		{"ca", "abc", 3}, // OSA, not full Damerau (which gives 2)
	} {
		require.Equal(t, tc.want, manifest.EditDistance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		require.Equal(t, tc.want, manifest.EditDistance(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
}
