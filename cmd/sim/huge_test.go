package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Huge but valid values saturate instead of overflowing: no internal
// error, and a NodePool limit of 1e16 cores limits nothing (it acted as 0,
// and the 30 batch pods stranded).
func TestHugeValuesSaturate(t *testing.T) {
	for _, f := range []string{"testdata/huge/huge.yaml", "testdata/huge/grace.yaml"} {
		out, stderr, code := sim(t, "run", f, "-o", "json", "--check")
		require.Equal(t, 0, code, "%s: %s", f, stderr)
		require.NotContains(t, stderr, "internal error")
		var r struct {
			Pods struct{ Total, Stranded int }
		}
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		require.Equal(t, 0, r.Pods.Stranded, f)
		require.GreaterOrEqual(t, r.Pods.Total, 33, f)
	}
}
