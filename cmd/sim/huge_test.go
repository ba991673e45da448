package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// Huge but valid values saturate instead of overflowing: no internal
// error, and a NodePool limit of 1e16 cores limits nothing (it acted as 0,
// and the 30 batch pods stranded). In grace.yaml the web pods, evicted
// every 60 s by the taint they tolerate for 60 s, terminate for ~292
// years and keep their room; their ReplicaSet replaces each at once, until
// the terminating pods fill the only node they may run on and the last 3
// replacements strand.
func TestHugeValuesSaturate(t *testing.T) {
	for f, stranded := range map[string]int{"testdata/huge/huge.yaml": 0, "testdata/huge/grace.yaml": 3} {
		out, stderr, code := sim(t, "run", f, "-o", "json", "--check")
		require.Equal(t, 0, code, "%s: %s", f, stderr)
		require.NotContains(t, stderr, "internal error")
		var r struct {
			Pods struct{ Total, Stranded int }
		}
		require.NoError(t, json.Unmarshal([]byte(out), &r))
		require.Equal(t, stranded, r.Pods.Stranded, f)
		require.GreaterOrEqual(t, r.Pods.Total, 33, f)
	}
}

// Pod churn the load-time estimate cannot foresee (pods evicted at once by
// a NoExecute taint tolerated for 0s) is warned of, and --memory-limit
// holds while the run goes: it got 3.3 GiB under --memory-limit 1Gi.
func TestMemoryLimitHoldsWhileRunning(t *testing.T) {
	_, stderr, code := sim(t, "run", "testdata/churn/churn.yaml", "--memory-limit", "100Mi")
	require.Equal(t, 1, code, stderr)
	require.Contains(t, stderr, "warning: churn: by ")
	require.Contains(t, stderr, "over 4 times the 200 estimated at load: pods are recreated as fast as they go")
	require.Regexp(t, `error: churn stopped at \S+ of 10m0s: its live memory reached \d+ MiB, more than the 100 MiB --memory-limit allows \(\d+ pods created so far, 200 estimated at load\)`, stderr)
}
