package importer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/scenario"
)

// reservedExport is two nodes Karpenter launched into an ODCR, as kubectl
// get nodes -o yaml writes them (the labels KA puts on reserved nodes),
// with their NodePool and an EC2NodeClass selecting reservations by tag
// (the Karpenter docs' term, tasks/odcrs).
var reservedExport = `apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {name: reserved}
  spec:
    template:
      spec:
        nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: odcr}
        requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [reserved, on-demand]}]
- apiVersion: karpenter.k8s.aws/v1
  kind: EC2NodeClass
  metadata: {name: odcr}
  spec:
    amiSelectorTerms: [{alias: al2023@latest}]
    role: KarpenterNodeRole-prod
    subnetSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]
    securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: prod}}]
    capacityReservationSelectorTerms: [{tags: {application: foobar}, ownerID: "111122223333"}]
` + reservedNode("ip-10-0-1-10.ec2.internal") + reservedNode("ip-10-0-1-11.ec2.internal")

func reservedNode(name string) string {
	return `- apiVersion: v1
  kind: Node
  metadata:
    name: ` + name + `
    creationTimestamp: "2026-11-30T08:00:00Z"
    labels:
      karpenter.sh/nodepool: reserved
      karpenter.sh/capacity-type: reserved
      karpenter.k8s.aws/ec2nodeclass: odcr
      karpenter.k8s.aws/capacity-reservation-id: cr-56fac701cc1951b03
      karpenter.k8s.aws/capacity-reservation-type: default
      karpenter.k8s.aws/capacity-reservation-interruptible: "false"
      node.kubernetes.io/instance-type: m5.xlarge
      topology.kubernetes.io/zone: us-east-1a
      topology.kubernetes.io/region: us-east-1
      kubernetes.io/os: linux
      kubernetes.io/arch: amd64
  status:
    allocatable: {cpu: 3920m, memory: 14Gi, pods: "58", ephemeral-storage: 18Gi}
    conditions: [{type: Ready, status: "True", lastHeartbeatTime: "2026-12-01T10:00:00Z"}]
`
}

// Reserved nodes of an export come back as Karpenter's nodes in their
// reservation: sim import writes the reservation (as large as the nodes
// in it, a notice asks for the rest), their EC2NodeClass selects it by
// id (the tag term and its owner are the account's and are not kept),
// and with --redact the id is pseudonymised alike in all three places.
func TestImportKeepsReservedNodes(t *testing.T) {
	for _, redact := range []bool{false, true} {
		im := New(Options{Redact: redact, Duration: "1h"}, nil)
		require.NoError(t, im.Add("cluster.yaml", strings.NewReader(reservedExport)))
		var out bytes.Buffer
		require.NoError(t, im.Write(&out))
		s := out.String()
		require.NotContains(t, s, "111122223333")
		require.NotContains(t, s, "foobar")
		if redact {
			require.NotContains(t, s, "cr-56fac701cc1951b03")
		}
		var noticed bool
		for _, n := range im.Notices() {
			noticed = noticed || strings.Contains(n.Msg, "written to spec.market.reservations with count 2")
		}
		require.True(t, noticed, "%v", im.Notices())

		sc, err := scenario.LoadManifests("imported.yaml", out.Bytes(), nil)
		require.NoError(t, err)
		require.Len(t, sc.Market.Reservations, 1)
		r := sc.Market.Reservations[0]
		require.Equal(t, 2, r.Count)
		require.Equal(t, "m5.xlarge", r.InstanceType)
		require.Equal(t, "us-east-1a", r.Zone)
		cfg := karpenter.ConfigIn(sc.Components)
		require.NotNil(t, cfg)
		require.True(t, cfg.NodePools[0].NodeClass.SelectsReservation(&r), "the class selects it by id")
		adopted := 0
		for _, n := range sc.Nodes {
			if n.Owner == cluster.RegisterOwner(karpenter.OwnerName) && n.CapacityType == cluster.Reserved {
				adopted++
			}
		}
		require.Equal(t, 2, adopted, "adopted by Karpenter, reserved")
	}
}
