package report

import (
	"math"
	"slices"
	"strings"
)

// Objects are each node's and each pod's life in a run: what --metrics
// needs for the per-node series that stock dashboards query (Karpenter's
// karpenter_nodes_allocatable and karpenter_nodes_total_pod_requests,
// kube-state-metrics' kube_node_info and kube_node_labels), which a count
// per pool cannot give (count(karpenter_nodes_allocatable) counts nodes).
// Kept only when a run is asked to (simulation.Options.KeepObjects); never
// in the JSON report.
type Objects struct {
	Nodes []NodeLife
	Pods  []PodLife
	// PoolLimits are the NodePools' spec.limits, by pool then resource.
	PoolLimits []PoolLimit
	// Region labels every node (topology.kubernetes.io/region).
	Region string
}

// NodeLife is one node from its launch to its removal. Times are seconds
// since the start; a negative time never came (Ready, Gone).
type NodeLife struct {
	Name         string
	Owner        string // "karpenter", "cluster-autoscaler", "static", ...
	Pool         string // NodePool, node group or static pool
	CapacityType string // on-demand, spot, reserved
	Zone         string
	InstanceType string
	Arch, OS     string
	InstanceID   string // for kube_node_info's provider_id
	// Allocatable and Capacity: CPU in cores, memory in bytes, pods.
	Allocatable, Capacity [3]float64
	Launched, Ready, Gone float64
}

// PodLife is one pod from its creation to its end. Times are seconds
// since the start; a negative time never came. Node indexes Objects.Nodes
// (-1: never bound).
type PodLife struct {
	Namespace string
	Node      int32
	DaemonSet bool
	// Requests: CPU in cores, memory in bytes, and 1 pod.
	Requests                       [3]float64
	Created, Bound, Started, Ended float64
}

// PoolLimit is one of a NodePool's limits: cpu in cores, memory in
// bytes, nodes.
type PoolLimit struct {
	Pool, Resource string
	Value          float64
}

// resourceNames are the resource_type labels of the [3]float64 vectors,
// as Karpenter spells them (lower case, '-' as '_').
var resourceNames = [3]string{"cpu", "memory", "pods"}

// alive reports, per sample, whether the node is registered (Karpenter's
// node metrics cover nodes with a Node object: from Ready here, the
// simulator's registration) and not yet gone.
func (n *NodeLife) alive(t float64) bool {
	return n.Ready >= 0 && n.Ready <= t && (n.Gone < 0 || t < n.Gone)
}

// nodeSeriesLabels are Karpenter's labels of a node's series: node_name,
// nodepool and the well-known labels it copies (arch, capacity_type,
// instance_type, os, region, zone), sorted by name as a registry writes
// them.
func (o *Objects) nodeSeriesLabels(n *NodeLife, extra ...[2]string) [][2]string {
	pool := ""
	if n.Owner == "karpenter" {
		pool = n.Pool
	}
	ls := [][2]string{{"arch", n.Arch}, {"capacity_type", n.CapacityType}, {"instance_type", n.InstanceType},
		{"node_name", n.Name}, {"nodepool", pool}, {"os", n.OS}, {"region", o.Region}, {"zone", n.Zone}}
	ls = append(ls, extra...)
	slices.SortFunc(ls, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return ls
}

// perNode builds a per-node series family: value(node, sample) while the
// node is alive, no sample otherwise.
func (o *Objects) perNode(tl *Timeline, f family, karpenterOnly bool, each func(i int, n *NodeLife) []series) family {
	for i := range o.Nodes {
		n := &o.Nodes[i]
		if karpenterOnly && n.Owner != "karpenter" {
			continue
		}
		f.series = append(f.series, each(i, n)...)
	}
	return f
}

// whileAlive is value at the samples the node is alive, no sample (NaN)
// at the others.
func (n *NodeLife) whileAlive(tl *Timeline, value func(int) float64) func(int) float64 {
	return func(i int) float64 {
		if !n.alive(tl.T[i]) {
			return math.NaN()
		}
		return value(i)
	}
}

// podRequests sums, per node and sample, the requests of the pods bound to
// it (only the DaemonSet pods' when daemonOnly), as Karpenter's
// karpenter_nodes_total_pod_requests (every pod, DaemonSet pods too) and
// karpenter_nodes_total_daemon_requests do (state.StateNode's PodRequests
// and DaemonSetRequests).
func (o *Objects) podRequests(tl *Timeline, daemonOnly bool) [][3][]float64 {
	out := make([][3][]float64, len(o.Nodes))
	for _, p := range o.Pods {
		if p.Node < 0 || p.Bound < 0 || (daemonOnly && !p.DaemonSet) {
			continue
		}
		acc := &out[p.Node]
		for r := range acc {
			if acc[r] == nil {
				acc[r] = make([]float64, len(tl.T))
			}
		}
		for i, t := range tl.T {
			if t < p.Bound {
				continue
			}
			if p.Ended >= 0 && t >= p.Ended {
				break
			}
			for r := range acc {
				acc[r][i] += p.Requests[r]
			}
		}
	}
	return out
}

// objectFamilies are the per-node families, in place of sums per pool.
func objectFamilies(tl *Timeline, karpenter bool) []family {
	o := tl.Objects
	var fams []family
	if karpenter {
		alloc := o.perNode(tl, family{name: "karpenter_nodes_allocatable", typ: "gauge",
			help: "Node allocatable are the resources allocatable by nodes."}, true,
			func(_ int, n *NodeLife) []series {
				var out []series
				for r, name := range resourceNames {
					v := n.Allocatable[r]
					out = append(out, series{o.nodeSeriesLabels(n, [2]string{"resource_type", name}), n.whileAlive(tl, func(int) float64 { return v })})
				}
				return out
			})
		requests := func(name, help string, daemon bool) family {
			sums := o.podRequests(tl, daemon)
			return o.perNode(tl, family{name: name, typ: "gauge", help: help}, true, func(i int, n *NodeLife) []series {
				var out []series
				for r, rn := range resourceNames {
					xs := sums[i][r]
					value := func(int) float64 { return 0 }
					if xs != nil {
						value = floats(xs)
					}
					out = append(out, series{o.nodeSeriesLabels(n, [2]string{"resource_type", rn}), n.whileAlive(tl, value)})
				}
				return out
			})
		}
		podReq := requests("karpenter_nodes_total_pod_requests", "Node total pod requests are the resources requested by pods bound to nodes, including the DaemonSet pods.", false)
		daemonReq := requests("karpenter_nodes_total_daemon_requests", "Node total daemon requests are the resource requested by DaemonSet pods bound to nodes.", true)
		usage, limit := o.poolFamilies(tl)
		created, terminated := o.nodeCounters(tl)
		fams = append(fams, alloc, podReq, daemonReq, usage, limit, created, terminated, o.podsState(tl))
	}
	info := o.perNode(tl, family{name: "kube_node_info", typ: "gauge", help: "Information about a cluster node."}, false,
		func(_ int, n *NodeLife) []series {
			ls := [][2]string{{"internal_ip", ""}, {"node", n.Name}, {"provider_id", "aws:///" + n.Zone + "/" + n.InstanceID}}
			return []series{{ls, n.whileAlive(tl, func(int) float64 { return 1 })}}
		})
	labels := o.perNode(tl, family{name: "kube_node_labels", typ: "gauge", help: "Kubernetes labels converted to Prometheus labels."}, false,
		func(_ int, n *NodeLife) []series {
			pool := ""
			if n.Owner == "karpenter" {
				pool = n.Pool
			}
			ls := [][2]string{{"label_karpenter_sh_capacity_type", n.CapacityType}, {"label_karpenter_sh_nodepool", pool},
				{"label_kubernetes_io_arch", n.Arch}, {"label_node_kubernetes_io_instance_type", n.InstanceType},
				{"label_topology_kubernetes_io_zone", n.Zone}, {"node", n.Name}}
			return []series{{ls, n.whileAlive(tl, func(int) float64 { return 1 })}}
		})
	return append(fams, info, labels)
}

// poolFamilies are karpenter_nodepools_usage (the capacity of the pool's
// nodes, launching ones included, and their count, as the NodePool's
// status.resources) and karpenter_nodepools_limit (its spec.limits).
func (o *Objects) poolFamilies(tl *Timeline) (usage, limit family) {
	usage = family{name: "karpenter_nodepools_usage", typ: "gauge", help: "The amount of resources that have been provisioned for a nodepool. Labeled by nodepool name and resource type."}
	limit = family{name: "karpenter_nodepools_limit", typ: "gauge", help: "Limits specified on the nodepool that restrict the quantity of resources provisioned. Labeled by nodepool name and resource type."}
	var pools []string
	for _, p := range tl.Pools {
		if p.Owner == "karpenter" {
			pools = append(pools, p.Name)
		}
	}
	for _, l := range o.PoolLimits {
		if !slices.Contains(pools, l.Pool) {
			pools = append(pools, l.Pool)
		}
	}
	slices.Sort(pools)
	for _, pool := range pools {
		var sums [4][]float64 // cpu, memory, pods, nodes
		for r := range sums {
			sums[r] = make([]float64, len(tl.T))
		}
		for _, n := range o.Nodes {
			if n.Owner != "karpenter" || n.Pool != pool {
				continue
			}
			for i, t := range tl.T {
				if t < n.Launched || (n.Gone >= 0 && t >= n.Gone) {
					continue
				}
				for r := range 3 {
					sums[r][i] += n.Capacity[r]
				}
				sums[3][i]++
			}
		}
		for r, name := range append(resourceNames[:], "nodes") {
			usage.series = append(usage.series, series{[][2]string{{"nodepool", pool}, {"resource_type", name}}, floats(sums[r])})
		}
		for _, l := range o.PoolLimits {
			if l.Pool == pool {
				v := l.Value
				limit.series = append(limit.series, series{[][2]string{{"nodepool", pool}, {"resource_type", l.Resource}}, func(int) float64 { return v }})
			}
		}
	}
	return usage, limit
}

// nodeCounters are karpenter_nodes_created and karpenter_nodes_terminated
// by NodePool: Karpenter's nodes that registered (here: became Ready) and
// that went away, up to each sample.
func (o *Objects) nodeCounters(tl *Timeline) (created, terminated family) {
	created = family{name: "karpenter_nodes_created", typ: "counter", help: "Number of nodes created in total by Karpenter. Labeled by owning nodepool."}
	terminated = family{name: "karpenter_nodes_terminated", typ: "counter", help: "Number of nodes terminated in total by Karpenter. Labeled by owning nodepool."}
	var pools []string
	for _, n := range o.Nodes {
		if n.Owner == "karpenter" && !slices.Contains(pools, n.Pool) {
			pools = append(pools, n.Pool)
		}
	}
	slices.Sort(pools)
	for _, pool := range pools {
		made, gone := make([]float64, len(tl.T)), make([]float64, len(tl.T))
		for _, n := range o.Nodes {
			if n.Owner != "karpenter" || n.Pool != pool {
				continue
			}
			for i, t := range tl.T {
				if n.Ready >= 0 && n.Ready <= t {
					made[i]++
				}
				if n.Gone >= 0 && n.Gone <= t {
					gone[i]++
				}
			}
		}
		created.series = append(created.series, series{[][2]string{{"nodepool", pool}}, floats(made)})
		terminated.series = append(terminated.series, series{[][2]string{{"nodepool", pool}}, floats(gone)})
	}
	return created, terminated
}

// podsState is karpenter_pods_state with its node labels (arch,
// capacity_type, instance_type, namespace, node, nodepool, zone, phase):
// upstream has one series per pod (name, namespace, owner, ...) valued 1;
// here one per label set valued the number of its pods, so sum by any of
// these labels, as the dashboards query, gives upstream's value (count()
// of it does not).
func (o *Objects) podsState(tl *Timeline) family {
	f := family{name: "karpenter_pods_state", typ: "gauge",
		help: "Pod state is the current state of pods (clustersim: the number of pods of each label set)."}
	type key struct {
		node      int32
		namespace string
		phase     string
	}
	counts := map[key][]float64{}
	add := func(k key, from, to float64) {
		xs := counts[k]
		if xs == nil {
			xs = make([]float64, len(tl.T))
			counts[k] = xs
		}
		for i, t := range tl.T {
			if t >= from && (to < 0 || t < to) {
				xs[i]++
			}
		}
	}
	for _, p := range o.Pods {
		end := p.Ended
		switch {
		case p.Bound < 0:
			add(key{-1, p.Namespace, "Pending"}, p.Created, end)
		case p.Started < 0:
			add(key{-1, p.Namespace, "Pending"}, p.Created, p.Bound)
			add(key{p.Node, p.Namespace, "Pending"}, p.Bound, end)
		default:
			add(key{-1, p.Namespace, "Pending"}, p.Created, p.Bound)
			add(key{p.Node, p.Namespace, "Pending"}, p.Bound, p.Started)
			add(key{p.Node, p.Namespace, "Running"}, p.Started, end)
		}
	}
	keys := make([]key, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int {
		if a.node != b.node {
			return int(a.node - b.node)
		}
		if c := strings.Compare(a.namespace, b.namespace); c != 0 {
			return c
		}
		return strings.Compare(a.phase, b.phase)
	})
	for _, k := range keys {
		ls := [][2]string{{"arch", ""}, {"capacity_type", ""}, {"instance_type", ""}, {"namespace", k.namespace}, {"node", ""},
			{"nodepool", ""}, {"phase", k.phase}, {"scheduled", "false"}, {"zone", ""}}
		if k.node >= 0 {
			n := &o.Nodes[k.node]
			pool := ""
			if n.Owner == "karpenter" {
				pool = n.Pool
			}
			ls = [][2]string{{"arch", n.Arch}, {"capacity_type", n.CapacityType}, {"instance_type", n.InstanceType}, {"namespace", k.namespace},
				{"node", n.Name}, {"nodepool", pool}, {"phase", k.phase}, {"scheduled", "true"}, {"zone", n.Zone}}
		}
		f.series = append(f.series, series{ls, floats(counts[k])})
	}
	return f
}
