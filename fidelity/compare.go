package fidelity

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
)

// PriceTolerance is the relative difference in summed cheapest price
// under which two answers count as the same price.
const PriceTolerance = 0.05

// Runs is how many times upstream solves each case (and each second
// round): upstream breaks ties between topology domains in Go map order
// (topologygroup.go nextDomainTopologySpread and nextDomainAffinity) and
// its in-flight NodeClaims have random names, so one input has several
// upstream answers. The k answers measure upstream's agreement with
// itself and ours with a random upstream run, and bound the envelope.
var Runs = 6

// Result compares the two solvers on one case.
type Result struct {
	Case *Case
	// Ours is our answer; Up the upstream answer closest to it among Ups,
	// upstream's answers over Runs runs.
	Ours, Up Outcome
	Ups      []Outcome
	// UpRuns is how many times upstream ran; UpVaried: its answers
	// differed between runs.
	UpRuns   int
	UpVaried bool
	// Solve times, the median of TimedRuns runs for ours, of the Runs
	// runs for upstream.
	OursTime, UpTime time.Duration

	NodesEqual, PriceWithin, UnschedEqual, OptionsEqual bool
	// PriceDiff is |ours - upstream| / upstream of the summed cheapest
	// price of the new nodes (0 when both are 0).
	PriceDiff float64

	Spread
	// Second is the second round, for a case with arrivals.
	Second *Second
}

// Spread is how upstream's answers to one input spread and where ours
// falls: SelfAgree is the share of pairs of upstream runs that agree
// (node count, price within 5%, unschedulable pods per template), an
// estimate of the chance that two upstream runs agree; OursVsUp the share
// of upstream runs ours agrees with, the chance that ours agrees with a
// random upstream run; InEnvelope: ours agrees with at least one.
//
// SelfEnvelope is the share of upstream runs that agree with at least one
// other run: how often one upstream answer falls within the envelope of
// the others, the baseline of InEnvelope where upstream varies widely.
type Spread struct {
	SelfAgree, OursVsUp, SelfEnvelope float64
	InEnvelope                        bool
}

// Second compares the second round of a case: the first round's pods,
// still pending, and the arrivals, solved against the first round's
// NodeClaims in flight (ours launched; upstream's cluster state gets the
// same NodeClaims).
type Second struct {
	InFlight int
	Ours, Up Outcome // Up: the upstream answer closest to ours
	Ups      []Outcome
	Spread
	// InOurOrder is upstream's answer with the NodeClaims in flight
	// tried in our order (Upstream.RunSecondInOurOrder), and SameInOrder
	// whether ours agrees with it: the second round without the random
	// order of upstream's NodeClaim names.
	InOurOrder  Outcome
	SameInOrder bool
}

// agree: node count equal, summed price within PriceTolerance,
// unschedulable pods equal per template.
func agree(a, b Outcome) bool {
	r := Result{Ours: a, Up: b}
	r.score()
	return r.agrees()
}

// spreadOf measures ours against upstream's answers.
func spreadOf(ours Outcome, ups []Outcome) Spread {
	var sp Spread
	pairs, same := 0, 0
	for i := range ups {
		for j := i + 1; j < len(ups); j++ {
			pairs++
			if agree(ups[i], ups[j]) {
				same++
			}
		}
	}
	if pairs > 0 {
		sp.SelfAgree = float64(same) / float64(pairs)
	} else {
		sp.SelfAgree = 1
	}
	inside := 0
	for i := range ups {
		for j := range ups {
			if i != j && agree(ups[i], ups[j]) {
				inside++
				break
			}
		}
	}
	sp.SelfEnvelope = 1
	if len(ups) > 1 {
		sp.SelfEnvelope = float64(inside) / float64(len(ups))
	}
	hits := 0
	for _, u := range ups {
		if agree(ours, u) {
			hits++
		}
	}
	sp.OursVsUp = float64(hits) / float64(len(ups))
	sp.InEnvelope = hits > 0
	return sp
}

// closest returns the upstream answer nearest ours.
func closest(ours Outcome, ups []Outcome) Outcome {
	var best *Result
	for _, u := range ups {
		cand := Result{Ours: ours, Up: u}
		cand.score()
		if best == nil || cand.badness() < best.badness() {
			best = &cand
		}
	}
	return best.Up
}

// Summary aggregates results.
type Summary struct {
	Cases                                           int
	Pods                                            int
	NodesEqual, PriceWithin, UnschedEqual, OptEqual int
	UpVaried                                        int
	MedianPriceDiff, WorstPriceDiff                 float64
	WorstPriceCase                                  string
	OursTime, UpTime                                time.Duration
	OursPodsPerSec, UpPodsPerSec, Speedup           float64
	Tally                                           // first round
	Disagreements                                   []string

	// First round: upstream's agreement with itself and ours with a
	// random upstream run (means over cases, in %), the noise between
	// the two (Tolerance, in points), cases within upstream's envelope
	// (all and per set).
	SelfAgree, OursVsUp, Tolerance float64
	Envelope                       int
	// SelfEnvelope: the mean share of upstream runs within the envelope
	// of the other runs, in %.
	SelfEnvelope          float64
	SetCases, SetEnvelope map[string]int

	// Second round (cases with arrivals).
	Cases2                            int
	SelfAgree2, OursVsUp2, Tolerance2 float64
	Envelope2                         int
	SelfEnvelope2                     float64
	InFlight2                         int
	Price2Ours, Price2Up              float64 // summed new-node price, ours / closest upstream
	Tally2                            Tally
	// SameInOrder2: second rounds where ours agrees with upstream given
	// our order of the NodeClaims in flight.
	SameInOrder2 int
}

// Tally sums the new nodes and the pods left pending of ours and of
// upstream's closest run.
type Tally struct {
	NodesOurs, NodesUp     int
	UnschedOurs, UnschedUp int
}

func (t *Tally) add(ours, up Outcome) {
	t.NodesOurs += len(ours.Nodes)
	t.NodesUp += len(up.Nodes)
	t.UnschedOurs += len(ours.Unschedulable)
	t.UnschedUp += len(up.Unschedulable)
}

// setOf names a case's set: "pinned" for the original generator's
// cases (case-NNN), "wide" for GenerateWide's, "overlay" for
// GenerateOverlays', "minValues" for GenerateMinValues', "reservation"
// for GenerateReservations', "hand"
// otherwise.
func setOf(c *Case) string {
	switch {
	case strings.HasPrefix(c.Name, "case-"):
		return "pinned"
	case strings.HasPrefix(c.Name, "wide-"):
		return "wide"
	case strings.HasPrefix(c.Name, "overlay-"):
		return "overlay"
	case strings.HasPrefix(c.Name, "minvalues-"):
		return "minValues"
	case strings.HasPrefix(c.Name, "reserved-"):
		return "reservation"
	}
	return "hand"
}

// gateSEs is how many standard errors of sampling noise a statistical
// gate allows: 3.3 makes a one-sided false alarm about once in 2,000
// runs per check when ours is as good as upstream. Two (one in 44) failed
// CI on noise; the harness runs on every CI run, so a gate must not.
const gateSEs = 3.3

// noise is gateSEs standard errors of the difference between the mean
// share of upstream runs ours agrees with and the mean share of pairs of
// upstream runs that agree, from the k-run sampling: per case, a share
// estimated from k runs has binomial variance p(1-p)/k, and the pair
// share s(1-s)/(k/2) (pairs of k runs carry about k/2 independent
// draws). Cases where upstream never varied and ours agrees or not with
// all runs add nothing.
func noise(sp []Spread, k int) float64 {
	if len(sp) == 0 || k < 2 {
		return 0
	}
	v := 0.0
	for _, s := range sp {
		v += s.OursVsUp*(1-s.OursVsUp)/float64(k) + s.SelfAgree*(1-s.SelfAgree)/(float64(k)/2)
	}
	return 100 * gateSEs * math.Sqrt(v) / float64(len(sp))
}

func (o Outcome) price() float64 {
	s := 0.0
	for _, n := range o.Nodes {
		s += n.Cheapest
	}
	return s
}

func (o Outcome) optionKeys() []string {
	var out []string
	for _, n := range o.Nodes {
		out = append(out, n.Pool+":"+strings.Join(n.InstanceTypes, ","))
	}
	sort.Strings(out)
	return out
}

func sameStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// templatesOf maps pod names (<app>-<i>) to their templates, sorted:
// replicas of one template are interchangeable, so which of them is left
// unschedulable is a tie (upstream breaks it in map order) and only how
// many per template counts.
func templatesOf(pods []string) []string {
	out := make([]string, len(pods))
	for i, name := range pods {
		if j := strings.LastIndexByte(name, '-'); j > 0 {
			name = name[:j]
		}
		out[i] = name
	}
	sort.Strings(out)
	return out
}

// score fills the comparison fields from r.Ours and r.Up.
func (r *Result) score() {
	r.NodesEqual = len(r.Ours.Nodes) == len(r.Up.Nodes)
	r.UnschedEqual = sameStrings(templatesOf(r.Ours.Unschedulable), templatesOf(r.Up.Unschedulable))
	r.OptionsEqual = sameStrings(r.Ours.optionKeys(), r.Up.optionKeys())
	o, u := r.Ours.price(), r.Up.price()
	switch {
	case o == u:
		r.PriceDiff = 0
	case u == 0:
		r.PriceDiff = 1
	default:
		r.PriceDiff = math.Abs(o-u) / u
	}
	r.PriceWithin = r.PriceDiff <= PriceTolerance
}

// badness orders upstream answers by how far they are from ours.
func (r *Result) badness() float64 {
	b := r.PriceDiff
	if !r.UnschedEqual {
		b += 1000
	}
	if !r.NodesEqual {
		b += 100
	}
	if !r.PriceWithin {
		b += 10
	}
	if !r.OptionsEqual {
		b += 1
	}
	return b
}

func (r *Result) agrees() bool { return r.NodesEqual && r.PriceWithin && r.UnschedEqual }

// TimedRuns is how many times each solver runs per case for its timing
// (the median is kept): one small solve of ours is below timer noise.
const TimedRuns = 3

// Compare runs both solvers on one case: ours TimedRuns times (it must
// give one answer), upstream Runs times, and for a case with arrivals the
// second round, ours once and upstream Runs times.
func Compare(cat *catalog.Catalog, c *Case) (*Result, error) {
	ours, err := BuildOurs(cat, c)
	if err != nil {
		return nil, err
	}
	up, err := BuildUpstream(c, ours)
	if err != nil {
		return nil, err
	}
	r := &Result{Case: c}
	var oursTimes, upTimes []time.Duration
	for i := 0; i < TimedRuns; i++ {
		start := time.Now()
		res := ours.Solve()
		oursTimes = append(oursTimes, time.Since(start))
		out := ours.convert(res)
		if i == 0 {
			r.Ours = out
		} else if !sameOutcome(out, r.Ours) {
			return nil, fmt.Errorf("%s: our solve is not deterministic", c.Name)
		}
	}
	for i := 0; i < max(Runs, 1); i++ {
		start := time.Now()
		out, err := up.Run()
		upTimes = append(upTimes, time.Since(start))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Name, err)
		}
		r.Ups = append(r.Ups, out)
		if !sameOutcome(out, r.Ups[0]) {
			r.UpVaried = true
		}
	}
	r.UpRuns = len(r.Ups)
	r.OursTime, r.UpTime = median(oursTimes), median(upTimes)
	r.Up = closest(r.Ours, r.Ups)
	r.score()
	r.Spread = spreadOf(r.Ours, r.Ups)

	if len(c.Arrivals) > 0 {
		// A fresh cluster: the first round launches into it.
		o2, err := BuildOursTwoRounds(cat, c)
		if err != nil {
			return nil, err
		}
		sec := &Second{}
		var fl []InFlight
		sec.Ours, fl = o2.RunTwoRounds()
		sec.InFlight = len(fl)
		for i := 0; i < max(Runs, 1); i++ {
			out, err := up.RunSecond(fl)
			if err != nil {
				return nil, fmt.Errorf("%s: second round: %w", c.Name, err)
			}
			sec.Ups = append(sec.Ups, out)
		}
		if sec.InOurOrder, err = up.RunSecondInOurOrder(fl); err != nil {
			return nil, fmt.Errorf("%s: second round in our order: %w", c.Name, err)
		}
		sec.SameInOrder = agree(sec.Ours, sec.InOurOrder)
		sec.Up = closest(sec.Ours, sec.Ups)
		sec.Spread = spreadOf(sec.Ours, sec.Ups)
		r.Second = sec
	}
	return r, nil
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func sameOutcome(a, b Outcome) bool {
	return len(a.Nodes) == len(b.Nodes) && a.price() == b.price() && sameStrings(templatesOf(a.Unschedulable), templatesOf(b.Unschedulable)) &&
		sameStrings(a.optionKeys(), b.optionKeys())
}

// Summarize aggregates results.
func Summarize(rs []*Result) Summary {
	s := Summary{SetCases: map[string]int{}, SetEnvelope: map[string]int{}}
	var diffs []float64
	var sp1, sp2 []Spread
	for _, r := range rs {
		s.Cases++
		s.Pods += len(r.Case.Pods)
		s.Tally.add(r.Ours, r.Up)
		if r.NodesEqual {
			s.NodesEqual++
		}
		if r.PriceWithin {
			s.PriceWithin++
		}
		if r.UnschedEqual {
			s.UnschedEqual++
		}
		if r.OptionsEqual {
			s.OptEqual++
		}
		if r.UpVaried {
			s.UpVaried++
		}
		diffs = append(diffs, r.PriceDiff)
		if r.PriceDiff > s.WorstPriceDiff || s.WorstPriceCase == "" {
			s.WorstPriceDiff, s.WorstPriceCase = r.PriceDiff, r.Case.Name
		}
		s.OursTime += r.OursTime
		s.UpTime += r.UpTime
		set := setOf(r.Case)
		s.SetCases[set]++
		s.SelfAgree += r.SelfAgree
		s.OursVsUp += r.OursVsUp
		s.SelfEnvelope += r.SelfEnvelope
		sp1 = append(sp1, r.Spread)
		if r.InEnvelope {
			s.Envelope++
			s.SetEnvelope[set]++
		}
		if !r.InEnvelope {
			s.Disagreements = append(s.Disagreements, Describe(r))
		}
		if sec := r.Second; sec != nil {
			s.Cases2++
			s.SelfAgree2 += sec.SelfAgree
			s.OursVsUp2 += sec.OursVsUp
			s.SelfEnvelope2 += sec.SelfEnvelope
			sp2 = append(sp2, sec.Spread)
			s.InFlight2 += sec.InFlight
			s.Price2Ours += sec.Ours.price()
			s.Price2Up += sec.Up.price()
			s.Tally2.add(sec.Ours, sec.Up)
			if sec.SameInOrder {
				s.SameInOrder2++
			}
			if sec.InEnvelope {
				s.Envelope2++
			} else {
				s.Disagreements = append(s.Disagreements, DescribeSecond(r))
			}
		}
	}
	if s.Cases > 0 {
		s.SelfAgree = 100 * s.SelfAgree / float64(s.Cases)
		s.OursVsUp = 100 * s.OursVsUp / float64(s.Cases)
		s.SelfEnvelope = 100 * s.SelfEnvelope / float64(s.Cases)
	}
	if s.Cases2 > 0 {
		s.SelfAgree2 = 100 * s.SelfAgree2 / float64(s.Cases2)
		s.OursVsUp2 = 100 * s.OursVsUp2 / float64(s.Cases2)
		s.SelfEnvelope2 = 100 * s.SelfEnvelope2 / float64(s.Cases2)
	}
	s.Tolerance, s.Tolerance2 = noise(sp1, Runs), noise(sp2, Runs)
	sort.Float64s(diffs)
	if len(diffs) > 0 {
		s.MedianPriceDiff = diffs[len(diffs)/2]
	}
	if s.OursTime > 0 {
		s.OursPodsPerSec = float64(s.Pods) / s.OursTime.Seconds()
	}
	if s.UpTime > 0 {
		s.UpPodsPerSec = float64(s.Pods) / s.UpTime.Seconds()
	}
	if s.UpPodsPerSec > 0 {
		s.Speedup = s.OursPodsPerSec / s.UpPodsPerSec
	}
	return s
}

// DescribeSecond says how a case's second rounds differ.
func DescribeSecond(r *Result) string {
	sec := r.Second
	d := Result{Case: r.Case, Ours: sec.Ours, Up: sec.Up}
	d.score()
	var b strings.Builder
	fmt.Fprintf(&b, "%s second round [%s] pods=%d+%d in-flight=%d: nodes ours=%d upstream=%d; price ours=%.4f upstream=%.4f (%.1f%%)",
		r.Case.Name, r.Case.Shape, len(r.Case.Pods), len(r.Case.Arrivals), sec.InFlight, len(sec.Ours.Nodes), len(sec.Up.Nodes),
		sec.Ours.price(), sec.Up.price(), 100*d.PriceDiff)
	if !d.UnschedEqual {
		fmt.Fprintf(&b, "; unschedulable ours=%d upstream=%d", len(sec.Ours.Unschedulable), len(sec.Up.Unschedulable))
	}
	fmt.Fprintf(&b, "; upstream agreed with itself on %.0f%% of pairs", 100*sec.SelfAgree)
	if sec.SameInOrder {
		b.WriteString("; upstream in our order of the NodeClaims in flight agrees")
	} else {
		fmt.Fprintf(&b, "; upstream in our order of the NodeClaims in flight: nodes=%d price=%.4f", len(sec.InOurOrder.Nodes), sec.InOurOrder.price())
	}
	return b.String()
}

// Describe says how one case's answers differ.
func Describe(r *Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s [%s] pods=%d types=%d pools=%d: nodes ours=%d upstream=%d; price ours=%.4f upstream=%.4f (%.1f%%)",
		r.Case.Name, r.Case.Shape, len(r.Case.Pods), len(r.Case.Types), len(r.Case.Pools), len(r.Ours.Nodes), len(r.Up.Nodes),
		r.Ours.price(), r.Up.price(), 100*r.PriceDiff)
	if !r.UnschedEqual {
		onlyOurs, onlyUp := minus(r.Ours.Unschedulable, r.Up.Unschedulable), minus(r.Up.Unschedulable, r.Ours.Unschedulable)
		fmt.Fprintf(&b, "; unschedulable ours=%d upstream=%d (only ours: %s; only upstream: %s)",
			len(r.Ours.Unschedulable), len(r.Up.Unschedulable), brief(onlyOurs), brief(onlyUp))
	}
	if !r.OptionsEqual {
		b.WriteString("; instance-type options differ")
	}
	if r.UpVaried {
		fmt.Fprintf(&b, "; upstream varied over %d runs (%.0f%% of pairs agree, ours agrees with %.0f%% of runs)", r.UpRuns, 100*r.SelfAgree, 100*r.OursVsUp)
	}
	fmt.Fprintf(&b, "; solve ours=%s upstream=%s", r.OursTime.Round(time.Microsecond), r.UpTime.Round(time.Millisecond))
	return b.String()
}

// minus returns the names of a not in b (both sorted).
func minus(a, b []string) []string {
	in := map[string]bool{}
	for _, v := range b {
		in[v] = true
	}
	var out []string
	for _, v := range a {
		if !in[v] {
			out = append(out, v)
		}
	}
	return out
}

// brief lists at most 5 names.
func brief(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	if len(names) > 5 {
		return strings.Join(names[:5], " ") + fmt.Sprintf(" and %d more", len(names)-5)
	}
	return strings.Join(names, " ")
}

func pct(n, d int) float64 {
	if d == 0 {
		return 0
	}
	return 100 * float64(n) / float64(d)
}

// Print writes the table and the closing line.
func (s Summary) Print(w io.Writer) {
	row := func(k, v string) { fmt.Fprintf(w, "| %-44s | %-34s |\n", k, v) }
	fmt.Fprintf(w, "| %-44s | %-34s |\n", "metric", "value")
	fmt.Fprintf(w, "|%s|%s|\n", strings.Repeat("-", 46), strings.Repeat("-", 36))
	row("cases", fmt.Sprintf("%d (%d pods), %d upstream runs each", s.Cases, s.Pods, Runs))
	row("node count equal (closest upstream run)", fmt.Sprintf("%d (%.1f%%)", s.NodesEqual, pct(s.NodesEqual, s.Cases)))
	row("new nodes, ours / upstream", fmt.Sprintf("%d / %d", s.NodesOurs, s.NodesUp))
	row("summed cheapest price within 5%", fmt.Sprintf("%d (%.1f%%)", s.PriceWithin, pct(s.PriceWithin, s.Cases)))
	row("price difference, median", fmt.Sprintf("%.2f%%", 100*s.MedianPriceDiff))
	row("price difference, worst", fmt.Sprintf("%.2f%% (%s)", 100*s.WorstPriceDiff, s.WorstPriceCase))
	row("instance-type options per node equal", fmt.Sprintf("%d (%.1f%%)", s.OptEqual, pct(s.OptEqual, s.Cases)))
	row("unschedulable pods equal", fmt.Sprintf("%d (%.1f%%)", s.UnschedEqual, pct(s.UnschedEqual, s.Cases)))
	row("unschedulable pods, ours / upstream", fmt.Sprintf("%d / %d", s.UnschedOurs, s.UnschedUp))
	row("cases where upstream's answer varied", fmt.Sprintf("%d", s.UpVaried))
	row("upstream agrees with itself (pairs of runs)", fmt.Sprintf("%.1f%%", s.SelfAgree))
	row("ours agrees with a random upstream run", fmt.Sprintf("%.1f%% (noise %.1f points)", s.OursVsUp, s.Tolerance))
	row("ours within upstream's envelope", fmt.Sprintf("%d (%.1f%%)", s.Envelope, pct(s.Envelope, s.Cases)))
	row("upstream run within the others' envelope", fmt.Sprintf("%.1f%%", s.SelfEnvelope))
	sets := make([]string, 0, len(s.SetCases))
	for k := range s.SetCases {
		sets = append(sets, k)
	}
	sort.Strings(sets)
	for _, k := range sets {
		row("  within the envelope, "+k+" set", fmt.Sprintf("%d of %d (%.1f%%)", s.SetEnvelope[k], s.SetCases[k], pct(s.SetEnvelope[k], s.SetCases[k])))
	}
	if s.Cases2 > 0 {
		row("second round: cases (NodeClaims in flight)", fmt.Sprintf("%d (%d)", s.Cases2, s.InFlight2))
		row("second round: upstream agrees with itself", fmt.Sprintf("%.1f%%", s.SelfAgree2))
		row("second round: ours vs a random upstream run", fmt.Sprintf("%.1f%% (noise %.1f points)", s.OursVsUp2, s.Tolerance2))
		row("second round: within upstream's envelope", fmt.Sprintf("%d (%.1f%%)", s.Envelope2, pct(s.Envelope2, s.Cases2)))
		row("second round: upstream run within the others'", fmt.Sprintf("%.1f%%", s.SelfEnvelope2))
		row("second round: ours = upstream in our order", fmt.Sprintf("%d (%.1f%%)", s.SameInOrder2, pct(s.SameInOrder2, s.Cases2)))
		row("second round: new nodes, ours / upstream", fmt.Sprintf("%d / %d", s.Tally2.NodesOurs, s.Tally2.NodesUp))
		row("second round: new-node price, ours / upstream", fmt.Sprintf("%.2f / %.2f USD/h", s.Price2Ours, s.Price2Up))
		row("second round: left pending, ours / upstream", fmt.Sprintf("%d / %d", s.Tally2.UnschedOurs, s.Tally2.UnschedUp))
	}
	row("solve time, ours / upstream", fmt.Sprintf("%s / %s", s.OursTime.Round(time.Millisecond), s.UpTime.Round(time.Millisecond)))
	row("pods/s, ours / upstream", fmt.Sprintf("%.0f / %.0f", s.OursPodsPerSec, s.UpPodsPerSec))
	row("speed ratio (ours / upstream pods/s)", fmt.Sprintf("%.1fx", s.Speedup))
	if len(s.Disagreements) > 0 {
		fmt.Fprintf(w, "\noutside upstream's envelope (%d):\n", len(s.Disagreements))
		for _, d := range s.Disagreements {
			fmt.Fprintf(w, "  %s\n", d)
		}
	}
	fmt.Fprintf(w, "\nfidelity: cases=%d nodes_equal=%.1f%% price_within_5pct=%.1f%% unschedulable_equal=%.1f%% "+
		"upstream_self=%.1f%% ours_vs_upstream=%.1f%% envelope=%.1f%% second_round_cases=%d second_round_self=%.1f%% "+
		"second_round_ours_vs_upstream=%.1f%% second_round_envelope=%.1f%% second_round_upstream_envelope=%.1f%% second_round_in_our_order=%.1f%% speedup=%.1fx\n",
		s.Cases, pct(s.NodesEqual, s.Cases), pct(s.PriceWithin, s.Cases), pct(s.UnschedEqual, s.Cases),
		s.SelfAgree, s.OursVsUp, pct(s.Envelope, s.Cases), s.Cases2, s.SelfAgree2, s.OursVsUp2, pct(s.Envelope2, s.Cases2), s.SelfEnvelope2, pct(s.SameInOrder2, s.Cases2), s.Speedup)
}

// Targets (issues 10 and 22).
const (
	TargetEnvelope = 97.0
	TargetSpeedup  = 4.0
	// TargetInOrder: second rounds where ours agrees with upstream given
	// the NodeClaims in flight in our order.
	TargetInOrder = 97.0
)

// Check reports the targets the summary misses: ours within upstream's
// envelope on at least 97% of cases; ours agreeing with a random
// upstream run at least as often as upstream agrees with itself, less
// the sampling noise of k runs (see noise), in each round; in the second
// round, ours agreeing with upstream given the NodeClaims in flight in
// our order on at least 97% of cases; our pods/s at least 4x upstream's.
//
// The second round's envelope is reported, not gated: there upstream's
// answers spread so widely with the random order of the NodeClaims in
// flight (86% of pairs agree) that over 20 cases ours, one more draw of
// the same process, falls outside k = 6 runs' envelope on 1 to 3 cases
// by chance, so any envelope target either fails on noise or allows a
// real miss. The in-order comparison removes that randomness, and is
// the stricter test of the solve.
func (s Summary) Check() []string {
	var out []string
	if p := pct(s.Envelope, s.Cases); p < TargetEnvelope {
		out = append(out, fmt.Sprintf("ours within upstream's envelope on %.1f%% of cases, want >= %.0f%%", p, TargetEnvelope))
	}
	if s.OursVsUp < s.SelfAgree-s.Tolerance {
		out = append(out, fmt.Sprintf("ours agrees with a random upstream run %.1f%% of the time, upstream with itself %.1f%% (noise %.1f points)",
			s.OursVsUp, s.SelfAgree, s.Tolerance))
	}
	if s.Cases2 > 0 {
		if p := pct(s.SameInOrder2, s.Cases2); p < TargetInOrder {
			out = append(out, fmt.Sprintf("second round: ours agrees with upstream given our order of the NodeClaims in flight on %.1f%% of cases, want >= %.0f%%", p, TargetInOrder))
		}
		if s.OursVsUp2 < s.SelfAgree2-s.Tolerance2 {
			out = append(out, fmt.Sprintf("second round: ours agrees with a random upstream run %.1f%% of the time, upstream with itself %.1f%% (noise %.1f points)",
				s.OursVsUp2, s.SelfAgree2, s.Tolerance2))
		}
	}
	if s.Speedup < TargetSpeedup {
		out = append(out, fmt.Sprintf("speedup %.1fx, want >= %.0fx", s.Speedup, TargetSpeedup))
	}
	return out
}

// Detail prints a case and both answers in full.
func Detail(w io.Writer, r *Result) {
	c := r.Case
	fmt.Fprintf(w, "%s [%s]\n", c.Name, c.Shape)
	for _, np := range c.Pools {
		b, _ := json.Marshal(np.Spec)
		fmt.Fprintf(w, "  pool %s: %s\n", np.Name, b)
	}
	for _, t := range c.Types {
		fmt.Fprintf(w, "  type %s %v\n", t.Name, t.Offerings)
	}
	seen := map[string]bool{}
	for _, p := range c.Pods {
		b, _ := json.Marshal(p.Spec)
		if !seen[string(b)+p.Labels["app"]] {
			seen[string(b)+p.Labels["app"]] = true
			fmt.Fprintf(w, "  pods %s: %s\n", p.Labels["app"], b)
		}
	}
	sides := []struct {
		name string
		o    Outcome
	}{{"ours", r.Ours}, {"upstream", r.Up}}
	if sec := r.Second; sec != nil {
		for _, p := range c.Arrivals {
			b, _ := json.Marshal(p.Spec)
			if !seen[string(b)+p.Labels["app"]] {
				seen[string(b)+p.Labels["app"]] = true
				fmt.Fprintf(w, "  arrivals %s: %s\n", p.Labels["app"], b)
			}
		}
		sides = append(sides, struct {
			name string
			o    Outcome
		}{"second round, ours", sec.Ours})
		for i, u := range sec.Ups {
			sides = append(sides, struct {
				name string
				o    Outcome
			}{fmt.Sprintf("second round, upstream run %d", i), u})
		}
		sides = append(sides, struct {
			name string
			o    Outcome
		}{"second round, upstream in our order of the NodeClaims in flight", sec.InOurOrder})
	}
	for _, side := range sides {
		fmt.Fprintf(w, "%s: %d nodes, price %.4f, unschedulable %v\n", side.name, len(side.o.Nodes), side.o.price(), side.o.Unschedulable)
		for _, n := range side.o.Nodes {
			fmt.Fprintf(w, "  %s pods=%d cheapest=%.4f types=%v %v\n", n.Pool, n.Pods, n.Cheapest, n.InstanceTypes, n.PodNames)
		}
	}
}
