// Package scengen generates whole scenarios from a seed, for the
// end-to-end properties (sim/internal/props): a few start nodes that
// Karpenter's NodePools or an eksctl node group adopt (or static ones),
// Deployments, StatefulSets, Jobs, DaemonSets and bare Pods already
// running on them, PodDisruptionBudgets, do-not-disrupt pods, and a spot
// market off, stochastic or scripted with interruptions. Each case is
// small (a handful of nodes, minutes of simulated time) so that a run
// takes milliseconds.
//
// A share of the cases is written as the kubectl exports of that
// cluster (kubectl get nodes,pods,deployments,... -o yaml; the NodePools,
// EC2NodeClass and optionally NodeClaims; the eksctl ClusterConfig; the
// Cluster Autoscaler's Deployment) and goes through sim import
// (sim/importer) as users do, then gets the settings an export cannot
// carry (market, seed, Karpenter's settings, Job run times) written into
// its Scenario document, as a user edits it. The other cases are written
// as scenarios directly, with the same objects and spec.workloads[].startOn.
//
// The same seed gives the same case, byte for byte.
package scengen

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
)

// Case is one generated scenario.
type Case struct {
	Seed uint64
	// Imported: the scenario is sim import's output for Exports (edited).
	Imported bool
	// Exports are the kubectl exports the import read, by file name.
	Exports map[string][]byte
	// Scenario is the scenario to run (YAML, one file, nothing included).
	Scenario []byte
	// Notices are the import's notices, one line each.
	Notices []string
	// Features name what the case holds (for coverage counts): e.g.
	// "karpenter", "pool:WhenEmpty", "pdb", "do-not-disrupt", "market:scripted".
	Features []string
}

// importedAt is the generated clusters' export time.
var importedAt = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// region and zones of every case.
const region = "us-east-1"

var allZones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// Instance types of the start nodes: amd64, in the categories the
// NodePools allow (c, m, r; generation > 4).
var nodeTypes = []string{"m5.large", "m5.xlarge", "c5.large", "c5.xlarge", "r5.large", "m6i.large"}

// plan is a case before it is written: the cluster and what runs on it.
type plan struct {
	r        *rand.Rand
	cat      *catalog.Catalog
	seed     uint64
	zones    []string
	duration time.Duration
	pools    []*pool
	group    *group
	nodes    []*node
	works    []*work
	pdbs     []*pdb
	// market is spec.market; karpenter spec.karpenter; caArgs the Cluster
	// Autoscaler's flags.
	market    map[string]any
	karpenter map[string]any
	caArgs    []string
	// imported: written as exports; nodeClaims: with Karpenter's
	// NodeClaims; caDeployment: the CA's flags in its Deployment.
	imported, nodeClaims, caDeployment bool
	features                           []string
}

// pool is a Karpenter NodePool.
type pool struct {
	name                             string
	policy, after                    string // consolidationPolicy, consolidateAfter
	budgets                          []map[string]any
	capacity                         []string // capacity types allowed
	tgp, expireAfter                 string   // "" for none / the default
	expiresSoon                      bool     // its nodes are near expireAfter
	nodeAge                          time.Duration
	requireCategory, requireGenAbove bool
}

// group is an eksctl node group the Cluster Autoscaler scales.
type group struct {
	name          string
	managed, spot bool
	instanceType  string
	min, max      int
}

// node is a start node.
type node struct {
	name, typ, zone, capacity string
	pool                      *pool  // adopted by this NodePool, or
	group                     *group // this node group, or neither (static)
	age                       time.Duration
	cpu, mem                  int64 // free millicores and MiB
}

// work is a workload and where its pods run at the start.
type work struct {
	kind     string // Deployment, StatefulSet, Job, DaemonSet, Pod
	ns, name string
	// replicas (a Job: its parallelism); completions for a Job, of which
	// succeeded are done.
	replicas, completions, succeeded int
	cpu, mem                         int64 // requests: millicores, MiB
	grace                            int64 // terminationGracePeriodSeconds (0: the default, 30)
	doNotDisrupt, orderedReady       bool
	runtime                          map[string]any // a Job's
	// startOn: per pod, its node ("" pending); terminating: nodes of
	// pods terminating at the start (Deployments).
	startOn     []string
	terminating []string
}

func (w *work) ref() string { return w.kind + "/" + w.ns + "/" + w.name }

// pdb is a PodDisruptionBudget on one workload.
type pdb struct {
	ns, name, app            string
	minAvailable, maxUnavail any // int or "NN%"; one is set
}

// Generate makes the case of a seed. cat is the catalogue the nodes are
// sized from (catalog.Default()).
func Generate(seed uint64, cat *catalog.Catalog) (*Case, error) {
	p := &plan{r: rand.New(rand.NewPCG(seed, 0x5ce9e9)), cat: cat, seed: seed}
	p.cluster()
	p.workloads()
	p.budgets()
	p.spot()
	c := &Case{Seed: seed, Imported: p.imported}
	var err error
	if p.imported {
		c.Exports = p.exports()
		c.Scenario, c.Notices, err = p.importExports(c.Exports)
	} else {
		c.Scenario, err = p.scenario()
	}
	if err != nil {
		return nil, fmt.Errorf("seed %d: %w", seed, err)
	}
	slices.Sort(p.features)
	c.Features = slices.Compact(p.features)
	return c, nil
}

func (p *plan) feature(f string) { p.features = append(p.features, f) }

// pick is one of the values, uniformly.
func pick[T any](r *rand.Rand, vs ...T) T { return vs[r.IntN(len(vs))] }

// chance is true with probability q.
func (p *plan) chance(q float64) bool { return p.r.Float64() < q }

// cluster draws the zones, the run's length, the autoscalers and the
// start nodes.
func (p *plan) cluster() {
	p.imported = p.chance(0.5)
	if p.imported {
		p.feature("imported")
		p.nodeClaims = p.chance(0.5)
		p.caDeployment = p.chance(0.5)
	}
	p.duration = pick(p.r, 5*time.Minute, 8*time.Minute, 10*time.Minute, 15*time.Minute)
	karpenter := p.chance(0.85)
	ca := p.chance(0.35) || !karpenter && p.chance(0.7)
	// eksctl wants two zones at least.
	p.zones = allZones[:1+p.r.IntN(len(allZones))]
	if ca && len(p.zones) < 2 {
		p.zones = allZones[:2]
	}
	if karpenter {
		p.feature("karpenter")
		for i := range 1 + p.r.IntN(2) {
			p.pools = append(p.pools, p.newPool(fmt.Sprintf("pool-%d", i)))
		}
		p.karpenter = map[string]any{"interruptionQueue": p.chance(0.5)}
		if p.karpenter["interruptionQueue"] == true {
			p.feature("interruptionQueue")
		}
	}
	if ca {
		p.feature("cluster-autoscaler")
		p.group = p.newGroup()
		p.caArgs = []string{
			"--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/demo",
			"--scale-down-unneeded-time=" + pick(p.r, "30s", "1m", "2m"),
			"--scale-down-delay-after-add=" + pick(p.r, "0s", "1m"),
			"--scale-down-utilization-threshold=" + pick(p.r, "0.5", "0.8"),
			"--max-graceful-termination-sec=" + pick(p.r, "30", "600"),
		}
	}
	for i := range 1 + p.r.IntN(5) {
		p.nodes = append(p.nodes, p.newNode(i))
	}
}

func (p *plan) newPool(name string) *pool {
	pl := &pool{name: name,
		policy:          pick(p.r, "WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"),
		after:           pick(p.r, "0s", "30s", "1m", "3m", "Never"),
		capacity:        pick(p.r, []string{"on-demand"}, []string{"spot"}, []string{"spot", "on-demand"}),
		requireCategory: true, requireGenAbove: true,
		nodeAge: time.Duration(1+p.r.IntN(500)) * time.Hour,
	}
	p.feature("pool:" + pl.policy)
	if pl.after == "Never" {
		p.feature("consolidateAfter:Never")
	}
	switch p.r.IntN(4) {
	case 0:
		pl.budgets = []map[string]any{{"nodes": pick(p.r, "0", "1", "50%")}}
		p.feature("budgets")
	case 1:
		pl.budgets = []map[string]any{{"nodes": "0", "reasons": []string{pick(p.r, "Underutilized", "Empty", "Drifted")}}, {"nodes": "1"}}
		p.feature("budgets")
	}
	if p.chance(0.4) {
		pl.tgp = pick(p.r, "1m", "3m", "5m")
		p.feature("terminationGracePeriod")
	}
	if p.chance(0.2) {
		// Its nodes expire during the run.
		pl.expireAfter, pl.expiresSoon = "24h", true
		p.feature("expireAfter")
	}
	return pl
}

func (p *plan) newGroup() *group {
	g := &group{name: "ng-1", managed: p.chance(0.7), instanceType: pick(p.r, "m5.large", "m5.xlarge"),
		min: p.r.IntN(2), max: 3 + p.r.IntN(3)}
	g.spot = g.managed && p.chance(0.4)
	if g.spot {
		p.feature("nodegroup:spot")
	}
	if !g.managed {
		p.feature("nodegroup:self-managed")
	}
	return g
}

func (p *plan) newNode(i int) *node {
	n := &node{name: fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i, 10+p.r.IntN(200)), zone: pick(p.r, p.zones...)}
	var owners []string
	if len(p.pools) > 0 {
		owners = append(owners, "pool", "pool")
	}
	if p.group != nil {
		owners = append(owners, "group")
	}
	if len(owners) == 0 || p.chance(0.15) {
		owners = []string{"static"}
	}
	switch pick(p.r, owners...) {
	case "pool":
		n.pool = pick(p.r, p.pools...)
		n.typ = pick(p.r, nodeTypes...)
		if p.chance(0.1) {
			// Outside the NodePool's requirements (category t,
			// generation 3): drifted.
			n.typ = "t3.large"
			p.feature("drifted-node")
		}
		n.capacity = pick(p.r, n.pool.capacity...)
		n.age = n.pool.nodeAge
		if n.pool.expiresSoon {
			// Within the run or just past its end.
			n.age = 24*time.Hour - time.Duration(p.r.Int64N(int64(p.duration)))
		}
		p.feature("adopted:karpenter")
	case "group":
		n.group = p.group
		n.typ = p.group.instanceType
		n.capacity = "on-demand"
		if p.group.spot {
			n.capacity = "spot"
		}
		n.age = time.Duration(1+p.r.IntN(100)) * time.Hour
		p.feature("adopted:nodegroup")
	default:
		n.typ = pick(p.r, nodeTypes...)
		n.capacity = "on-demand"
		n.age = 100 * time.Hour
		p.feature("static-node")
	}
	if n.capacity == "spot" {
		p.feature("spot-node")
	}
	it, ok := p.cat.Lookup(n.typ)
	if !ok {
		panic("scengen: instance type " + n.typ + " is not in the catalogue")
	}
	a := it.Allocatable(catalog.KubeletOptions{})
	n.cpu, n.mem = a.CPUMilli, a.MemoryBytes/catalog.MiB
	return n
}

// workloads draws the workloads and places their start pods on the
// nodes where they fit.
func (p *plan) workloads() {
	if p.chance(0.4) {
		ds := &work{kind: "DaemonSet", ns: "kube-system", name: "node-agent", cpu: 50, mem: 64}
		p.works = append(p.works, ds)
		for _, n := range p.nodes {
			n.cpu -= ds.cpu
			n.mem -= ds.mem
		}
		p.feature("daemonset")
	}
	for i := range 1 + p.r.IntN(3) {
		w := p.newWork("Deployment", fmt.Sprintf("web-%d", i))
		w.replicas = 1 + p.r.IntN(5)
		p.place(w, w.replicas)
		if p.chance(0.15) && len(w.startOn) > 0 {
			w.terminating = []string{pick(p.r, w.startOn...)}
			if w.terminating[0] == "" {
				w.terminating = nil
			} else {
				p.feature("startTerminating")
			}
		}
	}
	if p.chance(0.4) {
		w := p.newWork("StatefulSet", "db")
		w.replicas = 1 + p.r.IntN(3)
		w.orderedReady = p.chance(0.5)
		p.place(w, w.replicas)
		p.feature("statefulset")
	}
	if p.chance(0.4) {
		w := p.newWork("Job", "batch")
		w.replicas = 1 + p.r.IntN(3)
		w.completions = w.replicas + p.r.IntN(3)
		if p.imported && p.chance(0.5) {
			w.succeeded = p.r.IntN(w.completions - w.replicas + 1)
		}
		w.runtime = map[string]any{"fixed": pick(p.r, "1m", "3m", "6m")}
		if p.chance(0.3) {
			w.runtime = map[string]any{"uniform": map[string]any{"min": "30s", "max": "5m"}}
		}
		p.place(w, min(w.replicas, w.completions-w.succeeded))
		p.feature("job")
	}
	if p.chance(0.3) {
		w := p.newWork("Pod", "debug")
		w.replicas = 1
		p.place(w, 1)
		if w.startOn[0] == "" {
			w.startOn[0] = p.nodes[0].name // not fitting: it waits there
		}
		p.feature("bare-pod")
	}
}

func (p *plan) newWork(kind, name string) *work {
	w := &work{kind: kind, ns: pick(p.r, "default", "shop"), name: name,
		cpu: pick[int64](p.r, 100, 250, 500, 1000), mem: pick[int64](p.r, 128, 256, 512, 1024)}
	if kind != "Job" && p.chance(0.2) {
		w.doNotDisrupt = true
		p.feature("do-not-disrupt")
	}
	if p.chance(0.2) {
		w.grace = pick[int64](p.r, 5, 120)
	}
	p.works = append(p.works, w)
	return w
}

// place puts up to n of w's pods on nodes with room (most of the time;
// the rest start pending).
func (p *plan) place(w *work, n int) {
	for range n {
		on := ""
		if p.chance(0.85) {
			var fit []*node
			for _, nd := range p.nodes {
				if nd.cpu >= w.cpu && nd.mem >= w.mem {
					fit = append(fit, nd)
				}
			}
			if len(fit) > 0 {
				nd := pick(p.r, fit...)
				nd.cpu -= w.cpu
				nd.mem -= w.mem
				on = nd.name
				p.feature("startOn")
			}
		}
		w.startOn = append(w.startOn, on)
	}
}

// budgets puts PodDisruptionBudgets on some Deployments and
// StatefulSets.
func (p *plan) budgets() {
	for _, w := range p.works {
		if (w.kind != "Deployment" && w.kind != "StatefulSet") || !p.chance(0.4) {
			continue
		}
		b := &pdb{ns: w.ns, name: w.name, app: w.name}
		switch p.r.IntN(4) {
		case 0:
			b.minAvailable = max(w.replicas-1, 1)
		case 1:
			b.minAvailable = pick(p.r, "50%", "100%")
		case 2:
			b.maxUnavail = pick(p.r, 0, 1)
		default:
			b.maxUnavail = "34%"
		}
		p.pdbs = append(p.pdbs, b)
		p.feature("pdb")
	}
}

// spot draws the market: off, stochastic (with a high hazard, so that
// reclaims happen within minutes) or off with a scripted interruption.
func (p *plan) spot() {
	switch p.r.IntN(3) {
	case 0:
		p.market = map[string]any{"model": "off"}
		p.feature("market:off")
	case 1:
		p.market = map[string]any{"hazardMultiplier": pick(p.r, 1, 50, 200)}
		p.feature("market:stochastic")
	default:
		at := time.Duration(1+p.r.IntN(int(p.duration/time.Minute)-2)) * time.Minute
		ev := map[string]any{"at": at.String(), "pools": map[string]any{"capacityType": "spot", "zones": []string{pick(p.r, p.zones...)}},
			"reclaim": pick(p.r, 0.5, 1.0)}
		if p.chance(0.5) {
			ev["state"], ev["for"] = "exhausted", "3m"
		}
		if p.chance(0.3) {
			ev["rebalance"] = 0.5
		}
		p.market = map[string]any{"model": "off", "events": []any{ev}}
		p.feature("market:scripted")
	}
}
