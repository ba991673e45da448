package karpenter

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// Drift's commands start at once, without validation, and complete when
// their replacement is initialized; the budgets name the one that
// applies to Drifted.
func TestDriftCommandMoments(t *testing.T) {
	const budgets = `  disruption: {consolidateAfter: Never, budgets: [{nodes: "0", reasons: [Underutilized]}, {nodes: "3", reasons: [Drifted]}]}`
	h := startWeb(t, 2, poolWith("p", odLarge, budgets))
	var got []component.DisruptionCommand
	h.k.OnDisruptionCommand(func(c component.DisruptionCommand) { got = append(got, c) })
	h.run(10 * time.Minute)
	old := h.karpenterNodes()
	require.Len(t, old, 1)
	changed := h.pools(poolWith("p", odLarge, "      startupTaints: [{key: init, effect: NoSchedule}]\n"+budgets))
	h.k.UpdateNodePool(15*time.Minute, changed[0])
	h.run(30 * time.Minute)
	require.Equal(t, int64(1), h.k.Stats().Disruptions.Drifted)

	var phases []string
	for _, c := range got {
		phases = append(phases, c.Phase)
		require.Equal(t, "drift", c.Method)
		require.Equal(t, "drifted", c.Reason)
		require.Equal(t, []component.DisruptionNode{{Node: old[0].Name, Pool: "p", InstanceType: "m5.large", CapacityType: "on-demand", Pods: 2}}, c.Candidates)
		require.Equal(t, []component.DisruptionReplacement{{Pool: "p", CapacityType: "on-demand", InstanceTypes: []string{"m5.large"}, Options: 1}}, c.Replacements)
		require.Equal(t, []component.DisruptionBudget{{Pool: "p", Nodes: "3", Reasons: []string{"Drifted"}, Allowed: 3}}, c.Budgets)
	}
	require.Equal(t, []string{phaseDecided, phaseStarted, phaseCompleted}, phases)
}

// Binding is the budget whose allowance applies: the smallest of those
// naming the reason (or none), active now.
func TestBindingBudget(t *testing.T) {
	h := newHarness(t)
	p := h.pools(poolWith("p", odLarge, `  disruption: {budgets: [{nodes: "50%"}, {nodes: "1", reasons: [Empty]}, {nodes: "0", reasons: [Drifted], schedule: "0 0 1 1 *", duration: 1h}]}`))[0]
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	d := &p.Disruption
	require.Equal(t, `{nodes: 1, reasons: [Empty]}`, d.Binding(now, 10, apis.ReasonEmpty).Text)
	require.Equal(t, `{nodes: 50%}`, d.Binding(now, 10, apis.ReasonUnderutilized).Text)
	require.Equal(t, `{nodes: 50%}`, d.Binding(now, 10, apis.ReasonDrifted).Text) // its own is inactive
	require.Nil(t, (&NodePool{}).Disruption.Binding(now, 10, apis.ReasonEmpty))
}
