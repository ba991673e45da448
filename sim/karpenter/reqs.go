package karpenter

import (
	"github.com/clustersim/clustersim/sim/cluster"
)

// rq is one requirement in Karpenter's set form (KC pkg/scheduling
// requirement.go): a set of values or, with comp, the complement of one,
// optionally bounded for integer values. In = {vals}; NotIn = comp{vals};
// Exists = comp{}; DoesNotExist = {} (empty, not comp). Bounds are
// exclusive, as cluster.Requirement's Gt and Lt.
type rq struct {
	key          cluster.Sym
	comp         bool
	vals         []cluster.Sym // sorted
	hasGt, hasLt bool
	gt, lt       int64
	minValues    int32
}

// reqSet is a set of requirements sorted by key, at most one per key.
// Sets are treated as immutable: operations return new slices.
type reqSet []rq

type opKind uint8

const (
	opIn opKind = iota
	opNotIn
	opExists
	opDoesNotExist
)

func (r *rq) op() opKind {
	if r.comp {
		if len(r.vals) > 0 {
			return opNotIn
		}
		return opExists
	}
	if len(r.vals) > 0 {
		return opIn
	}
	return opDoesNotExist
}

// negative reports whether the requirement is NotIn or DoesNotExist: such
// requirements are satisfied by nodes that lack the label.
func (r *rq) negative() bool {
	o := r.op()
	return o == opNotIn || o == opDoesNotExist
}

func exists(key cluster.Sym) rq { return rq{key: key, comp: true} }

func single(key, v cluster.Sym) rq { return rq{key: key, vals: []cluster.Sym{v}} }

// fromRequirement converts a compiled node selector requirement.
func fromRequirement(r *cluster.Requirement) rq {
	out := rq{key: r.Key}
	switch r.Op {
	case cluster.OpIn:
		out.vals = r.Values
	case cluster.OpNotIn:
		out.comp, out.vals = true, r.Values
	case cluster.OpExists:
		out.comp = true
	case cluster.OpDoesNotExist:
	case cluster.OpGt:
		out.comp, out.hasGt, out.gt = true, true, r.Num
	case cluster.OpLt:
		out.comp, out.hasLt, out.lt = true, true, r.Num
	}
	return out
}

func hasSym(vals []cluster.Sym, v cluster.Sym) bool {
	// Values are few; a scan beats a search below ~16.
	if len(vals) < 16 {
		for _, x := range vals {
			if x == v {
				return true
			}
		}
		return false
	}
	lo, hi := 0, len(vals)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if vals[m] < v {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(vals) && vals[lo] == v
}

func withinBounds(syms *cluster.Symbols, v cluster.Sym, hasGt bool, gt int64, hasLt bool, lt int64) bool {
	if !hasGt && !hasLt {
		return true
	}
	n, ok := syms.Int(v)
	if !ok {
		return false
	}
	return (!hasGt || n > gt) && (!hasLt || n < lt)
}

// has reports whether the requirement allows value v.
func (r *rq) has(syms *cluster.Symbols, v cluster.Sym) bool {
	in := hasSym(r.vals, v)
	if r.comp {
		in = !in
	}
	return in && withinBounds(syms, v, r.hasGt, r.gt, r.hasLt, r.lt)
}

func mergeBounds(a, b *rq) (hasGt bool, gt int64, hasLt bool, lt int64) {
	hasGt, gt = a.hasGt, a.gt
	if b.hasGt && (!hasGt || b.gt > gt) {
		hasGt, gt = true, b.gt
	}
	hasLt, lt = a.hasLt, a.lt
	if b.hasLt && (!hasLt || b.lt < lt) {
		hasLt, lt = true, b.lt
	}
	return
}

// emptyBounds: no integer n with gt < n < lt.
func emptyBounds(hasGt bool, gt int64, hasLt bool, lt int64) bool {
	return hasGt && hasLt && lt-gt <= 1
}

// hasIntersection reports whether some value satisfies both (KC
// Requirement.HasIntersection).
func hasIntersection(syms *cluster.Symbols, a, b *rq) bool {
	hasGt, gt, hasLt, lt := mergeBounds(a, b)
	if emptyBounds(hasGt, gt, hasLt, lt) {
		return false
	}
	switch {
	case a.comp && b.comp:
		return true
	case a.comp:
		for _, v := range b.vals {
			if !hasSym(a.vals, v) && withinBounds(syms, v, hasGt, gt, hasLt, lt) {
				return true
			}
		}
		return false
	case b.comp:
		for _, v := range a.vals {
			if !hasSym(b.vals, v) && withinBounds(syms, v, hasGt, gt, hasLt, lt) {
				return true
			}
		}
		return false
	}
	for _, v := range a.vals {
		if hasSym(b.vals, v) && withinBounds(syms, v, hasGt, gt, hasLt, lt) {
			return true
		}
	}
	return false
}

// intersect returns a ∩ b (KC Requirement.Intersection).
func intersect(syms *cluster.Symbols, a, b *rq) rq {
	out := rq{key: a.key, minValues: max(a.minValues, b.minValues)}
	hasGt, gt, hasLt, lt := mergeBounds(a, b)
	if emptyBounds(hasGt, gt, hasLt, lt) {
		return out // DoesNotExist
	}
	out.comp = a.comp && b.comp
	var vals []cluster.Sym
	switch {
	case a.comp && b.comp:
		vals = unionSyms(a.vals, b.vals)
	case a.comp:
		for _, v := range b.vals {
			if !hasSym(a.vals, v) {
				vals = append(vals, v)
			}
		}
	case b.comp:
		for _, v := range a.vals {
			if !hasSym(b.vals, v) {
				vals = append(vals, v)
			}
		}
	default:
		for _, v := range a.vals {
			if hasSym(b.vals, v) {
				vals = append(vals, v)
			}
		}
	}
	if hasGt || hasLt {
		kept := vals[:0:0]
		for _, v := range vals {
			if withinBounds(syms, v, hasGt, gt, hasLt, lt) {
				kept = append(kept, v)
			}
		}
		vals = kept
	}
	out.vals = vals
	if out.comp {
		out.hasGt, out.gt, out.hasLt, out.lt = hasGt, gt, hasLt, lt
	}
	return out
}

func unionSyms(a, b []cluster.Sym) []cluster.Sym {
	out := make([]cluster.Sym, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// get returns the requirement on key, or nil.
func (s reqSet) get(key cluster.Sym) *rq {
	for i := range s {
		if s[i].key == key {
			return &s[i]
		}
		if s[i].key > key {
			return nil
		}
	}
	return nil
}

// with returns s with r intersected in.
func (s reqSet) with(syms *cluster.Symbols, r rq) reqSet {
	out := make(reqSet, 0, len(s)+1)
	done := false
	for i := range s {
		switch {
		case done || s[i].key < r.key:
			out = append(out, s[i])
		case s[i].key == r.key:
			out = append(out, intersect(syms, &s[i], &r))
			done = true
		default:
			out = append(out, r, s[i])
			done = true
		}
	}
	if !done {
		out = append(out, r)
	}
	return out
}

// merge returns a ∩ b, key by key. It returns a itself when b is empty.
func merge(syms *cluster.Symbols, a, b reqSet) reqSet {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make(reqSet, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].key < b[j].key):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].key < a[i].key:
			out = append(out, b[j])
			j++
		default:
			out = append(out, intersect(syms, &a[i], &b[j]))
			i++
			j++
		}
	}
	return out
}

// absorbs reports whether merge(a, b) equals a: every key of b is in a and
// intersecting it leaves a's requirement as it is. Only the plain cases
// are recognised (no bounds, no empty sets); false means "not known".
// The solver then keeps a itself instead of building the same set anew.
func absorbs(a, b reqSet) bool {
	for j := range b {
		r := &b[j]
		x := a.get(r.key)
		if x == nil || len(x.vals) == 0 || x.hasGt || x.hasLt || r.hasGt || r.hasLt || r.minValues > x.minValues {
			return false
		}
		switch {
		case !x.comp && !r.comp: // In ∩ In keeps x when x ⊆ r
			for _, v := range x.vals {
				if !hasSym(r.vals, v) {
					return false
				}
			}
		case !x.comp: // In ∩ NotIn/Exists keeps x when they are disjoint
			for _, v := range x.vals {
				if hasSym(r.vals, v) {
					return false
				}
			}
		case r.comp: // NotIn ∩ NotIn keeps x when r's values are in x's
			for _, v := range r.vals {
				if !hasSym(x.vals, v) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// compatible reports whether node requirements can loosely meet pod
// requirements (KC Requirements.Compatible): a key the node side does not
// define is allowed only if it is well known (wellKnown) or the pod side is
// NotIn/DoesNotExist; keys both define must intersect, unless both are
// negative.
func compatible(syms *cluster.Symbols, node, pod reqSet, wellKnown func(cluster.Sym) bool) bool {
	for i := range pod {
		p := &pod[i]
		n := node.get(p.key)
		if n == nil {
			if wellKnown != nil && wellKnown(p.key) || p.negative() {
				continue
			}
			return false
		}
		if !hasIntersection(syms, n, p) && !(p.negative() && n.negative()) {
			return false
		}
	}
	return true
}

// fromLabels turns node labels into In requirements.
func fromLabels(ls cluster.Labels) reqSet {
	out := make(reqSet, 0, len(ls))
	for _, l := range ls {
		out = append(out, single(l.Key, l.Value))
	}
	return out
}

// sortReqs sorts by key and merges duplicates.
func sortReqs(syms *cluster.Symbols, in []rq) reqSet {
	var out reqSet
	for _, r := range in {
		out = out.with(syms, r)
	}
	return out
}
