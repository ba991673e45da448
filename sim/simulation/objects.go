package simulation

import (
	"strings"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/statedump"
)

// objects are the run's nodes and pods as report.Objects, for --metrics'
// per-node series (Options.KeepObjects): read from the cluster once the
// run is over.
func (s *Sim) objects() *report.Objects {
	cl := s.cl
	o := &report.Objects{Region: s.sc.Region, Nodes: make([]report.NodeLife, len(cl.Nodes)), Pods: make([]report.PodLife, len(cl.Pods))}
	arch, hasArch := cl.Syms.Lookup(catalog.LabelArch)
	os, hasOS := cl.Syms.Lookup(catalog.LabelOS)
	label := func(n *cluster.Node, key cluster.Sym, has bool) string {
		if !has {
			return ""
		}
		if v, ok := n.Labels.Get(key); ok {
			return cl.Syms.Name(v)
		}
		return ""
	}
	for i := range cl.Nodes {
		n := &cl.Nodes[i]
		capacity, _ := s.nodeCapacity(cluster.NodeID(i))
		life := report.NodeLife{Name: n.Name, Owner: n.Owner.String(), Pool: n.OwnerName, CapacityType: n.CapacityType.String(),
			Zone: cl.Syms.Name(n.Zone), InstanceType: n.InstanceType,
			Arch: label(n, arch, hasArch), OS: label(n, os, hasOS), InstanceID: statedump.InstanceID(n, cluster.NodeID(i)),
			Allocatable: resources3(n.Allocatable), Capacity: resources3(capacity),
			Launched: n.Launched.Seconds(), Ready: -1, Gone: -1}
		// Ready 0 is either ready at the start or never ready: a node
		// Ready now, or present from the start, was.
		if n.State == cluster.NodeReady || n.Ready > 0 || (n.Launched == 0 && n.State == cluster.NodeGone) {
			life.Ready = n.Ready.Seconds()
		}
		if n.State == cluster.NodeGone {
			life.Gone = n.Deleted.Seconds()
		}
		o.Nodes[i] = life
	}
	for i := range cl.Pods {
		p := &cl.Pods[i]
		life := report.PodLife{Namespace: cl.Syms.Name(p.Namespace), Node: -1, DaemonSet: p.Spec.DaemonSet,
			Requests: resources3(p.Spec.Requests), Created: p.Created.Seconds(), Bound: -1, Started: -1, Ended: -1}
		life.Requests[2] = 1 // Karpenter counts each pod as one "pods"
		if p.Node != cluster.NoNode {
			life.Node = int32(p.Node)
			life.Bound = p.BoundAt.Seconds()
		}
		if p.Started > 0 || p.Phase == cluster.Running {
			life.Started = p.Started.Seconds()
		}
		if p.Phase.Terminal() {
			life.Ended = p.Ended.Seconds()
		}
		o.Pods[i] = life
	}
	if kp := s.karpenter(); kp != nil {
		for _, p := range kp.NodePools() {
			for r, has := range p.Limits.Has {
				if !has {
					continue
				}
				name := strings.ReplaceAll(strings.ToLower(string(cl.Resources.Name(r))), "-", "_")
				v := float64(p.Limits.Max[r])
				if r == cluster.CPU {
					v /= 1000 // millicores to cores, as Karpenter's gauge
				}
				o.PoolLimits = append(o.PoolLimits, report.PoolLimit{Pool: p.Name, Resource: name, Value: v})
			}
			if p.Limits.Nodes >= 0 {
				o.PoolLimits = append(o.PoolLimits, report.PoolLimit{Pool: p.Name, Resource: "nodes", Value: float64(p.Limits.Nodes)})
			}
		}
	}
	return o
}

// resources3 is cpu in cores, memory in bytes and pods, as Karpenter's
// gauges write them.
func resources3(r cluster.Resources) [3]float64 {
	return [3]float64{float64(r[cluster.CPU]) / 1000, float64(r[cluster.Memory]), float64(r[cluster.Pods])}
}
