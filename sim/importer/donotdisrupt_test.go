package importer

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/trace"
)

// dndExport: two Karpenter nodes of a pool that consolidates at once,
// each running one pod of a Deployment whose pods carry
// karpenter.sh/do-not-disrupt: "10m" (Karpenter v1.12+: protected until
// the pod has run 10 minutes), the pods started at the given times
// (the export is at 12:00).
func dndExport(currentStarted, olderStarted string) string {
	export := strings.Replace(driftExport, "disruption: {consolidateAfter: Never}", "disruption: {consolidateAfter: 0s}", 1)
	export = strings.Replace(export, `karpenter.sh/nodepool-hash: "999"`, `karpenter.sh/nodepool-hash: "222"`, 1) // no drift
	export = strings.Replace(export, "replicas: 1", "replicas: 2", 1)
	export = strings.ReplaceAll(export, `annotations: {controller.kubernetes.io/pod-deletion-cost: "100"}`, `annotations: {karpenter.sh/do-not-disrupt: "10m"}`)
	i := strings.Index(export, "- apiVersion: v1\n  kind: Pod\n")
	pod := export[i:]
	export = export[:i]
	for _, p := range []struct{ name, node, started string }{{"web-1", "current", currentStarted}, {"web-2", "older", olderStarted}} {
		q := strings.Replace(pod, "name: web-1", "name: "+p.name, 1)
		q = strings.Replace(q, "nodeName: current", "nodeName: "+p.node, 1)
		q = strings.Replace(q, "status: {phase: Running}", fmt.Sprintf("status: {phase: Running, startTime: %q}", p.started), 1)
		export += q
	}
	return export
}

// A do-not-disrupt duration counts from each pod's start time in the
// export: sim import writes the pods' ages (startedAgo), and Karpenter
// leaves a node alone while a pod on it is younger than the duration,
// then takes it; an age past the duration protects nothing.
func TestImportedDoNotDisruptDuration(t *testing.T) {
	run := func(export string, until time.Duration) (string, []string) {
		t.Helper()
		out, _ := importFile(t, "cluster.yaml", strings.NewReader(export), Options{})
		sc, err := scenario.LoadManifests("imported.yaml", out, nil)
		require.NoError(t, err)
		var got []string
		s, err := simulation.Start(sc, simulation.Options{Trace: func(e trace.Entry) {
			if e.Kind == "disruptionCommand" && e.Phase == "decided" {
				var names []string
				for _, c := range e.Candidates {
					names = append(names, c.Node)
				}
				got = append(got, fmt.Sprintf("%s %s", time.Duration(e.T*float64(time.Second)).Round(time.Second), strings.Join(names, ",")))
			}
		}})
		require.NoError(t, err)
		require.NoError(t, s.RunUntil(until))
		return string(out), got
	}

	// Both pods started 3 h before the export: nothing protects them, and
	// Karpenter consolidates in its first pass.
	_, got := run(dndExport("2026-11-30T09:00:00Z", "2026-11-30T09:00:00Z"), 2*time.Minute)
	require.Equal(t, []string{"2s current"}, got)

	// Both started 5 min before: protected for 5 more minutes; the first
	// command comes once the protection has run out (passes every 10 s).
	written, got := run(dndExport("2026-11-30T11:55:00Z", "2026-11-30T11:55:00Z"), 8*time.Minute)
	require.Contains(t, written, "startedAgo:\n    - 5m0s\n    - 5m0s\n")
	require.NotEmpty(t, got)
	first, err := time.ParseDuration(strings.Fields(got[0])[0])
	require.NoError(t, err)
	// The protection ends 10 minutes after 11:55, at 5m in the run; the
	// pass that follows (every 10 s) finds it.
	require.GreaterOrEqual(t, first, 5*time.Minute, got)
	require.LessOrEqual(t, first, 5*time.Minute+10*time.Second, got)

	// One young pod, on the node Karpenter took above: the other node
	// goes instead.
	written, got = run(dndExport("2026-11-30T11:55:00Z", "2026-11-30T09:00:00Z"), 2*time.Minute)
	require.Contains(t, written, "startedAgo:\n    - 5m0s\n    - 3h0m0s\n")
	require.Equal(t, []string{"2s older"}, got)
}

// Bare pods' do-not-disrupt durations count from their status.startTime
// too (sim import keeps it on the Pod): upstream's drift test "should not
// drift nodes until the longest duration-based do-not-disrupt grace
// period expires", with the pods started before the export. The drifted
// node's pods (1m, started at the export; 3m, started a minute before)
// hold it until 2 minutes into the run, not 3.
func TestImportedBarePodDoNotDisruptDuration(t *testing.T) {
	i := strings.Index(driftExport, "- apiVersion: apps/v1\n  kind: Deployment\n")
	export := driftExport[:i]
	for _, p := range []struct{ name, dur, started string }{{"short", "1m", "2026-11-30T12:00:00Z"}, {"long", "3m", "2026-11-30T11:59:00Z"}} {
		export += fmt.Sprintf(`- apiVersion: v1
  kind: Pod
  metadata: {name: %s, namespace: default, annotations: {karpenter.sh/do-not-disrupt: %q}}
  spec: {nodeName: older, containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
  status: {phase: Running, startTime: %q}
`, p.name, p.dur, p.started)
	}
	out, _ := importFile(t, "cluster.yaml", strings.NewReader(export), Options{})
	require.Contains(t, string(out), "startTime: \"2026-11-30T11:59:00Z\"")
	sc, err := scenario.LoadManifests("imported.yaml", out, nil)
	require.NoError(t, err)
	var got []string
	s, err := simulation.Start(sc, simulation.Options{Trace: func(e trace.Entry) {
		if e.Kind == "disruptionCommand" && e.Phase == "decided" {
			got = append(got, fmt.Sprintf("%s %s %s", time.Duration(e.T*float64(time.Second)).Round(time.Second), e.Reason, e.Candidates[0].Node))
		}
	}})
	require.NoError(t, err)
	require.NoError(t, s.RunUntil(5*time.Minute))
	require.NotEmpty(t, got)
	f := strings.Fields(got[0])
	first, err := time.ParseDuration(f[0])
	require.NoError(t, err)
	require.Equal(t, []string{"drifted", "older"}, f[1:], got)
	require.GreaterOrEqual(t, first, 2*time.Minute, got)
	require.LessOrEqual(t, first, 2*time.Minute+10*time.Second, got)
}
