// Package kubelet models what the kubelets of all nodes do to a pod once it
// is bound: start it after a delay (image pull, container start), and end it
// as Succeeded when its run time is up (Job pods).
//
// With subnets (SetSubnets), a pod's start also takes an address of its
// node's subnet; with none free it stays ContainerCreating, bound but not
// running, until one comes free (ips.go).
//
// A pod whose volume is still attached to another node (a shared
// ReadWriteOnce claim: the attach/detach controller reports Multi-Attach)
// waits, bound, until the cluster attaches it to the pod's node
// (cluster.VolumeAttached); the wait is counted (cluster.VolumeStats).
// The package also runs the attach/detach controller's force detach: a
// volume whose pod went away with its node, so that no kubelet unmounted
// it, stays attached in the controller's view (cluster.VolumeHeld) and is
// force-detached cluster.ForceDetachAfter (6 min, maxWaitForUnmountDuration)
// after the pod's deletion, the node being unhealthy (gone); only then may
// a pod elsewhere attach it.
//
// ReadyAfter (probes.go) is when a pod's readiness and startup probes make
// it Ready, counted from its start; the scenario computes it for each
// StatefulSet, whose OrderedReady controller is the one model that reads
// readiness. No probe runs as an event: every probe is taken to succeed
// the first time it runs.
//
// With node failures (SetNodeFailures, faults.go: the scenario's
// spec.nodeFailures) the node's agents report an unhealthy condition
// (cluster.SetNodeCondition): the kubelet's Ready=False or Unknown, or
// one of the EKS node monitoring agent's (AcceleratedHardwareReady and
// the rest). The node stays, billed; a Ready condition that is not True
// taints it NoExecute and the taint manager evicts its pods after their
// toleration (300 s by default); under any other condition its pods keep
// running (a simplification: a GPU pod on a failed accelerator would
// fail or hang). Karpenter's node repair replaces such nodes.
//
// Simplifications: one start delay for every pod (no per-image pulls);
// pods never fail or restart on their own; DaemonSet pods take no address
// (host network).
package kubelet

import (
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// DefaultStartDelay is the time from binding to Running. Not a Kubernetes
// default: our assumption of a pull of a cached image and a container start
// (a few seconds); scenarios set spec.podStartDelay.
const DefaultStartDelay = 2 * time.Second

const (
	evStart uint16 = iota
	evFinish
	evIPRetry     // Obj: a subnet whose waiting pods may start
	evForceDetach // Obj: a claim whose volume is held on a gone node
)

// Kubelet is the engine handler and cluster watcher for pod start and end.
type Kubelet struct {
	eng        *engine.Engine
	cl         *cluster.Cluster
	id         engine.HandlerID
	startDelay time.Duration
	timers     []engine.Timer // by PodID
	ip         *ips           // nil: addresses are unlimited (ips.go)
	// volWait holds bound pods waiting for a volume, since when.
	volWait map[cluster.PodID]engine.Time
	// faults: the scenario's node failures (faults.go); nil: none.
	faults *faults
}

// New registers the kubelet model. A negative start delay is treated as 0.
func New(eng *engine.Engine, cl *cluster.Cluster, startDelay time.Duration) *Kubelet {
	if startDelay < 0 {
		startDelay = 0
	}
	k := &Kubelet{eng: eng, cl: cl, startDelay: startDelay}
	k.id = eng.Register(k)
	cl.Watch(k)
	return k
}

func (k *Kubelet) timer(id cluster.PodID) *engine.Timer {
	for int(id) >= len(k.timers) {
		k.timers = append(k.timers, engine.Timer{})
	}
	return &k.timers[id]
}

// OnChange implements cluster.Watcher.
func (k *Kubelet) OnChange(c cluster.Change) {
	switch c.Kind {
	case cluster.PodBound:
		*k.timer(c.Pod) = k.eng.After(k.startDelay, engine.Event{Handler: k.id, Kind: evStart, Obj: int32(c.Pod)})
	case cluster.PodDeleted:
		k.eng.Cancel(*k.timer(c.Pod))
		delete(k.volWait, c.Pod)
	case cluster.VolumeHeld:
		// The attach/detach controller's force detach (kubelet.go's
		// package doc).
		k.eng.After(cluster.ForceDetachAfter, engine.Event{Handler: k.id, Kind: evForceDetach, Obj: int32(c.Claim)})
	case cluster.VolumeAttached:
		if _, ok := k.volWait[c.Pod]; ok {
			*k.timer(c.Pod) = k.eng.After(0, engine.Event{Handler: k.id, Kind: evStart, Obj: int32(c.Pod)})
		}
	}
	if k.ip != nil {
		k.ipChange(c)
	}
}

// HandleEvent implements engine.Handler.
func (k *Kubelet) HandleEvent(ev engine.Event) {
	if ev.Kind >= evFailure {
		k.handleFault(ev)
		return
	}
	if ev.Kind == evForceDetach {
		k.cl.ForceDetach(cluster.ClaimID(ev.Obj))
		return
	}
	id := cluster.PodID(ev.Obj)
	p := &k.cl.Pods[id]
	switch ev.Kind {
	case evStart:
		if p.Phase != cluster.Bound || !k.volumesReady(id) || !k.takeIP(id) {
			return
		}
		k.start(id)
	case evIPRetry:
		k.retryIPs(ev.Obj)
	case evFinish:
		if p.Phase == cluster.Running {
			k.cl.FinishPod(id, cluster.Succeeded)
		}
	}
}

// volumesReady reports whether a bound pod's volumes are attached to its
// node; if not, the pod waits for them.
func (k *Kubelet) volumesReady(id cluster.PodID) bool {
	if !k.cl.VolumesAttached(id) {
		if k.volWait == nil {
			k.volWait = map[cluster.PodID]engine.Time{}
		}
		if _, ok := k.volWait[id]; !ok {
			k.volWait[id] = k.eng.Now()
		}
		return false
	}
	if since, ok := k.volWait[id]; ok {
		delete(k.volWait, id)
		k.cl.NoteAttachWait(since)
	}
	return true
}

// start runs a bound pod and schedules its end.
func (k *Kubelet) start(id cluster.PodID) {
	k.cl.StartPod(id)
	if run := k.cl.Pods[id].RunFor; run > 0 {
		*k.timer(id) = k.eng.After(run, engine.Event{Handler: k.id, Kind: evFinish, Obj: int32(id)})
	}
}
