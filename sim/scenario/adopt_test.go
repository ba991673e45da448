package scenario

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

const adoptHeader = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: adopt}
spec:
  duration: 1h
  zones: [us-east-1a, us-east-1b]
` + fixtures.GeneralPurposeNodePool + fixtures.EC2NodeClassDemo

// adoptNode is a Node as kubectl get nodes -o yaml shows a Karpenter
// node (reduced): its pool label (key=value), type, zone, capacity type.
func adoptNode(name, poolLabel, typ, zone, ct string) string {
	return fmt.Sprintf(`---
apiVersion: v1
kind: Node
metadata:
  name: %s
  labels:
    %s
    karpenter.sh/capacity-type: %s
    node.kubernetes.io/instance-type: %s
    topology.kubernetes.io/zone: %s
status:
  allocatable: {cpu: 1930m, memory: 7089Mi, pods: "29"}
`, name, poolLabel, ct, typ, zone)
}

// A Node labelled for a NodePool of the scenario becomes that pool's
// (legacy Provisioner label too); one labelled for a pool the scenario
// lacks, or that Karpenter could not have launched, stays static, the
// latter with a warning; one info line counts the adopted nodes.
func TestNodesAdoptedByTheirNodePool(t *testing.T) {
	sc, err := loadString(t, adoptHeader+
		adoptNode("a", "karpenter.sh/nodepool: general-purpose", "m5.large", "us-east-1a", "on-demand")+
		adoptNode("b", "karpenter.sh/provisioner-name: general-purpose", "m5.large", "us-east-1b", "spot")+
		adoptNode("c", "karpenter.sh/nodepool: other", "m5.large", "us-east-1a", "on-demand")+
		adoptNode("d", "karpenter.sh/nodepool: general-purpose", "m5.large", "us-east-1c", "on-demand")+
		adoptNode("e", "karpenter.sh/nodepool: general-purpose", "x9.huge", "us-east-1a", "on-demand")+
		adoptNode("f", "karpenter.sh/nodepool: general-purpose", "m5.large", "us-east-1a", "reserved"))
	require.NoError(t, err)
	owners := map[string]string{}
	for _, n := range sc.Nodes {
		owners[n.Name] = n.Owner.String() + "/" + n.OwnerName
	}
	require.Equal(t, map[string]string{
		"a": "karpenter/general-purpose", "b": "karpenter/general-purpose",
		"c": "static/Node/c", "d": "static/Node/d", "e": "static/Node/e", "f": "static/Node/f",
	}, owners)
	var infos, warns []string
	for _, w := range sc.Warnings {
		if w.Info {
			infos = append(infos, w.String())
		} else {
			warns = append(warns, w.String())
		}
	}
	require.Contains(t, infos, "scenario.yaml:26: NodePool general-purpose adopts the 2 start node(s) labelled with its name as its NodeClaims (a, b): Karpenter may consolidate, expire and drift them, and they count toward its limits")
	require.Contains(t, warns, "scenario.yaml:66: metadata.labels: node d belongs to NodePool general-purpose but its zone is not in spec.zones: it is simulated as a static node")
	require.Contains(t, warns, "scenario.yaml:78: metadata.labels: node e belongs to NodePool general-purpose but its instance type is not in the catalogue or has no price: it is simulated as a static node")
	require.Contains(t, warns, "scenario.yaml:90: metadata.labels: node f belongs to NodePool general-purpose but its karpenter.k8s.aws/capacity-reservation-id label names no reservation of its type and zone in spec.market.reservations: it is simulated as a static node")
	require.Equal(t, cluster.RegisterOwner("karpenter"), sc.Nodes[0].Owner)
}
