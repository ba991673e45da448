// Package disruptionfidelity compares what clustersim's Karpenter model
// does to nodes after they launch (sim/karpenter's disruption: emptiness,
// drift, multi- and single-node consolidation, expiration, repair) with upstream
// Karpenter's disruption controller (sigs.k8s.io/karpenter v1.15.0
// pkg/controllers/disruption), on the same generated clusters, through the
// path a user takes: each case is written as the `kubectl get -o json`
// export of a live cluster, our side runs `sim import` and `sim run` on it
// and reads its disruption commands from `--events`; upstream's side loads
// the same objects into controller-runtime's fake client and runs its
// controllers' steps on them. Upstream is imported as a module here only;
// this nested module keeps it out of the simulator's build (it needs Go
// 1.26.9: GOTOOLCHAIN=go1.27.3, see the Makefile).
package disruptionfidelity

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	opstatus "github.com/awslabs/operatorpkg/status"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
)

// Region and Zones of every case (the catalogue's prices are us-east-1's).
const Region = "us-east-1"

// Zones of every case.
var Zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// ExportTime is when every case's export was taken: the Nodes' Ready
// conditions carry it, so `sim import` starts the run there.
var ExportTime = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// Upstream's hash annotations (KC pkg/apis/v1/labels.go, KA
// pkg/apis/v1/labels.go) and the hash versions of v1.15.0.
const (
	NodePoolHashKey         = "karpenter.sh/nodepool-hash"
	NodePoolHashVersionKey  = "karpenter.sh/nodepool-hash-version"
	NodeClassHashKey        = "karpenter.k8s.aws/ec2nodeclass-hash"
	NodeClassHashVersionKey = "karpenter.k8s.aws/ec2nodeclass-hash-version"
	NodePoolHashVersion     = "v3"
	NodeClassHashVersion    = "v4"
)

// Case is one cluster as a user would export it, with the settings the
// run needs (the feature gate) and the instance types both sides price.
type Case struct {
	Name string
	// Shape names what the case exercises, for the report.
	Shape      []string
	SpotToSpot bool
	// NodeRepair is the NodeRepair feature gate (on in the repair cases).
	NodeRepair bool
	// Static: a pool is static (spec.replicas), the StaticCapacity gate
	// on (the static set, static.go).
	Static bool
	// NodeClassHash is the EC2NodeClass's hash annotation.
	NodeClassHash string
	// drift and expiring: the generator's knobs (some nodes drifted; a
	// pool with a short expireAfter).
	drift, expiring bool
	// side draws the knobs added after the pinned cases were chosen
	// (pinned_test.go), so that the main stream, and so every earlier
	// case, stays as it was.
	side *rand.Rand
	// policy draws which pools are Balanced (v1.14), a stream of its own
	// so that side's knobs stay as they were too.
	policy *rand.Rand

	Pools       []*karpv1.NodePool
	NodeClaims  []*karpv1.NodeClaim
	Nodes       []*corev1.Node
	Deployments []*appsv1.Deployment
	ReplicaSets []*appsv1.ReplicaSet
	DaemonSets  []*appsv1.DaemonSet
	Pods        []*corev1.Pod
	PDBs        []*policyv1.PodDisruptionBudget

	// Types are the instance types the pools may launch, as our model
	// sizes them, with the offerings our market sells (market off).
	Types []InstanceType
}

// InstanceType is an instance type of a case: labels, capacity and
// allocatable as our model gives them, and its offerings.
type InstanceType struct {
	Name                  string
	Labels                map[string]string
	Capacity, Allocatable corev1.ResourceList
	Offerings             []Offering
}

// Offering is one instance type x zone x capacity type that is sold, at
// its price in USD per hour.
type Offering struct {
	Zone, CapacityType string
	Price              float64
}

// Catalogue is what the generator draws from: instance types as our
// model sizes them and prices them (see BuildCatalogue).
type Catalogue struct {
	Types  []InstanceType
	byName map[string]int
}

// Lookup returns the named type.
func (c *Catalogue) Lookup(name string) (InstanceType, bool) {
	i, ok := c.byName[name]
	if !ok {
		return InstanceType{}, false
	}
	return c.Types[i], true
}

// families the generator draws node types from: general purpose, compute
// and memory, Intel, AMD and Graviton, two generations.
var families = []string{"m5", "c5", "r5", "m6i", "c6i", "r6i", "m6a", "c6a", "m6g", "c6g", "r6g", "m7i", "c7i", "t3"}

var sizes = []string{"large", "xlarge", "2xlarge", "4xlarge"}

// Generate makes n cases from seed.
func Generate(cat *Catalogue, seed uint64, n int) []*Case {
	var out []*Case
	for i := 0; i < n; i++ {
		rng := rand.New(rand.NewPCG(seed, uint64(i)+1))
		side := rand.New(rand.NewPCG(seed^sideSeed, uint64(i)+1))
		c := generateOne(cat, rng, side, rand.New(rand.NewPCG(seed^policySeed, uint64(i)+1)), fmt.Sprintf("case-%03d", i))
		out = append(out, c)
	}
	return out
}

// GenerateRepair makes n repair cases from seed, named repair-NNN: each
// a cluster drawn as Generate draws one (from streams of their own, so
// Generate's cases stay as they were) with some nodes unhealthy and the
// NodeRepair gate on (markUnhealthy).
func GenerateRepair(cat *Catalogue, seed uint64, n int) []*Case {
	var out []*Case
	for i := 0; i < n; i++ {
		s := seed ^ repairSeed
		c := generateOne(cat, rand.New(rand.NewPCG(s, uint64(i)+1)), rand.New(rand.NewPCG(s^sideSeed, uint64(i)+1)),
			rand.New(rand.NewPCG(s^policySeed, uint64(i)+1)), fmt.Sprintf("repair-%03d", i))
		markUnhealthy(c, rand.New(rand.NewPCG(s^0xbad, uint64(i)+1)))
		out = append(out, c)
	}
	return out
}

// pool is a NodePool of a case with what the generator needs of it.
type pool struct {
	np    *karpv1.NodePool
	types []string // the catalogue types its requirements allow
	cts   []string
	// driftTypes: when the pool's requirements were narrowed after some
	// nodes launched (drift by requirements), the types it had before.
	driftTypes []string
	// oldExpire: when the pool's expireAfter was changed oldExpireAgo
	// before the export, the value before; the NodeClaims launched
	// earlier keep it in their spec.expireAfter (upstream expires each by
	// its own) and carry the template's hash of then, oldHash (drift:
	// expireAfter is part of the template's hash).
	oldExpire    string
	oldExpireAgo time.Duration
	oldHash      string
}

// sideSeed sets Case.side's stream apart from the main one.
const sideSeed = 0x5eed5eed

// policySeed sets Case.policy's stream apart.
const policySeed = 0xba1a

// repairSeed sets GenerateRepair's streams apart.
const repairSeed = 0x4e9a1

// unhealthyConditions are the conditions the repair cases set: the
// kubelet's Ready False or Unknown and the node monitoring agent's, which
// the AWS provider's RepairPolicies tolerate 30 min (its
// AcceleratedHardwareReady, 10 min, needs GPU types, which the cases'
// families have none of).
var unhealthyConditions = []corev1.NodeCondition{
	{Type: corev1.NodeReady, Status: corev1.ConditionFalse, Reason: "KubeletNotReady"},
	{Type: corev1.NodeReady, Status: corev1.ConditionUnknown, Reason: "NodeStatusUnknown"},
	{Type: "StorageReady", Status: corev1.ConditionFalse, Reason: "EBSVolumeIOError"},
	{Type: "NetworkingReady", Status: corev1.ConditionFalse, Reason: "InterfaceNotUp"},
	{Type: "KernelReady", Status: corev1.ConditionFalse, Reason: "KernelBug"},
	{Type: "ContainerRuntimeReady", Status: corev1.ConditionFalse, Reason: "PodStuckTerminating"},
}

// repairToleration is the AWS provider's toleration of every condition of
// unhealthyConditions.
const repairToleration = 30 * time.Minute

// markUnhealthy makes c a repair case (the NodeRepair gate on): some of
// its nodes report an unhealthy condition, set before
// the export by more than the toleration (due) or less (not yet), and a
// pool with more than 20% of its nodes unhealthy now and then (node
// repair's breaker: none of its nodes is repaired). A Ready condition
// that is not True carries the node lifecycle controller's NoExecute
// taint, as a live cluster shows it.
func markUnhealthy(c *Case, r *rand.Rand) {
	c.NodeRepair = true
	if len(c.Nodes) == 0 {
		return
	}
	c.Shape = append(c.Shape, "repair")
	share := []float64{0.05, 0.12, 0.3}[r.IntN(3)]
	picked := make([]bool, len(c.Nodes))
	any := false
	for i := range c.Nodes {
		if r.Float64() < share {
			picked[i], any = true, true
		}
	}
	if !any {
		picked[r.IntN(len(c.Nodes))] = true
	}
	unhealthy, total := map[string]int{}, map[string]int{}
	for i, n := range c.Nodes {
		pool := n.Labels[karpv1.NodePoolLabelKey]
		total[pool]++
		if !picked[i] {
			continue
		}
		unhealthy[pool]++
		cond := unhealthyConditions[r.IntN(len(unhealthyConditions))]
		ago := time.Duration(1+r.IntN(int(repairToleration/time.Second)-1)) * time.Second
		if r.IntN(2) == 0 {
			ago = repairToleration + time.Duration(1+r.IntN(3*3600))*time.Second
		}
		at := ExportTime.Add(-ago)
		if created := n.CreationTimestamp.Add(30 * time.Second); at.Before(created) {
			at = created
		}
		cond.LastTransitionTime = metav1.NewTime(at)
		if !at.Add(repairToleration).After(ExportTime) {
			c.Shape = appendOnce(c.Shape, "repair-due")
		} else {
			c.Shape = appendOnce(c.Shape, "repair-not-due")
		}
		cond.LastHeartbeatTime = metav1.NewTime(ExportTime)
		if cond.Type != corev1.NodeReady {
			n.Status.Conditions = append(n.Status.Conditions, cond)
			continue
		}
		taint := corev1.TaintNodeNotReady
		if cond.Status == corev1.ConditionUnknown {
			// The kubelet stopped posting: the heartbeat is the last it sent.
			taint = corev1.TaintNodeUnreachable
			cond.LastHeartbeatTime = metav1.NewTime(at.Add(-40 * time.Second))
		}
		n.Status.Conditions[0] = cond
		n.Spec.Taints = append(append([]corev1.Taint(nil), n.Spec.Taints...), corev1.Taint{Key: taint, Effect: corev1.TaintEffectNoExecute, TimeAdded: &cond.LastTransitionTime})
	}
	for pool, u := range unhealthy {
		// KC repairUnhealthyThreshold: more than 20% (rounded up).
		if allowed := (total[pool]*20 + 99) / 100; u > allowed {
			c.Shape = appendOnce(c.Shape, "repair-breaker")
		}
	}
}

func generateOne(cat *Catalogue, rng, side, policy *rand.Rand, name string) *Case {
	c := &Case{Name: name, NodeClassHash: strconv.FormatUint(rng.Uint64(), 10), side: side, policy: policy}
	c.SpotToSpot = rng.IntN(3) == 0
	// Case-level knobs, so that every method gets cases where it is the
	// first to act: the share of empty nodes, whether anything drifted or
	// expires.
	emptyShare := []float64{0, 0, 0.04, 0.15}[rng.IntN(4)]
	c.drift = rng.IntN(4) == 0
	c.expiring = rng.IntN(8) == 0
	if c.SpotToSpot {
		c.Shape = append(c.Shape, "spot-to-spot")
	}
	shape := func(s string) {
		for _, x := range c.Shape {
			if x == s {
				return
			}
		}
		c.Shape = append(c.Shape, s)
	}

	// Pools.
	nPools := 1 + rng.IntN(3)
	var pools []*pool
	for p := 0; p < nPools; p++ {
		pools = append(pools, genPool(c, cat, rng, p, shape))
	}
	for _, p := range pools {
		c.Pools = append(c.Pools, p.np)
	}

	// DaemonSets: none, one small, or two.
	var daemons []corev1.ResourceList
	nDS := rng.IntN(3)
	for d := 0; d < nDS; d++ {
		req := corev1.ResourceList{corev1.ResourceCPU: milli(int64(50 + 50*rng.IntN(4))), corev1.ResourceMemory: mebi(int64(64 * (1 + rng.IntN(4))))}
		ds := &appsv1.DaemonSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("agent-%d", d), Namespace: "kube-system", UID: uid("ds", d), CreationTimestamp: metav1.NewTime(ExportTime.Add(-40 * 24 * time.Hour))},
			Spec: appsv1.DaemonSetSpec{
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": fmt.Sprintf("agent-%d", d)}},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": fmt.Sprintf("agent-%d", d)}},
					Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:1", Resources: corev1.ResourceRequirements{Requests: req}}},
						Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}},
			},
		}
		c.DaemonSets = append(c.DaemonSets, ds)
		daemons = append(daemons, req)
	}
	if nDS > 0 {
		shape("daemonsets")
	}

	// Nodes.
	nNodes := 3 + rng.IntN(58)
	if rng.IntN(4) == 0 {
		nNodes = 3 + rng.IntN(8)
	}
	type nodeRoom struct {
		node  *corev1.Node
		free  cluster.Resources // cpu milli, memory bytes, pods
		limit float64           // utilisation the generator fills it to
		pods  int
		pool  *pool
	}
	var rooms []*nodeRoom
	for i := 0; i < nNodes; i++ {
		p := pools[rng.IntN(len(pools))]
		typeList := p.types
		drifted := false
		if len(p.driftTypes) > 0 && rng.IntN(2) == 0 {
			typeList, drifted = p.driftTypes, true
		}
		it, off, ok := pickOffering(cat, rng, typeList, p.cts)
		if !ok {
			continue
		}
		if drifted && containsString(p.types, it.Name) {
			drifted = false
		}
		age := time.Duration(10+rng.IntN(60*24*20)) * time.Minute
		if rng.IntN(5) == 0 {
			age = time.Duration(2+rng.IntN(30)) * time.Minute
		}
		n, nc, hashDrift := genNode(rng, c, p, it, off, i, age)
		if drifted {
			shape("drift-requirements")
		}
		if drifted || hashDrift {
			// Karpenter marked it Drifted when its pool or class changed,
			// some minutes to hours ago (not before it launched).
			at := ExportTime.Add(-time.Duration(60+rng.IntN(6*3600)) * time.Second)
			if at.Before(nc.CreationTimestamp.Time) {
				at = nc.CreationTimestamp.Add(2 * time.Minute)
			}
			nc.Status.Conditions = append(nc.Status.Conditions, opstatus.Condition{Type: karpv1.ConditionTypeDrifted, Status: metav1.ConditionTrue,
				Reason: "Drifted", LastTransitionTime: metav1.NewTime(at), ObservedGeneration: 1})
		}
		// Pod events: most nodes saw their last pod event a while ago;
		// some within the last minutes, so that consolidateAfter matters.
		last := ExportTime.Add(-time.Duration(rng.IntN(6*60)) * time.Second)
		if rng.IntN(3) == 0 {
			last = ExportTime.Add(-time.Duration(30+rng.IntN(3600)) * time.Minute)
		}
		if last.Before(n.CreationTimestamp.Time) {
			last = n.CreationTimestamp.Time
		}
		nc.Status.LastPodEventTime = metav1.NewTime(last)
		if rng.IntN(12) == 0 {
			n.Annotations = map[string]string{karpv1.DoNotDisruptAnnotationKey: "true"}
			shape("do-not-disrupt-node")
		}
		c.Nodes = append(c.Nodes, n)
		c.NodeClaims = append(c.NodeClaims, nc)
		free := cluster.Resources{}
		free[cluster.CPU] = n.Status.Allocatable.Cpu().MilliValue()
		free[cluster.Memory] = n.Status.Allocatable.Memory().Value()
		free[cluster.Pods] = n.Status.Allocatable.Pods().Value()
		for _, d := range daemons {
			free[cluster.CPU] -= d.Cpu().MilliValue()
			free[cluster.Memory] -= d.Memory().Value()
			free[cluster.Pods]--
		}
		// Utilisation from empty to full.
		limit := []float64{0.15, 0.3, 0.5, 0.7, 0.9, 1}[rng.IntN(6)]
		if rng.Float64() < emptyShare {
			limit = 0
		}
		rooms = append(rooms, &nodeRoom{node: n, free: free, limit: limit, pool: p})
	}
	// DaemonSet pods on every node.
	for d, ds := range c.DaemonSets {
		for i, n := range c.Nodes {
			c.Pods = append(c.Pods, ownedPod(3*time.Hour, ds.Name+"-"+suffix(rng), "kube-system", ds.Spec.Template, "DaemonSet", ds.Name, ds.UID, n.Name, uid("dspod", d*1000+i)))
		}
	}

	// Deployments, placed onto nodes first fit up to each node's
	// utilisation target.
	nDeploy := 1 + rng.IntN(8)
	for d := 0; d <= nDeploy; d++ {
		// The last one is a small filler that tolerates every taint and
		// goes to the nodes still empty that should not be: most empty
		// nodes are then the ones the generator meant to be empty.
		filler := d == nDeploy
		dname := fmt.Sprintf("app-%d", d)
		cpu := []int64{100, 250, 500, 1000, 1500, 2000, 3500}[rng.IntN(7)]
		if filler {
			cpu = 100
		}
		mem := int64([]float64{0.5, 1, 2, 4, 8}[rng.IntN(5)] * float64(cpu) / 1000 * 1024)
		if mem < 128 {
			mem = 128
		}
		tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": dname}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "app:1",
				Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: milli(cpu), corev1.ResourceMemory: mebi(mem)}}}}}}
		// Which pools' nodes it may run on: a selector on one pool
		// sometimes, tolerations of tainted pools.
		var allowed []*pool
		for _, p := range pools {
			if len(p.np.Spec.Template.Spec.Taints) == 0 {
				allowed = append(allowed, p)
			}
		}
		tainted := len(allowed) < len(pools)
		if filler {
			allowed = pools
			tmpl.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
		} else if rng.IntN(4) == 0 || len(allowed) == 0 || (d == 0 && tainted) {
			p := pools[rng.IntN(len(pools))]
			if d == 0 && tainted {
				// Someone runs on each tainted pool.
				for _, q := range pools {
					if len(q.np.Spec.Template.Spec.Taints) > 0 {
						p = q
						break
					}
				}
			}
			tmpl.Spec.NodeSelector = map[string]string{karpv1.NodePoolLabelKey: p.np.Name}
			for _, t := range p.np.Spec.Template.Spec.Taints {
				tmpl.Spec.Tolerations = append(tmpl.Spec.Tolerations, corev1.Toleration{Key: t.Key, Operator: corev1.TolerationOpEqual, Value: t.Value, Effect: t.Effect})
			}
			allowed = []*pool{p}
			shape("node-selector")
		}
		if rng.IntN(4) == 0 {
			prio := int32([]int{-10, 100, 1000}[rng.IntN(3)])
			tmpl.Spec.Priority = &prio
			shape("priority")
		}
		if rng.IntN(5) == 0 {
			tmpl.Annotations = map[string]string{"controller.kubernetes.io/pod-deletion-cost": strconv.Itoa([]int{-100, 100, 1000}[rng.IntN(3)])}
			shape("deletion-cost")
		}
		if rng.IntN(10) == 0 {
			v := "true"
			if rng.IntN(2) == 0 {
				v = []string{"10m", "2h"}[rng.IntN(2)]
			}
			if tmpl.Annotations == nil {
				tmpl.Annotations = map[string]string{}
			}
			tmpl.Annotations[karpv1.DoNotDisruptAnnotationKey] = v
			shape("do-not-disrupt-pod")
		}
		// Replicas in proportion to the nodes, so that most nodes get
		// some.
		want := 1 + int(float64(len(rooms))*(1+6*rng.Float64())/float64(nDeploy)*2000/float64(cpu+500))
		if want > 300 {
			want = 300
		}
		if filler {
			want = 0
			for _, room := range rooms {
				if room.limit > 0 && room.pods == 0 {
					want++
				}
			}
		}
		var placed []string
		for r := 0; r < want; r++ {
			// The least used node first (as the kube-scheduler's
			// LeastAllocated spreads), ties in a random order, within each
			// node's target.
			order := rng.Perm(len(rooms))
			used := func(i int) float64 {
				a := rooms[i].node.Status.Allocatable.Cpu().MilliValue()
				return 1 - float64(rooms[i].free[cluster.CPU])/float64(a)
			}
			sort.SliceStable(order, func(a, b int) bool { return used(order[a]) < used(order[b]) })
			for _, i := range order {
				room := rooms[i]
				if !containsPool(allowed, room.pool) || !fitsSelector(tmpl.Spec.NodeSelector, room.node.Labels) || (filler && (room.pods > 0 || room.limit == 0)) {
					continue
				}
				alloc := room.node.Status.Allocatable
				usedCPU := alloc.Cpu().MilliValue() - room.free[cluster.CPU] + cpu
				if (!filler && float64(usedCPU) > room.limit*float64(alloc.Cpu().MilliValue())) || room.free[cluster.CPU] < cpu ||
					room.free[cluster.Memory] < mem<<20 || room.free[cluster.Pods] < 1 {
					continue
				}
				room.free[cluster.CPU] -= cpu
				room.free[cluster.Memory] -= mem << 20
				room.free[cluster.Pods]--
				room.pods++
				placed = append(placed, room.node.Name)
				break
			}
		}
		if len(placed) == 0 {
			continue
		}
		dep := &appsv1.Deployment{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
			ObjectMeta: metav1.ObjectMeta{Name: dname, Namespace: "default", UID: uid("deploy", d), CreationTimestamp: metav1.NewTime(ExportTime.Add(-30 * 24 * time.Hour))},
			Spec:       appsv1.DeploymentSpec{Replicas: int32Ptr(int32(len(placed))), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": dname}}, Template: tmpl},
		}
		hash := suffixN(rng, 10)
		rsTmpl := *tmpl.DeepCopy()
		rsTmpl.Labels["pod-template-hash"] = hash
		rs := &appsv1.ReplicaSet{
			TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"},
			ObjectMeta: metav1.ObjectMeta{Name: dname + "-" + hash, Namespace: "default", UID: uid("rs", d), Labels: rsTmpl.Labels,
				CreationTimestamp: dep.CreationTimestamp,
				OwnerReferences:   []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: dname, UID: dep.UID, Controller: boolPtr(true), BlockOwnerDeletion: boolPtr(true)}}},
			Spec: appsv1.ReplicaSetSpec{Replicas: int32Ptr(int32(len(placed))), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": dname, "pod-template-hash": hash}}, Template: rsTmpl},
		}
		c.Deployments = append(c.Deployments, dep)
		c.ReplicaSets = append(c.ReplicaSets, rs)
		// Pods started 3 h before the export, or 5 min (a do-not-disrupt
		// duration still running).
		startAgo := 3 * time.Hour
		if rng.IntN(3) == 0 {
			startAgo = 5 * time.Minute
		}
		for r, node := range placed {
			c.Pods = append(c.Pods, ownedPod(startAgo, rs.Name+"-"+suffix(rng), "default", rsTmpl, "ReplicaSet", rs.Name, rs.UID, node, uid("pod", d*1000+r)))
		}
		// PDBs on some.
		if rng.IntN(4) == 0 {
			pdb := &policyv1.PodDisruptionBudget{
				TypeMeta:   metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
				ObjectMeta: metav1.ObjectMeta{Name: dname, Namespace: "default", UID: uid("pdb", d)},
				Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": dname}}},
			}
			switch rng.IntN(3) {
			case 0:
				v := intstr.FromInt32(int32(len(placed)))
				pdb.Spec.MinAvailable = &v // blocks every eviction
			case 1:
				v := intstr.FromString("50%")
				pdb.Spec.MinAvailable = &v
			default:
				v := intstr.FromInt32(int32(rng.IntN(2)))
				pdb.Spec.MaxUnavailable = &v
			}
			c.PDBs = append(c.PDBs, pdb)
			shape("pdb")
		}
	}
	FillPDBStatus(c)
	c.Types = caseTypes(cat, pools)
	return c
}

// genPool draws a NodePool: capacity types, the types it allows (by
// category and generation or by a list), taints, consolidation policy and
// consolidateAfter, budgets, expireAfter, and sometimes a requirement
// narrowed after some of its nodes launched (those drift).
func genPool(c *Case, cat *Catalogue, rng *rand.Rand, p int, shape func(string)) *pool {
	name := []string{"default", "batch", "spot", "general"}[p]
	np := &karpv1.NodePool{
		TypeMeta:   metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodePool"},
		ObjectMeta: metav1.ObjectMeta{Name: name, UID: uid("np", p), Annotations: map[string]string{NodePoolHashKey: strconv.FormatUint(rng.Uint64(), 10), NodePoolHashVersionKey: NodePoolHashVersion}},
	}
	np.Spec.Template.Spec.NodeClassRef = &karpv1.NodeClassReference{Group: "karpenter.k8s.aws", Kind: "EC2NodeClass", Name: "default"}
	cts := [][]string{{karpv1.CapacityTypeOnDemand}, {karpv1.CapacityTypeSpot}, {karpv1.CapacityTypeSpot, karpv1.CapacityTypeOnDemand}}[rng.IntN(3)]
	reqs := []karpv1.NodeSelectorRequirementWithMinValues{{Key: karpv1.CapacityTypeLabelKey, Operator: corev1.NodeSelectorOpIn, Values: cts}}
	var allowed []string
	if rng.IntN(2) == 0 {
		// A list of types.
		fams := pickN(rng, families, 1+rng.IntN(4))
		var list []string
		for _, f := range fams {
			for _, s := range sizes {
				if _, ok := cat.Lookup(f + "." + s); ok && rng.IntN(4) != 0 {
					list = append(list, f+"."+s)
				}
			}
		}
		if len(list) == 0 {
			list = []string{"m5.large", "m5.xlarge"}
		}
		sort.Strings(list)
		reqs = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: list})
		allowed = list
		shape("type-list")
	} else {
		cats := [][]string{{"c", "m", "r"}, {"m"}, {"c", "m"}}[rng.IntN(3)]
		gen := []string{"4", "5"}[rng.IntN(2)]
		reqs = append(reqs,
			karpv1.NodeSelectorRequirementWithMinValues{Key: "karpenter.k8s.aws/instance-category", Operator: corev1.NodeSelectorOpIn, Values: cats},
			karpv1.NodeSelectorRequirementWithMinValues{Key: "karpenter.k8s.aws/instance-generation", Operator: corev1.NodeSelectorOpGt, Values: []string{gen}},
			karpv1.NodeSelectorRequirementWithMinValues{Key: "karpenter.k8s.aws/instance-cpu", Operator: corev1.NodeSelectorOpLt, Values: []string{"33"}},
		)
		g, _ := strconv.Atoi(gen)
		for _, it := range cat.Types {
			if containsString(cats, it.Labels["karpenter.k8s.aws/instance-category"]) && atoi(it.Labels["karpenter.k8s.aws/instance-generation"]) > g &&
				atoi(it.Labels["karpenter.k8s.aws/instance-cpu"]) < 33 {
				allowed = append(allowed, it.Name)
			}
		}
		shape("category")
	}
	pl := &pool{np: np, cts: cts}
	// Drift by requirements: the pool's arch narrowed to amd64 after
	// Graviton nodes launched, or its list cut.
	if c.drift && rng.IntN(2) == 0 {
		before := allowed
		var after []string
		for _, t := range allowed {
			if it, _ := cat.Lookup(t); it.Labels[corev1.LabelArchStable] == "amd64" {
				after = append(after, t)
			}
		}
		if len(after) > 0 && len(after) < len(before) {
			reqs = append(reqs, karpv1.NodeSelectorRequirementWithMinValues{Key: corev1.LabelArchStable, Operator: corev1.NodeSelectorOpIn, Values: []string{"amd64"}})
			allowed, pl.driftTypes = after, before
		}
	}
	np.Spec.Template.Spec.Requirements = reqs
	pl.types = allowed
	if rng.IntN(5) == 0 {
		np.Spec.Template.Spec.Taints = []corev1.Taint{{Key: "dedicated", Value: name, Effect: corev1.TaintEffectNoSchedule}}
		shape("taints")
	}
	// Disruption.
	switch rng.IntN(6) {
	case 0:
		np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmpty
		shape("when-empty")
	default:
		np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyWhenEmptyOrUnderutilized
		if c.policy.IntN(3) == 0 {
			np.Spec.Disruption.ConsolidationPolicy = karpv1.ConsolidationPolicyBalanced
			shape("balanced")
		}
	}
	after := []string{"0s", "0s", "30s", "5m"}[rng.IntN(4)]
	np.Spec.Disruption.ConsolidateAfter = karpv1.MustParseNillableDuration(after)
	switch rng.IntN(8) {
	case 0:
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "1"}}
		shape("budget-count")
	case 1:
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "50%"}}
		shape("budget-percent")
	case 2:
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "0", Reasons: []karpv1.DisruptionReason{karpv1.DisruptionReasonUnderutilized}}, {Nodes: "20%"}}
		shape("budget-reasons")
	case 3:
		// A schedule that holds at the export's time (12:00 UTC) and one
		// that does not.
		d := metav1.Duration{Duration: 2 * time.Hour}
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "0", Schedule: strPtr([]string{"0 11 * * *", "0 14 * * *"}[rng.IntN(2)]), Duration: &d}, {Nodes: "3"}}
		shape("budget-schedule")
	default:
		np.Spec.Disruption.Budgets = []karpv1.Budget{{Nodes: "10%"}}
	}
	expire := "720h"
	if c.expiring && rng.IntN(2) == 0 {
		expire = []string{"24h", "168h"}[rng.IntN(2)]
		shape("expiration")
	}
	np.Spec.Template.Spec.ExpireAfter = karpv1.MustParseNillableDuration(expire)
	if c.side.IntN(5) == 0 {
		others := slices.DeleteFunc([]string{"24h", "168h", "720h", "Never"}, func(v string) bool { return v == expire })
		pl.oldExpire = others[c.side.IntN(len(others))]
		pl.oldExpireAgo = time.Duration(1+c.side.IntN(72)) * time.Hour
		pl.oldHash = strconv.FormatUint(c.side.Uint64(), 10)
	}
	if rng.IntN(3) == 0 {
		np.Spec.Weight = int32Ptr(int32(10 * (p + 1)))
	}
	return pl
}

// pickOffering draws a type of list and one of its offerings of the
// pool's capacity types.
func pickOffering(cat *Catalogue, rng *rand.Rand, list []string, cts []string) (InstanceType, Offering, bool) {
	for try := 0; try < 20; try++ {
		it, ok := cat.Lookup(list[rng.IntN(len(list))])
		if !ok {
			continue
		}
		var offs []Offering
		for _, o := range it.Offerings {
			if containsString(cts, o.CapacityType) {
				offs = append(offs, o)
			}
		}
		if len(offs) == 0 {
			continue
		}
		return it, offs[rng.IntN(len(offs))], true
	}
	return InstanceType{}, Offering{}, false
}

// genNode makes a Node and its NodeClaim as Karpenter leaves them:
// launched, registered, initialized; the hash annotations of its pool and
// node class (sometimes older ones: drift).
func genNode(rng *rand.Rand, c *Case, p *pool, it InstanceType, off Offering, i int, age time.Duration) (*corev1.Node, *karpv1.NodeClaim, bool) {
	created := ExportTime.Add(-age).Truncate(time.Second)
	claimName := p.np.Name + "-" + suffix(rng)
	nodeName := fmt.Sprintf("ip-10-%d-%d-%d.ec2.internal", 1+rng.IntN(8), i, 1+rng.IntN(254))
	providerID := fmt.Sprintf("aws:///%s/i-%017x", off.Zone, rng.Uint64()>>4)
	labels := map[string]string{}
	for k, v := range it.Labels {
		labels[k] = v
	}
	labels[corev1.LabelTopologyZone] = off.Zone
	labels[corev1.LabelTopologyRegion] = Region
	labels[karpv1.CapacityTypeLabelKey] = off.CapacityType
	labels[karpv1.NodePoolLabelKey] = p.np.Name
	labels["karpenter.k8s.aws/ec2nodeclass"] = "default"
	labels[corev1.LabelHostname] = nodeName
	labels[karpv1.NodeRegisteredLabelKey] = "true"
	labels[karpv1.NodeInitializedLabelKey] = "true"
	hashDrift := false
	poolHash := p.np.Annotations[NodePoolHashKey]
	expireAfter := p.np.Spec.Template.Spec.ExpireAfter
	if p.oldExpire != "" && age > p.oldExpireAgo {
		// Launched before the pool's expireAfter changed.
		expireAfter = karpv1.MustParseNillableDuration(p.oldExpire)
		poolHash = p.oldHash
		c.Shape = appendOnce(c.Shape, "expire-after-changed")
		hashDrift = true
	}
	if c.drift && rng.IntN(10) == 0 {
		poolHash = strconv.FormatUint(rng.Uint64(), 10)
		c.Shape = appendOnce(c.Shape, "drift-nodepool-hash")
		hashDrift = true
	}
	classHash := c.NodeClassHash
	if c.drift && rng.IntN(12) == 0 {
		classHash = strconv.FormatUint(rng.Uint64(), 10)
		c.Shape = appendOnce(c.Shape, "drift-nodeclass-hash")
		hashDrift = true
	}
	nc := &karpv1.NodeClaim{
		TypeMeta: metav1.TypeMeta{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim"},
		ObjectMeta: metav1.ObjectMeta{Name: claimName, UID: uid("nc", i), CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{},
			Annotations: map[string]string{NodePoolHashKey: poolHash, NodePoolHashVersionKey: NodePoolHashVersion,
				NodeClassHashKey: classHash, NodeClassHashVersionKey: NodeClassHashVersion},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodePool", Name: p.np.Name, UID: p.np.UID, BlockOwnerDeletion: boolPtr(true)}},
			Finalizers:      []string{karpv1.TerminationFinalizer}},
		Spec: karpv1.NodeClaimSpec{
			NodeClassRef: p.np.Spec.Template.Spec.NodeClassRef,
			Requirements: append([]karpv1.NodeSelectorRequirementWithMinValues{
				{Key: corev1.LabelInstanceTypeStable, Operator: corev1.NodeSelectorOpIn, Values: []string{it.Name}},
				{Key: karpv1.NodePoolLabelKey, Operator: corev1.NodeSelectorOpIn, Values: []string{p.np.Name}},
			}, p.np.Spec.Template.Spec.Requirements...),
			Taints:      p.np.Spec.Template.Spec.Taints,
			ExpireAfter: expireAfter,
		},
		Status: karpv1.NodeClaimStatus{ProviderID: providerID, NodeName: nodeName, ImageID: "ami-0123456789abcdef0",
			Capacity: it.Capacity, Allocatable: it.Allocatable},
	}
	for k, v := range labels {
		if k != corev1.LabelHostname && k != karpv1.NodeRegisteredLabelKey && k != karpv1.NodeInitializedLabelKey {
			nc.Labels[k] = v
		}
	}
	for _, t := range []string{karpv1.ConditionTypeLaunched, karpv1.ConditionTypeRegistered, karpv1.ConditionTypeInitialized, "Ready"} {
		nc.Status.Conditions = append(nc.Status.Conditions, metav1Condition(t, created.Add(90*time.Second)))
	}
	n := &corev1.Node{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: nodeName, UID: uid("node", i), Labels: labels, CreationTimestamp: metav1.NewTime(created.Add(60 * time.Second)),
			Finalizers:      []string{karpv1.TerminationFinalizer},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "karpenter.sh/v1", Kind: "NodeClaim", Name: claimName, UID: nc.UID, BlockOwnerDeletion: boolPtr(true)}}},
		Spec: corev1.NodeSpec{ProviderID: providerID, Taints: p.np.Spec.Template.Spec.Taints},
		Status: corev1.NodeStatus{Capacity: it.Capacity, Allocatable: it.Allocatable,
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, Reason: "KubeletReady",
				LastHeartbeatTime: metav1.NewTime(ExportTime), LastTransitionTime: metav1.NewTime(created.Add(90 * time.Second))}}},
	}
	return n, nc, hashDrift
}

func metav1Condition(t string, at time.Time) opstatus.Condition {
	return opstatus.Condition{Type: t, Status: metav1.ConditionTrue, Reason: t, LastTransitionTime: metav1.NewTime(at), ObservedGeneration: 1}
}

// ownedPod is a running pod of template on node, owned by the named
// controller.
func ownedPod(startAgo time.Duration, name, ns string, tmpl corev1.PodTemplateSpec, kind, owner string, ownerUID types.UID, node string, id types.UID) *corev1.Pod {
	start := metav1.NewTime(ExportTime.Add(-startAgo))
	p := &corev1.Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: id, Labels: tmpl.Labels, Annotations: tmpl.Annotations, CreationTimestamp: start,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: owner, UID: ownerUID, Controller: boolPtr(true), BlockOwnerDeletion: boolPtr(true)}}},
		Spec: *tmpl.Spec.DeepCopy(),
		Status: corev1.PodStatus{Phase: corev1.PodRunning, StartTime: &start,
			Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: start},
				{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: start}}},
	}
	p.Spec.NodeName = node
	if p.Spec.Priority == nil {
		zero := int32(0)
		p.Spec.Priority = &zero
	}
	return p
}

// caseTypes are the catalogue's types any pool of the case allows.
func caseTypes(cat *Catalogue, pools []*pool) []InstanceType {
	seen := map[string]bool{}
	for _, p := range pools {
		for _, t := range append(append([]string(nil), p.types...), p.driftTypes...) {
			seen[t] = true
		}
	}
	var out []InstanceType
	for _, it := range cat.Types {
		if seen[it.Name] {
			out = append(out, it)
		}
	}
	return out
}

// BuildCatalogue sizes the catalogue's types of the drawn families (and
// every type of categories c, m, r the category pools may choose) as our
// model launches them under the default EC2NodeClass, priced as our
// market prices them with the market off.
func BuildCatalogue(cat *catalog.Catalog) (*Catalogue, error) {
	sized, err := ourTypes(cat)
	if err != nil {
		return nil, err
	}
	out := &Catalogue{byName: map[string]int{}}
	for _, it := range sized {
		if len(it.Offerings) == 0 {
			continue
		}
		out.byName[it.Name] = len(out.Types)
		out.Types = append(out.Types, it)
	}
	if len(out.Types) == 0 {
		return nil, fmt.Errorf("no instance type sized")
	}
	return out, nil
}

// Helpers.

const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

func suffix(rng *rand.Rand) string { return suffixN(rng, 5) }

func suffixN(rng *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = suffixAlphabet[rng.IntN(len(suffixAlphabet))]
	}
	return string(b)
}

func uid(kind string, i int) types.UID {
	return types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012d", crc(kind), i))
}

func crc(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

func milli(v int64) resource.Quantity { return *resource.NewMilliQuantity(v, resource.DecimalSI) }
func mebi(v int64) resource.Quantity  { return *resource.NewQuantity(v<<20, resource.BinarySI) }
func int32Ptr(v int32) *int32         { return &v }
func boolPtr(v bool) *bool            { return &v }
func strPtr(v string) *string         { return &v }

func atoi(s string) int {
	v, _ := strconv.Atoi(s)
	return v
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsPool(list []*pool, p *pool) bool {
	for _, x := range list {
		if x == p {
			return true
		}
	}
	return false
}

func fitsSelector(sel, labels map[string]string) bool {
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

func appendOnce(list []string, s string) []string {
	if containsString(list, s) {
		return list
	}
	return append(list, s)
}

func pickN(rng *rand.Rand, list []string, n int) []string {
	idx := rng.Perm(len(list))
	var out []string
	for _, i := range idx[:min(n, len(list))] {
		out = append(out, list[i])
	}
	return out
}

// ShapeString is the case's shape for the report.
func (c *Case) ShapeString() string {
	s := append([]string(nil), c.Shape...)
	sort.Strings(s)
	return fmt.Sprintf("%d nodes, %d pods: %s", len(c.Nodes), len(c.Pods), strings.Join(s, ","))
}

// FillPDBStatus sets each PodDisruptionBudget's status as the disruption
// controller keeps it (kubernetes pkg/controller/disruption): every pod it
// selects that runs and is not being deleted counts as healthy; the
// expected count is the scale of the pods' controllers (each counted once:
// a ReplicaSet owned by a Deployment counts the Deployment's replicas) for
// maxUnavailable and a percentage minAvailable, and the number of pods
// for an integer minAvailable (getExpectedPodCount). Pods being deleted
// still count toward the number of pods, not toward the scale. A state
// dump writes PDBs without status.
func FillPDBStatus(c *Case) {
	rsOwner := map[string]*appsv1.Deployment{} // ReplicaSet namespace/name -> its Deployment
	deps := map[string]*appsv1.Deployment{}
	for _, d := range c.Deployments {
		deps[d.Namespace+"/"+d.Name] = d
	}
	rsByName := map[string]*appsv1.ReplicaSet{}
	for _, rs := range c.ReplicaSets {
		rsByName[rs.Namespace+"/"+rs.Name] = rs
		if ref := metav1.GetControllerOf(rs); ref != nil && ref.Kind == "Deployment" {
			rsOwner[rs.Namespace+"/"+rs.Name] = deps[rs.Namespace+"/"+ref.Name]
		}
	}
	for _, pdb := range c.PDBs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			continue
		}
		n, healthy := int32(0), int32(0)
		scale, scaled := int32(0), true
		counted := map[string]bool{}
		for _, p := range c.Pods {
			if p.Namespace != pdb.Namespace || !sel.Matches(labels.Set(p.Labels)) {
				continue
			}
			n++
			if p.Spec.NodeName != "" && p.DeletionTimestamp == nil && p.Status.Phase == corev1.PodRunning {
				healthy++
			}
			ref := metav1.GetControllerOf(p)
			if ref == nil {
				scaled = false // upstream: "found no controllers": no status
				continue
			}
			key := p.Namespace + "/" + ref.Name
			var replicas *int32
			switch {
			case ref.Kind == "ReplicaSet" && rsOwner[key] != nil:
				key = p.Namespace + "/deployment/" + rsOwner[key].Name
				replicas = rsOwner[p.Namespace+"/"+ref.Name].Spec.Replicas
			case ref.Kind == "ReplicaSet" && rsByName[key] != nil:
				replicas = rsByName[key].Spec.Replicas
			default:
				scaled = false
				continue
			}
			if !counted[key] {
				counted[key] = true
				if replicas != nil {
					scale += *replicas
				} else {
					scale++ // replicas defaults to 1
				}
			}
		}
		expected := scale
		if !scaled {
			expected = n
		}
		desired := n
		switch {
		case pdb.Spec.MaxUnavailable != nil:
			v, _ := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MaxUnavailable, int(expected), true)
			desired = expected - int32(v)
		case pdb.Spec.MinAvailable != nil && pdb.Spec.MinAvailable.Type == intstr.Int:
			desired, expected = pdb.Spec.MinAvailable.IntVal, n
		case pdb.Spec.MinAvailable != nil:
			v, _ := intstr.GetScaledValueFromIntOrPercent(pdb.Spec.MinAvailable, int(expected), true)
			desired = int32(v)
		}
		pdb.Status = policyv1.PodDisruptionBudgetStatus{ObservedGeneration: pdb.Generation, CurrentHealthy: healthy, DesiredHealthy: desired,
			ExpectedPods: expected, DisruptionsAllowed: max(healthy-desired, 0)}
	}
}
