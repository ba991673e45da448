package simulation_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/lint"
	"github.com/clustersim/clustersim/sim/scenario"
)

// The EKS workshop's Mistral server requests aws.amazon.com/neuron and
// does not tolerate the Trainium NodePool's aws.amazon.com/neuron
// NoSchedule taint. On EKS the ExtendedResourceToleration admission
// plugin adds the toleration, so Karpenter launches a trn1.2xlarge and
// the pod runs; lint finds it hostable. With the plugin off (a non-EKS
// cluster) nothing tolerates the taint: no node, the pod stays pending,
// and lint calls it unhostable, naming the taint.
func TestExtendedResourceTolerationNeuron(t *testing.T) {
	sc, err := scenario.LoadFile("testdata/neuron-toleration/scenario.yaml")
	require.NoError(t, err)
	nodes, rep := runNodes(t, sc, "aws.amazon.com/neuron")
	require.Len(t, nodes, 1)
	require.Equal(t, "trn1.2xlarge", nodes[0].typ)
	require.Equal(t, 1, rep.Pods.Scheduled)
	require.Zero(t, rep.Pods.PendingAtEnd)
	require.Empty(t, unhostable(sc))

	off := copyWith(t, "testdata/neuron-toleration", "include:", "admission: {extendedResourceToleration: false}\n  include:")
	nodes, rep = runNodes(t, off, "aws.amazon.com/neuron")
	require.Empty(t, nodes)
	require.Equal(t, 1, rep.Pods.PendingAtEnd)
	fixes := unhostable(off)
	require.Len(t, fixes, 1)
	require.Contains(t, fixes[0], "aws.amazon.com/neuron")
}

func unhostable(sc *scenario.Scenario) []string {
	var out []string
	for _, f := range lint.Check(sc).Findings {
		if f.Kind == lint.KindUnhostable {
			out = append(out, f.Fix)
		}
	}
	return out
}
