package lint

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

// TestVolumeZoneOnEmbeddedScenarios: a StatefulSet with per-replica EBS
// volumes on node groups spanning three zones (template node in the
// first) is flagged for the other two zones; one group per zone, or a
// NodePool over every zone, is not.
func TestVolumeZoneOnEmbeddedScenarios(t *testing.T) {
	fs := findingsOf(Check(loadEmbedded(t, "stateful-zone-ca")), KindVolumeZone)
	require.Len(t, fs, 1)
	require.Equal(t, Warning, fs[0].Severity)
	require.Equal(t, "StatefulSet/data/db", fs[0].Workload)
	require.Contains(t, fs[0].Message, "a pod whose volume is in us-east-1b or us-east-1c can come back only there")
	require.Contains(t, fs[0].Message, "NodeGroup/db-spot's template node is in us-east-1a")
	require.Contains(t, fs[0].Fix, "--balance-similar-node-groups")
	for _, name := range []string{"stateful-zone-ca-per-az", "stateful-zone-karpenter"} {
		require.Empty(t, findingsOf(Check(loadEmbedded(t, name)), KindVolumeZone), name)
	}
}

// pvIn is a Deployment's claim bound to an EBS PersistentVolume in zone.
func pvIn(zone string) string { return fixtures.BoundEBSVolume("pv", "data", zone) }

const useData = `      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
`

// TestVolumeZoneBoundVolume: a bound volume in a zone no NodePool allows
// is an error; in an allowed zone, nothing.
func TestVolumeZoneBoundVolume(t *testing.T) {
	pool := nodePool("p", "{}", `      requirements:
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
`, "") + nodeClass
	r := check(t, header, pool, pvIn("us-east-1b"), deployment("app", "500m", useData))
	fs := findingsOf(r, KindVolumeZone)
	require.Len(t, fs, 1)
	require.Equal(t, Error, fs[0].Severity)
	require.True(t, strings.HasPrefix(fs[0].Message, "its pods' bound PersistentVolume is in us-east-1b, and no capacity source would add a node there"), fs[0].Message)
	require.Empty(t, findingsOf(check(t, header, pool, pvIn("us-east-1a"), deployment("app", "500m", useData)), KindVolumeZone))
}
