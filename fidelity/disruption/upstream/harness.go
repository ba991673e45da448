// Package upstream runs upstream Karpenter v1.15.0's disruption steps
// (sigs.k8s.io/karpenter pkg/controllers/disruption and the controllers
// that feed it) on a case's cluster state, without an API server: the
// objects live in controller-runtime's fake client, the time in a fake
// clock, and the controllers are reconciled by hand in the order the
// operator's watches would run them. It returns upstream's first
// disruption decision.
//
// It needs module requirements the module's go.mod does not list yet
// (controller-runtime, the VPA API of the state informers, pkg/test's
// deps of the fake provider); go.upstream.mod is go.mod tidied with this
// package: go test -modfile=upstream/go.upstream.mod ./upstream/.
package upstream

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/awslabs/operatorpkg/option"
	opstatus "github.com/awslabs/operatorpkg/status"
	"github.com/go-logr/logr"
	"github.com/samber/lo"
	"go.uber.org/zap/zapcore"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
	"sigs.k8s.io/karpenter/pkg/controllers/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/dynamicresources/deviceallocation"
	"sigs.k8s.io/karpenter/pkg/controllers/node/health"
	ncdisruption "sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/disruption"
	"sigs.k8s.io/karpenter/pkg/controllers/nodeclaim/expiration"
	"sigs.k8s.io/karpenter/pkg/controllers/provisioning"
	"sigs.k8s.io/karpenter/pkg/controllers/state"
	"sigs.k8s.io/karpenter/pkg/controllers/state/informer"
	"sigs.k8s.io/karpenter/pkg/events"
	"sigs.k8s.io/karpenter/pkg/operator/logging"
	"sigs.k8s.io/karpenter/pkg/operator/options"
	"sigs.k8s.io/karpenter/pkg/state/cost"
	"sigs.k8s.io/karpenter/pkg/state/virtualpods"
	"sigs.k8s.io/karpenter/pkg/test"

	disruptionfidelity "github.com/clustersim/clustersim/fidelity/disruption"
)

func init() {
	log.SetLogger(logging.NopLogger)
	karpv1.WellKnownLabels.Insert(awsLabels...)
	registerNodeClass()
}

// upstreamLogger is where upstream's logs go: nowhere, unless
// FIDELITY_UPSTREAM_LOG=1, then to stderr at V(1), where its Balanced
// scores ("consolidation score") are, to compare with ours.
func upstreamLogger() logr.Logger {
	if os.Getenv("FIDELITY_UPSTREAM_LOG") != "1" {
		return logging.NopLogger
	}
	return zap.New(zap.WriteTo(os.Stderr), zap.Level(zapcore.Level(-1)))
}

// PollingPeriod is how often upstream's disruption controller looks for
// work when the last look did nothing (controller.go pollingPeriod).
const PollingPeriod = 10 * time.Second

// Harness is one case loaded into upstream's controllers. Each Harness
// has its own client, clock, cluster state and methods: runs share
// nothing but what upstream keeps globally (metrics registries).
type Harness struct {
	ctx   context.Context
	start time.Time
	clk   *clocktesting.FakeClock
	kube  client.Client
	cp    *provider

	cluster     *state.Cluster
	clusterCost *cost.ClusterCost
	queue       *disruption.Queue
	methods     []disruption.Method
	recorder    events.Recorder

	pricing        *informer.PricingController
	nodePoolState  reconcile.Reconciler
	nodeClaimState reconcile.Reconciler
	nodeState      reconcile.Reconciler
	daemonSetState reconcile.Reconciler
	podState       reconcile.Reconciler
	ncDisruption   reconcile.Reconciler
	expiration     reconcile.Reconciler

	// informed is the resourceVersion of each object the state informers
	// last saw, so that a poll re-informs only what changed (the watch
	// events the operator would receive).
	informed map[objectKey]string
	// podsInformed is when the pod state controller last reconciled
	// every pod (it requeues each one every stateRetryPeriod).
	podsInformed time.Time
	loaded       bool
	// inFlight are the provider IDs of nodes a command in progress holds
	// (MarkInFlight).
	inFlight []string
	elapsed  time.Duration
}

type objectKey struct {
	kind string
	key  types.NamespacedName
}

// New loads the case at its export time.
func New(c *disruptionfidelity.Case) (*Harness, error) {
	return NewAt(c, disruptionfidelity.ExportTime)
}

// NewAt loads the case's objects as a state observed at now: the same
// kinds as a kubectl export (see FromObjects), deletionTimestamps and the
// karpenter.sh/disrupted taint included. The case is not modified.
func NewAt(c *disruptionfidelity.Case, now time.Time) (*Harness, error) {
	// test.Options() as upstream's suites use them; NodeRepair as the
	// case has it (off: its default, NewMethods registers no Repair),
	// StaticCapacity as the case has it, reserved capacity on.
	opts := test.Options(test.OptionsFields{FeatureGates: test.FeatureGates{SpotToSpotConsolidation: lo.ToPtr(c.SpotToSpot), NodeRepair: lo.ToPtr(c.NodeRepair), StaticCapacity: lo.ToPtr(c.Static)}})
	ctx := options.ToContext(log.IntoContext(context.Background(), upstreamLogger()), opts)

	clk := clocktesting.NewFakeClock(now)
	objs, err := caseObjects(c, clk)
	if err != nil {
		return nil, err
	}
	kube, err := newClient(objs)
	if err != nil {
		return nil, fmt.Errorf("%s: loading the objects: %w", c.Name, err)
	}
	cp := newProvider(c)
	rec := nopRecorder{}
	// Node repair reads the provider's policies through cluster state's
	// matcher (the operator builds it so when the gate is on).
	var stateOpts []option.Function[state.ClusterOptions]
	if c.NodeRepair {
		matcher, err := health.NewRepairPolicyMatcher(ctx, cp)
		if err != nil {
			return nil, fmt.Errorf("%s: repair policies: %w", c.Name, err)
		}
		stateOpts = append(stateOpts, state.WithRepairPolicyMatcher(matcher))
	}
	cluster := state.NewCluster(clk, kube, cp, stateOpts...)
	clusterCost := cost.NewClusterCost(ctx, cp, kube)
	prov := provisioning.NewProvisioner(kube, rec, cp, cluster, clk, deviceallocation.NewController(kube), virtualpods.NewVirtualPodCache(kube))
	queue := disruption.NewQueue(kube, rec, cluster, clk, prov)

	// NewMethods' order, built by hand to swap the validators (below).
	cons := disruption.MakeConsolidation(clk, cluster, kube, prov, cp, rec, queue)
	var methods []disruption.Method
	if c.NodeRepair {
		// NewMethods registers Repair first with the gate on.
		methods = append(methods, disruption.NewRepair(cons))
	}
	methods = append(methods,
		disruption.NewEmptiness(cons, disruption.WithValidator(noWait{disruption.NewEmptinessValidator(cons)})),
		disruption.NewStaticDrift(cluster, prov, cp, rec),
		disruption.NewDrift(kube, cluster, prov, rec, clk),
		disruption.NewMultiNodeConsolidation(cons, disruption.WithValidator(noWait{disruption.NewMultiConsolidationValidator(cons)})),
		disruption.NewSingleNodeConsolidation(cons, disruption.WithValidator(noWait{disruption.NewSingleConsolidationValidator(cons)})),
	)
	return &Harness{
		ctx: ctx, start: now, clk: clk, kube: kube, cp: cp,
		cluster: cluster, clusterCost: clusterCost, queue: queue, methods: methods, recorder: rec,
		pricing:        informer.NewPricingController(kube, cp, clusterCost),
		nodePoolState:  informer.NewNodePoolController(kube, cp, cluster, clusterCost),
		nodeClaimState: informer.NewNodeClaimController(kube, cp, cluster, clusterCost),
		nodeState:      informer.NewNodeController(kube, cluster),
		daemonSetState: informer.NewDaemonSetController(kube, cluster),
		podState:       informer.NewPodController(kube, cluster),
		ncDisruption:   reconcile.AsReconciler[*karpv1.NodeClaim](kube, ncdisruption.NewController(clk, kube, cp)),
		// Upstream sleeps a second after each expiry to read its own
		// write; on the fake clock that would shift the polling grid.
		expiration: reconcile.AsReconciler[*karpv1.NodeClaim](kube, expiration.NewController(noSleep{clk}, kube, cp)),
		informed:   map[objectKey]string{},
	}, nil
}

// MarkInFlight says which nodes (by name) a disruption command already
// started holds, as upstream's orchestration queue does after
// StartCommand: cluster state marks them for deletion (they are no
// candidates, their pods may move to other nodes, and they count against
// their pools' budgets) and their karpenter.sh/disrupted taint stays. A
// state read back from an export cannot say so itself: the queue lives in
// the controller's memory. Call it before First.
func (h *Harness) MarkInFlight(c *disruptionfidelity.Case, nodes []string) {
	want := map[string]bool{}
	for _, n := range nodes {
		want[n] = true
	}
	for _, n := range c.Nodes {
		if want[n.Name] && n.Spec.ProviderID != "" {
			h.inFlight = append(h.inFlight, n.Spec.ProviderID)
		}
	}
}

// Elapsed is the wall time upstream's deciding work took: the state
// informers, the nodeclaim controllers and the disruption methods of
// every poll (not loading the objects).
func (h *Harness) Elapsed() time.Duration { return h.elapsed }

// First polls as upstream's disruption controller does, every
// PollingPeriod from the state's time, and returns the first decision:
// an expiry (the expiration controller deletes expired NodeClaims
// forcefully, outside the disruption methods), or the first method's
// command. Decision{Method: none} when nothing happens within horizon.
// Calling it again continues polling the same state (the command is not
// executed).
func (h *Harness) First(horizon time.Duration) (disruptionfidelity.Decision, error) {
	began := time.Now()
	defer func() { h.elapsed += time.Since(began) }()
	if !h.loaded {
		if err := h.load(); err != nil {
			return disruptionfidelity.Decision{}, err
		}
		h.loaded = true
		if len(h.inFlight) > 0 {
			h.cluster.MarkForDeletion(h.inFlight...)
		}
	}
	for {
		d, ok, err := h.poll()
		if err != nil || ok {
			return d, err
		}
		if h.clk.Since(h.start)+PollingPeriod > horizon {
			return disruptionfidelity.Decision{Method: disruptionfidelity.MethodNone, At: h.clk.Since(h.start)}, nil
		}
		h.clk.Step(PollingPeriod)
	}
}

// load informs cluster state of every object, as the informers' initial
// list does, and prices the offerings (suite_test.go's pricing
// controller).
func (h *Harness) load() error {
	if _, err := h.pricing.Reconcile(h.ctx); err != nil {
		return fmt.Errorf("pricing: %w", err)
	}
	if err := h.inform(true); err != nil {
		return err
	}
	// A settled start: the export comes from a running cluster, where the
	// nodeclaim disruption controller has already set the conditions it
	// would set now and the pod state controller has reconciled every pod
	// since (each one every stateRetryPeriod). Without this the first
	// poll's condition writes would be newer than every pod's reconcile,
	// and upstream's cluster state drops a node's pods' disruption costs
	// when its NodeClaim changes (newStateFromNodeClaim does not carry
	// podDisruptionCosts over; they come back at the pod's next
	// reconcile), leaving the Balanced pools' totals without them.
	if err := h.nodeClaimConditions(); err != nil {
		return err
	}
	if err := h.inform(false); err != nil {
		return err
	}
	return h.informPods()
}

// informPods reconciles every pod, as the pod state controller's requeue
// (stateRetryPeriod) does whether or not the pod changed.
func (h *Harness) informPods() error {
	pods := &corev1.PodList{}
	if err := h.kube.List(h.ctx, pods); err != nil {
		return err
	}
	for i := range pods.Items {
		req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&pods.Items[i])}
		if _, err := h.podState.Reconcile(h.ctx, req); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("informing Pod %s: %w", req.NamespacedName, err)
		}
	}
	h.podsInformed = h.clk.Now()
	return nil
}

// podRetryPeriod is the pod state controller's requeue of every pod
// (informer/pod.go stateRetryPeriod).
const podRetryPeriod = time.Minute

// nodeClaimConditions runs the nodeclaim disruption controller on every
// NodeClaim: the Consolidatable and Drifted conditions at the clock's
// time.
func (h *Harness) nodeClaimConditions() error {
	ncs := &karpv1.NodeClaimList{}
	if err := h.kube.List(h.ctx, ncs); err != nil {
		return err
	}
	for i := range ncs.Items {
		req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&ncs.Items[i])}
		if _, err := h.ncDisruption.Reconcile(h.ctx, req); err != nil {
			return fmt.Errorf("nodeclaim disruption %s: %w", req.Name, err)
		}
	}
	return nil
}

// inform runs the state informers for the objects that changed since they
// last ran (all of them the first time). Pods and DaemonSets change only
// when loaded: none of the controllers we run writes them.
func (h *Harness) inform(all bool) error {
	if err := h.informKind(&karpv1.NodePoolList{}, "NodePool", h.nodePoolState, false); err != nil {
		return err
	}
	if err := h.informKind(&karpv1.NodeClaimList{}, "NodeClaim", h.nodeClaimState, false); err != nil {
		return err
	}
	if err := h.informKind(&corev1.NodeList{}, "Node", h.nodeState, false); err != nil {
		return err
	}
	if !all {
		if h.clk.Since(h.podsInformed) >= podRetryPeriod {
			return h.informPods()
		}
		return nil
	}
	if err := h.informKind(&appsv1.DaemonSetList{}, "DaemonSet", h.daemonSetState, false); err != nil {
		return err
	}
	// A pod bound to a node cluster state does not track (unmanaged,
	// not exported) stays out of it, as upstream's requeues would leave it.
	if err := h.informKind(&corev1.PodList{}, "Pod", h.podState, true); err != nil {
		return err
	}
	h.podsInformed = h.clk.Now()
	return nil
}

func (h *Harness) informKind(list client.ObjectList, kind string, r reconcile.Reconciler, ignoreNotFound bool) error {
	if err := h.kube.List(h.ctx, list); err != nil {
		return err
	}
	items, err := meta.ExtractList(list)
	if err != nil {
		return err
	}
	present := map[objectKey]bool{}
	for _, item := range items {
		o := item.(client.Object)
		k := objectKey{kind, client.ObjectKeyFromObject(o)}
		present[k] = true
		if rv, ok := h.informed[k]; ok && rv == o.GetResourceVersion() {
			continue
		}
		if _, err := r.Reconcile(h.ctx, reconcile.Request{NamespacedName: k.key}); err != nil && !(ignoreNotFound && apierrors.IsNotFound(err)) {
			return fmt.Errorf("informing %s %s: %w", kind, k.key, err)
		}
		h.informed[k] = o.GetResourceVersion()
	}
	for k := range h.informed {
		if k.kind == kind && !present[k] {
			if _, err := r.Reconcile(h.ctx, reconcile.Request{NamespacedName: k.key}); err != nil {
				return fmt.Errorf("informing %s %s: %w", kind, k.key, err)
			}
			delete(h.informed, k)
		}
	}
	return nil
}

// poll is one pass at the clock's time: the nodeclaim controllers (their
// conditions depend on the clock), then the disruption controller's
// Reconcile. ok when it decided something.
func (h *Harness) poll() (disruptionfidelity.Decision, bool, error) {
	ncs := &karpv1.NodeClaimList{}
	if err := h.kube.List(h.ctx, ncs); err != nil {
		return disruptionfidelity.Decision{}, false, err
	}
	// Consolidatable and Drifted conditions.
	if err := h.nodeClaimConditions(); err != nil {
		return disruptionfidelity.Decision{}, false, err
	}
	// Expiration.
	var expired []string
	for i := range ncs.Items {
		nc := &ncs.Items[i]
		if !nc.DeletionTimestamp.IsZero() {
			continue
		}
		req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(nc)}
		if _, err := h.expiration.Reconcile(h.ctx, req); err != nil {
			return disruptionfidelity.Decision{}, false, fmt.Errorf("expiration %s: %w", req.Name, err)
		}
		after := &karpv1.NodeClaim{}
		if err := h.kube.Get(h.ctx, req.NamespacedName, after); err != nil {
			if apierrors.IsNotFound(err) {
				expired = append(expired, nodeNameOf(nc))
				continue
			}
			return disruptionfidelity.Decision{}, false, err
		}
		if !after.DeletionTimestamp.IsZero() {
			expired = append(expired, nodeNameOf(nc))
		}
	}
	if err := h.inform(false); err != nil {
		return disruptionfidelity.Decision{}, false, err
	}
	if len(expired) > 0 {
		return expirationDecision(expired, h.clk.Since(h.start)), true, nil
	}

	// Controller.Reconcile. Upstream requeues until cluster state is
	// synced; a state that never syncs (a NodeClaim without a
	// providerID) decides nothing.
	if !h.cluster.Synced(h.ctx) {
		return disruptionfidelity.Decision{}, false, nil
	}
	// Taints and DisruptionReason conditions left by an interrupted
	// disruption are removed from nodes the queue does not hold.
	outdated := lo.Reject(h.cluster.DeepCopyNodes(), func(s *state.StateNode, _ int) bool {
		return h.queue.HasAny(s.ProviderID()) || s.MarkedForDeletion() || s.RebootInProgress()
	})
	if err := state.RequireNoScheduleTaint(h.ctx, h.kube, false, outdated...); err != nil {
		return disruptionfidelity.Decision{}, false, fmt.Errorf("removing taint from nodes: %w", err)
	}
	if err := state.ClearNodeClaimsCondition(h.ctx, h.kube, h.clk, karpv1.ConditionTypeDisruptionReason, outdated...); err != nil {
		return disruptionfidelity.Decision{}, false, fmt.Errorf("removing condition from nodeclaims: %w", err)
	}
	// The informers see those writes before the methods run (upstream
	// races its watch here; this is the settled view).
	if err := h.inform(false); err != nil {
		return disruptionfidelity.Decision{}, false, err
	}
	for _, m := range h.methods {
		cmds, err := h.disrupt(m)
		if err != nil {
			return disruptionfidelity.Decision{}, false, fmt.Errorf("disrupting, %s: %w", m.Reason(), err)
		}
		if len(cmds) > 0 {
			return decisionOf(m, cmds, h.clk.Since(h.start)), true, nil
		}
	}
	return disruptionfidelity.Decision{}, false, nil
}

// disrupt is Controller.disrupt up to the point where it would start the
// commands: candidates, NodePool totals, budgets, ComputeCommands.
func (h *Harness) disrupt(m disruption.Method) ([]disruption.Command, error) {
	candidates, totals, err := disruption.GetCandidatesWithTotals(h.ctx, h.cluster, h.kube, h.recorder, h.clk, h.cp, m.ShouldDisrupt, m.Class(), h.queue, h.clusterCost)
	if err != nil {
		return nil, fmt.Errorf("determining candidates, %w", err)
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	if setter, ok := m.(disruption.NodePoolTotalsSetter); ok {
		setter.SetNodePoolTotals(totals)
		for pool, t := range totals {
			log.FromContext(h.ctx).V(1).Info("nodepool totals (harness)", "method", m.Reason(), "nodepool", pool,
				"total_cost", t.TotalCost, "total_disruption_cost", t.TotalDisruptionCost)
		}
		for _, c := range candidates {
			log.FromContext(h.ctx).V(1).Info("candidate (harness)", "method", m.Reason(), "node", c.Name(), "nodepool", c.NodePool.Name,
				"price", c.Price, "reschedule_disruption_cost", c.RescheduleDisruptionCost)
		}
	}
	budgets, err := disruption.BuildDisruptionBudgetMapping(h.ctx, h.cluster, h.clk, h.kube, h.cp, h.recorder, m.Reason())
	if err != nil {
		return nil, fmt.Errorf("building disruption budgets, %w", err)
	}
	log.FromContext(h.ctx).V(1).Info("budgets (harness)", "method", m.Reason(), "allowed", budgets)
	cmds, err := m.ComputeCommands(h.ctx, budgets, candidates...)
	if err != nil {
		return nil, fmt.Errorf("computing disruption decision, %w", err)
	}
	return lo.Filter(cmds, func(c disruption.Command, _ int) bool { return c.Decision() != disruption.NoOpDecision }), nil
}

// noWait runs upstream's own validator without its wait: upstream waits
// commandValidationDelay (15 s) on the clock before validating, which on
// the fake clock nobody would advance. Validating at once re-checks the
// same (static) state; a decision's At therefore excludes those 15 s.
type noWait struct{ inner disruption.Validator }

func (v noWait) Validate(ctx context.Context, cmd disruption.Command, _ time.Duration) (disruption.Command, error) {
	return v.inner.Validate(ctx, cmd, 0)
}

type noSleep struct{ clock.Clock }

func (noSleep) Sleep(time.Duration) {}

// nopRecorder drops upstream's events (they do not feed back into
// decisions); with FIDELITY_UPSTREAM_LOG=1 it prints them.
type nopRecorder struct{}

func (nopRecorder) Publish(evts ...events.Event) {
	if os.Getenv("FIDELITY_UPSTREAM_LOG") != "1" {
		return
	}
	for _, e := range evts {
		name := ""
		if o, ok := e.InvolvedObject.(client.Object); ok {
			name = o.GetName()
		}
		fmt.Fprintf(os.Stderr, "upstream event: %s %s %s: %s\n", e.Type, e.Reason, name, e.Message)
	}
}

var (
	schemeOnce sync.Once
	theScheme  *runtime.Scheme
)

// clientScheme holds core, apps, policy, storage and Karpenter's types.
// Built once and only read afterwards.
func clientScheme() *runtime.Scheme {
	schemeOnce.Do(func() {
		s := runtime.NewScheme()
		lo.Must0(clientgoscheme.AddToScheme(s))
		gv := schema.GroupVersion{Group: "karpenter.sh", Version: "v1"}
		s.AddKnownTypes(gv, &karpv1.NodePool{}, &karpv1.NodePoolList{}, &karpv1.NodeClaim{}, &karpv1.NodeClaimList{})
		metav1.AddToGroupVersion(s, gv)
		theScheme = s
	})
	return theScheme
}

// newClient is the fake client with the field indexes the operator
// registers (operator.go setupIndexers) and status subresources.
func newClient(objs []client.Object) (kube client.Client, err error) {
	defer func() {
		// The builder panics when an object cannot be added.
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	ncRef := func(f func(*karpv1.NodeClassReference) string) client.IndexerFunc {
		return func(o client.Object) []string {
			if ref := o.(*karpv1.NodeClaim).Spec.NodeClassRef; ref != nil {
				return []string{f(ref)}
			}
			return []string{""}
		}
	}
	npRef := func(f func(*karpv1.NodeClassReference) string) client.IndexerFunc {
		return func(o client.Object) []string {
			if ref := o.(*karpv1.NodePool).Spec.Template.Spec.NodeClassRef; ref != nil {
				return []string{f(ref)}
			}
			return []string{""}
		}
	}
	group := func(r *karpv1.NodeClassReference) string { return r.Group }
	kind := func(r *karpv1.NodeClassReference) string { return r.Kind }
	name := func(r *karpv1.NodeClassReference) string { return r.Name }
	kube = fake.NewClientBuilder().WithScheme(clientScheme()).
		WithStatusSubresource(&karpv1.NodeClaim{}, &karpv1.NodePool{}, &corev1.Node{}, &corev1.Pod{}).
		WithIndex(&corev1.Pod{}, "spec.nodeName", func(o client.Object) []string { return []string{o.(*corev1.Pod).Spec.NodeName} }).
		WithIndex(&corev1.Node{}, "spec.providerID", func(o client.Object) []string { return []string{o.(*corev1.Node).Spec.ProviderID} }).
		WithIndex(&storagev1.VolumeAttachment{}, "spec.nodeName", func(o client.Object) []string {
			return []string{o.(*storagev1.VolumeAttachment).Spec.NodeName}
		}).
		WithIndex(&karpv1.NodeClaim{}, "status.providerID", func(o client.Object) []string { return []string{o.(*karpv1.NodeClaim).Status.ProviderID} }).
		WithIndex(&karpv1.NodeClaim{}, "spec.nodeClassRef.group", ncRef(group)).
		WithIndex(&karpv1.NodeClaim{}, "spec.nodeClassRef.kind", ncRef(kind)).
		WithIndex(&karpv1.NodeClaim{}, "spec.nodeClassRef.name", ncRef(name)).
		WithIndex(&karpv1.NodePool{}, "spec.template.spec.nodeClassRef.group", npRef(group)).
		WithIndex(&karpv1.NodePool{}, "spec.template.spec.nodeClassRef.kind", npRef(kind)).
		WithIndex(&karpv1.NodePool{}, "spec.template.spec.nodeClassRef.name", npRef(name)).
		WithObjects(objs...).
		WithInterceptorFuncs((&podCache{}).funcs()).
		Build()
	return kube, nil
}

// keepFinalizer holds objects a state shows deleting but without
// finalizers (pods terminating gracefully), which the fake client refuses
// to store; it has no other effect.
const keepFinalizer = "fidelity.clustersim.io/deleting"

// caseObjects deep-copies the case's objects for the client. NodePools
// without conditions get ValidationSucceeded and NodeClassReady, as
// upstream's NodePool controllers set them for the ready EC2NodeClass (an
// export has them; the provisioner ignores NodePools that are not Ready).
func caseObjects(c *disruptionfidelity.Case, clk clock.Clock) ([]client.Object, error) {
	var out []client.Object
	add := func(o client.Object) {
		if o.GetDeletionTimestamp() != nil && len(o.GetFinalizers()) == 0 {
			o.SetFinalizers([]string{keepFinalizer})
		}
		out = append(out, o)
	}
	for _, np := range c.Pools {
		np = np.DeepCopy()
		missing := lo.Filter([]string{karpv1.ConditionTypeValidationSucceeded, karpv1.ConditionTypeNodeClassReady}, func(t string, _ int) bool {
			return !lo.ContainsBy(np.Status.Conditions, func(c opstatus.Condition) bool { return c.Type == t })
		})
		for _, t := range missing {
			np.StatusConditions(opstatus.WithClock(clk)).SetTrue(t)
		}
		add(np)
	}
	for _, o := range c.NodeClaims {
		add(o.DeepCopy())
	}
	for _, o := range c.Nodes {
		add(o.DeepCopy())
	}
	for _, o := range c.Deployments {
		add(o.DeepCopy())
	}
	for _, o := range c.ReplicaSets {
		add(o.DeepCopy())
	}
	for _, o := range c.DaemonSets {
		add(o.DeepCopy())
	}
	for _, o := range c.PDBs {
		add(o.DeepCopy())
	}
	for _, o := range c.Pods {
		add(o.DeepCopy())
	}
	seen := map[string]bool{}
	for _, o := range out {
		k := fmt.Sprintf("%T/%s/%s", o, o.GetNamespace(), o.GetName())
		if seen[k] {
			return nil, errors.New("duplicate object " + k)
		}
		seen[k] = true
	}
	return out, nil
}

func nodeNameOf(nc *karpv1.NodeClaim) string {
	if nc.Status.NodeName != "" {
		return nc.Status.NodeName
	}
	return nc.Name
}
