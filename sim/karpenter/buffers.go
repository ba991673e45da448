package karpenter

import (
	"fmt"
	"math"
	"time"

	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
	"github.com/clustersim/clustersim/sim/manifest"
)

// BufferResync is how often the buffer controller reconciles a
// CapacityBuffer (KC capacitybuffer Reconcile: RequeueAfter 30s) and
// wakes the provisioner: a buffer whose room real pods took is refilled
// by the batch that follows.
const BufferResync = 30 * time.Second

// buffers is Karpenter's CapacityBuffer controller and virtual pod cache
// (KC controllers/capacitybuffer, state/virtualpods): every BufferResync
// it resolves each buffer's workload, computes status.replicas and
// rebuilds the virtual pods the provisioner and the disruption what-ifs
// schedule with the real pending pods (KC Provisioner.GetPendingPods).
// Virtual pods never exist in the cluster: they never bind, are never
// pending in the report, and nominate no node.
type buffers struct {
	env
	parts
	specs []capacitybuffer.Buffer
	// tmpl caches, per buffer, the workload template last copied and its
	// virtual copy, so the solves' pod data stays keyed on one spec.
	tmpl []bufferTemplate
	// pods are the virtual pods, in buffer order then index.
	pods []cluster.Pod
	// Chunks is each buffer's status.replicas at the last reconcile (-1:
	// not ready for provisioning).
	Chunks []int32
	// ns are the buffers' namespaces, interned when built.
	ns []cluster.Sym
}

type bufferTemplate struct {
	from, virtual *cluster.PodSpec
}

func newBuffers(e env, specs []capacitybuffer.Buffer) *buffers {
	b := &buffers{env: e, specs: specs, tmpl: make([]bufferTemplate, len(specs)), Chunks: make([]int32, len(specs)), ns: make([]cluster.Sym, len(specs))}
	for i := range specs {
		b.ns[i] = e.cl.Syms.Intern(specs[i].Namespace)
	}
	return b
}

// start schedules the first reconcile at once (the controller reconciles
// every buffer when it starts).
func (b *buffers) start() {
	if len(b.specs) > 0 {
		b.eng.After(0, engine.Event{Handler: b.id, Kind: evBufferResync})
	}
}

// resync reconciles every buffer, rebuilds the virtual pods and wakes the
// provisioner when there are some.
func (b *buffers) resync() {
	now := b.eng.Now()
	b.pods = nil // a solve in progress keeps the old records
	for i := range b.specs {
		spec, n := b.resolve(i)
		b.Chunks[i] = n
		if n <= 0 {
			continue
		}
		bs, ns := &b.specs[i], b.ns[i]
		for j := 1; j <= int(n); j++ {
			name := fmt.Sprintf("capacity-buffer-%s-%d", bs.Name, j)
			b.pods = append(b.pods, cluster.Pod{Name: name, Namespace: ns, Spec: spec, Phase: cluster.Pending,
				Unschedulable: true, Node: cluster.NoNode, Created: now, UIDRank: cluster.PodUIDRank(bs.Namespace, name)})
		}
	}
	b.solvers.SetVirtual(b.pods)
	b.dis.provSet = nil // the records behind its IDs changed
	b.dis.stateChanged()
	if len(b.pods) > 0 {
		b.prov.trigger()
	} else {
		// No virtual pods: the next pass places none (upstream's
		// UpdateBufferPodCounts after an empty Schedule).
		for _, kn := range b.nodes.live {
			kn.bufferPods = 0
		}
	}
	b.eng.After(BufferResync, engine.Event{Handler: b.id, Kind: evBufferResync})
}

// resolve is buffer i's virtual pod spec and status.replicas (KC
// resolveAndUpdateStatus, computeReplicas); 0 or -1 (not ready) keeps no
// capacity.
func (b *buffers) resolve(i int) (*cluster.PodSpec, int32) {
	bs := &b.specs[i]
	if capacitybuffer.Karpenter.Unresolvable(bs) != "" {
		return nil, -1
	}
	from, replicas, ok := capacitybuffer.Source(b.cl, bs)
	if !ok {
		return nil, -1 // ScalableRefNotFound, PodTemplateNotFound
	}
	t := &b.tmpl[i]
	if t.from != from {
		// KC BuildVirtualPods: the lowest priority, no node name, no
		// claim-backed volumes.
		v := *from
		v.Priority, v.PriorityClassName = math.MinInt32, ""
		v.NodeName = ""
		v.Volume, v.Claims = nil, nil
		t.from, t.virtual = from, &v
	}
	n, _ := capacitybuffer.Karpenter.Replicas(bs, replicas, func(name string) int64 { return capacitybuffer.MilliRequest(b.cl, t.virtual, name) })
	return t.virtual, n
}

// noteBufferPods counts the virtual pods a provisioning solve placed on
// each existing node (KC bufferPodCountsFromResults): emptiness leaves
// those nodes alone (KC Emptiness.ShouldDisrupt HasBufferPods).
func (pr *provisioner) noteBufferPods(s *scheduling.Solver) {
	for _, kn := range pr.nodes.live {
		kn.bufferPods = 0
	}
	for _, ex := range s.Existing {
		if ex.PlacedVirtual == 0 {
			continue
		}
		if kn := pr.nodes.get(ex.ID); kn != nil {
			kn.bufferPods = ex.PlacedVirtual
		}
	}
}

// onlyBuffers reports whether docs hold CapacityBuffers and no NodePool or
// Provisioner (a Cluster Autoscaler cluster), with the first buffer.
func onlyBuffers(docs []*manifest.Document) (*manifest.Document, bool) {
	var first *manifest.Document
	for _, d := range docs {
		switch d.Kind {
		case apis.KindNodePool, apis.KindProvisioner:
			return nil, false
		case apis.KindCapacityBuffer:
			if first == nil {
				first = d
			}
		}
	}
	return first, first != nil
}

// bufferWarnings are the loader's findings on CapacityBuffers: the gate
// off (one info line naming it), and settings that cannot do what their
// author expects.
func bufferWarnings(bs []capacitybuffer.Buffer, st Settings, others []*manifest.Document) []component.Warning {
	if len(bs) == 0 {
		return nil
	}
	if !st.CapacityBuffer {
		first := bs[0]
		for _, b := range bs {
			if b.File < first.File || b.File == first.File && b.Line < first.Line {
				first = b
			}
		}
		return []component.Warning{{Code: "karpenter.gate-off", File: first.File, Line: first.Line, Info: true,
			Msg: fmt.Sprintf("%d CapacityBuffer(s), but the CapacityBuffer feature gate is off (its default in v1.15): Karpenter keeps no spare capacity for them", len(bs)),
			Fix: "turn the gate on: FEATURE_GATES=CapacityBuffer=true on Karpenter's controller (Helm: settings.featureGates.capacityBuffer=true), or spec.karpenter.featureGates.capacityBuffer: true"}}
	}
	var out []component.Warning
	for _, b := range bs {
		w := func(code, msg, fix string) {
			out = append(out, component.Warning{Code: code, File: b.File, Line: b.Line, Msg: b.String() + ": " + msg, Fix: fix})
		}
		switch why := capacitybuffer.Karpenter.Unresolvable(&b); {
		case why != "":
			w("ineffective.buffer-unresolvable", why+": the buffer controller never resolves it (ReadyForProvisioning=False) and it keeps no capacity",
				"point scalableRef at a Deployment, StatefulSet or ReplicaSet (apiGroup apps), or use podTemplateRef")
		case !refFound(others, &b):
			kind, name, reason := b.ScalableKind, b.ScalableName, "ScalableRefNotFound"
			if b.PodTemplate != "" {
				kind, name, reason = "PodTemplate", b.PodTemplate, "PodTemplateNotFound"
			}
			w("ineffective.buffer-ref-missing", fmt.Sprintf("%s %s/%s is not in the scenario: the buffer controller never resolves it (ReadyForProvisioning=False, reason %s) and it keeps no capacity", kind, b.Namespace, name, reason),
				fmt.Sprintf("add the %s to the scenario, or name one in namespace %s (references are namespace-local)", kind, b.Namespace))
		}
		if b.Strategy != capacitybuffer.ActiveCapacity {
			w("karpenter.buffer-strategy", fmt.Sprintf("provisioningStrategy %q is not read by Karpenter v1.15: it provisions the buffer as %s", b.Strategy, capacitybuffer.ActiveCapacity),
				"drop provisioningStrategy or write "+capacitybuffer.ActiveCapacity)
		}
		if b.PodTemplate != "" && b.Percentage != nil {
			w("ineffective.buffer-percentage", "percentage counts only with scalableRef: with podTemplateRef it is ignored", "use scalableRef, or replicas")
		}
		if (b.Replicas != nil && *b.Replicas == 0 && b.Percentage == nil && len(b.Limits) == 0) || (b.Replicas == nil && b.Percentage != nil && *b.Percentage == 0 && len(b.Limits) == 0) {
			w("ineffective.buffer-empty", "the buffer asks for 0 chunks (Provisioning=False, reason BufferEmpty)", "set replicas, percentage or limits above 0")
		}
		if b.ScalableName != "" && b.Replicas == nil && b.Percentage == nil && len(b.Limits) == 0 {
			w("ineffective.buffer-empty", "neither replicas, percentage nor limits is set: the buffer keeps 0 chunks", "set replicas or percentage")
		}
	}
	return out
}

// refFound reports whether the object b refers to is among the
// scenario's objects (same namespace, as upstream resolves it).
func refFound(others []*manifest.Document, b *capacitybuffer.Buffer) bool {
	kind, name := b.Ref()
	for _, d := range others {
		ns := d.Namespace
		if ns == "" {
			ns = "default"
		}
		if d.Kind == kind && d.Name == name && ns == b.Namespace {
			return true
		}
	}
	return false
}
