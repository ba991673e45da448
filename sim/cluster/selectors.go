package cluster

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Op is a selector operator.
type Op uint8

// Selector operators of node selector requirements and label selectors.
const (
	OpIn Op = iota
	OpNotIn
	OpExists
	OpDoesNotExist
	OpGt
	OpLt
)

var opNames = [...]string{"In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"}

func (o Op) String() string { return opNames[o] }

// Requirement is one compiled match expression: key op values.
type Requirement struct {
	Key    Sym
	Op     Op
	Values []Sym // sorted; In and NotIn only
	Num    int64 // Gt and Lt only
	// Field marks a matchFields requirement on metadata.name: matched
	// against the node's name instead of its labels.
	Field bool
}

// Matches evaluates the requirement against a label set, with the semantics
// of k8s.io/apimachinery labels.Requirement.Matches.
func (r *Requirement) Matches(syms *Symbols, ls Labels) bool {
	v, ok := ls.Get(r.Key)
	return r.matchValue(syms, v, ok)
}

// MatchesValue evaluates the requirement against one label's value v
// (ok false: the label is absent), as Matches does.
func (r *Requirement) MatchesValue(syms *Symbols, v Sym, ok bool) bool {
	return r.matchValue(syms, v, ok)
}

func (r *Requirement) matchValue(syms *Symbols, v Sym, ok bool) bool {
	switch r.Op {
	case OpIn:
		return ok && r.hasValue(v)
	case OpNotIn:
		return !ok || !r.hasValue(v)
	case OpExists:
		return ok
	case OpDoesNotExist:
		return !ok
	case OpGt, OpLt:
		if !ok {
			return false
		}
		n, isInt := syms.Int(v)
		if !isInt {
			return false
		}
		if r.Op == OpGt {
			return n > r.Num
		}
		return n < r.Num
	}
	return false
}

func (r *Requirement) hasValue(v Sym) bool {
	// Values are few (usually one to a handful): a scan is fastest.
	for _, have := range r.Values {
		if have == v {
			return true
		}
	}
	return false
}

// Term is one node selector term: every requirement must match (AND).
type Term struct {
	Reqs []Requirement
}

// Matches reports whether a node with these labels and this name matches.
func (t *Term) Matches(syms *Symbols, ls Labels, name Sym) bool {
	for i := range t.Reqs {
		r := &t.Reqs[i]
		if r.Field {
			if !r.matchValue(syms, name, name != NoSym) {
				return false
			}
			continue
		}
		if !r.Matches(syms, ls) {
			return false
		}
	}
	return true
}

// NodeSelector is a compiled required node affinity: the terms are ORed.
// Empty terms are dropped at compile time since they match nothing; a
// selector whose every term was empty matches nothing.
type NodeSelector struct {
	Terms []Term
}

// Matches reports whether any term matches.
func (s *NodeSelector) Matches(syms *Symbols, ls Labels, name Sym) bool {
	for i := range s.Terms {
		if s.Terms[i].Matches(syms, ls, name) {
			return true
		}
	}
	return false
}

// PreferredTerm is a weighted preferred node affinity term.
type PreferredTerm struct {
	Weight int32
	Term   Term
}

// RequirementKind says which list of a node selector term a requirement
// comes from: matchExpressions (on node labels) or matchFields (only
// metadata.name, In or NotIn with one value).
type RequirementKind bool

const (
	MatchExpression RequirementKind = false
	MatchField      RequirementKind = true
)

// CompileRequirement interns one NodeSelectorRequirement of the given kind
// and validates it as the API server does.
func CompileRequirement(syms *Symbols, r corev1.NodeSelectorRequirement, kind RequirementKind) (Requirement, error) {
	field := kind == MatchField
	out := Requirement{Key: syms.Intern(r.Key), Field: field}
	if r.Key == "" {
		return out, fmt.Errorf("key: must not be empty")
	}
	if !field {
		if err := validateKey(r.Key); err != nil {
			return out, err
		}
		if err := validateValues(r.Values); err != nil {
			return out, err
		}
	}
	if field {
		if r.Key != "metadata.name" {
			return out, fmt.Errorf("key: %q is not a supported field; matchFields supports only metadata.name", r.Key)
		}
		if r.Operator != corev1.NodeSelectorOpIn && r.Operator != corev1.NodeSelectorOpNotIn {
			return out, fmt.Errorf("operator: %q is not supported in matchFields (In or NotIn)", r.Operator)
		}
		if len(r.Values) != 1 {
			return out, fmt.Errorf("values: matchFields needs exactly one value, got %d", len(r.Values))
		}
	}
	switch r.Operator {
	case corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn:
		out.Op = OpIn
		if r.Operator == corev1.NodeSelectorOpNotIn {
			out.Op = OpNotIn
		}
		if len(r.Values) == 0 {
			return out, fmt.Errorf("values: operator %s needs at least one value", r.Operator)
		}
		out.Values = internSorted(syms, r.Values)
	case corev1.NodeSelectorOpExists, corev1.NodeSelectorOpDoesNotExist:
		out.Op = OpExists
		if r.Operator == corev1.NodeSelectorOpDoesNotExist {
			out.Op = OpDoesNotExist
		}
		if len(r.Values) != 0 {
			return out, fmt.Errorf("values: operator %s takes no values, got %d", r.Operator, len(r.Values))
		}
	case corev1.NodeSelectorOpGt, corev1.NodeSelectorOpLt:
		out.Op = OpGt
		if r.Operator == corev1.NodeSelectorOpLt {
			out.Op = OpLt
		}
		if len(r.Values) != 1 {
			return out, fmt.Errorf("values: operator %s needs exactly one value, got %d", r.Operator, len(r.Values))
		}
		n, err := strconv.ParseInt(r.Values[0], 10, 64)
		if err != nil {
			return out, fmt.Errorf("values[0]: operator %s needs an integer, got %q", r.Operator, r.Values[0])
		}
		out.Num = n
	default:
		return out, fmt.Errorf("operator: %q is not one of In, NotIn, Exists, DoesNotExist, Gt, Lt", r.Operator)
	}
	return out, nil
}

// CompileTerm compiles one NodeSelectorTerm. empty is true when the term has
// neither expressions nor fields (it matches nothing).
func CompileTerm(syms *Symbols, t corev1.NodeSelectorTerm) (term Term, empty bool, err error) {
	if len(t.MatchExpressions) == 0 && len(t.MatchFields) == 0 {
		return term, true, nil
	}
	for i, r := range t.MatchExpressions {
		c, err := CompileRequirement(syms, r, MatchExpression)
		if err != nil {
			return term, false, fmt.Errorf("matchExpressions[%d].%w", i, err)
		}
		term.Reqs = append(term.Reqs, c)
	}
	for i, r := range t.MatchFields {
		c, err := CompileRequirement(syms, r, MatchField)
		if err != nil {
			return term, false, fmt.Errorf("matchFields[%d].%w", i, err)
		}
		term.Reqs = append(term.Reqs, c)
	}
	return term, false, nil
}

// CompileNodeSelector compiles required node affinity terms.
func CompileNodeSelector(syms *Symbols, ns *corev1.NodeSelector) (*NodeSelector, error) {
	if ns == nil {
		return nil, nil
	}
	out := &NodeSelector{}
	for i, t := range ns.NodeSelectorTerms {
		term, empty, err := CompileTerm(syms, t)
		if err != nil {
			return nil, fmt.Errorf("nodeSelectorTerms[%d].%w", i, err)
		}
		if !empty {
			out.Terms = append(out.Terms, term)
		}
	}
	return out, nil
}

// SelectorFromMap compiles a nodeSelector map (every key=value must hold)
// into requirements, sorted by key for determinism.
func SelectorFromMap(syms *Symbols, m map[string]string) []Requirement {
	if len(m) == 0 {
		return nil
	}
	out := make([]Requirement, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Requirement{Key: syms.Intern(k), Op: OpIn, Values: []Sym{syms.Intern(m[k])}})
	}
	return out
}

// LabelSelector is a compiled metav1.LabelSelector for pods: every
// requirement must hold. An empty selector matches every pod; Nothing marks
// a nil selector, which matches no pod.
type LabelSelector struct {
	Reqs    []Requirement
	Nothing bool
}

// Matches evaluates the selector against pod labels.
func (s *LabelSelector) Matches(syms *Symbols, ls Labels) bool {
	if s.Nothing {
		return false
	}
	for i := range s.Reqs {
		if !s.Reqs[i].Matches(syms, ls) {
			return false
		}
	}
	return true
}

// CompileLabelSelector compiles a metav1.LabelSelector. nil compiles to a
// selector that matches nothing, as in pod affinity and topology spread.
func CompileLabelSelector(syms *Symbols, s *metav1.LabelSelector) (LabelSelector, error) {
	if s == nil {
		return LabelSelector{Nothing: true}, nil
	}
	out := LabelSelector{Reqs: SelectorFromMap(syms, s.MatchLabels)}
	for _, k := range slices.Sorted(maps.Keys(s.MatchLabels)) {
		v := s.MatchLabels[k]
		if err := validateKey(k); err != nil {
			return out, fmt.Errorf("matchLabels.%w", err)
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return out, fmt.Errorf("matchLabels.%s: %q is not a valid label value: %s", k, v, strings.Join(errs, "; "))
		}
	}
	for i, e := range s.MatchExpressions {
		if err := validateKey(e.Key); err != nil {
			return out, fmt.Errorf("matchExpressions[%d].%w", i, err)
		}
		if err := validateValues(e.Values); err != nil {
			return out, fmt.Errorf("matchExpressions[%d].%w", i, err)
		}
		r := Requirement{Key: syms.Intern(e.Key)}
		switch e.Operator {
		case metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn:
			r.Op = OpIn
			if e.Operator == metav1.LabelSelectorOpNotIn {
				r.Op = OpNotIn
			}
			if len(e.Values) == 0 {
				return out, fmt.Errorf("matchExpressions[%d].values: operator %s needs at least one value", i, e.Operator)
			}
			r.Values = internSorted(syms, e.Values)
		case metav1.LabelSelectorOpExists, metav1.LabelSelectorOpDoesNotExist:
			r.Op = OpExists
			if e.Operator == metav1.LabelSelectorOpDoesNotExist {
				r.Op = OpDoesNotExist
			}
			if len(e.Values) != 0 {
				return out, fmt.Errorf("matchExpressions[%d].values: operator %s takes no values", i, e.Operator)
			}
		default:
			return out, fmt.Errorf("matchExpressions[%d].operator: %q is not one of In, NotIn, Exists, DoesNotExist", i, e.Operator)
		}
		out.Reqs = append(out.Reqs, r)
	}
	return out, nil
}

// validateKey and validateValues apply the API server's label syntax, so a
// selector it would reject is a load error here too.
func validateKey(k string) error {
	if errs := validation.IsQualifiedName(k); len(errs) > 0 {
		return fmt.Errorf("key: %q is not a valid label key: %s", k, strings.Join(errs, "; "))
	}
	return nil
}

func validateValues(values []string) error {
	for i, v := range values {
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			return fmt.Errorf("values[%d]: %q is not a valid label value: %s", i, v, strings.Join(errs, "; "))
		}
	}
	return nil
}

func internSorted(syms *Symbols, values []string) []Sym {
	out := make([]Sym, 0, len(values))
	for _, v := range values {
		out = append(out, syms.Intern(v))
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// MatchesNodeSelectors reports whether a node meets a pod's nodeSelector
// and required node affinity (the NodeAffinity filter on its own): one
// implementation for the scheduler, the autoscalers and the DaemonSet
// controller.
func MatchesNodeSelectors(syms *Symbols, spec *PodSpec, n *Node) bool {
	for i := range spec.NodeSelector {
		if !spec.NodeSelector[i].Matches(syms, n.Labels) {
			return false
		}
	}
	return spec.Affinity == nil || spec.Affinity.Matches(syms, n.Labels, n.NameSym)
}
