package simulation_test

import (
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

// reservationScenario is a scenario with one Deployment of 1-CPU pods on
// a Karpenter NodePool allowing capacityTypes, an EC2NodeClass selecting
// every reservation tagged team: web (the Karpenter docs' tag term), and
// the reservations given.
func reservationScenario(t *testing.T, duration, karpenterSpec, reservations, capacityTypes string, replicas int) *scenario.Scenario {
	t.Helper()
	doc := `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: reservations}
spec:
  duration: ` + duration + `
  region: us-east-1
  zones: [us-east-1a, us-east-1b]
  market:
    model: "off"
    reservations:
` + reservations + karpenterSpec + `
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: app, namespace: default}
spec:
  replicas: ` + strconv.Itoa(replicas) + `
  selector: {matchLabels: {app: app}}
  template:
    metadata: {labels: {app: app}}
    spec:
      containers: [{name: app, image: app, resources: {requests: {cpu: "1", memory: 1Gi}}}]
---
apiVersion: karpenter.sh/v1
kind: NodePool
metadata: {name: app}
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: reserved}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [` + capacityTypes + `]}
        - {key: karpenter.k8s.aws/instance-category, operator: In, values: [m]}
  disruption: {consolidationPolicy: WhenEmpty, consolidateAfter: 1m}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: reserved}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: demo}}]
  capacityReservationSelectorTerms:
    - tags: {team: web}
`
	sc, err := scenario.LoadManifests("reservations.yaml", []byte(doc), nil)
	require.NoError(t, err)
	return sc
}

type runNode struct {
	typ, zone, reservation string
	ct                     cluster.CapacityType
	gone                   bool
	deleted                float64
}

func runReservations(t *testing.T, sc *scenario.Scenario) ([]runNode, *report.Report, karpenter.Stats) {
	t.Helper()
	var nodes []runNode
	var stats karpenter.Stats
	rep, err := simulation.Run(sc, simulation.Options{Check: true, Inspect: func(cl *cluster.Cluster) {
		key := cl.Syms.Intern("karpenter.k8s.aws/capacity-reservation-id")
		for i := range cl.Nodes {
			n := &cl.Nodes[i]
			rn := runNode{typ: n.InstanceType, zone: cl.Syms.Name(n.Zone), ct: n.CapacityType, gone: n.State == cluster.NodeGone, deleted: n.Deleted.Seconds()}
			if v, ok := n.Labels.Get(key); ok {
				rn.reservation = cl.Syms.Name(v)
			}
			nodes = append(nodes, rn)
		}
	}})
	require.NoError(t, err)
	for _, m := range rep.Models {
		if s, ok := m.Figures.(karpenter.Stats); ok {
			stats = s
		}
	}
	return nodes, rep, stats
}

const twoODCRs = `      - {id: cr-56fac701cc1951b03, instanceType: m5.xlarge, zone: us-east-1a, count: 2, tags: {team: web}}
      - {id: cr-0a1b2c3d4e5f67890, instanceType: m5.xlarge, zone: us-east-1b, count: 1, tags: {team: other}}
`

// Karpenter fills the reservations its EC2NodeClass selects first, with
// NodeClaims no bigger than the reserved type (provisioning is strict:
// a pod that would leave a NodeClaim without its reservation goes to
// another), and overflows to spot; the unselected reservation is billed
// and never used. With the gate off nothing launches reserved.
func TestReservationsFirstThenSpot(t *testing.T) {
	sc := reservationScenario(t, "2h", "", twoODCRs, "reserved, spot", 9)
	nodes, rep, stats := runReservations(t, sc)
	var reserved, spot int
	for _, n := range nodes {
		switch n.ct {
		case cluster.Reserved:
			reserved++
			assert.Equal(t, "m5.xlarge", n.typ)
			assert.Equal(t, "us-east-1a", n.zone)
			assert.Equal(t, "cr-56fac701cc1951b03", n.reservation)
		case cluster.Spot:
			spot++
		default:
			t.Errorf("node of capacity type %s", n.ct)
		}
	}
	assert.Equal(t, 2, reserved, "both slots of the selected reservation")
	assert.Positive(t, spot, "the rest overflows to spot")
	assert.Equal(t, int64(2), stats.ReservedLaunches)
	assert.Zero(t, rep.Pods.PendingAtEnd)
	require.Len(t, rep.Reservations, 2)
	assert.InDelta(t, 4, rep.Reservations[0].ReservedHours, 1e-9)
	assert.Greater(t, rep.Reservations[0].UtilizationPct, 90.0)
	assert.Zero(t, rep.Reservations[1].UsedHours, "selected by no EC2NodeClass")
	od := 0.192 // m5.xlarge on demand in us-east-1
	assert.InDelta(t, (4+2)*od, rep.Cost.ReservationsUSD, 1e-6, "both billed, used or not")
	found := false
	for _, w := range rep.Warnings {
		found = found || strings.Contains(w, "cr-0a1b2c3d4e5f67890 (1 x m5.xlarge in us-east-1b) is selected by no EC2NodeClass")
	}
	assert.True(t, found, "the unused reservation is named: %v", rep.Warnings)

	off := reservationScenario(t, "2h", "  karpenter: {featureGates: {reservedCapacity: false}}\n", twoODCRs, "reserved, spot", 9)
	nodes, rep, _ = runReservations(t, off)
	for _, n := range nodes {
		assert.Equal(t, cluster.Spot, n.ct, "gate off: no reserved offering")
	}
	found = false
	for _, w := range rep.Warnings {
		found = found || strings.Contains(w, "the ReservedCapacity feature gate is off")
	}
	assert.True(t, found, "one line names the gate: %v", rep.Warnings)
}

// When an ODCR ends its instances run on as on-demand instances
// (KA capacityreservation.capacitytype relabels them); a NodePool that
// does not allow on-demand drifts them and replaces them, one that does
// keeps them.
func TestReservationEndDemotes(t *testing.T) {
	const ending = "      - {id: cr-56fac701cc1951b03, instanceType: m5.xlarge, zone: us-east-1a, count: 1, tags: {team: web}, end: 1h}\n"
	nodes, _, stats := runReservations(t, reservationScenario(t, "3h", "", ending, "reserved, spot", 3))
	assert.Equal(t, int64(1), stats.ReservationsDemoted)
	assert.Equal(t, int64(1), stats.Disruptions.Drifted, "on-demand is not allowed: drifted")
	for _, n := range nodes {
		if !n.gone {
			assert.Equal(t, cluster.Spot, n.ct, "the replacement is spot")
		}
	}
	nodes, _, stats = runReservations(t, reservationScenario(t, "3h", "", ending, "reserved, on-demand", 3))
	assert.Equal(t, int64(1), stats.ReservationsDemoted)
	assert.Zero(t, stats.Disruptions.Drifted)
	require.Len(t, nodes, 1)
	assert.Equal(t, cluster.OnDemand, nodes[0].ct)
	assert.Empty(t, nodes[0].reservation, "the reservation labels are gone")
}

// A Capacity Block's nodes are deleted 40 minutes before its end (KA
// capacityreservation.expiration), ten before EC2 would reclaim them; a
// pool of reserved capacity only then has nowhere to put the pods.
func TestCapacityBlockExpires(t *testing.T) {
	const block = "      - {id: cr-0aaaaaaaaaaaaaaa1, instanceType: m5.xlarge, zone: us-east-1b, count: 1, type: capacity-block, tags: {team: web}, end: 2h}\n"
	nodes, rep, stats := runReservations(t, reservationScenario(t, "3h", "", block, "reserved", 2))
	require.Len(t, nodes, 1)
	assert.True(t, nodes[0].gone)
	assert.InDelta(t, (80 * 60), nodes[0].deleted, 60, "deleted at 1h20m, drained in seconds")
	assert.Equal(t, int64(1), stats.Disruptions.CapacityBlockExpiring)
	assert.Equal(t, 2, rep.Pods.PendingAtEnd, "reserved only: nothing else hosts them")
	assert.InDelta(t, 2, rep.Reservations[0].ReservedHours, 1e-9)
}

// The findings on a reservation setting that cannot do what the user
// expects: a class selecting reservations no pool may launch into, a
// pool allowing reserved whose class selects none, and terms selecting
// none of spec.market.reservations.
func TestReservationFindings(t *testing.T) {
	codes := func(sc *scenario.Scenario) []string {
		var out []string
		for _, w := range sc.Warnings {
			if strings.Contains(w.Code, "reserv") {
				out = append(out, w.Code)
			}
		}
		return out
	}
	// A pool of on-demand only: the selected reservation is billed, never used.
	sc := reservationScenario(t, "1h", "", twoODCRs, "on-demand", 1)
	assert.Contains(t, codes(sc), "ineffective.reservation-not-allowed")
	// Terms that select none of the reservations: a pool allowing
	// reserved finds none.
	const other = "      - {id: cr-0a1b2c3d4e5f67890, instanceType: m5.xlarge, zone: us-east-1b, count: 1, tags: {team: other}}\n"
	sc = reservationScenario(t, "1h", "", other, "reserved, on-demand", 1)
	got := codes(sc)
	assert.Contains(t, got, "ineffective.reservation-unmatched")
	assert.Contains(t, got, "ineffective.reserved-without-reservation")
	assert.Contains(t, got, "ineffective.reservation-unused")
	// All in order: no finding.
	sc = reservationScenario(t, "1h", "", "      - {id: cr-56fac701cc1951b03, instanceType: m5.xlarge, zone: us-east-1a, count: 2, tags: {team: web}}\n", "reserved, on-demand", 1)
	assert.Empty(t, codes(sc))
}
