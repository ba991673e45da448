package karpenter

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
)

// NoLaunchFunc receives why Karpenter launched no node for pending pods,
// in the words of its events and logs: class names the reason for
// deduplication ("incompatible/POOL", "limit/POOL",
// "unavailable-offerings/POOL", "launch-failed/POOL/CODE", "no-fit", joined
// with "+" when several pools answer), message is what a user reads. The
// pods are the pending pods concerned (bound pods of deleting nodes are
// left out).
type NoLaunchFunc func(pods []cluster.PodID, class, message string)

// OnNoLaunch makes Karpenter say, after each batch, why it launched no
// node for pods (the timeline's karpenterNoLaunch entries). Off (nil) by
// default: the reasons cost a walk of the pools per failed pod template,
// done only when someone listens.
func (k *Karpenter) OnNoLaunch(f NoLaunchFunc) { k.prov.noLaunch = f }

// OnDisruption makes Karpenter say when it starts deleting a node, and why
// (empty, underutilized, drifted, expired, interrupted; the report's
// disruptions): the report's timeline shows consolidations. It only
// listens.
func (k *Karpenter) OnDisruption(f func(node cluster.NodeID, reason string)) { k.term.onDisruption = f }

// explainFailed says why the solve placed the failed pods nowhere, per
// pod template and pool (KC's "could not schedule pod" with its
// "incompatible with nodepool" errors).
func (pr *provisioner) explainFailed(s *scheduling.Solver) {
	type group struct {
		spec *cluster.PodSpec
		pods []cluster.PodID
	}
	var groups []*group
	bySpec := map[*cluster.PodSpec]*group{}
	for _, id := range realPods(s.Failed) {
		p := &pr.cl.Pods[id]
		if p.Phase != cluster.Pending || p.Node != cluster.NoNode {
			continue
		}
		g := bySpec[p.Spec]
		if g == nil {
			g = &group{spec: p.Spec}
			bySpec[p.Spec] = g
			groups = append(groups, g)
		}
		g.pods = append(g.pods, id)
	}
	for _, g := range groups {
		class, msg := pr.whyNoNode(s, g.spec)
		pr.noLaunch(g.pods, class, msg)
	}
}

// whyNoNode walks the pools in weight order and says, for each, why it
// gave the pod no NodeClaim: first the static steps lint checks too
// (Linter's walk), then what the run's state adds: the pool's limits as
// the solve left them, and the unavailable-offerings cache.
func (pr *provisioner) whyNoNode(s *scheduling.Solver, spec *cluster.PodSpec) (class, message string) {
	l := &Linter{k: &Karpenter{env: pr.env, parts: pr.parts}, cl: pr.cl}
	var classes, texts []string
	for i, p := range s.Pools {
		c, t := pr.poolWhy(l, s, i, p, spec)
		classes = append(classes, c+"/"+p.Spec.Name)
		texts = append(texts, t)
	}
	// Static pools take no part in the solve (KC NewScheduler leaves them
	// out): name those whose nodes the pod could use, so a pod waiting on
	// a full static pool is not told there is no NodePool.
	for _, p := range pr.pools.All {
		if p.Spec.Static && l.compatible(p, spec) {
			classes = append(classes, "static/"+p.Spec.Name)
			text := fmt.Sprintf("nodepool %q is static (spec.replicas %d): Karpenter launches nothing from it for pods", p.Spec.Name, p.Spec.Replicas)
			if !pr.settings.StaticCapacity {
				text += ", and with the StaticCapacity feature gate off it keeps no nodes"
			}
			texts = append(texts, text)
		}
	}
	if len(classes) == 0 {
		return "no-pool", "could not schedule pod: no NodePool"
	}
	return strings.Join(classes, "+"), "could not schedule pod, " + strings.Join(texts, "; ")
}

// compatible: some capacity type of p passes every static step of lint's
// walk for the pod (FailOther: the walk finds nothing against it).
func (l *Linter) compatible(p *scheduling.Pool, spec *cluster.PodSpec) bool {
	for _, ct := range []int{scheduling.SpotIndex, scheduling.OnDemandIndex} {
		if l.k.offerings.OfferingMask(p.Requirements)&l.k.offerings.CapacityTypeBits(ct) != 0 &&
			l.why(p, spec, scheduling.CapacityTypeOf(ct)).Fail == FailOther {
			return true
		}
	}
	return false
}

func (pr *provisioner) poolWhy(l *Linter, s *scheduling.Solver, i int, p *scheduling.Pool, spec *cluster.PodSpec) (class, text string) {
	name := p.Spec.Name
	var static *LaunchCheck
	ok := false
	for _, ct := range []int{scheduling.SpotIndex, scheduling.OnDemandIndex} {
		if pr.offerings.OfferingMask(p.Requirements)&pr.offerings.CapacityTypeBits(ct) == 0 {
			continue
		}
		chk := l.why(p, spec, scheduling.CapacityTypeOf(ct))
		if chk.Fail == FailOther {
			ok = true
			break
		}
		if static == nil {
			static = &chk
		}
	}
	if !ok {
		if static == nil {
			return "incompatible", fmt.Sprintf("incompatible with nodepool %q, no offering in the scenario's zones", name)
		}
		return staticWords(pr.cl.Syms, name, static)
	}
	if s.NodesLeft[i] == 0 {
		return "limit", fmt.Sprintf("all available instance types exceed limits for nodepool: %q (spec.limits.nodes reached)", name)
	}
	// The instance types that take the pod alone, within what the solve
	// left of the limits, with an available offering.
	syms := pr.cl.Syms
	sel := pr.solvers.SelectorRequirements(spec)
	terms := [][]scheduling.Requirement{nil}
	if spec.Affinity != nil && len(spec.Affinity.Terms) > 0 {
		terms = terms[:0]
		for t := range spec.Affinity.Terms {
			terms = append(terms, pr.solvers.TermRequirements(&spec.Affinity.Terms[t]))
		}
	}
	now := pr.eng.Now()
	fit, within, avail := 0, 0, 0
	var until engine.Time
	var cached []string
	for _, term := range terms {
		podReqs := scheduling.SortRequirements(syms, append(append([]scheduling.Requirement(nil), sel...), term...))
		if !scheduling.RequirementsCompatible(syms, p.Requirements, podReqs, pr.wellKnownIn(p)) {
			continue
		}
		reqs := scheduling.MergeRequirements(syms, p.Requirements, podReqs)
		mask := pr.offerings.OfferingMask(reqs)
		for pos := range p.Types {
			pt := &p.Types[pos]
			if !pr.offerings.TypeCompatible(pt.Type, reqs) || !spec.Requests.Add(pt.DaemonOverhead).Fits(pt.Allocatable) {
				continue
			}
			fit++
			if !s.WithinLimits(i, pt) {
				continue
			}
			within++
			if s.Available[pt.Type.Index]&mask != 0 {
				avail++
				continue
			}
			base := pr.offerings.Offers.Index(pt.Type.Index, 0, 0)
			for b := 0; b < pr.offerings.Offers.NumZones*scheduling.NumCapacityTypes; b++ {
				if mask&(1<<uint(b)) == 0 || pr.offerings.Offers.Price[base+b] < 0 {
					continue
				}
				if u := pr.offerings.Offers.UnavailableUntil[base+b]; u > now && (until == 0 || u < until) {
					until = u
				}
				cached = append(cached, fmt.Sprintf("%s/%s/%s", pt.Type.Name, pr.offerings.Zones[b/scheduling.NumCapacityTypes], scheduling.CapacityTypeOf(b%scheduling.NumCapacityTypes)))
			}
		}
	}
	switch {
	case fit == 0:
		return "incompatible", fmt.Sprintf("incompatible with nodepool %q, no instance type satisfied resources %s and requirements", name, pr.cl.Resources.Format(spec.Requests))
	case within == 0:
		return "limit", fmt.Sprintf("all available instance types exceed limits for nodepool: %q (%s)", name, pr.limitsLeft(s, i, p))
	case avail == 0:
		sort.Strings(cached)
		text := fmt.Sprintf("nodepool %q: every offering of the %d instance types that fit is in the unavailable-offerings cache (insufficient capacity", name, within)
		if until > 0 {
			text += fmt.Sprintf("; the first expires at %s", fmtSecs(until))
		}
		return "unavailable-offerings", text + "): " + summarizeList(cached, 6)
	}
	return "no-fit", fmt.Sprintf("nodepool %q has room for it alone, but no NodeClaim of the batch took it (topology spread or pod affinity with the batch's other pods)", name)
}

// limitsLeft renders what the solve left of the pool's resource limits:
// "cpu 0 of 4000m left".
func (pr *provisioner) limitsLeft(s *scheduling.Solver, i int, p *scheduling.Pool) string {
	var parts []string
	for r, has := range p.Spec.Limits.Has {
		if !has {
			continue
		}
		one := func(v int64) string {
			if v <= 0 {
				return "0"
			}
			var x cluster.Resources
			x[r] = v
			_, val, _ := strings.Cut(pr.cl.Resources.Format(x), "=")
			return val
		}
		parts = append(parts, fmt.Sprintf("%s %s of %s left", pr.cl.Resources.Name(r), one(s.Remaining[i][r]), one(p.Spec.Limits.Max[r])))
	}
	return "spec.limits: " + strings.Join(parts, ", ")
}

// staticWords words a static step's failure as Karpenter's scheduler
// errors do.
func staticWords(syms *cluster.Symbols, pool string, chk *LaunchCheck) (class, text string) {
	in := fmt.Sprintf("incompatible with nodepool %q, ", pool)
	req := func() string {
		if chk.PoolSide == "" {
			return fmt.Sprintf("label %q does not have known values (the pod needs %s %s)", chk.Key, chk.Key, chk.PodSide)
		}
		return fmt.Sprintf("incompatible requirements, key %s, %s %s not in %s %s", chk.Key, chk.Key, chk.PodSide, chk.Key, chk.PoolSide)
	}
	switch chk.Fail {
	case FailTaint:
		return "incompatible", in + "did not tolerate taint " + fmtTaint(syms, chk.Taint)
	case FailCapacityType, FailLabel, FailRequirement, FailZone:
		if chk.Key == "" {
			return "incompatible", in + "no zone in common"
		}
		return "incompatible", in + req()
	case FailInstanceType:
		if chk.Key != "" {
			return "incompatible", in + req()
		}
		return "incompatible", in + "no instance type satisfied the requirements"
	case FailTooBig:
		return "incompatible", fmt.Sprintf("%sno instance type satisfied resources (the largest, %s, has room for %s)", in, chk.Largest,
			fmtRoom(chk.LargestAllocatable))
	case FailLimit:
		return "limit", fmt.Sprintf("all available instance types exceed limits for nodepool: %q", pool)
	case FailMinValues:
		return "incompatible", in + fmt.Sprintf("minValues requirement is not met for label %s", chk.Key)
	}
	return "incompatible", in + "no NodeClaim could take it"
}

// explainLimit: a NodeClaim of the batch was not created because its
// pool's usage exceeds a limit (KC Provisioner.Create).
func (pr *provisioner) explainLimit(c *scheduling.Claim) {
	pr.noLaunch(realPods(c.Pods), "limit/"+c.Pool.Spec.Name,
		fmt.Sprintf("all available instance types exceed limits for nodepool: %q (its nodes' usage exceeds spec.limits)", c.Pool.Spec.Name))
}

// explainLaunch: a NodeClaim's launch failed (KA's "failed launching
// nodeclaim" with the fleet's errors), or nothing was left to launch.
func (pr *provisioner) explainLaunch(c *scheduling.Claim, res cloud.LaunchResult, err error) {
	name := c.Pool.Spec.Name
	if err == nil && len(res.Errors) == 0 {
		pr.noLaunch(realPods(c.Pods), "unavailable-offerings/"+name,
			fmt.Sprintf("nodepool %q: every offering of the NodeClaim's instance types is in the unavailable-offerings cache (insufficient capacity)", name))
		return
	}
	byCode := map[string][]string{}
	var codes []string
	for _, e := range res.Errors {
		if byCode[e.Code] == nil {
			codes = append(codes, e.Code)
		}
		byCode[e.Code] = append(byCode[e.Code], e.Offering.InstanceType+"/"+e.Offering.Zone+"/"+e.Offering.CapacityType.String())
	}
	sort.Strings(codes)
	var parts []string
	for _, code := range codes {
		offs := byCode[code]
		sort.Strings(offs)
		parts = append(parts, code+" for "+summarizeList(offs, 6))
	}
	msg := fmt.Sprintf("failed launching nodeclaim of nodepool %q: creating instance, with fleet error(s): %s", name, strings.Join(parts, "; "))
	if len(parts) == 0 && err != nil {
		msg = fmt.Sprintf("failed launching nodeclaim of nodepool %q: %v", name, err)
	}
	pr.noLaunch(realPods(c.Pods), "launch-failed/"+name+"/"+strings.Join(codes, ","), msg)
}

// summarizeList joins at most n items and says how many more.
func summarizeList(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(items[:n], ", "), len(items)-n)
}

func fmtTaint(syms *cluster.Symbols, t cluster.Taint) string {
	if t.Value == cluster.NoSym {
		return syms.Name(t.Key) + ":" + t.Effect.String()
	}
	return syms.Name(t.Key) + "=" + syms.Name(t.Value) + ":" + t.Effect.String()
}

func fmtRoom(r cluster.Resources) string {
	return fmt.Sprintf("cpu %dm, memory %s", r[cluster.CPU], cluster.FormatBytes(r[cluster.Memory]))
}

// fmtSecs renders a virtual time as the timeline does: 1h02m03s.
func fmtSecs(t engine.Time) string {
	s := int64(t) / 1e9
	if s < 3600 {
		return fmt.Sprintf("%dm%02ds", s/60, s%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", s/3600, (s%3600)/60, s%60)
}

// explainNotReady tells the pending pods a solve placed on a node that
// registered and never became Ready why nothing is launched for them:
// the NodeClaim counts as in-flight capacity (KC's nomination event,
// "Pod should schedule on: nodeclaim/...").
func (pr *provisioner) explainNotReady(ex *scheduling.ExistingNode) {
	var pods []cluster.PodID
	for _, p := range realPods(ex.Placed) {
		if pr.cl.Pods[p].Phase == cluster.Pending {
			pods = append(pods, p)
		}
	}
	if len(pods) == 0 {
		return
	}
	name := pr.cl.Nodes[ex.ID].Name
	pr.noLaunch(pods, "not-ready/"+name, fmt.Sprintf("Pod should schedule on: nodeclaim/%s, which registered but is not Ready (never Initialized): Karpenter counts it as capacity on its way and launches nothing else for the pod", name))
}
