package cluster

import (
	"cmp"
	"fmt"
	"slices"
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
	key := c.key(spec)
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

// key is the content of a spec that its class stands for.
func (c *SpecClasses) key(spec *PodSpec) string {
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
	return b.String()
}

// Len is the number of classes.
func (c *SpecClasses) Len() int { return len(c.first) }

// ClassSpec is a spec and the class Of gave it.
type ClassSpec struct {
	Spec  *PodSpec
	Class int32
}

// Specs lists every spec Of numbered, by class (the specs of one class
// in no particular order): a check of answers cached per class holds
// them against each spec, not only the first.
func (c *SpecClasses) Specs() []ClassSpec {
	out := make([]ClassSpec, 0, len(c.byPtr))
	for s, id := range c.byPtr {
		out = append(out, ClassSpec{s, id})
	}
	slices.SortStableFunc(out, func(a, b ClassSpec) int { return cmp.Compare(a.Class, b.Class) })
	return out
}

// Check recomputes every numbered spec's content: specs share a class
// exactly when their content is equal, classes are numbered 0 to Len()-1
// and Spec gives a spec of its class (nil: they are).
func (c *SpecClasses) Check() error {
	if len(c.byKey) != len(c.first) {
		return fmt.Errorf("spec classes: have %d first specs, want one per class (%d)", len(c.first), len(c.byKey))
	}
	seen := make([]bool, len(c.byKey))
	for key, id := range c.byKey {
		if id < 0 || int(id) >= len(seen) || seen[id] {
			return fmt.Errorf("spec classes: class %d (content %s) is out of 0..%d or numbered twice", id, key, len(seen)-1)
		}
		seen[id] = true
	}
	for _, cs := range c.Specs() {
		key := c.key(cs.Spec)
		if want, ok := c.byKey[key]; !ok || want != cs.Class {
			return fmt.Errorf("spec classes: a spec (labels %v) is in class %d, but its content %s is class %d (known %v)", cs.Spec.Labels, cs.Class, key, want, ok)
		}
	}
	for id, s := range c.first {
		if got, ok := c.byPtr[s]; !ok || got != int32(id) {
			return fmt.Errorf("spec classes: class %d's first spec is in class %d (known %v)", id, got, ok)
		}
	}
	return nil
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
