package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// explainOf runs sim explain and returns its story.
func explainOf(t *testing.T, scenario, pod string) string {
	t.Helper()
	out, stderr, code := sim(t, "explain", scenario, "--pod", pod)
	require.Equal(t, 0, code, stderr)
	return out
}

// hybrid-naive's batch pods that arrive when spot has run dry strand: the
// story must name Karpenter's launch failures with their EC2 code and the
// unavailable offerings, and the Cluster Autoscaler's group that does not
// take them (its taint is not tolerated).
func TestExplainWhyNothingCameSpotExhausted(t *testing.T) {
	out := explainOf(t, "hybrid-naive", "batch/render-75")
	require.Contains(t, out, "No autoscaler launched a node for it.")
	// What the autoscalers said during the wait.
	require.Contains(t, out, "Cluster Autoscaler: pod didn't trigger scale-up: 1 node(s) had untolerated taint {capacity-type: on-demand} (core-on-demand)")
	require.Contains(t, out, `Karpenter: could not schedule pod, nodepool "burst-spot": every offering of the 3 instance types that fit is in the unavailable-offerings cache (insufficient capacity; the first expires at 43m00s): c5.large/us-east-1a/spot,`)
	require.Contains(t, out, `Karpenter: failed launching nodeclaim of nodepool "burst-spot": creating instance, with fleet error(s): InsufficientInstanceCapacity for c6i.large/us-east-1a/spot`)
	// The static part, from lint's matrix.
	require.Contains(t, out, "NodePool/burst-spot (spot): can launch c5.large, c5a.large, c6i.large for it")
	require.Contains(t, out, "NodeGroup/core-on-demand: never: untolerated taint capacity-type=on-demand:NoSchedule")
	// The launch failures while it waited.
	require.Contains(t, out, "While it waited (40m30s to 1h11m27s):")
	require.Regexp(t, `karpenter's launches failed \d+ x InsufficientInstanceCapacity on c5.large/us-east-1a/spot, `, out)
}

// A NodePool at its limit: the pods it has no room for wait for good.
func TestExplainWhyNothingCameNodePoolLimit(t *testing.T) {
	out := explainOf(t, filepath.Join("testdata", "explain", "karpenter-limit.yaml"), "web-8")
	require.Contains(t, out, `Karpenter: could not schedule pod, all available instance types exceed limits for nodepool: "limitcpu100" (spec.limits: cpu 0 of 4000m left)`)
	require.Contains(t, out, "While it waited (0.0s to the end):")
}

// A Cluster Autoscaler node group at its maximum size.
func TestExplainWhyNothingCameMaxSize(t *testing.T) {
	out := explainOf(t, filepath.Join("testdata", "explain", "ca-max-size.yaml"), "web-6")
	require.Contains(t, out, "Cluster Autoscaler: pod didn't trigger scale-up: 1 max node group size reached (managed-ng-public at 2)")
	require.Contains(t, out, "NodeGroup/managed-ng-public: can launch m5.large for it")
}

// A node group backed off after its spot launches failed: each new
// back-off is told once, and the launch failures carry their EC2 code.
func TestExplainWhyNothingCameBackedOff(t *testing.T) {
	out := explainOf(t, filepath.Join("testdata", "explain", "ca-backoff.yaml"), "web-1")
	require.Contains(t, out, "Cluster Autoscaler: pod didn't trigger scale-up: 1 in backoff after failed scale-up (spot until 6m00s)")
	require.Contains(t, out, "Cluster Autoscaler: pod didn't trigger scale-up: 1 in backoff after failed scale-up (spot until 16m14s)")
	require.Regexp(t, `cluster-autoscaler's launches failed \d+ x InsufficientInstanceCapacity on c5.large/us-west-2a/spot`, out)
}

// The reasons go to --events too, once per reason and pod wait, and the
// report is the same with or without them.
func TestEventsNoLaunchKinds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "events.jsonl")
	with, stderr, code := sim(t, "run", "hybrid-naive", "-o", "json", "--events", path)
	require.Equal(t, 0, code, stderr)
	without, _, _ := sim(t, "run", "hybrid-naive", "-o", "json")
	require.Equal(t, without, with)
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	type key struct{ kind, pod, cause string }
	seen := map[key]int{}
	kinds := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e struct{ Kind, Pod, Cause, Message string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &e))
		if e.Kind == "karpenterNoLaunch" || e.Kind == "caNoScaleUp" {
			kinds[e.Kind]++
			seen[key{e.Kind, e.Pod, e.Cause}]++
			require.NotEmpty(t, e.Message)
		}
	}
	require.NoError(t, sc.Err())
	require.Positive(t, kinds["karpenterNoLaunch"])
	require.Positive(t, kinds["caNoScaleUp"])
	// Bound pods start over, but hybrid-naive's batch pods wait once.
	for k, n := range seen {
		require.Equal(t, 1, n, "%v told %d times", k, n)
	}
}

// A pod no NodePool matches: Karpenter's reason per pool, in weight order
// (ties by name, descending), and lint's answer per pool.
func TestExplainWhyNothingCameNoNodePool(t *testing.T) {
	out := explainOf(t, filepath.Join("testdata", "explain", "karpenter-no-match.yaml"), "arm64-1")
	require.Contains(t, out, `Karpenter: could not schedule pod, incompatible with nodepool "limitcpu100", incompatible requirements, key kubernetes.io/arch, kubernetes.io/arch In [arm64] not in kubernetes.io/arch In [amd64]; incompatible with nodepool "dedicated", did not tolerate taint dedicated=batch:NoSchedule`)
	require.Contains(t, out, "NodePool/dedicated (on-demand): never: untolerated taint dedicated=batch:NoSchedule")
	require.Contains(t, out, "NodePool/limitcpu100 (on-demand): never: no instance type satisfies the requirements")
}

// A burst into one spot pool that holds 10 instances: the pods left over
// are told apart from a dry regime, the pool's depth is named.
func TestExplainWhyNothingCamePoolDepth(t *testing.T) {
	out := explainOf(t, filepath.Join("testdata", "explain", "depth-burst.yaml"), "web-58")
	require.Contains(t, out, "No autoscaler launched a node for it.")
	require.Regexp(t, `karpenter's launches failed \d+ x InsufficientInstanceCapacity \(pool depth used up: partial fulfilment\) on c5.xlarge/us-east-1a/spot`, out)
}

// ca-priority-fallback's spot managed node group: EKS drains a node on its
// interruption notice, and the story of a pod evicted by that drain says
// so.
func TestExplainSpotDrain(t *testing.T) {
	out := explainOf(t, "ca-priority-fallback", "batch/render-15")
	require.Contains(t, out, "deleted: evicted (a drain ahead of the reclaim: batch-spot-1 got a spot interruption notice at 40m00s)")
}

// ip-exhaustion: a pod bound to a node whose subnet has no free address
// waits ContainerCreating, and its story says so.
func TestExplainIPWait(t *testing.T) {
	out := explainOf(t, "ip-exhaustion", "batch/render-43")
	require.Contains(t, out, "running, after 6m23s ContainerCreating: no free address in its node's subnet (spec.network) until then")
}

// A bad AMI rollout (a market joinFailure event): the story of a pod that
// waited on nodes that never joined names the cause and the timeout each
// autoscaler gave up after.
func TestExplainNodesThatNeverJoined(t *testing.T) {
	scenario := filepath.Join("testdata", "explain", "bad-ami.yaml")
	out := explainOf(t, scenario, "web-1")
	require.Contains(t, out, "karpenter launched default-bbbbc (c6g.medium, us-east-1a, on-demand) for it at 1.0s; it never joined the cluster (its bootstrap failed: the kubelet never registered), and Karpenter deleted its NodeClaim at 15m01s, after the 15m00s registration timeout, and provisioned again")
	require.Contains(t, out, "karpenter launched default-bbbbf (c6g.medium, us-east-1a, on-demand) for it at 30m03s\n")
	require.Contains(t, out, "bound to default-bbbbf")
	out = explainOf(t, scenario, "api-1")
	require.Contains(t, out, "cluster-autoscaler launched ng-1 (m5.large, us-east-1a, on-demand) for it at 10.2s; it never joined the cluster (its bootstrap failed: the kubelet never registered), and the Cluster Autoscaler removed it at 15m19s as unregistered for longer than --max-node-provision-time (15m00s; a scale-up still waiting for it timed out then and backed node group ng off)")
	require.Contains(t, out, "Cluster Autoscaler: pod didn't trigger scale-up: 1 in backoff after failed scale-up (ng until 20m19s)")
	require.Contains(t, out, "bound to ng-3")
}

// A slow join (market.join.slowShare) is named too.
func TestExplainSlowJoin(t *testing.T) {
	out := explainOf(t, filepath.Join("testdata", "explain", "slow-join.yaml"), "web-1")
	require.Contains(t, out, "karpenter launched default-bbbbc (t4g.small, us-east-1a, on-demand) for it at 1.0s; it joined only 6m40s later (a slow bootstrap)")
}

// TestExplainVolumeZone: a replica stranded by its volume's zone: the
// story shows where its claim was provisioned, and the explanation names
// the claim, its zone and why no capacity source adds a node there.
func TestExplainVolumeZone(t *testing.T) {
	out := explainOf(t, "stateful-zone-ca", "db-2")
	require.Contains(t, out, "Cluster Autoscaler: pod didn't trigger scale-up: 2 node(s) had volume node affinity conflict (db-spot, db-on-demand)")
	require.Contains(t, out, "11m52s  volume provisioned for data/data-db-2 (StorageClass gp3, WaitForFirstConsumer) in us-east-1c")
	require.Contains(t, out, "Its volumes:\n  - claim data/data-db-2 (StorageClass gp3, WaitForFirstConsumer) was provisioned in us-east-1c at 11m52s, where its pod first landed on db-spot-3: the pod can run only in us-east-1c\n  - the scheduler rejects the other nodes: node(s) had volume node affinity conflict\n")
	require.Contains(t, out, "    - NodeGroup/db-spot: never: starts with no nodes and the Cluster Autoscaler never scales it up for these pods (its template: its volumes cannot be used in us-east-1a (node(s) had volume node affinity conflict))\n")
}

// TestExplainOrderedHalt: a StatefulSet replica lost and not created again
// because a lower ordinal is not Running and Ready (OrderedReady) says so,
// naming that ordinal; the replica that strands does not.
func TestExplainOrderedHalt(t *testing.T) {
	scenario := filepath.Join("testdata", "explain", "ordered-halt.yaml")
	out := explainOf(t, scenario, "db-1")
	require.Contains(t, out, "32m00s  deleted: nodeGone")
	require.Contains(t, out, "\nNot created again by the end: StatefulSet/default/db has podManagementPolicy OrderedReady, which creates a replica only once every lower ordinal is Running and Ready, and default/db-0 was pending at the end.\n")
	require.NotContains(t, explainOf(t, scenario, "db-0"), "Not created again")
}

// A lower ordinal that runs but is not Ready yet by its readiness probe
// (5 min after its start) holds a lost replica back too, and sim explain
// says it is not Ready, not just that it runs.
func TestExplainOrderedNotReady(t *testing.T) {
	out := explainOf(t, filepath.Join("testdata", "explain", "ordered-not-ready.yaml"), "db-1")
	require.Contains(t, out, "\nNot created again by the end: StatefulSet/default/db has podManagementPolicy OrderedReady, which creates a replica only once every lower ordinal is Running and Ready, and default/db-0 was running but not Ready yet (its probes pass 5m0s after its start) at the end.\n")
}

// explainAt is the instant of a line of sim explain's story ("  31.5s
// running").
func explainAt(t *testing.T, story, what string) time.Duration {
	t.Helper()
	m := regexp.MustCompile(`(?m)^\s+(\S+)  ` + regexp.QuoteMeta(what) + `$`).FindStringSubmatch(story)
	require.NotNil(t, m, "no %q in:\n%s", what, story)
	d, err := time.ParseDuration(m[1])
	require.NoError(t, err)
	return d
}

// The Kubernetes documentation's ZooKeeper StatefulSet (a verbatim copy):
// OrderedReady creates zk-1 once zk-0 is Ready, 10 s after it runs (its
// readinessProbe's initialDelaySeconds 10 and default periodSeconds 10,
// kubelet.ReadyAfter), and zk-2 10 s after zk-1 runs; before readiness
// probes were read it was created the instant zk-0 ran.
func TestExplainZooKeeperReadiness(t *testing.T) {
	scenario := filepath.Join("testdata", "readiness", "scenario.yaml")
	for k := 1; k <= 2; k++ {
		prev := explainAt(t, explainOf(t, scenario, fmt.Sprintf("default/zk-%d", k-1)), "running")
		created := explainAt(t, explainOf(t, scenario, fmt.Sprintf("default/zk-%d", k)), "created")
		require.Equal(t, 10*time.Second, created-prev, "zk-%d is created 10 s after zk-%d runs", k, k-1)
	}
}

// A bad CNI rollout (a market joinFailure with mode registersNotReady):
// the story of a pod that waited on nodes that registered and never
// became Ready names the cause and what each autoscaler did: the Cluster
// Autoscaler removed them as unready nodes after --scale-down-unready-time,
// Karpenter kept its NodeClaim (Registered, never Initialized) without the
// NodeRepair gate.
func TestExplainNodesNeverReady(t *testing.T) {
	scenario := filepath.Join("testdata", "explain", "never-ready.yaml")
	out := explainOf(t, scenario, "api-1")
	require.Contains(t, out, "cluster-autoscaler launched ng-1 (m5.large, us-east-1a, on-demand) for it at 10.2s; it registered at 1m30s but never became Ready (Ready=False, tainted node.kubernetes.io/not-ready: no pod can land there); the Cluster Autoscaler expected it (NotStarted) for --max-node-startup-time (15m00s) after it registered, a scale-up waiting for it failing after --max-node-provision-time (15m00s), and removed it at 35m27s as an unready node unneeded for --scale-down-unready-time (20m00s)")
	require.Contains(t, out, "Cluster Autoscaler: pod didn't trigger scale-up: 1 in backoff after failed scale-up (ng until 20m19s)")
	require.Contains(t, out, "bound to ng-3")
	out = explainOf(t, scenario, "web-1")
	require.Contains(t, out, "karpenter launched default-bbbbc (c6g.medium, us-east-1a, on-demand) for it at 1.0s; it registered at 58.2s but never became Ready (Ready=False, tainted node.kubernetes.io/not-ready: no pod can land there); its NodeClaim was Registered, so the registration timeout no longer applied, and never Initialized: Karpenter kept it to the end as in-flight capacity the pod would land on (without the NodeRepair feature gate only its expireAfter removes it)")
	require.NotContains(t, out, "bound to")
}
