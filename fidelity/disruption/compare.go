package disruptionfidelity

import (
	"fmt"
	"math"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"
)

// PriceTolerance is how far apart two replacements' cheapest offerings
// may be and still count as the same replacement.
const PriceTolerance = 0.05

// NodeInfo is what makes two candidates interchangeable: upstream breaks
// ties between equal candidates in random order, so a command that takes
// another node of the same pool, type, capacity type, zone and pods is
// the same command in shape.
type NodeInfo struct {
	Pool, Type, CapacityType, Zone string
	Pods                           int // reschedulable pods
}

// NodeInfos describes the nodes of a state.
type NodeInfos map[string]NodeInfo

// InfosOf describes the case's nodes.
func InfosOf(nodes []*corev1.Node, pods []*corev1.Pod) NodeInfos {
	out := NodeInfos{}
	for _, n := range nodes {
		out[n.Name] = NodeInfo{Pool: n.Labels[karpv1.NodePoolLabelKey], Type: n.Labels[corev1.LabelInstanceTypeStable],
			CapacityType: n.Labels[karpv1.CapacityTypeLabelKey], Zone: n.Labels[corev1.LabelTopologyZone]}
	}
	for _, p := range pods {
		if p.Spec.NodeName == "" || ownedByDaemonSet(p) {
			continue
		}
		if in, ok := out[p.Spec.NodeName]; ok {
			in.Pods++
			out[p.Spec.NodeName] = in
		}
	}
	return out
}

func ownedByDaemonSet(p *corev1.Pod) bool {
	for _, o := range p.OwnerReferences {
		if o.Kind == "DaemonSet" || o.Kind == "Node" {
			return true
		}
	}
	return false
}

// Verdict says how two decisions compare.
type Verdict struct {
	Agree bool
	// Exact: the same candidates, not only the same shape.
	Exact bool
	Why   string
}

// Compare says whether b makes the same decision as a: the same method,
// the same candidates (or candidates of the same shape), the same
// replacements (pool, capacity type, cheapest offering within 5%).
func Compare(a, b Decision, infos NodeInfos) Verdict {
	if a.None() || b.None() {
		if a.None() && b.None() {
			return Verdict{Agree: true, Exact: true}
		}
		return Verdict{Why: "one decided nothing"}
	}
	if a.Method != b.Method {
		return Verdict{Why: "method " + a.Method + " vs " + b.Method}
	}
	exact := strings.Join(a.Candidates, ",") == strings.Join(b.Candidates, ",")
	if !exact && shapeOf(a.Candidates, infos) != shapeOf(b.Candidates, infos) {
		return Verdict{Why: fmt.Sprintf("candidates %d vs %d (%s | %s)", len(a.Candidates), len(b.Candidates), shapeOf(a.Candidates, infos), shapeOf(b.Candidates, infos))}
	}
	if len(a.Replacements) != len(b.Replacements) {
		return Verdict{Why: fmt.Sprintf("replacements %d vs %d", len(a.Replacements), len(b.Replacements))}
	}
	ra, rb := sortedReplacements(a.Replacements), sortedReplacements(b.Replacements)
	for i := range ra {
		x, y := ra[i], rb[i]
		if x.Pool != y.Pool || x.CapacityType != y.CapacityType {
			return Verdict{Why: fmt.Sprintf("replacement %s/%s vs %s/%s", x.Pool, x.CapacityType, y.Pool, y.CapacityType)}
		}
		if !withinTolerance(x.Cheapest, y.Cheapest) {
			return Verdict{Why: fmt.Sprintf("replacement $%.4f vs $%.4f", x.Cheapest, y.Cheapest)}
		}
	}
	return Verdict{Agree: true, Exact: exact}
}

func withinTolerance(a, b float64) bool {
	if math.IsInf(a, 1) || math.IsInf(b, 1) {
		return math.IsInf(a, 1) == math.IsInf(b, 1)
	}
	return math.Abs(a-b) <= PriceTolerance*math.Max(a, b)
}

func sortedReplacements(rs []Replacement) []Replacement {
	out := append([]Replacement(nil), rs...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Pool != out[j].Pool {
			return out[i].Pool < out[j].Pool
		}
		return out[i].Cheapest < out[j].Cheapest
	})
	return out
}

// shapeOf is the candidates as a sorted multiset of their infos.
func shapeOf(nodes []string, infos NodeInfos) string {
	var parts []string
	for _, n := range nodes {
		in, ok := infos[n]
		if !ok {
			parts = append(parts, "?"+n)
			continue
		}
		parts = append(parts, fmt.Sprintf("%s/%s/%s/%s/%d", in.Pool, in.Type, in.CapacityType, in.Zone, in.Pods))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// Measures are one decision's figures over the cases.
type Measures struct {
	Cases int
	// UpstreamSelf is the mean over cases of the share of pairs of
	// upstream runs that agree.
	UpstreamSelf float64
	// OursVsUpstream is the mean over cases of the share of upstream runs
	// ours agrees with.
	OursVsUpstream float64
	// Envelope is the share of cases where ours agrees with at least one
	// upstream run.
	Envelope float64
}

// CaseScore is one case's figures: ours against each of k upstream runs.
type CaseScore struct {
	Self, Vs float64
	Within   bool
}

// Score compares ours with upstream's k runs of one case.
func Score(ours Decision, ups []Decision, infos NodeInfos) CaseScore {
	var s CaseScore
	pairs, agree := 0, 0
	for i := range ups {
		for j := i + 1; j < len(ups); j++ {
			pairs++
			if Compare(ups[i], ups[j], infos).Agree {
				agree++
			}
		}
	}
	if pairs > 0 {
		s.Self = float64(agree) / float64(pairs)
	} else {
		s.Self = 1
	}
	n := 0
	for _, u := range ups {
		if Compare(ours, u, infos).Agree {
			n++
		}
	}
	if len(ups) > 0 {
		s.Vs = float64(n) / float64(len(ups))
	}
	s.Within = n > 0
	return s
}

// Widen samples upstream further where k runs sample it thinly: when
// ours matches none of the k runs and those runs split among themselves
// (upstream breaks ties between equal candidates at random, and with m
// tied choices five runs miss a given one with probability (1-1/m)^5,
// 46% for m = 7), it draws up to n more runs and counts ours within the
// envelope if one of them agrees. A unanimous upstream is not sampled
// again: ours differs from what upstream always does. Self and Vs stay
// the first k runs' figures; the extra runs are returned.
func Widen(s CaseScore, ours Decision, n int, draw func() (Decision, error), infos NodeInfos) (CaseScore, []Decision, error) {
	if s.Within || s.Self >= 1 {
		return s, nil, nil
	}
	var more []Decision
	for len(more) < n && !s.Within {
		d, err := draw()
		if err != nil {
			return s, more, err
		}
		more = append(more, d)
		s.Within = Compare(ours, d, infos).Agree
	}
	return s, more, nil
}

// Summarise averages case scores.
func Summarise(scores []CaseScore) Measures {
	m := Measures{Cases: len(scores)}
	if len(scores) == 0 {
		return m
	}
	within := 0
	for _, s := range scores {
		m.UpstreamSelf += s.Self
		m.OursVsUpstream += s.Vs
		if s.Within {
			within++
		}
	}
	m.UpstreamSelf /= float64(len(scores))
	m.OursVsUpstream /= float64(len(scores))
	m.Envelope = float64(within) / float64(len(scores))
	return m
}
