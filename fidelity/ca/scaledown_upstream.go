package ca

import (
	"fmt"
	"sort"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/fake"
	kube_record "k8s.io/client-go/tools/record"
	testprovider "sigs.k8s.io/cluster-autoscaler/pkg/cloudprovider/test"
	caconfig "sigs.k8s.io/cluster-autoscaler/pkg/config"
	ca_context "sigs.k8s.io/cluster-autoscaler/pkg/context"
	"sigs.k8s.io/cluster-autoscaler/pkg/core/scaledown/budgets"
	"sigs.k8s.io/cluster-autoscaler/pkg/core/scaledown/deletiontracker"
	"sigs.k8s.io/cluster-autoscaler/pkg/core/scaledown/planner"
	catest "sigs.k8s.io/cluster-autoscaler/pkg/core/test"
	"sigs.k8s.io/cluster-autoscaler/pkg/processors"
	"sigs.k8s.io/cluster-autoscaler/pkg/processors/scaledowncandidates"
	"sigs.k8s.io/cluster-autoscaler/pkg/processors/scaledowncandidates/emptycandidates"
	"sigs.k8s.io/cluster-autoscaler/pkg/processors/scaledowncandidates/previouscandidates"
	processorstest "sigs.k8s.io/cluster-autoscaler/pkg/processors/test"
	"sigs.k8s.io/cluster-autoscaler/pkg/resourcequotas"
	"sigs.k8s.io/cluster-autoscaler/pkg/simulator"
	"sigs.k8s.io/cluster-autoscaler/pkg/simulator/drainability/rules"
	"sigs.k8s.io/cluster-autoscaler/pkg/simulator/options"
	kube_util "sigs.k8s.io/cluster-autoscaler/pkg/utils/kubernetes"
	utiltest "sigs.k8s.io/cluster-autoscaler/pkg/utils/test"
	"sigs.k8s.io/cluster-autoscaler/pkg/utils/units"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
)

// UpstreamSD is a scale-down case set up for upstream's planner
// (core/scaledown/planner) as a loop of StaticAutoscaler.scaleDown drives
// it: the test cloud provider with the case's groups and nodes, a cluster
// snapshot with the nodes and their pods, listers of the pods, PDBs and
// ReplicaSets (the drainability rules look controllers up), the
// builder's scale-down candidate processor (pre-filter, empty nodes
// first, previous candidates first) and the scale-down budget processor.
type UpstreamSD struct {
	ctx      *ca_context.AutoscalingContext
	procs    *processors.AutoscalingProcessors
	planner  *planner.Planner
	nodes    []*corev1.Node
	now      time.Time
	cooldown bool
}

// upstreamScaleDownOptions are upstream's flag defaults for scale-down
// (config/flags/flags.go), but --scale-down-unneeded-time, 0 here as our
// PlanScaleDown leaves the unneeded time aside, and the cool-downs, which
// the case sets.
func upstreamScaleDownOptions(c *SDCase) caconfig.AutoscalingOptions {
	o := caconfig.AutoscalingOptions{
		NodeGroupDefaults: caconfig.NodeGroupAutoscalingOptions{
			ScaleDownUtilizationThreshold:    caconfig.DefaultScaleDownUtilizationThreshold,
			ScaleDownGpuUtilizationThreshold: caconfig.DefaultScaleDownGpuUtilizationThreshold,
			ScaleDownUnreadyTime:             caconfig.DefaultScaleDownUnreadyTime,
		},
		ScaleDownEnabled:                  true,
		MaxScaleDownParallelism:           10,
		MaxDrainParallelism:               1,
		ScaleDownSimulationTimeout:        30 * time.Second,
		UnremovableNodeRecheckTimeout:     5 * time.Minute,
		SkipNodesWithSystemPods:           true,
		SkipNodesWithLocalStorage:         true,
		SkipNodesWithCustomControllerPods: true,
		BspDisruptionTimeout:              time.Hour,
		MaxCoresTotal:                     caconfig.DefaultMaxClusterCores,
		MaxMemoryTotal:                    caconfig.DefaultMaxClusterMemory * units.GiB,
	}
	if c.Cooldown {
		o.ScaleDownDelayAfterAdd = 10 * time.Minute
		o.ScaleDownDelayAfterFailure = caconfig.DefaultScaleDownDelayAfterFailure
	}
	return o
}

// BuildUpstreamScaleDown sets a case up for upstream from ours (the same
// nodes and pods). order gives the node list's order (upstream's node
// lister returns nodes in its cache's order); nil keeps ours.
func BuildUpstreamScaleDown(cat *catalog.Catalog, c *SDCase, ours *OursSD, order []int) (*UpstreamSD, error) {
	start := time.Unix(1_800_000_000, 0)
	now := start.Add(sdPlan)
	groups, err := NodeGroups(cat, c.asCase())
	if err != nil {
		return nil, err
	}
	provider := testprovider.NewTestCloudProviderBuilder().Build()
	cl := ours.Cluster
	byGroup := map[string][]*corev1.Node{}
	var nodes []*corev1.Node
	for i := range cl.Nodes {
		nd := &cl.Nodes[i]
		if nd.State == cluster.NodeGone {
			continue
		}
		n := nodeOf(cat, cl, nd, groups)
		if v, ok := nd.Labels.Get(cl.Syms.Intern(AnnotationScaleDownDisabled)); ok && cl.Syms.Name(v) == "true" {
			// Ours stands the annotation in with a label (see
			// clusterautoscaler.LabelScaleDownDisabled): upstream reads
			// the annotation.
			delete(n.Labels, AnnotationScaleDownDisabled)
			n.Annotations = map[string]string{AnnotationScaleDownDisabled: "true"}
		}
		utiltest.SetNodeReadyState(n, true, start)
		n.CreationTimestamp = metav1.NewTime(start)
		byGroup[nd.OwnerName] = append(byGroup[nd.OwnerName], n)
		nodes = append(nodes, n)
	}
	if order != nil {
		shuffled := make([]*corev1.Node, len(nodes))
		for i, j := range order {
			shuffled[i] = nodes[j]
		}
		nodes = shuffled
	}
	for _, g := range c.Groups {
		provider.AddNodeGroup(g.Name, g.Min, g.Max, len(byGroup[g.Name]))
		for _, n := range byGroup[g.Name] {
			provider.AddNode(g.Name, n)
		}
	}
	var pods []*corev1.Pod
	rsSeen := map[string]bool{}
	var replicaSets []*appsv1.ReplicaSet
	for _, p := range ours.Pods {
		q := p.DeepCopy()
		q.CreationTimestamp = metav1.NewTime(start.Add(sdBind))
		q.Status.Phase = corev1.PodRunning
		q.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
		pods = append(pods, q)
		for _, ref := range q.OwnerReferences {
			key := q.Namespace + "/" + ref.Name
			if rsSeen[key] {
				continue
			}
			rsSeen[key] = true
			replicas := int32(0)
			for _, r := range ours.Pods {
				if r.Namespace == q.Namespace && len(r.OwnerReferences) > 0 && r.OwnerReferences[0].Name == ref.Name {
					replicas++
				}
			}
			replicaSets = append(replicaSets, &appsv1.ReplicaSet{
				ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: q.Namespace, UID: ref.UID},
				Spec:       appsv1.ReplicaSetSpec{Replicas: &replicas},
			})
		}
	}
	var pdbs []*policyv1.PodDisruptionBudget
	if c.PDBMinAvailable >= 0 {
		// The status is the disruption controller's: upstream reads it,
		// here as our cluster counts it.
		minAvailable := intstr.FromInt32(int32(c.PDBMinAvailable))
		pdbs = append(pdbs, &policyv1.PodDisruptionBudget{
			ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "default"},
			Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &minAvailable,
				Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}}},
			Status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: int32(ours.PDBAllowed)},
		})
	}
	rsLister, err := kube_util.NewTestReplicaSetLister(replicaSets)
	if err != nil {
		return nil, err
	}
	listers := kube_util.NewListerRegistry(nil, nil, kube_util.NewTestPodLister(pods), kube_util.NewTestPodDisruptionBudgetLister(pdbs),
		nil, nil, nil, rsLister, nil)

	opts := upstreamScaleDownOptions(c)
	procs, registry := processorstest.NewTestProcessors(opts)
	actx, err := catest.NewScaleTestAutoscalingContext(opts, &fake.Clientset{}, listers, provider, nil, nil, registry)
	if err != nil {
		return nil, err
	}
	actx.Recorder = &kube_record.FakeRecorder{}
	if err := actx.ClusterSnapshot.SetClusterState(nodes, pods, nil, nil); err != nil {
		return nil, err
	}
	if err := actx.RemainingPdbTracker.SetPdbs(pdbs); err != nil {
		return nil, err
	}
	deleteOptions := options.NewNodeDeleteOptions(opts)
	drainability := rules.Default(deleteOptions)
	// The builder's candidate processor (builder/autoscaler.go).
	previous := previouscandidates.NewPreviousCandidates()
	cp := scaledowncandidates.NewCombinedScaleDownCandidatesProcessor()
	cp.Register(scaledowncandidates.NewScaleDownCandidatesSortingProcessor([]scaledowncandidates.CandidatesComparer{
		emptycandidates.NewEmptySortingProcessor(emptycandidates.NewNodeInfoGetter(actx.ClusterSnapshot), deleteOptions, drainability),
		previous,
	}))
	procs.ScaleDownNodeProcessor = cp
	procs.ScaleDownCandidatesNotifier.Register(previous)
	trackers := resourcequotas.NewTrackerFactory(resourcequotas.TrackerOptions{
		CustomResourcesProcessor: procs.CustomResourcesProcessor,
		QuotaProvider:            resourcequotas.NewCloudMinProvider(provider),
	})
	p := planner.New(&actx, procs, deleteOptions, drainability, trackers)
	return &UpstreamSD{ctx: &actx, procs: procs, planner: p, nodes: nodes, now: now, cooldown: c.Cooldown}, nil
}

// inCooldown is StaticAutoscaler.isScaleDownInCooldown (unexported, so
// restated): NewStaticAutoscaler starts the last scale-up, scale-down
// and failure times at its start, and a cool-down runs while one of them
// plus its delay is after now.
func (u *UpstreamSD) inCooldown(start time.Time) bool {
	o := u.ctx.AutoscalingOptions
	return start.Add(o.ScaleDownDelayAfterAdd).After(u.now) ||
		start.Add(o.ScaleDownDelayAfterFailure).After(u.now) ||
		start.Add(o.ScaleDownDelayAfterDelete).After(u.now)
}

// Run runs one loop's scale-down decision as StaticAutoscaler.scaleDown
// does, without the actuator: candidates and destinations from the
// candidate processor, the planner's UpdateClusterState, then, outside a
// cool-down, NodesToDelete cropped to the parallelism budgets
// (budgets.CropNodes, the actuator's first step).
func (u *UpstreamSD) Run() (ScaleDownPlan, error) {
	actx := u.ctx
	cands, err := u.procs.ScaleDownNodeProcessor.GetScaleDownCandidates(actx, u.nodes)
	if err != nil {
		return ScaleDownPlan{}, err
	}
	dests, err := u.procs.ScaleDownNodeProcessor.GetPodDestinationCandidates(actx, u.nodes)
	if err != nil {
		return ScaleDownPlan{}, err
	}
	status := deletiontracker.NewNodeDeletionTracker(0)
	if err := u.planner.UpdateClusterState(dests, cands, status, u.now); err != nil {
		return ScaleDownPlan{}, fmt.Errorf("upstream UpdateClusterState: %v", err)
	}
	out := ScaleDownPlan{Reasons: map[string]string{}}
	isCand := map[string]bool{}
	for _, n := range cands {
		isCand[n.Name] = true
	}
	for _, n := range u.nodes {
		if !isCand[n.Name] {
			// The pre-filter drops the nodes of groups at their minimum
			// ("node group min size reached").
			out.Reasons[n.Name] = simulator.NodeGroupMinSizeReached.String()
		}
	}
	unneeded := map[string]bool{}
	for _, n := range u.planner.UnneededNodes() {
		out.Unneeded = append(out.Unneeded, n.Node.Name)
		unneeded[n.Node.Name] = true
	}
	if u.inCooldown(u.now.Add(-sdPlan)) {
		for name := range unneeded {
			out.Reasons[name] = ReasonInCooldown
		}
	} else {
		empty, drain := u.planner.NodesToDelete(u.now)
		emptyV, drainV := budgets.NewScaleDownBudgetProcessor(actx).CropNodes(status, empty, drain)
		deleted := map[string]bool{}
		for _, views := range [][]*budgets.NodeGroupView{emptyV, drainV} {
			for _, v := range views {
				for _, n := range v.Nodes {
					out.ToDelete = append(out.ToDelete, n.Name)
					deleted[n.Name] = true
				}
			}
		}
		for name := range unneeded {
			if !deleted[name] {
				out.Reasons[name] = ReasonParallelism
			}
		}
	}
	// Unremovable nodes, NodesToDelete's (minimum size) over the
	// simulation's.
	for _, un := range u.planner.UnremovableNodes() {
		why := un.Reason.String()
		if un.Reason == simulator.BlockedByPod && un.BlockingPod != nil {
			why = un.BlockingPod.Reason.String()
		}
		out.Reasons[un.Node.Name] = why
	}
	out.sort()
	return out, nil
}

// ReasonParallelism is ours' name for an unneeded node the budgets left
// out (upstream gives none).
const ReasonParallelism = "MaxParallelismReached"

func (p *ScaleDownPlan) sort() {
	sort.Strings(p.Unneeded)
	sort.Strings(p.ToDelete)
}
