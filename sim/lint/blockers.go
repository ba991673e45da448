package lint

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
)

// A source's judge names the first thing that keeps a workload away; an
// unhostable workload's fix must name them all, or following it leads to
// the next blocker (issue 35: tolerating one pool's taint, then its
// label, then a third pool's taint). This file lists a source's blockers
// by lifting each in a copy of the pod spec and judging again.

// maxBlockers bounds the lifting: past it a source is far from hosting.
const maxBlockers = 8

// blockers are the reasons source i cannot host r's pods, in the order
// its autoscaler checks them: each untolerated taint (tolerated in the
// copy), the pod's required node selection (dropped in the copy), then
// the reason left, which no change of the pod spec lifts (a limit, the
// size, the zones, ...); more may hide behind that last one. Empty when
// the source hosts them.
func (c *checker) blockers(r *row, i int) []component.LintWhy {
	s := c.sources[i]
	cl := &r.cells[i]
	if cl.CanLand {
		return nil
	}
	out := []component.LintWhy{cl.why}
	spec := *c.matrixSpec(r)
	for len(out) < maxBlockers {
		switch why := out[len(out)-1]; why.Kind {
		case "taint":
			t, ok := spec.Tolerations.FirstUntolerated(s.taints)
			if !ok {
				return out
			}
			spec.Tolerations = append(spec.Tolerations[:len(spec.Tolerations):len(spec.Tolerations)],
				cluster.Toleration{Key: t.Key, Value: t.Value, Op: cluster.TolerateEqual, Effect: t.Effect, Seconds: cluster.Forever})
		case "label", "affinity":
			if len(spec.NodeSelector) == 0 && spec.Affinity == nil {
				return out
			}
			spec.NodeSelector, spec.Affinity = nil, nil
		default:
			return out
		}
		next := c.judge(&spec, s)
		if next.CanLand {
			return out
		}
		out = append(out, next.why)
	}
	return out
}

// fewestBlockers picks the source closest to hosting r's pods: the
// fewest blockers, each with a fix, then the nearest first blocker
// (checker.nearest's order), then matrix order. Sources with a blocker
// nobody words a fix for come only when no other can; nil when no
// blocker has a fix at all.
func (c *checker) fewestBlockers(r *row) (*source, []component.LintWhy) {
	var best []component.LintWhy
	bestAt, bestFixed := -1, false
	for i := range r.cells {
		bs := c.blockers(r, i)
		if len(bs) == 0 || bs[0].Fix == "" {
			continue
		}
		fixed := true
		for _, b := range bs {
			fixed = fixed && b.Fix != ""
		}
		better := bestAt < 0 || fixed && !bestFixed
		if !better && fixed == bestFixed {
			better = len(bs) < len(best) || len(bs) == len(best) && whyRank(bs[0].Kind) < whyRank(best[0].Kind)
		}
		if better {
			best, bestAt, bestFixed = bs, i, fixed
		}
	}
	if bestAt < 0 {
		return nil, nil
	}
	return c.sources[bestAt], best
}

// blockersFix words the fix: one blocker as before ("let X take it
// (why): fix"), several numbered.
func blockersFix(s *source, bs []component.LintWhy) string {
	if len(bs) == 1 {
		return fmt.Sprintf("for example, let %s take it (%s): %s", s.ID, bs[0].Text, bs[0].Fix)
	}
	parts := make([]string, len(bs))
	for i, b := range bs {
		fix := b.Fix
		if fix == "" {
			fix = "no fix known"
		}
		parts[i] = fmt.Sprintf("(%d) %s: %s", i+1, b.Text, fix)
	}
	return fmt.Sprintf("for example, let %s take it; it has %d blockers, lift them all: %s", s.ID, len(bs), strings.Join(parts, "; "))
}
