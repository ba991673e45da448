package workload

import (
	"slices"
	"strconv"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// StatefulSets ---------------------------------------------------------------
//
// The StatefulSet controller (k8s pkg/controller/statefulset,
// stateful_set_control.go updateStatefulSet) in short. Pods are named
// NAME-ORDINAL; the replicas are the ordinals 0..replicas-1, and a live pod
// of a higher ordinal is condemned. Parallel creates every missing replica
// and deletes every condemned pod not already terminating, at once.
// OrderedReady (monotonic) walks the replicas from ordinal 0: it creates
// the first missing one and stops; it stops too at the first that is not
// Running and Ready (here: started at least the set's ReadyAfter ago, the
// delay its readiness and startup probes put on the pod's Ready
// condition, and not terminating) or, with minReadySeconds, not yet
// available. Only when every replica is available
// does it delete a condemned pod, the highest ordinal, one per pass: it
// waits while that pod is terminating, and while it is not available
// unless it is the lowest-ordinal unavailable condemned pod (upstream's
// firstUnavailablePod). A pass runs again when a pod of the set starts,
// ends or goes, and when a started pod becomes available (Ready, and
// Ready for minReadySeconds).

// reconcileStatefulSet brings instance k of StatefulSet w to its replica
// count.
func (c *Controllers) reconcileStatefulSet(w, k int32, in *instance) {
	ctl := c.ctrls[w]
	if ctl.holdStart && k == 0 {
		// An imported start: the pods the export had exist already, so
		// they are all created at once, whatever the policy.
		for int32(len(in.live)) < c.startLimit(w, k, in.desired) {
			c.createPod(w, k, in, ctl.spec.Pod)
		}
		if ctl.pending {
			return // the rest waits for the reconcile after the pinned pods
		}
	}
	ordered := ctl.spec.OrderedReady
	desired := int(max(in.desired, 0))
	replicas := make([]cluster.PodID, desired)
	for i := range replicas {
		replicas[i] = cluster.NoPod
	}
	var condemned []cluster.PodID
	var condemnedOrd []int
	for _, id := range in.live {
		o := ordinal(in.name, c.cl.Pods[id].Name)
		switch {
		case o < 0:
		case o < desired:
			replicas[o] = id
		default:
			condemned = append(condemned, id)
			condemnedOrd = append(condemnedOrd, o)
		}
	}
	now := c.eng.Now()
	for o, id := range replicas {
		if id == cluster.NoPod {
			c.createNamedPod(w, k, in, ctl.spec.Pod, in.name+"-"+strconv.Itoa(o))
			if ordered {
				return
			}
			continue
		}
		if ordered && !c.available(ctl, id, now) {
			return
		}
	}
	if len(condemned) == 0 {
		return
	}
	// Highest ordinal first.
	idx := make([]int, len(condemned))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return condemnedOrd[b] - condemnedOrd[a] })
	if !ordered {
		for _, i := range idx {
			if id := condemned[i]; !c.cl.Pods[id].Terminating {
				c.cl.DeletePod(id, cluster.CauseScaleDown)
			}
		}
		return
	}
	firstUnavailable := cluster.NoPod
	for j := len(idx) - 1; j >= 0; j-- {
		if id := condemned[idx[j]]; !c.available(ctl, id, now) {
			firstUnavailable = id
			break
		}
	}
	id := condemned[idx[0]]
	if c.cl.Pods[id].Terminating || (!c.available(ctl, id, now) && id != firstUnavailable) {
		return
	}
	c.cl.DeletePod(id, cluster.CauseScaleDown)
}

// available says whether a StatefulSet's pod is Running and Ready (it
// started the set's ReadyAfter ago: its probes have passed) and has been
// Ready for the set's minReadySeconds.
func (c *Controllers) available(ctl *controller, id cluster.PodID, now engine.Time) bool {
	p := &c.cl.Pods[id]
	return p.Phase == cluster.Running && !p.Terminating && now-p.Started >= ctl.spec.ReadyAfter+ctl.spec.MinReady
}

// ordinal is the ordinal of a StatefulSet pod named set-N, or -1.
func ordinal(set, pod string) int {
	rest, ok := strings.CutPrefix(pod, set)
	if !ok || len(rest) < 2 || rest[0] != '-' {
		return -1
	}
	o, err := strconv.Atoi(rest[1:])
	if err != nil || o < 0 {
		return -1
	}
	return o
}

// orderedStarted wakes OrderedReady StatefulSet w, one of whose pods just
// started: at once, or when the pod becomes available, Ready after its
// probes and then for minReadySeconds.
func (c *Controllers) orderedStarted(w int32) {
	ctl := c.ctrls[w]
	if d := ctl.spec.ReadyAfter + ctl.spec.MinReady; d > 0 {
		c.eng.After(d, engine.Event{Handler: c.id, Kind: evAvailable, Obj: w})
		return
	}
	if !ctl.pending {
		ctl.pending = true
		c.eng.Schedule(c.eng.Now(), engine.Event{Handler: c.id, Kind: evReconcile, Obj: w})
	}
}
