package fidelity

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/karpenter/scheduling"
	"github.com/clustersim/clustersim/sim/manifest"
)

// nodeClassYAML is the EC2NodeClass every pool refers to: defaults only.
const nodeClassYAML = `apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec:
  amiSelectorTerms: [{alias: al2023@latest}]
  role: KarpenterNodeRole
  subnetSelectorTerms: [{tags: {karpenter.sh/discovery: fidelity}}]
  securityGroupSelectorTerms: [{tags: {karpenter.sh/discovery: fidelity}}]
`

// priceCloud is the cloud of our side: it prices the case's offerings and
// sells nothing else. A launch (the first round of a two-round case)
// always gets the cheapest offering asked for (the first among equals);
// its node is never Ready (the engine is not run).
type priceCloud struct {
	price        map[cloud.Offering]float64
	launched     int32
	reservations []cloud.Reservation
}

func (p *priceCloud) Launch(req cloud.LaunchRequest) (cloud.LaunchResult, error) {
	best := -1
	for i, o := range req.Offerings {
		if o.Reservation != "" {
			// A reservation: free (the market's reserved pool).
			p.price[o] = 0
		}
		if v, ok := p.price[o]; ok && (best < 0 || v < p.price[req.Offerings[best]]) {
			best = i
		}
	}
	if best < 0 {
		return cloud.LaunchResult{}, fmt.Errorf("fidelity: no offering asked for is sold")
	}
	p.launched++
	o := req.Offerings[best]
	return cloud.LaunchResult{Instance: cloud.InstanceID(p.launched), Offering: o, PriceUSDPerHour: p.price[o], ReadyAfter: time.Hour}, nil
}
func (p *priceCloud) Terminate(cloud.InstanceID) {}
func (p *priceCloud) Subscribe(cloud.Subscriber) {}
func (p *priceCloud) Price(o cloud.Offering) (float64, bool) {
	v, ok := p.price[o]
	return v, ok
}

// Ours is a case set up for our solver: the solve alone (Scheduler,
// sim/karpenter/scheduling without the controller) for one round, or the
// controller (BuildOursTwoRounds) for two, whose first round launches.
type Ours struct {
	// Scheduler solves one round; nil when the controller was built.
	Scheduler *scheduling.Scheduler
	// controller runs the two rounds (SolveAndLaunch, OrderName); nil
	// unless built by BuildOursTwoRounds.
	controller *karpenter.Solver
	Pods       []cluster.PodID
	// Arrivals are the pods of the second round (Case.Arrivals).
	Arrivals []cluster.PodID
	// Names maps our pod ids to the pods' names.
	Names map[cluster.PodID]string
	cl    *cluster.Cluster
}

// BuildOurs compiles a case for sim/karpenter's solve: the NodePools go
// through the same compiler as users' manifests (as JSON documents), the
// pods through cluster.CompilePodSpec. The solve is built alone
// (scheduling.New), without the controller: Run, Solve.
func BuildOurs(cat *catalog.Catalog, c *Case) (*Ours, error) { return buildOurs(cat, c, false) }

// BuildOursTwoRounds is BuildOurs with the controller (karpenter.NewSolver),
// which launches the first round's NodeClaims: RunTwoRounds.
func BuildOursTwoRounds(cat *catalog.Catalog, c *Case) (*Ours, error) { return buildOurs(cat, c, true) }

func buildOurs(cat *catalog.Catalog, c *Case, controller bool) (*Ours, error) {
	eng := engine.New(1)
	cl := cluster.New(eng, cluster.NewSymbols(), cluster.NewResourceNames())
	data := []byte(nodeClassYAML + c.reservationTermsYAML())
	for _, np := range c.Pools {
		doc, err := poolDoc(np)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(doc)
		if err != nil {
			return nil, err
		}
		data = append(append(append(data, "---\n"...), b...), '\n')
	}
	ovs, err := overlayDocs(c)
	if err != nil {
		return nil, err
	}
	data = append(data, ovs...)
	docs, err := manifest.ReadBytes(c.Name+"-pools.yaml", data)
	if err != nil {
		return nil, err
	}
	res, err := apis.Compile(docs, apis.Env{Syms: cl.Syms, Resources: cl.Resources, Catalog: cat, Zones: Zones})
	if err != nil {
		return nil, fmt.Errorf("%s: compiling NodePools: %w", c.Name, err)
	}
	pc := &priceCloud{price: map[cloud.Offering]float64{}, reservations: c.cloudReservations()}
	for _, t := range c.Types {
		for _, o := range t.Offerings {
			ct, _ := cluster.ParseCapacityType(o.CapacityType)
			pc.price[cloud.Offering{InstanceType: t.Name, Zone: o.Zone, CapacityType: ct}] = o.Price
		}
	}
	o := &Ours{Names: map[cluster.PodID]string{}, cl: cl}
	settings := apis.DefaultSettings()
	settings.NodeOverlay = len(res.NodeOverlays) > 0
	// The pods' extended resources have their slots before the pools
	// are built, as the loader registers them first.
	for _, p := range append(append([]*corev1.Pod(nil), c.Pods...), c.Arrivals...) {
		for name := range p.Spec.Containers[0].Resources.Requests {
			if _, err := cl.Resources.Index(name); err != nil {
				return nil, err
			}
		}
	}
	if controller {
		o.controller, err = karpenter.NewSolver(karpenter.SolveInput{Engine: eng, Cluster: cl, Catalog: cat, Cloud: pc, Region: Region,
			Zones: Zones, NodePools: res.NodePools, NodeOverlays: res.NodeOverlays, Settings: settings})
	} else {
		o.Scheduler, err = scheduling.New(scheduling.Inputs{Engine: eng, Cluster: cl, Catalog: cat, Prices: pc, Region: Region,
			Zones: Zones, NodePools: res.NodePools, NodeOverlays: res.NodeOverlays, Settings: settings})
	}
	if err != nil {
		return nil, err
	}
	ns := cl.Syms.Intern("default")
	specs := map[string]*cluster.PodSpec{}
	create := func(pods []*corev1.Pod) ([]cluster.PodID, error) {
		var ids []cluster.PodID
		for _, p := range pods {
			key := specKey(p)
			spec, ok := specs[key]
			if !ok {
				cs, _, err := cluster.CompilePodSpec(cl.Syms, cl.Resources, cluster.PodSpecInput{Namespace: p.Namespace, Labels: p.Labels, Spec: &p.Spec})
				if err != nil {
					return nil, fmt.Errorf("%s: pod %s: %w", c.Name, p.Name, err)
				}
				spec, specs[key] = cs, cs
			}
			id := cl.CreatePod(cluster.Pod{Name: p.Name, Namespace: ns, Spec: spec, Workload: -1})
			ids = append(ids, id)
			o.Names[id] = p.Name
		}
		return ids, nil
	}
	if o.Pods, err = create(c.Pods); err != nil {
		return nil, err
	}
	if o.Arrivals, err = create(c.Arrivals); err != nil {
		return nil, err
	}
	return o, nil
}

// specKey identifies pods that share a template (same labels and spec).
func specKey(p *corev1.Pod) string {
	b, _ := json.Marshal(struct {
		L map[string]string
		S corev1.PodSpec
	}{p.Labels, p.Spec})
	return string(b)
}

// poolDoc is the NodePool as a manifest document: apiVersion, kind,
// metadata.name and spec. The disruption settings and expireAfter, which
// the solve does not read, are left out: their Go zero values marshal as
// "Never" where the API server would default them.
func poolDoc(np *karpv1.NodePool) (map[string]any, error) {
	b, err := json.Marshal(np.Spec)
	if err != nil {
		return nil, err
	}
	var spec map[string]any
	if err := json.Unmarshal(b, &spec); err != nil {
		return nil, err
	}
	delete(spec, "disruption")
	if tmpl, ok := spec["template"].(map[string]any); ok {
		if ts, ok := tmpl["spec"].(map[string]any); ok {
			delete(ts, "expireAfter")
		}
	}
	return map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": np.Name}, "spec": spec}, nil
}

// Outcome is one solver's answer in solver-neutral terms.
type Outcome struct {
	Nodes         []Node
	Unschedulable []string // pod names, sorted
}

// Node is one new NodeClaim.
type Node struct {
	Pool          string
	Pods          int
	InstanceTypes []string // sorted by name
	Cheapest      float64  // USD/hour
	PodNames      []string // in placement order, for reports
}

// Solve places the case's first-round pods (no launches).
func (o *Ours) Solve() scheduling.Result {
	if o.Scheduler == nil {
		return o.controller.Solve(o.Pods)
	}
	return o.Scheduler.Solve(o.Pods)
}

// Run solves once and converts the result.
func (o *Ours) Run() Outcome {
	return o.convert(o.Solve())
}

// InstanceTypes lists the catalogue's instance types as the pool would
// launch them (scheduling.Scheduler.InstanceTypes).
func (o *Ours) InstanceTypes(pool string) []scheduling.PoolInstanceType {
	if o.Scheduler == nil {
		return o.controller.InstanceTypes(pool)
	}
	return o.Scheduler.InstanceTypes(pool)
}

// InFlight is a node launched by the first round, not Ready yet: what
// upstream's cluster state knows of its NodeClaim.
type InFlight struct {
	Pool, InstanceType, Zone, CapacityType string
	// OrderName is the name our solve orders the node by among the
	// existing nodes (karpenter.Solver.OrderName), for RunSecondInOurOrder.
	OrderName             string
	Labels                map[string]string
	Taints                []corev1.Taint
	Capacity, Allocatable corev1.ResourceList
}

// RunTwoRounds runs the first round as a provisioning batch (solve, then
// launch: the nodes stay in flight) and then a second solve of the first
// round's pods, still pending, and the arrivals, against them. It
// returns the second round's answer and the nodes in flight. Call it on
// a fresh Ours from BuildOursTwoRounds (the launched nodes stay in its
// cluster).
func (o *Ours) RunTwoRounds() (Outcome, []InFlight) {
	if o.controller == nil {
		panic("fidelity: RunTwoRounds needs an Ours from BuildOursTwoRounds")
	}
	_, ids := o.controller.SolveAndLaunch(o.Pods)
	var fl []InFlight
	syms := o.cl.Syms
	for _, id := range ids {
		if id == cluster.NoNode {
			continue
		}
		n := &o.cl.Nodes[id]
		f := InFlight{Pool: n.OwnerName, InstanceType: n.InstanceType, Zone: syms.Name(n.Zone), CapacityType: n.CapacityType.String(),
			OrderName: o.controller.OrderName(id), Labels: n.Labels.Map(syms), Allocatable: resourceList(n.Allocatable)}
		for _, it := range o.controller.InstanceTypes(n.OwnerName) {
			if it.Name == n.InstanceType {
				f.Capacity = resourceList(it.Capacity)
			}
		}
		for _, t := range n.Taints {
			f.Taints = append(f.Taints, corev1.Taint{Key: syms.Name(t.Key), Value: syms.Name(t.Value), Effect: corev1.TaintEffect(t.Effect.String())})
		}
		fl = append(fl, f)
	}
	all := append(append([]cluster.PodID(nil), o.Pods...), o.Arrivals...)
	res, launched := o.controller.SolveAndLaunch(all)
	// A NodeClaim the pool's limits refuse is not launched: its pods
	// stay pending.
	var kept []scheduling.NewClaim
	for i, nc := range res.NodeClaims {
		if launched[i] == cluster.NoNode {
			res.Unschedulable = append(res.Unschedulable, nc.Pods...)
			continue
		}
		kept = append(kept, nc)
	}
	res.NodeClaims = kept
	return o.convert(res), fl
}

func (o *Ours) convert(r scheduling.Result) Outcome {
	var out Outcome
	for _, nc := range r.NodeClaims {
		its := append([]string(nil), nc.InstanceTypes...)
		sort.Strings(its)
		n := Node{Pool: nc.NodePool, Pods: len(nc.Pods), InstanceTypes: its, Cheapest: nc.CheapestUSDPerHour}
		for _, id := range nc.Pods {
			n.PodNames = append(n.PodNames, o.Names[id])
		}
		out.Nodes = append(out.Nodes, n)
	}
	for _, id := range r.Unschedulable {
		out.Unschedulable = append(out.Unschedulable, o.Names[id])
	}
	sort.Strings(out.Unschedulable)
	return out
}
