package cluster

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/internal/duration"
)

// Effect is a taint effect.
type Effect uint8

// Taint effects; EffectAny appears only in tolerations (an empty effect
// tolerates every effect).
const (
	EffectAny Effect = iota
	EffectNoSchedule
	EffectPreferNoSchedule
	EffectNoExecute
)

func (e Effect) String() string {
	switch e {
	case EffectNoSchedule:
		return string(corev1.TaintEffectNoSchedule)
	case EffectPreferNoSchedule:
		return string(corev1.TaintEffectPreferNoSchedule)
	case EffectNoExecute:
		return string(corev1.TaintEffectNoExecute)
	}
	return ""
}

// ParseEffect accepts the Kubernetes spelling. ok is false for anything else.
func ParseEffect(s string) (Effect, bool) {
	switch corev1.TaintEffect(s) {
	case corev1.TaintEffectNoSchedule:
		return EffectNoSchedule, true
	case corev1.TaintEffectPreferNoSchedule:
		return EffectPreferNoSchedule, true
	case corev1.TaintEffectNoExecute:
		return EffectNoExecute, true
	}
	return EffectAny, false
}

// Taint is a compiled node taint.
type Taint struct {
	Key, Value Sym
	Effect     Effect
}

// String renders the taint as kubectl describe would show it in an
// unschedulable message: {key: value}.
func (t Taint) String(syms *Symbols) string {
	if t.Value == NoSym {
		return fmt.Sprintf("{%s: }", syms.Name(t.Key))
	}
	return fmt.Sprintf("{%s: %s}", syms.Name(t.Key), syms.Name(t.Value))
}

// TolerationOp is a toleration operator.
type TolerationOp uint8

// Toleration operators. Gt and Lt exist in the API behind the alpha feature
// gate TaintTolerationComparisonOperators (off by default): compiled as
// TolerateNever so they tolerate nothing, as in a default cluster.
const (
	TolerateEqual TolerationOp = iota
	TolerateExists
	TolerateNever
)

// Toleration is a compiled pod toleration. Key NoSym with TolerateExists
// tolerates every taint.
type Toleration struct {
	Key, Value Sym
	Op         TolerationOp
	Effect     Effect // EffectAny tolerates every effect
	// Seconds is how long a NoExecute taint is tolerated before eviction;
	// Forever when unset.
	Seconds time.Duration
}

// Forever marks a toleration without tolerationSeconds.
const Forever = time.Duration(1<<63 - 1)

// Tolerates reports whether the toleration matches the taint, with the
// semantics of k8s.io/api core/v1 Toleration.ToleratesTaint.
func (tol *Toleration) Tolerates(t Taint) bool {
	if tol.Effect != EffectAny && tol.Effect != t.Effect {
		return false
	}
	if tol.Key != NoSym && tol.Key != t.Key {
		return false
	}
	switch tol.Op {
	case TolerateExists:
		return true
	case TolerateEqual:
		return tol.Value == t.Value
	}
	return false
}

// Tolerations is a pod's compiled tolerations.
type Tolerations []Toleration

// Tolerate reports whether any toleration matches the taint.
func (ts Tolerations) Tolerate(t Taint) bool {
	for i := range ts {
		if ts[i].Tolerates(t) {
			return true
		}
	}
	return false
}

// FirstUntolerated returns the first taint with NoSchedule or NoExecute
// effect that no toleration matches: the TaintToleration filter.
func (ts Tolerations) FirstUntolerated(taints []Taint) (Taint, bool) {
	for _, t := range taints {
		if t.Effect == EffectPreferNoSchedule {
			continue
		}
		if !ts.Tolerate(t) {
			return t, true
		}
	}
	return Taint{}, false
}

// CompileTaint interns a Kubernetes taint. An unknown effect is an error.
func CompileTaint(syms *Symbols, t corev1.Taint) (Taint, error) {
	e, ok := ParseEffect(string(t.Effect))
	if !ok {
		return Taint{}, fmt.Errorf("effect %q is not one of NoSchedule, PreferNoSchedule, NoExecute", t.Effect)
	}
	if t.Key == "" {
		return Taint{}, fmt.Errorf("taint key must not be empty")
	}
	return Taint{Key: syms.Intern(t.Key), Value: syms.Intern(t.Value), Effect: e}, nil
}

// CompileToleration interns a Kubernetes toleration. It returns an error for
// combinations the API server rejects; warn is non-empty for accepted forms
// that do not behave as users might expect.
func CompileToleration(syms *Symbols, t corev1.Toleration) (tol Toleration, warn string, err error) {
	tol.Key = syms.Intern(t.Key)
	tol.Value = syms.Intern(t.Value)
	tol.Seconds = Forever
	if t.Effect != "" {
		e, ok := ParseEffect(string(t.Effect))
		if !ok {
			return tol, "", fmt.Errorf("effect %q is not one of NoSchedule, PreferNoSchedule, NoExecute (or empty for all)", t.Effect)
		}
		tol.Effect = e
	}
	switch t.Operator {
	case "", corev1.TolerationOpEqual:
		tol.Op = TolerateEqual
		if t.Key == "" {
			return tol, "", fmt.Errorf("operator Equal needs a key (an empty key is only valid with operator Exists)")
		}
	case corev1.TolerationOpExists:
		tol.Op = TolerateExists
		if t.Value != "" {
			return tol, "", fmt.Errorf("operator Exists takes no value (got %q)", t.Value)
		}
	case corev1.TolerationOpGt, corev1.TolerationOpLt:
		tol.Op = TolerateNever
		warn = fmt.Sprintf("toleration operator %s needs the alpha feature gate TaintTolerationComparisonOperators, off by default: this toleration tolerates nothing", t.Operator)
	default:
		return tol, "", fmt.Errorf("operator %q is not one of Equal, Exists", t.Operator)
	}
	if t.TolerationSeconds != nil {
		s := *t.TolerationSeconds
		if s < 0 {
			s = 0 // the API treats negative as zero: evict at once
		}
		tol.Seconds = time.Duration(s) * time.Second
		if s >= int64(duration.Saturated/time.Second) {
			// Upstream's product overflows to a negative duration, which
			// its taint manager reads as "tolerate for ever"; a span this
			// long (over 36 years) outlasts any run anyway.
			tol.Seconds = Forever
		}
	}
	return tol, warn, nil
}
