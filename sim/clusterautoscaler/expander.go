package clusterautoscaler

import (
	"math"

	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/engine"
)

// Reference prices of the price expander's pod price: upstream's pricing
// model (GCE's, cloudprovider/gce/gce_price_model.go) prices a pod at its
// requests, USD per core-hour and per GiB-hour; the AWS provider has none.
const (
	podPriceCPUPerHour = 0.033174
	podPriceMemPerHour = 0.004446
	// priceStabilizationCPU and priceStabilizationMem are upstream's
	// stabilization pod (0.5 cpu, 500 MiB) added to both sides of the
	// price ratio.
	priceStabilizationCPU = 500
	priceStabilizationMem = 500 << 20
	// gpuUnfitness makes GPU groups unattractive to the price expander.
	gpuUnfitness = 1000.0
)

// expander is the --expander chain (cluster-autoscaler/expander): the
// strategies random, most-pods, least-nodes, least-waste, price and
// priority, chained, then a random pick among the options left.
type expander struct {
	env
}

// expand runs the --expander chain (expander/factory/chain.go): each
// expander keeps its best options; one left wins; after the chain, a
// random pick among the rest.
func (x *expander) expand(opts []*option) *option {
	opts = x.bestOptions(opts)
	switch len(opts) {
	case 0:
		return nil
	case 1:
		return opts[0]
	}
	return opts[x.rng.IntN(len(opts))]
}

// bestOptions runs the expanders of the chain until one option (or none)
// is left, and returns what is left: the tied best options the chain's
// random fallback picks from.
func (x *expander) bestOptions(opts []*option) []*option {
	for _, name := range x.s.Expanders {
		if opts = x.filterOptions(name, opts); len(opts) <= 1 {
			return opts
		}
	}
	return opts
}

// filterOptions applies one expander. opts is never empty.
func (x *expander) filterOptions(name string, opts []*option) []*option {
	switch name {
	case config.ExpanderRandom:
		return []*option{opts[x.rng.IntN(len(opts))]}
	case config.ExpanderMostPods:
		return best(opts, func(o *option) float64 { return -float64(len(o.est.pods)) })
	case config.ExpanderLeastNodes:
		return best(opts, func(o *option) float64 { return float64(o.est.nodes) })
	case config.ExpanderLeastWaste:
		return best(opts, wasteScore)
	case config.ExpanderPrice:
		return best(opts, x.priceScore)
	case config.ExpanderPriority:
		return x.byPriority(opts)
	}
	return opts
}

// best keeps the options with the lowest score (exact ties kept).
func best(opts []*option, score func(*option) float64) []*option {
	var out []*option
	bestScore := math.Inf(1)
	for _, o := range opts {
		s := score(o)
		switch {
		case s < bestScore:
			bestScore = s
			out = append(out[:0], o)
		case s == bestScore:
			out = append(out, o)
		}
	}
	return out
}

// wasteScore is least-waste's score (expander/waste/waste.go): the
// fraction of the new nodes' cpu capacity the pods leave unused plus the
// same for memory.
func wasteScore(o *option) float64 {
	n := float64(o.est.nodes)
	availCPU := float64(o.tpl.capCPU) * n
	availMem := float64(o.tpl.capMem) * n
	var s float64
	if availCPU > 0 {
		s += (availCPU - float64(o.est.cpu)) / availCPU
	}
	if availMem > 0 {
		s += (availMem - float64(o.est.mem)) / availMem
	}
	return s
}

// priceScore is the price expander's score (expander/price/price.go):
// (nodes' price + stabilization) / (pods' price + stabilization), times
// how far the node's size is from the preferred size for the cluster's
// node count, that penalty fading with more nodes.
func (x *expander) priceScore(o *option) float64 {
	nodePrice := x.templatePrice(o.g, o.tpl)
	stab := podPrice(priceStabilizationCPU, priceStabilizationMem)
	sub := (nodePrice*float64(o.est.nodes) + stab) / (podPrice(o.est.cpu, o.est.mem) + stab)
	pref := preferredCPU(x.cl.LiveNodes())
	unfit := 1.0
	if o.tpl.capCPU > 0 {
		unfit = math.Max(pref/float64(o.tpl.capCPU), float64(o.tpl.capCPU)/pref)
	}
	suppressed := (unfit-1)*(1-math.Tanh(float64(o.est.nodes-1)/15)) + 1
	if o.tpl.gpu {
		suppressed = gpuUnfitness
	}
	return suppressed * sub
}

func podPrice(cpuMilli, memBytes int64) float64 {
	return float64(cpuMilli)/1000*podPriceCPUPerHour + float64(memBytes)/(1<<30)*podPriceMemPerHour
}

// preferredCPU is SimplePreferredNodeProvider's node size in millicores:
// doubling every time the cluster triples.
func preferredCPU(nodes int) float64 {
	switch {
	case nodes <= 2:
		return 1000
	case nodes <= 6:
		return 2000
	case nodes <= 20:
		return 4000
	case nodes <= 60:
		return 8000
	case nodes <= 200:
		return 16000
	}
	return 32000
}

// templatePrice is the hourly price of a group's next node: the market's
// price of its template's type and zone, else the catalogue's.
func (x *expander) templatePrice(g *group, tpl *template) float64 {
	ct := cluster.OnDemand
	if g.cfg.Spot() {
		ct = cluster.Spot
	}
	zone := x.cl.Syms.Name(tpl.node.Zone)
	if p, ok := x.cloud.Price(cloud.Offering{InstanceType: tpl.node.InstanceType, Zone: zone, CapacityType: ct}); ok {
		return p
	}
	if ct == cluster.Spot {
		if p, ok := x.cat.SpotPriceEstimate(x.region, tpl.node.InstanceType); ok {
			return p
		}
	}
	p, _, _ := x.cat.OnDemandPrice(x.region, tpl.node.InstanceType)
	return p
}

// byPriority keeps the options of the highest priority whose regexes match
// their ASG names; options no regex matches are dropped, unless none
// matches at all (expander/priority/priority.go).
func (x *expander) byPriority(opts []*option) []*option {
	var out []*option
	bestPrio := math.MinInt
	for _, o := range opts {
		p, ok := x.s.Priorities.Of(o.g.cfg.ASGName)
		if !ok {
			continue
		}
		switch {
		case p > bestPrio:
			bestPrio = p
			out = append(out[:0], o)
		case p == bestPrio:
			out = append(out, o)
		}
	}
	if len(out) == 0 {
		return opts
	}
	return out
}

// share is part of a balanced scale-up.
type share struct {
	g *group
	n int
}

// balance spreads n nodes over the chosen group and the groups similar to
// it that can take the same pods, filling the smallest first
// (--balance-similar-node-groups; processors/nodegroupset).
func (o *orchestrator) balance(best *option, groups []*podGroup, n int, now engine.Time) []share {
	shares := []share{{g: best.g}}
	for _, g := range o.groups {
		if g == best.g || !g.sel.Autoscaled || o.backedOff(g, now) || g.target >= g.sel.Max || g.tpl == nil || !o.groupHealthy(g, now) {
			continue
		}
		if !o.similar(best.tpl, g.tpl) || !o.takesPods(g.tpl, best, groups) {
			continue
		}
		shares = append(shares, share{g: g})
	}
	for ; n > 0; n-- {
		pick := -1
		for i := range shares {
			s := &shares[i]
			if s.g.target+s.n >= s.g.sel.Max {
				continue
			}
			if pick < 0 || s.g.target+s.n < shares[pick].g.target+shares[pick].n {
				pick = i
			}
		}
		if pick < 0 {
			break
		}
		shares[pick].n++
	}
	return shares
}

// takesPods reports whether every pod of the option passes the predicate
// check on a node of tpl (templateTakes; groups are the loop's pod
// groups, for their domain spreads).
func (o *orchestrator) takesPods(tpl *template, opt *option, groups []*podGroup) bool {
	seen := map[*cluster.PodSpec]bool{}
	for _, p := range opt.est.pods {
		spec, ns := o.podOf(p)
		if seen[spec] {
			continue
		}
		seen[spec] = true
		var pg *podGroup
		for _, g := range groups {
			if g.spec == spec && g.ns == ns {
				pg = g
				break
			}
		}
		if !o.templateTakes(spec, pg, tpl) {
			return false
		}
	}
	return true
}

// Labels the node group comparator ignores on AWS
// (processors/nodegroupset: BasicIgnoredLabels and the AWS comparator's).
var ignoredBalancingLabels = []string{
	"kubernetes.io/hostname", "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone",
	"topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region", "beta.kubernetes.io/fluentd-ds-ready",
	"kops.k8s.io/instancegroup", "alpha.eksctl.io/instance-id", "alpha.eksctl.io/nodegroup-name",
	"eks.amazonaws.com/nodegroup", "k8s.amazonaws.com/eniConfig", "lifecycle", "topology.ebs.csi.aws.com/zone",
}

// similar compares two templates as the AWS node info comparator does:
// the same cpu capacity, memory capacity within --memory-difference-ratio
// (1.5%), allocatable within --max-allocatable-difference-ratio (5%), and the same labels but for the ignored ones (or only the
// --balancing-label ones).
func (o *orchestrator) similar(x, y *template) bool {
	if x.capCPU != y.capCPU || !within(x.capMem, y.capMem, o.s.MemoryDifferenceRatio) {
		return false
	}
	for i := range x.node.Allocatable {
		if !within(x.node.Allocatable[i], y.node.Allocatable[i], o.s.MaxAllocatableDifferenceRatio) {
			return false
		}
	}
	lx, ly := x.node.Labels.Map(o.cl.Syms), y.node.Labels.Map(o.cl.Syms)
	if len(o.s.BalancingLabels) > 0 {
		for _, k := range o.s.BalancingLabels {
			if lx[k] != ly[k] {
				return false
			}
		}
		return true
	}
	for _, k := range append(append([]string(nil), ignoredBalancingLabels...), o.s.BalancingIgnoreLabels...) {
		delete(lx, k)
		delete(ly, k)
	}
	if len(lx) != len(ly) {
		return false
	}
	for k, v := range lx {
		if w, ok := ly[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func within(x, y int64, ratio float64) bool {
	if x == y {
		return true
	}
	hi := math.Max(float64(x), float64(y))
	return math.Abs(float64(x-y)) <= ratio*hi
}
