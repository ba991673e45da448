package ca

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	kube_record "k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"
	"sigs.k8s.io/cluster-autoscaler/pkg/cloudprovider"
	testprovider "sigs.k8s.io/cluster-autoscaler/pkg/cloudprovider/test"
	"sigs.k8s.io/cluster-autoscaler/pkg/clusterstate"
	caconfig "sigs.k8s.io/cluster-autoscaler/pkg/config"
	ca_context "sigs.k8s.io/cluster-autoscaler/pkg/context"
	"sigs.k8s.io/cluster-autoscaler/pkg/core/scaleup/orchestrator"
	catest "sigs.k8s.io/cluster-autoscaler/pkg/core/test"
	"sigs.k8s.io/cluster-autoscaler/pkg/estimator"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander/mostpods"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander/priority"
	"sigs.k8s.io/cluster-autoscaler/pkg/expander/waste"
	"sigs.k8s.io/cluster-autoscaler/pkg/processors/nodegroupconfig"
	processorstest "sigs.k8s.io/cluster-autoscaler/pkg/processors/test"
	"sigs.k8s.io/cluster-autoscaler/pkg/resourcequotas"
	"sigs.k8s.io/cluster-autoscaler/pkg/simulator/framework"
	kube_util "sigs.k8s.io/cluster-autoscaler/pkg/utils/kubernetes"
	"sigs.k8s.io/cluster-autoscaler/pkg/utils/taints"
	utiltest "sigs.k8s.io/cluster-autoscaler/pkg/utils/test"
	"sigs.k8s.io/cluster-autoscaler/pkg/utils/units"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
)

func init() {
	// Upstream logs each scale-up at level 0; keep the report clean.
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
}

// Upstream is a case set up for upstream's scale-up orchestrator, as its
// own tests (orchestrator_test.go runSimpleScaleUpTest) set one up: the
// test cloud provider with the case's groups, their nodes and templates,
// a cluster snapshot with the nodes and their filler pods, the
// processors of processors/test, the binpacking estimator with the
// thresholds of the real builder, and the case's expander chain.
type Upstream struct {
	orch      *orchestrator.ScaleUpOrchestrator
	ctx       *ca_context.AutoscalingContext
	pending   []*corev1.Pod
	nodes     []*corev1.Node
	nodeInfos map[string]*framework.NodeInfo
	strategy  *recordingStrategy
}

// recordingStrategy is the expander chain (expander/factory chain.go)
// without its random fallback: it records the options it was given and
// the tied best ones, and returns the first of those.
type recordingStrategy struct {
	filters []expander.Filter
	options []expander.Option
	best    []expander.Option
}

func (r *recordingStrategy) BestOption(options []expander.Option, nodeInfo map[string]*framework.NodeInfo) *expander.Option {
	r.options = append([]expander.Option(nil), options...)
	best := options
	for _, f := range r.filters {
		best = f.BestOptions(best, nodeInfo)
		if len(best) <= 1 {
			break
		}
	}
	r.best = append([]expander.Option(nil), best...)
	if len(best) == 0 {
		return nil
	}
	return &best[0]
}

// BuildUpstream sets a case up for upstream. ours gives the existing nodes
// (as our Cluster Autoscaler launched them) so both sides start from the
// same nodes.
func BuildUpstream(cat *catalog.Catalog, c *Case, ours *Ours) (*Upstream, error) {
	now := time.Unix(1_800_000_000, 0)
	groups, err := NodeGroups(cat, c)
	if err != nil {
		return nil, err
	}
	// Templates of empty groups: the AWS provider's template, as ours.
	templates := map[string]*framework.NodeInfo{}
	for _, g := range groups {
		templates[g.Name] = framework.NewTestNodeInfo(templateNode(&g))
	}
	provider := testprovider.NewTestCloudProviderBuilder().
		WithOnScaleUp(func(string, int) error { return nil }).
		WithMachineTemplates(templates).Build()
	options := caconfig.AutoscalingOptions{
		EstimatorName:                  estimator.BinpackingEstimatorName,
		MaxCoresTotal:                  caconfig.DefaultMaxClusterCores,
		MaxMemoryTotal:                 caconfig.DefaultMaxClusterMemory * units.GiB,
		MaxNodesPerScaleUp:             1000,
		MaxNodeGroupBinpackingDuration: 10 * time.Second,
		ScaleUpFromZero:                true,
		ExpanderNames:                  strings.Join(c.Expanders, ","),
	}
	provider.SetResourceLimiter(cloudprovider.NewResourceLimiter(
		map[string]int64{cloudprovider.ResourceNameCores: 0, cloudprovider.ResourceNameMemory: 0},
		map[string]int64{cloudprovider.ResourceNameCores: options.MaxCoresTotal, cloudprovider.ResourceNameMemory: options.MaxMemoryTotal}))
	cl := ours.Cluster
	byGroup := map[string][]*corev1.Node{}
	var nodes []*corev1.Node
	var pods []*corev1.Pod
	for i := range cl.Nodes {
		nd := &cl.Nodes[i]
		n := nodeOf(cat, cl, nd, groups)
		utiltest.SetNodeReadyState(n, true, now.Add(-time.Hour))
		byGroup[nd.OwnerName] = append(byGroup[nd.OwnerName], n)
		nodes = append(nodes, n)
		pods = append(pods, &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "filler-" + n.Name, Namespace: "default", UID: types.UID("filler-" + n.Name)},
			Spec: corev1.PodSpec{NodeName: n.Name, Containers: []corev1.Container{{Name: "c", Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{
					corev1.ResourceCPU:    *resource.NewMilliQuantity(nd.Allocatable[cluster.CPU], resource.DecimalSI),
					corev1.ResourceMemory: *resource.NewQuantity(nd.Allocatable[cluster.Memory], resource.BinarySI),
				}}}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		})
	}
	for _, g := range c.Groups {
		provider.AddNodeGroup(g.Name, g.Min, g.Max, len(byGroup[g.Name]))
		for _, n := range byGroup[g.Name] {
			provider.AddNode(g.Name, n)
		}
	}
	var pending []*corev1.Pod
	for _, p := range c.Pods {
		q := p.DeepCopy()
		q.CreationTimestamp = metav1.NewTime(now.Add(-time.Minute))
		q.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
		pending = append(pending, q)
	}
	listers := kube_util.NewListerRegistry(nil, nil, kube_util.NewTestPodLister(append(append([]*corev1.Pod(nil), pods...), pending...)), nil, nil, nil, nil, nil, nil)

	procs, registry := processorstest.NewTestProcessors(options)
	actx, err := catest.NewScaleTestAutoscalingContext(options, &fake.Clientset{}, listers, provider, nil, nil, registry)
	if err != nil {
		return nil, err
	}
	actx.Recorder = &kube_record.FakeRecorder{} // no channel: events are dropped
	if err := actx.ClusterSnapshot.SetClusterState(nodes, pods, nil, nil); err != nil {
		return nil, err
	}
	if err := actx.TemplateNodeInfoRegistry.Recompute(&actx, nodes, []*appsv1.DaemonSet{}, taints.TaintConfig{}, now); err != nil {
		return nil, err
	}
	nodeInfos := actx.TemplateNodeInfoRegistry.GetNodeInfos()
	csr := clusterstate.NewClusterStateRegistry(provider, actx.LogRecorder, catest.NewBackoff(),
		nodegroupconfig.NewDefaultNodeGroupConfigProcessor(options.NodeGroupDefaults), actx.TemplateNodeInfoRegistry,
		clusterstate.WithScaleStateNotifier(procs.ScaleStateNotifier))
	if err := csr.UpdateNodes(nodes, now); err != nil {
		return nil, err
	}
	strategy := &recordingStrategy{}
	for _, name := range c.Expanders {
		switch name {
		case expander.LeastWasteExpanderName:
			strategy.filters = append(strategy.filters, waste.NewFilter())
		case expander.MostPodsExpanderName:
			strategy.filters = append(strategy.filters, mostpods.NewFilter())
		case expander.PriorityBasedExpanderName:
			strategy.filters = append(strategy.filters, priority.NewFilter(priorityLister(c.Priorities), actx.Recorder))
		default:
			return nil, fmt.Errorf("%s: expander %s is not driven by the harness", c.Name, name)
		}
	}
	actx.ExpanderStrategy = strategy
	trackers := resourcequotas.NewTrackerFactory(resourcequotas.TrackerOptions{
		QuotaProvider:            resourcequotas.NewCloudQuotasProvider(provider),
		CustomResourcesProcessor: procs.CustomResourcesProcessor,
	})
	eb, err := estimator.NewEstimatorBuilder(estimator.BinpackingEstimatorName,
		estimator.NewThresholdBasedEstimationLimiter([]estimator.Threshold{
			estimator.NewStaticThreshold(options.MaxNodesPerScaleUp, options.MaxNodeGroupBinpackingDuration),
			estimator.NewSngCapacityThreshold(),
			estimator.NewClusterCapacityThreshold(),
		}),
		estimator.NewDecreasingPodOrderer(), nil, false)
	if err != nil {
		return nil, err
	}
	orch := orchestrator.New()
	orch.Initialize(&actx, procs, csr, eb, taints.TaintConfig{}, trackers)
	return &Upstream{orch: orch, ctx: &actx, pending: pending, nodes: nodes, nodeInfos: nodeInfos, strategy: strategy}, nil
}

// priorityLister serves the priority expander's ConfigMap.
func priorityLister(prios map[int][]string) listersv1.ConfigMapNamespaceLister {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	var b strings.Builder
	var keys []int
	for k := range prios {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%d:\n", k)
		for _, re := range prios[k] {
			fmt.Fprintf(&b, "  - %s\n", re)
		}
	}
	_ = idx.Add(&corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: priority.PriorityConfigMapName, Namespace: "kube-system"},
		Data:       map[string]string{"priorities": b.String()},
	})
	return listersv1.NewConfigMapLister(idx).ConfigMaps("kube-system")
}

// nodeOf is our node as a Kubernetes Node: labels, taints, allocatable as
// our model computes it, capacity from the catalogue.
func nodeOf(cat *catalog.Catalog, cl *cluster.Cluster, nd *cluster.Node, groups []config.NodeGroup) *corev1.Node {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: nd.Name, Labels: map[string]string{}},
		Spec:       corev1.NodeSpec{ProviderID: nd.Name},
	}
	for _, l := range nd.Labels {
		n.Labels[cl.Syms.Name(l.Key)] = cl.Syms.Name(l.Value)
	}
	for _, t := range nd.Taints {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: cl.Syms.Name(t.Key), Value: cl.Syms.Name(t.Value), Effect: corev1.TaintEffect(t.Effect.String())})
	}
	n.Status.Allocatable = corev1.ResourceList{
		corev1.ResourceCPU:              *resource.NewMilliQuantity(nd.Allocatable[cluster.CPU], resource.DecimalSI),
		corev1.ResourceMemory:           *resource.NewQuantity(nd.Allocatable[cluster.Memory], resource.BinarySI),
		corev1.ResourceEphemeralStorage: *resource.NewQuantity(nd.Allocatable[cluster.Ephemeral], resource.BinarySI),
		corev1.ResourcePods:             *resource.NewQuantity(nd.Allocatable[cluster.Pods], resource.DecimalSI),
	}
	n.Status.Capacity = n.Status.Allocatable.DeepCopy()
	if it, ok := cat.Lookup(nd.InstanceType); ok {
		var opts catalog.KubeletOptions
		for _, g := range groups {
			if g.Name == nd.OwnerName {
				opts = g.Kubelet
			}
		}
		capa := it.Capacity(opts)
		n.Status.Capacity[corev1.ResourceCPU] = *resource.NewMilliQuantity(capa.CPUMilli, resource.DecimalSI)
		n.Status.Capacity[corev1.ResourceMemory] = *resource.NewQuantity(capa.MemoryBytes, resource.BinarySI)
	}
	return n
}

// templateNode is the AWS provider's template of a group (our
// config.Template) as a Node.
func templateNode(g *config.NodeGroup) *corev1.Node {
	t := &g.Template
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "template-" + g.Name, Labels: map[string]string{}},
		Status:     corev1.NodeStatus{Capacity: corev1.ResourceList{}, Allocatable: corev1.ResourceList{}},
	}
	for k, v := range t.Labels {
		n.Labels[k] = v
	}
	n.Labels["kubernetes.io/hostname"] = n.Name
	for _, tt := range t.Taints {
		n.Spec.Taints = append(n.Spec.Taints, corev1.Taint{Key: tt.Key, Value: tt.Value, Effect: corev1.TaintEffect(tt.Effect)})
	}
	for k, q := range t.Capacity {
		n.Status.Capacity[corev1.ResourceName(k)] = q
		n.Status.Allocatable[corev1.ResourceName(k)] = q
	}
	utiltest.SetNodeReadyState(n, true, time.Unix(1_800_000_000, 0))
	return n
}

// Run runs upstream's scale-up once and converts its decision.
func (u *Upstream) Run() (Decision, error) {
	_, err := u.orch.ScaleUp(u.pending, u.nodes, []*appsv1.DaemonSet{}, u.nodeInfos, false)
	if err != nil {
		return Decision{}, fmt.Errorf("upstream scale-up: %v", err)
	}
	var d Decision
	for _, o := range u.strategy.options {
		x := Option{Group: o.NodeGroup.Id(), Nodes: o.NodeCount}
		for _, p := range o.Pods {
			x.Pods = append(x.Pods, p.Name)
		}
		sort.Strings(x.Pods)
		d.Options = append(d.Options, x)
	}
	sort.Slice(d.Options, func(i, j int) bool { return d.Options[i].Group < d.Options[j].Group })
	for _, o := range u.strategy.best {
		d.Best = append(d.Best, o.NodeGroup.Id())
	}
	sort.Strings(d.Best)
	return d, nil
}
