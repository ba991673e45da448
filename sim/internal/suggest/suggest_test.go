package suggest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDistance(t *testing.T) {
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
		require.Equal(t, tc.want, Distance(tc.a, tc.b), "%q %q", tc.a, tc.b)
		require.Equal(t, tc.want, Distance(tc.b, tc.a), "%q %q", tc.b, tc.a)
	}
	long := string(make([]byte, 65))
	require.Equal(t, 0, Distance(long, long))
	require.Greater(t, Distance(long, long[:64]), 1000, "names over 64 bytes are not compared")
}

func TestClosest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		candidates []string
		maxEdits   int
		want       string
	}{
		{"replicass", []string{"selector", "replicas"}, 1, "replicas"},
		{"REPLICAS", []string{"replicas"}, 0, "replicas"}, // case is ignored
		{"replic", []string{"replicas"}, 1, ""},           // two edits away
		{"replic", []string{"replicas"}, 2, "replicas"},
		{"ab", []string{"ax", "ay"}, 1, "ax"}, // a tie goes to the earlier candidate
		{"ab", []string{"ay", "ax"}, 1, "ay"},
		{"ab", []string{"ay", "ab"}, 1, "ab"}, // a nearer one wins over an earlier one
		{"ab", nil, 3, ""},
	} {
		require.Equal(t, tc.want, Closest(tc.name, tc.candidates, tc.maxEdits), "%q in %q within %d", tc.name, tc.candidates, tc.maxEdits)
	}
}
