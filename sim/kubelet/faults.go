package kubelet

import (
	"math"
	"slices"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// NodeFailure is one of the scenario's node failures (spec.nodeFailures):
// what the node's agents report when the hardware or the image goes bad.
// A scripted failure sets Condition on Count nodes (or Share of them) of
// those matching at At; a rate failure (RatePerNodeHour > 0) from At for
// For (0: to the end) sets it on each matching node at that rate, a
// Poisson process whose total rate is re-read from the matching nodes at
// each failure and every 10 minutes. With RecoverAfter the condition clears that long after it
// was set; without, it lasts until the node is gone.
type NodeFailure struct {
	Condition       cluster.NodeCondition
	At, For         time.Duration
	Count           int
	Share           float64
	RatePerNodeHour float64
	RecoverAfter    time.Duration
	// Owners narrow the failure to nodes of these NodePools or node
	// groups (empty: any node); InstanceTypes and Zones likewise.
	Owners        []FailureOwner
	InstanceTypes []string
	Zones         []string
}

// FailureOwner is a NodePool or node group a failure names.
type FailureOwner struct {
	Owner cluster.OwnerKind
	Name  string
}

// faults runs the node failures.
type faults struct {
	list []NodeFailure
	rng  interface{ IntN(int) int }
	// exp draws the rate failures' waits.
	exp func() float64
	// armed: the rate failure's next event fails a node (else it looks
	// for matching nodes again), by index.
	armed  []bool
	failed int
	// recovered sums the unhealthy time of conditions that cleared.
	recovered time.Duration
}

const (
	evFailure uint16 = 100 + iota // Obj: index of the failure (scripted, or a rate's next)
	evRecover                     // Obj: node whose condition clears
)

// rateRecheck is how often a rate failure re-reads the matching nodes.
const rateRecheck = 10 * time.Minute

// SetNodeFailures schedules the failures (nil: none; nothing changes).
func (k *Kubelet) SetNodeFailures(list []NodeFailure) {
	if len(list) == 0 {
		return
	}
	r := k.eng.Stream("node-failures")
	k.faults = &faults{list: list, rng: r, exp: r.ExpFloat64, armed: make([]bool, len(list))}
	for i := range list {
		k.eng.Schedule(list[i].At, engine.Event{Handler: k.id, Kind: evFailure, Obj: int32(i)})
	}
}

// NodeFailures is how many nodes the failures made unhealthy.
func (k *Kubelet) NodeFailures() int {
	if k.faults == nil {
		return 0
	}
	return k.faults.failed
}

// UnhealthyHours is the node-hours nodes spent unhealthy so far: billed
// capacity whose pods are evicted (NotReady) or run on broken hardware.
func (k *Kubelet) UnhealthyHours() float64 {
	if k.faults == nil {
		return 0
	}
	total := k.faults.recovered
	now := k.eng.Now()
	for i := range k.cl.Nodes {
		n := &k.cl.Nodes[i]
		if n.Condition == cluster.Healthy {
			continue
		}
		end := now
		if n.State == cluster.NodeGone {
			end = n.Deleted
		}
		total += end - n.ConditionSince
	}
	return total.Hours()
}

// matching lists the healthy Ready nodes a failure may hit, by ID.
func (k *Kubelet) matching(f *NodeFailure) []cluster.NodeID {
	var out []cluster.NodeID
	for i := range k.cl.Nodes {
		n := &k.cl.Nodes[i]
		if n.State != cluster.NodeReady || n.Condition != cluster.Healthy {
			continue
		}
		if len(f.Owners) > 0 && !slices.ContainsFunc(f.Owners, func(o FailureOwner) bool { return o.Owner == n.Owner && o.Name == n.OwnerName }) {
			continue
		}
		if len(f.InstanceTypes) > 0 && !slices.Contains(f.InstanceTypes, n.InstanceType) {
			continue
		}
		if len(f.Zones) > 0 && !slices.Contains(f.Zones, k.cl.Syms.Name(n.Zone)) {
			continue
		}
		out = append(out, cluster.NodeID(i))
	}
	return out
}

func (k *Kubelet) handleFault(ev engine.Event) {
	fs := k.faults
	switch ev.Kind {
	case evRecover:
		n := &k.cl.Nodes[ev.Obj]
		if n.State != cluster.NodeGone && n.Condition != cluster.Healthy {
			fs.recovered += k.eng.Now() - n.ConditionSince
		}
		k.cl.SetNodeCondition(cluster.NodeID(ev.Obj), cluster.Healthy)
	case evFailure:
		f := &fs.list[ev.Obj]
		nodes := k.matching(f)
		if f.RatePerNodeHour > 0 {
			k.rateFailure(int(ev.Obj), nodes)
			return
		}
		n := f.Count
		if f.Share > 0 {
			// The share of the matching nodes, rounded, at least one.
			n = max(1, int(math.Round(f.Share*float64(len(nodes)))))
		}
		n = min(n, len(nodes))
		// A partial shuffle draws n of them.
		for i := 0; i < n; i++ {
			j := i + fs.rng.IntN(len(nodes)-i)
			nodes[i], nodes[j] = nodes[j], nodes[i]
			k.fail(f, nodes[i])
		}
	}
}

// rateFailure fails one matching node when the event was drawn as a
// failure, and draws the next.
func (k *Kubelet) rateFailure(i int, nodes []cluster.NodeID) {
	fs := k.faults
	f := &fs.list[i]
	now := k.eng.Now()
	if f.For > 0 && now >= f.At+f.For {
		return
	}
	if fs.armed[i] && len(nodes) > 0 {
		j := fs.rng.IntN(len(nodes))
		k.fail(f, nodes[j])
		nodes = append(nodes[:j], nodes[j+1:]...)
	}
	// The next failure is drawn at the rate of the nodes matching now. A
	// draw beyond rateRecheck is not kept: the rate looks again then (the
	// process is memoryless, so redrawing is exact for a node count that
	// holds between looks), failing nothing.
	wait, armed := rateRecheck, false
	if len(nodes) > 0 {
		perSecond := f.RatePerNodeHour * float64(len(nodes)) / 3600
		if d := time.Duration(fs.exp() / perSecond * float64(time.Second)); d < rateRecheck {
			wait, armed = d, true
		}
	}
	fs.armed[i] = armed
	wait = max(wait, time.Nanosecond) // the next failure is after this one
	k.eng.After(wait, engine.Event{Handler: k.id, Kind: evFailure, Obj: int32(i)})
}

func (k *Kubelet) fail(f *NodeFailure, id cluster.NodeID) {
	k.faults.failed++
	k.cl.SetNodeCondition(id, f.Condition)
	if f.RecoverAfter > 0 {
		k.eng.After(f.RecoverAfter, engine.Event{Handler: k.id, Kind: evRecover, Obj: int32(id)})
	}
}
