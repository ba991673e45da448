package cluster

import (
	"fmt"
	"strings"
)

// SpecClasses numbers pod specs by the content that node filters read:
// tolerations, node name, node selector and affinity, the volume pin, and with
// WithScoring also preferred node affinity and requests. Specs with equal
// content share a class, so answers cached per class and node serve every
// pod of a workload (and of its copies). The scheduler, the Cluster
// Autoscaler and Karpenter each keep their own numbering.
type SpecClasses struct {
	// WithScoring adds preferred node affinity and requests to the content.
	WithScoring bool
	byPtr       map[*PodSpec]int32
	byKey       map[string]int32
	// first is, per class, the first spec numbered into it (Spec).
	first []*PodSpec
}

// Of returns the spec's class, and whether the class is new.
func (c *SpecClasses) Of(spec *PodSpec) (class int32, isNew bool) {
	if id, ok := c.byPtr[spec]; ok {
		return id, false
	}
	if c.byPtr == nil {
		c.byPtr = map[*PodSpec]int32{}
		c.byKey = map[string]int32{}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%v|%q|%v|", spec.Tolerations, spec.NodeName, spec.NodeSelector)
	if spec.Affinity != nil {
		fmt.Fprintf(&b, "%v", *spec.Affinity)
	} else {
		b.WriteString("-")
	}
	if spec.Volume != nil {
		b.WriteString("|vol:" + spec.Volume.key())
	}
	if c.WithScoring {
		fmt.Fprintf(&b, "|%v|%v", spec.Preferred, spec.Requests)
	}
	key := b.String()
	id, ok := c.byKey[key]
	if !ok {
		id = int32(len(c.byKey))
		c.byKey[key] = id
		c.first = append(c.first, spec)
	}
	c.byPtr[spec] = id
	return id, !ok
}

// Lookup returns the spec's class if Of numbered it, without numbering it
// otherwise: checks that recompute cached answers must not change the
// numbering.
func (c *SpecClasses) Lookup(spec *PodSpec) (class int32, ok bool) {
	class, ok = c.byPtr[spec]
	return class, ok
}

// Spec returns the first spec numbered into class (nil for a class Of
// never gave): every spec of the class has its content, so it stands for
// them all when a cached answer per class is recomputed.
func (c *SpecClasses) Spec(class int32) *PodSpec {
	if class < 0 || int(class) >= len(c.first) {
		return nil
	}
	return c.first[class]
}

// NodeVerdicts caches a yes/no answer per node, valid while the node's
// epoch (Cluster.NodeEpoch, which moves whenever the node changes) is the
// one the answer was stored with.
type NodeVerdicts struct {
	val []uint8 // 0 unknown, 1 yes, 2 no
	ep  []uint32
}

// Get returns the cached answer for the node at epoch, if there is one.
func (v *NodeVerdicts) Get(id NodeID, epoch uint32) (yes, known bool) {
	if int(id) >= len(v.val) || v.val[id] == 0 || v.ep[id] != epoch {
		return false, false
	}
	return v.val[id] == 1, true
}

// Set stores the answer for the node at epoch; nodes is a capacity hint
// (the cluster's node count) so the table grows once, not per node.
func (v *NodeVerdicts) Set(id NodeID, epoch uint32, yes bool, nodes int) {
	if int(id) >= len(v.val) {
		n := max(int(id)+1, nodes)
		v.val = append(v.val, make([]uint8, n-len(v.val))...)
		v.ep = append(v.ep, make([]uint32, n-len(v.ep))...)
	}
	v.ep[id] = epoch
	v.val[id] = 2
	if yes {
		v.val[id] = 1
	}
}
