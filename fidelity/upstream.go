package fidelity

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	fakecr "sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/cloudprovider"
	"sigs.k8s.io/karpenter/pkg/cloudprovider/fake"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning/scheduling"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/injection"
	"sigs.k8s.io/karpenter/pkg/operator/logging"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	scheduling2 "sigs.k8s.io/karpenter/pkg/scheduling"
	nodepoolutils "sigs.k8s.io/karpenter/pkg/utils/nodepool"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	oursched "github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

func init() {
	log.SetLogger(logging.NopLogger)
	// The AWS provider registers its instance labels as well known at
	// start-up (KA pkg/apis/v1/labels.go init); our list is core's plus
	// those.
	karpv1.WellKnownLabels.Insert(apis.WellKnownLabels...)
}

// Workers is how many goroutines upstream's solve may use to evaluate
// nodes, as its scheduling benchmark sets (NumConcurrentReconciles(5); the
// provisioner derives it from the CPU request, one per core).
var Workers = 5

// upstreamOptions are the operator options of upstream's test suite
// (pkg/test.Options) that the solve reads: preference and minValues
// policies, DRA requests ignored, reserved capacity on (no reserved
// offerings exist here).
func upstreamOptions() *options.Options {
	return &options.Options{
		CPURequests:       int64(Workers) * 1000,
		PreferencePolicy:  options.PreferencePolicyRespect,
		MinValuesPolicy:   options.MinValuesPolicyStrict,
		IgnoreDRARequests: true,
		FeatureGates:      options.FeatureGates{ReservedCapacity: true},
	}
}

// Upstream is a case set up for upstream's solver.
type Upstream struct {
	ctx     context.Context
	client  client.Client
	cluster *state.Cluster
	pools   []*karpv1.NodePool
	its     map[string][]*cloudprovider.InstanceType
	pods    []*corev1.Pod
	// nodes are existing nodes the solve sees (timing only; none in the
	// comparison).
	nodes []*state.StateNode
	// arrivals are the second round's new pods.
	arrivals []*corev1.Pod
	// refusedOverlays are the overlays upstream's controller did not
	// apply, with the reason.
	refusedOverlays []string
}

// BuildUpstream makes upstream's inputs: the case's NodePools ordered by
// weight (as the provisioner does), instance types with the allocatable
// our model computes (so that only the solve is compared) and KA's
// requirements, and the case's pods.
func BuildUpstream(c *Case, ours *Ours) (*Upstream, error) {
	ctx := options.ToContext(injection.WithControllerName(context.Background(), "provisioner"), upstreamOptions())
	kc := fakecr.NewFakeClient()
	cp := fake.NewCloudProvider()
	u := &Upstream{ctx: ctx, client: kc, cluster: state.NewCluster(&clock.RealClock{}, kc, cp), its: map[string][]*cloudprovider.InstanceType{}}
	for _, np := range c.Pools {
		u.pools = append(u.pools, np.DeepCopy())
	}
	nodepoolutils.OrderByWeight(u.pools)

	// One InstanceType per type of the case; every pool gets the whole
	// list, as KA's GetInstanceTypes returns every type of the node class
	// and the scheduler filters (ours lists every catalogue type, whether
	// or not a pool allows it).
	byName := map[string]oursched.PoolInstanceType{}
	for _, np := range c.Pools {
		for _, it := range ours.InstanceTypes(np.Name) {
			byName[it.Name] = it
		}
	}
	var list []*cloudprovider.InstanceType
	for _, t := range c.Types {
		pit, ok := byName[t.Name]
		if !ok {
			continue
		}
		list = append(list, upstreamType(t, pit, c.reservationsOf(t.Name)))
	}
	for _, np := range u.pools {
		u.its[np.Name] = list
	}
	u.pods = c.Pods
	u.arrivals = c.Arrivals
	if len(c.Overlays) > 0 {
		if err := u.applyUpstreamOverlays(c); err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
	}
	return u, nil
}

// upstreamType builds an InstanceType as KA's NewInstanceType would for
// our catalogue entry: requirements from its labels plus zone and
// capacity type from the available offerings, region, and
// DoesNotExist for the keys it leaves empty; allocatable equal to ours.
func upstreamType(t InstanceType, pit oursched.PoolInstanceType, rs []Reservation) *cloudprovider.InstanceType {
	var zones, cts []string
	var offs cloudprovider.Offerings
	for _, o := range t.Offerings {
		zones = append(zones, o.Zone)
		cts = append(cts, o.CapacityType)
		offs = append(offs, &cloudprovider.Offering{
			Requirements: scheduling2.NewRequirements(
				scheduling2.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, o.CapacityType),
				scheduling2.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, o.Zone)),
			Price: o.Price, Available: true,
		})
	}
	// KA ReservedCapacityResolver: an offering per reservation of the
	// type, at the on-demand price / 10,000,000, its count as capacity;
	// computeRequirements adds reserved and the reservations' ids.
	var ids []string
	for _, r := range rs {
		od, ok := t.onDemandPrice(r.Zone)
		if !ok {
			continue
		}
		ids = append(ids, r.ID)
		offs = append(offs, &cloudprovider.Offering{
			Requirements: scheduling2.NewRequirements(
				scheduling2.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, karpv1.CapacityTypeReserved),
				scheduling2.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, r.Zone),
				scheduling2.NewRequirement(cloudprovider.ReservationIDLabel, corev1.NodeSelectorOpIn, r.ID)),
			Price: od / reservedPriceDivisor, Available: true, ReservationCapacity: r.Count,
		})
	}
	if len(ids) > 0 {
		cts = append(cts, karpv1.CapacityTypeReserved)
	}
	reqs := scheduling2.NewRequirements(
		scheduling2.NewRequirement(corev1.LabelTopologyZone, corev1.NodeSelectorOpIn, zones...),
		scheduling2.NewRequirement(karpv1.CapacityTypeLabelKey, corev1.NodeSelectorOpIn, cts...),
		scheduling2.NewRequirement(corev1.LabelWindowsBuild, corev1.NodeSelectorOpDoesNotExist),
	)
	if len(ids) > 0 {
		reqs.Add(scheduling2.NewRequirement(cloudprovider.ReservationIDLabel, corev1.NodeSelectorOpIn, ids...))
	}
	keys := make([]string, 0, len(pit.Labels))
	for k := range pit.Labels {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		reqs.Add(scheduling2.NewRequirement(k, corev1.NodeSelectorOpIn, pit.Labels[k]))
	}
	// Keys KA defines for every type and leaves empty when they do not
	// apply (computeRequirements).
	for _, k := range []string{"karpenter.k8s.aws/instance-gpu-count", "karpenter.k8s.aws/instance-gpu-name",
		"karpenter.k8s.aws/instance-gpu-manufacturer", "karpenter.k8s.aws/instance-gpu-memory",
		"karpenter.k8s.aws/instance-accelerator-name", "karpenter.k8s.aws/instance-accelerator-manufacturer",
		"karpenter.k8s.aws/instance-accelerator-count", "karpenter.k8s.aws/instance-local-nvme"} {
		if _, ok := pit.Labels[k]; !ok {
			reqs.Add(scheduling2.NewRequirement(k, corev1.NodeSelectorOpDoesNotExist))
		}
	}
	capacity := resourceList(pit.Capacity)
	overhead := corev1.ResourceList{}
	for name, q := range capacity {
		a := resourceList(pit.Allocatable)[name]
		d := q.DeepCopy()
		d.Sub(a)
		overhead[name] = d
	}
	return &cloudprovider.InstanceType{
		Name: t.Name, Requirements: reqs, Offerings: offs, Capacity: capacity,
		Overhead: &cloudprovider.InstanceTypeOverhead{KubeReserved: overhead, SystemReserved: corev1.ResourceList{}, EvictionThreshold: corev1.ResourceList{}},
	}
}

func resourceList(r cluster.Resources) corev1.ResourceList {
	return corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(r[cluster.CPU], resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(r[cluster.Memory], resource.BinarySI),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(r[cluster.Ephemeral], resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(r[cluster.Pods], resource.DecimalSI),
	}
}

// Run builds the topology and the scheduler and solves, as the
// provisioner's Schedule does for one batch.
func (u *Upstream) Run() (Outcome, error) {
	res, err := u.solve(u.cluster, u.nodes, u.pods)
	if err != nil {
		return Outcome{}, err
	}
	return outcomeOf(res, nil), nil
}

func (u *Upstream) solve(cl *state.Cluster, nodes []*state.StateNode, pods []*corev1.Pod) (scheduling.Results, error) {
	// Strict reserved offerings, as the provisioner solves
	// (DisableReservedCapacityFallback; no reserved offering elsewhere).
	opts := []scheduling.Options{scheduling.NumConcurrentReconciles(Workers), scheduling.MinValuesPolicy(options.MinValuesPolicyStrict),
		scheduling.DisableReservedCapacityFallback}
	pods = append([]*corev1.Pod(nil), pods...)
	topo, err := scheduling.NewTopology(u.ctx, u.client, cl, nodes, u.pools, u.its, pods, opts...)
	if err != nil {
		return scheduling.Results{}, fmt.Errorf("upstream topology: %w", err)
	}
	s := scheduling.NewScheduler(u.ctx, u.client, u.pools, cl, nodes, topo, u.its, nil,
		events.NewRecorder(&record.FakeRecorder{}), &clock.RealClock{}, nil, nil, opts...)
	res, err := s.Solve(u.ctx, pods)
	if err != nil {
		return scheduling.Results{}, fmt.Errorf("upstream solve: %w", err)
	}
	return res, nil
}

// nameAlphabet is the alphabet of the API server's generated names
// (k8s.io/apimachinery/pkg/util/rand.String).
const nameAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// RunSecond is the second round: the first round's nodes are in flight
// (NodeClaims launched, not registered: cluster state counts them as
// nodes with the NodeClaim's labels, taints and allocatable), the first
// round's pods still pending and the arrivals new. As the provisioner's
// Schedule: the state nodes, pending pods, topology, scheduler and solve;
// then, as its Create, a NodeClaim of a pool whose usage (in-flight
// NodeClaims included) already exceeds a limit is not created, and its
// pods count as left pending. The NodeClaims get generated names
// (<pool>-<5 random characters>) as the API server gives them, so
// existing nodes, ordered by name, come in a random order as upstream's
// do.
func (u *Upstream) RunSecond(fl []InFlight) (Outcome, error) {
	return u.runSecond(fl, func(f InFlight) string {
		b := make([]byte, 5)
		for i := range b {
			b[i] = nameAlphabet[rand.IntN(len(nameAlphabet))]
		}
		return f.Pool + "-" + string(b)
	})
}

// RunSecondInOurOrder is RunSecond with the NodeClaims in flight named
// as our solve orders them (InFlight.OrderName) instead of at random, so
// upstream tries them in our order: what is left to differ is the solve
// given that order (and upstream's map-order zone ties).
func (u *Upstream) RunSecondInOurOrder(fl []InFlight) (Outcome, error) {
	return u.runSecond(fl, func(f InFlight) string { return f.OrderName })
}

func (u *Upstream) runSecond(fl []InFlight, nameOf func(InFlight) string) (Outcome, error) {
	cl := state.NewCluster(&clock.RealClock{}, u.client, fake.NewCloudProvider())
	for _, f := range fl {
		name := nameOf(f)
		labels := map[string]string{}
		for k, v := range f.Labels {
			if k != corev1.LabelHostname {
				labels[k] = v
			}
		}
		labels[karpv1.NodePoolLabelKey] = f.Pool
		nc := &karpv1.NodeClaim{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, UID: types.UID("nc-" + name)},
			Spec:       karpv1.NodeClaimSpec{Taints: f.Taints},
			Status:     karpv1.NodeClaimStatus{ProviderID: "fidelity:///" + name, Capacity: f.Capacity, Allocatable: f.Allocatable},
		}
		cl.UpdateNodeClaim(nc)
	}
	nodes := cl.DeepCopyNodes().Active()
	pods := append(append([]*corev1.Pod(nil), u.pods...), u.arrivals...)
	res, err := u.solve(cl, nodes, pods)
	if err != nil {
		return Outcome{}, err
	}
	refused := func(pool string) bool {
		for _, np := range u.pools {
			if np.Name == pool {
				return np.Spec.Limits.ExceededBy(cl.NodePoolResourcesFor(pool)) != nil
			}
		}
		return false
	}
	return outcomeOf(res, refused), nil
}

// outcomeOf converts upstream's results; the NodeClaims refused says no
// to are dropped, their pods counted unschedulable.
func outcomeOf(res scheduling.Results, refused func(pool string) bool) Outcome {
	var out Outcome
	for _, nc := range res.NewNodeClaims {
		if refused != nil && refused(nc.NodePoolName) {
			for _, p := range nc.Pods {
				out.Unschedulable = append(out.Unschedulable, p.Name)
			}
			continue
		}
		n := Node{Pool: nc.NodePoolName, Pods: len(nc.Pods), Cheapest: math.Inf(1)}
		for _, p := range nc.Pods {
			n.PodNames = append(n.PodNames, p.Name)
		}
		for _, it := range nc.InstanceTypeOptions {
			n.InstanceTypes = append(n.InstanceTypes, it.Name)
			if o := it.Offerings.Available().Compatible(nc.Requirements).Cheapest(); o != nil && o.Price < n.Cheapest {
				n.Cheapest = o.Price
			}
		}
		sort.Strings(n.InstanceTypes)
		out.Nodes = append(out.Nodes, n)
	}
	for p := range res.PodErrors {
		out.Unschedulable = append(out.Unschedulable, p.Name)
	}
	sort.Strings(out.Unschedulable)
	return out
}
