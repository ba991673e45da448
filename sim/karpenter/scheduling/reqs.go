package scheduling

import (
	"github.com/clustersim/clustersim/sim/cluster"
)

// Requirement is one requirement in Karpenter's set form (KC pkg/scheduling
// requirement.go): a set of values or, with comp, the complement of one,
// optionally bounded for integer values. In = {vals}; NotIn = comp{vals};
// Exists = comp{}; DoesNotExist = {} (empty, not comp). Bounds are
// exclusive, as cluster.Requirement's Gt and Lt.
type Requirement struct {
	// Key is the label key.
	Key cluster.Sym
	// Complement: the set is every value but Values (NotIn, Exists), else
	// exactly Values (In, DoesNotExist).
	Complement bool
	Values     []cluster.Sym // sorted
	// Bounds of Gt and Lt requirements (exclusive), when set.
	HasGreaterThan, HasLessThan bool
	GreaterThan, LessThan       int64
	// MinValues is the requirement's minValues (0: none).
	MinValues int32
}

// Requirements is a set of requirements sorted by key, at most one per key.
// Sets are treated as immutable: operations return new slices.
type Requirements []Requirement

// Operator is a requirement's operator as Kubernetes spells it, derived from
// Complement and Values.
type Operator uint8

// The operators a Requirement can have (Gt and Lt are bounds on top).
const (
	OperatorIn Operator = iota
	OperatorNotIn
	OperatorExists
	OperatorDoesNotExist
)

// Operator is the requirement's operator (Gt and Lt bounds aside).
func (r *Requirement) Operator() Operator {
	if r.Complement {
		if len(r.Values) > 0 {
			return OperatorNotIn
		}
		return OperatorExists
	}
	if len(r.Values) > 0 {
		return OperatorIn
	}
	return OperatorDoesNotExist
}

// Negative reports whether the requirement is NotIn or DoesNotExist: such
// requirements are satisfied by nodes that lack the label.
func (r *Requirement) Negative() bool {
	o := r.Operator()
	return o == OperatorNotIn || o == OperatorDoesNotExist
}

func exists(key cluster.Sym) Requirement { return Requirement{Key: key, Complement: true} }

// RequirementIn is the requirement key In [v].
func RequirementIn(key, v cluster.Sym) Requirement {
	return Requirement{Key: key, Values: []cluster.Sym{v}}
}

// fromRequirement converts a compiled node selector requirement.
func fromRequirement(r *cluster.Requirement) Requirement {
	out := Requirement{Key: r.Key}
	switch r.Op {
	case cluster.OpIn:
		out.Values = r.Values
	case cluster.OpNotIn:
		out.Complement, out.Values = true, r.Values
	case cluster.OpExists:
		out.Complement = true
	case cluster.OpDoesNotExist:
	case cluster.OpGt:
		out.Complement, out.HasGreaterThan, out.GreaterThan = true, true, r.Num
	case cluster.OpLt:
		out.Complement, out.HasLessThan, out.LessThan = true, true, r.Num
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
func (r *Requirement) has(syms *cluster.Symbols, v cluster.Sym) bool {
	in := hasSym(r.Values, v)
	if r.Complement {
		in = !in
	}
	return in && withinBounds(syms, v, r.HasGreaterThan, r.GreaterThan, r.HasLessThan, r.LessThan)
}

func mergeBounds(a, b *Requirement) (hasGt bool, gt int64, hasLt bool, lt int64) {
	hasGt, gt = a.HasGreaterThan, a.GreaterThan
	if b.HasGreaterThan && (!hasGt || b.GreaterThan > gt) {
		hasGt, gt = true, b.GreaterThan
	}
	hasLt, lt = a.HasLessThan, a.LessThan
	if b.HasLessThan && (!hasLt || b.LessThan < lt) {
		hasLt, lt = true, b.LessThan
	}
	return
}

// emptyBounds: no integer n with gt < n < lt.
func emptyBounds(hasGt bool, gt int64, hasLt bool, lt int64) bool {
	return hasGt && hasLt && lt-gt <= 1
}

// HasIntersection reports whether some value satisfies both (KC
// Requirement.HasIntersection).
func HasIntersection(syms *cluster.Symbols, a, b *Requirement) bool {
	hasGt, gt, hasLt, lt := mergeBounds(a, b)
	if emptyBounds(hasGt, gt, hasLt, lt) {
		return false
	}
	switch {
	case a.Complement && b.Complement:
		return true
	case a.Complement:
		for _, v := range b.Values {
			if !hasSym(a.Values, v) && withinBounds(syms, v, hasGt, gt, hasLt, lt) {
				return true
			}
		}
		return false
	case b.Complement:
		for _, v := range a.Values {
			if !hasSym(b.Values, v) && withinBounds(syms, v, hasGt, gt, hasLt, lt) {
				return true
			}
		}
		return false
	}
	for _, v := range a.Values {
		if hasSym(b.Values, v) && withinBounds(syms, v, hasGt, gt, hasLt, lt) {
			return true
		}
	}
	return false
}

// intersect returns a ∩ b (KC Requirement.Intersection).
func intersect(syms *cluster.Symbols, a, b *Requirement) Requirement {
	out := Requirement{Key: a.Key, MinValues: max(a.MinValues, b.MinValues)}
	hasGt, gt, hasLt, lt := mergeBounds(a, b)
	if emptyBounds(hasGt, gt, hasLt, lt) {
		return out // DoesNotExist
	}
	out.Complement = a.Complement && b.Complement
	var vals []cluster.Sym
	switch {
	case a.Complement && b.Complement:
		vals = unionSyms(a.Values, b.Values)
	case a.Complement:
		for _, v := range b.Values {
			if !hasSym(a.Values, v) {
				vals = append(vals, v)
			}
		}
	case b.Complement:
		for _, v := range a.Values {
			if !hasSym(b.Values, v) {
				vals = append(vals, v)
			}
		}
	default:
		for _, v := range a.Values {
			if hasSym(b.Values, v) {
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
	out.Values = vals
	if out.Complement {
		out.HasGreaterThan, out.GreaterThan, out.HasLessThan, out.LessThan = hasGt, gt, hasLt, lt
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

// Get returns the requirement on key, or nil.
func (s Requirements) Get(key cluster.Sym) *Requirement {
	for i := range s {
		if s[i].Key == key {
			return &s[i]
		}
		if s[i].Key > key {
			return nil
		}
	}
	return nil
}

// With returns s with r intersected in.
func (s Requirements) With(syms *cluster.Symbols, r Requirement) Requirements {
	out := make(Requirements, 0, len(s)+1)
	done := false
	for i := range s {
		switch {
		case done || s[i].Key < r.Key:
			out = append(out, s[i])
		case s[i].Key == r.Key:
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

// MergeRequirements returns a ∩ b, key by key. It returns a itself when b is empty.
func MergeRequirements(syms *cluster.Symbols, a, b Requirements) Requirements {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := make(Requirements, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i].Key < b[j].Key):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j].Key < a[i].Key:
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
func absorbs(a, b Requirements) bool {
	for j := range b {
		r := &b[j]
		x := a.Get(r.Key)
		if x == nil || len(x.Values) == 0 || x.HasGreaterThan || x.HasLessThan || r.HasGreaterThan || r.HasLessThan || r.MinValues > x.MinValues {
			return false
		}
		switch {
		case !x.Complement && !r.Complement: // In ∩ In keeps x when x ⊆ r
			for _, v := range x.Values {
				if !hasSym(r.Values, v) {
					return false
				}
			}
		case !x.Complement: // In ∩ NotIn/Exists keeps x when they are disjoint
			for _, v := range x.Values {
				if hasSym(r.Values, v) {
					return false
				}
			}
		case r.Complement: // NotIn ∩ NotIn keeps x when r's values are in x's
			for _, v := range r.Values {
				if !hasSym(x.Values, v) {
					return false
				}
			}
		default:
			return false
		}
	}
	return true
}

// RequirementsCompatible reports whether node requirements can loosely meet pod
// requirements (KC Requirements.Compatible): a key the node side does not
// define is allowed only if it is well known (wellKnown) or the pod side is
// NotIn/DoesNotExist; keys both define must intersect, unless both are
// negative.
func RequirementsCompatible(syms *cluster.Symbols, node, pod Requirements, wellKnown func(cluster.Sym) bool) bool {
	for i := range pod {
		p := &pod[i]
		n := node.Get(p.Key)
		if n == nil {
			if wellKnown != nil && wellKnown(p.Key) || p.Negative() {
				continue
			}
			return false
		}
		if !HasIntersection(syms, n, p) && !(p.Negative() && n.Negative()) {
			return false
		}
	}
	return true
}

// RequirementsFromLabels turns node labels into In requirements.
func RequirementsFromLabels(ls cluster.Labels) Requirements {
	out := make(Requirements, 0, len(ls))
	for _, l := range ls {
		out = append(out, RequirementIn(l.Key, l.Value))
	}
	return out
}

// SortRequirements sorts by key and merges duplicates.
func SortRequirements(syms *cluster.Symbols, in []Requirement) Requirements {
	var out Requirements
	for _, r := range in {
		out = out.With(syms, r)
	}
	return out
}
