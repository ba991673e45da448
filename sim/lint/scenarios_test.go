package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

func TestHybridNaive(t *testing.T) {
	r := Check(loadEmbedded(t, "hybrid-naive"))
	spotOnly := findingsOf(r, KindSpotOnly)
	require.Len(t, spotOnly, 1)
	require.Equal(t, "Job/batch/render", spotOnly[0].Workload)
	require.Equal(t, "hybrid/workloads.yaml", spotOnly[0].File)
	require.Empty(t, findingsOf(r, KindRace))
	require.Empty(t, findingsOf(r, KindOverlap))
	sep := findingsOf(r, KindSeparated)
	require.Len(t, sep, 1, "the Karpenter/CA separation is correct")
	require.Equal(t, []string{"NodePool/burst-spot", "NodeGroup/core-on-demand"}, sep[0].Sources)
	require.Empty(t, findingsOf(r, KindUnhostable))

	render := cellOf(t, r, "Job/batch/render", "", "NodeGroup/core-on-demand")
	require.Equal(t, "untolerated taint capacity-type=on-demand:NoSchedule", render.Reason)
	api := cellOf(t, r, "Deployment/core/api", "", "NodePool/burst-spot (spot)")
	require.Equal(t, "untolerated taint karpenter.sh/capacity-type=spot:NoSchedule", api.Reason)
	require.Equal(t, 0, r.Count(Error))
}

func TestHybridIsolated(t *testing.T) {
	r := Check(loadEmbedded(t, "hybrid-isolated"))
	require.Empty(t, findingsOf(r, KindSpotOnly))
	fb := findingsOf(r, KindSpotFallback)
	require.Len(t, fb, 1, "the resubmit fallback is recognised")
	require.Equal(t, "Job/batch/render", fb[0].Workload)
	require.Contains(t, fb[0].Message, "its resubmit fallback (after 5m) can land on NodeGroup/core-on-demand")
	require.True(t, cellOf(t, r, "Job/batch/render", "resubmit after 5m", "NodeGroup/core-on-demand").CanLand)
	require.False(t, cellOf(t, r, "Job/batch/render", "resubmit after 5m", "NodePool/burst-spot (spot)").CanLand)
	require.Empty(t, findingsOf(r, KindRace))
	require.Len(t, findingsOf(r, KindSeparated), 1)
}

func TestHybridNaiveLegacy(t *testing.T) {
	r := Check(loadEmbedded(t, "hybrid-naive-legacy"))
	obsolete := findingsOf(r, KindObsolete)
	require.NotEmpty(t, obsolete)
	byPath := map[string]Finding{}
	for _, f := range obsolete {
		require.Equal(t, "hybrid/provisioner-legacy.yaml", f.File)
		byPath[f.Path] = f
	}
	require.Equal(t, "v1: consolidationPolicy: WhenEmpty, consolidateAfter: 30s", byPath["spec.ttlSecondsAfterEmpty"].Fix)
	require.Equal(t, "write effect: NoSchedule", byPath["spec.taints[0].effect"].Fix)
	require.Len(t, findingsOf(r, KindSpotOnly), 1)
}

// TestAgreesWithSimulation runs every embedded scenario and checks lint
// against what happened: every stranded pod belongs to a workload lint
// flags as unhostable, spot-only without fallback or with volumes in a
// zone no capacity source adds nodes in; lint's "can land"
// for static pools is the scheduler's StaticFit on the very nodes of the
// run; and every pod the run placed on a node landed where lint says it
// can.
func TestAgreesWithSimulation(t *testing.T) {
	for _, name := range scenarios.Names() {
		t.Run(name, func(t *testing.T) {
			sc := loadEmbedded(t, name)
			res := Check(sc)
			flagged := map[string]bool{}
			for _, f := range res.Findings {
				if f.Kind == KindUnhostable || f.Kind == KindSpotOnly || f.Kind == KindVolumeZone {
					flagged[f.Workload] = true
				}
			}
			rows := map[*cluster.PodSpec]Placement{}
			for i := range sc.Workloads {
				w := &sc.Workloads[i]
				for _, p := range res.Placements {
					if p.Workload != w.Ref() {
						continue
					}
					switch {
					case p.Variant == "":
						rows[w.Pod] = p
					case w.Fallback != nil:
						rows[w.Fallback.Pod] = p
					}
				}
			}
			cellFor := func(p Placement, source string) (Cell, bool) {
				for _, c := range p.Cells {
					if c.Source == source {
						return c, true
					}
				}
				return Cell{}, false
			}
			// A reserved node whose reservation ended runs on demand
			// (until drift replaces it) in a pool that need not allow
			// on-demand: no source of lint's.
			demoted := func(id string) bool {
				return strings.HasSuffix(id, "(on-demand)") && len(sc.Market.Reservations) > 0
			}
			checkedStatic, checkedNodes, checkedPlaced := 0, 0, 0
			rep, err := simulation.Run(sc, simulation.Options{Inspect: func(cl *cluster.Cluster) {
				// The scheduler's filters on every node of the run: for static
				// pools lint's verdict is StaticFit on some node; a node an
				// autoscaler added that accepts the pods is of a source lint
				// says can host them.
				for spec, row := range rows {
					fits := map[string]bool{}
					for i := range cl.Nodes {
						n := &cl.Nodes[i]
						m, _ := cluster.StaticFit(cl.Syms, spec, n, &n.Allocatable)
						id := sourceOf(n)
						fits[id] = fits[id] || m == cluster.Fits
					}
					for id, ok := range fits {
						c, found := cellFor(row, id)
						if !found && demoted(id) {
							continue
						}
						require.True(t, found, id)
						if strings.HasPrefix(id, "Node/") || strings.HasPrefix(id, "StaticPool/") {
							require.Equal(t, ok, c.CanLand, "%s on %s: lint says %v (%s), StaticFit says %v", row.Workload, id, c.CanLand, c.Reason, ok)
							checkedStatic++
						} else if ok {
							require.True(t, c.CanLand, "%s on %s: StaticFit accepts a node of the run, lint says %s", row.Workload, id, c.Reason)
							checkedNodes++
						}
					}
				}
				// Every placement the run made is one lint allows.
				for i := range cl.Pods {
					p := &cl.Pods[i]
					row, ok := rows[cl.TemplateSpec(p.Spec)] // a pod with volumes has a variant of its template's spec
					if !ok || p.Node == cluster.NoNode {
						continue
					}
					id := sourceOf(&cl.Nodes[p.Node])
					c, found := cellFor(row, id)
					if !found && demoted(id) {
						continue
					}
					require.True(t, found, "pod %s landed on %s, which lint does not list", p.Name, id)
					require.True(t, c.CanLand, "pod %s of %s landed on %s, where lint says it cannot: %s", p.Name, row.Workload, id, c.Reason)
					checkedPlaced++
				}
			}})
			require.NoError(t, err)
			require.Positive(t, checkedPlaced, "the run placed pods")
			if len(sc.Nodes) > 0 {
				require.Positive(t, checkedStatic)
			}
			// Nodes that never join (a scripted bad AMI rollout) strand
			// pods lint cannot foresee.
			joinIncident := false
			for _, e := range sc.Market.Events {
				joinIncident = joinIncident || e.JoinFailure > 0
			}
			stranded := 0
			for _, u := range rep.UnschedulablePods {
				if u.Stranded {
					require.True(t, flagged[u.Workload] || joinIncident, "pod %s of %s stranded, but lint flagged %v", u.Pod, u.Workload, flagged)
					stranded++
				}
			}
			require.Equal(t, rep.Pods.Stranded, stranded, "every stranded pod was ever unschedulable")
			t.Logf("%d placements, %d static verdicts and %d autoscaler sources agree; %d stranded pods, all of flagged workloads", checkedPlaced, checkedStatic, checkedNodes, stranded)
		})
	}
}

// sourceOf names the lint source of a node of a run.
func sourceOf(n *cluster.Node) string {
	switch {
	case n.Owner == cluster.RegisterOwner("karpenter"):
		return fmt.Sprintf("NodePool/%s (%s)", n.OwnerName, n.CapacityType)
	case n.Owner == cluster.RegisterOwner("cluster-autoscaler"):
		return "NodeGroup/" + n.OwnerName
	case strings.HasPrefix(n.OwnerName, "Node/"):
		return n.OwnerName
	}
	return "StaticPool/" + n.OwnerName
}

// loadEmbedded loads the embedded scenario name.
func loadEmbedded(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	sc, err := scenarios.Load(name)
	require.NoError(t, err)
	return sc
}
