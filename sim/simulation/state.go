package simulation

import (
	"io"
	"math"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/statedump"
)

// WriteState writes the cluster as it is now as a kubectl-style List
// (package statedump; sim run --dump-state). It reads the run and changes
// nothing: the run goes on the same with or without it.
func (s *Sim) WriteState(w io.Writer) (err error) {
	defer s.catch(&err)
	in := statedump.Input{Cluster: s.cl, Epoch: s.sc.Epoch, Capacity: s.nodeCapacity, PDBs: s.sc.PDBs}
	if s.ctrls != nil {
		in.InstanceOf = s.ctrls.InstanceOf
		for i := range s.ctrls.Len() {
			spec := s.ctrls.Workload(int32(i))
			wl := statedump.Workload{Kind: spec.Kind.String(), Namespace: spec.Namespace, Name: spec.Name, Pod: spec.Pod,
				Parallelism: spec.Parallelism, BackoffLimit: spec.BackoffLimit,
				OrderedReady: spec.OrderedReady, MinReadySeconds: int32(spec.MinReady / time.Second), ReadyAfter: spec.ReadyAfter}
			if h := spec.Replicas.HPA; h != nil {
				wl.HPA = &statedump.HPA{Min: h.Min, Max: h.Max, TargetPercent: int32(math.Round(h.Target * 100))}
			}
			for _, iv := range s.ctrls.Instances(int32(i)) {
				wl.Instances = append(wl.Instances, statedump.Instance{Name: iv.Name, Desired: iv.Desired,
					Succeeded: iv.Succeeded, Failures: iv.Failures, Done: iv.Done})
			}
			in.Workloads = append(in.Workloads, wl)
		}
	}
	if kp := s.karpenter(); kp != nil {
		in.NodeClaims = func(id cluster.NodeID) (statedump.NodeClaim, bool) {
			nc, ok := kp.NodeClaim(id)
			r := nc.NodeClassRef
			return statedump.NodeClaim{NodePool: nc.NodePool, Capacity: nc.Capacity,
				NodeClassRef:    statedump.NodeClassRef{Group: r.Group, Kind: r.Kind, Name: r.Name},
				LastPodEvent:    nc.LastPodEvent,
				HasLastPodEvent: nc.HasLastPodEvent,
				Drifted:         nc.Drifted, DriftedAt: nc.DriftedAt, Deleting: nc.Deleting,
				InstanceTerminating: nc.InstanceTerminating, InstanceTerminatingAt: nc.InstanceTerminatingAt,
				Annotations: nc.Hashes, ExpiresAt: nc.ExpiresAt, Expires: nc.Expires}, ok
		}
		for _, p := range kp.NodePools() {
			in.NodePools = append(in.NodePools, dumpNodePool(s.cl, p))
		}
	}
	return statedump.Write(w, in)
}

// karpenter is the run's Karpenter, if it runs: the state dump writes its
// NodeClaims and NodePools (statedump's types, which Karpenter cannot
// import: an output package).
func (s *Sim) karpenter() *karpenter.Karpenter {
	kp, _ := s.models[karpenter.OwnerName].(*karpenter.Karpenter)
	return kp
}

// nodeCapacity is a node's capacity: its NodeClaim's for Karpenter's
// nodes, else the catalogue's for its type with the default kubelet
// options, never below its allocatable.
func (s *Sim) nodeCapacity(id cluster.NodeID) (cluster.Resources, bool) {
	if kp := s.karpenter(); kp != nil {
		if nc, ok := kp.NodeClaim(id); ok {
			return nc.Capacity, true
		}
	}
	n := &s.cl.Nodes[id]
	c := n.Allocatable
	if it, ok := s.sc.Catalog.Lookup(n.InstanceType); ok {
		cat := it.Capacity(catalog.KubeletOptions{})
		c[cluster.CPU] = max(c[cluster.CPU], cat.CPUMilli)
		c[cluster.Memory] = max(c[cluster.Memory], cat.MemoryBytes)
		c[cluster.Ephemeral] = max(c[cluster.Ephemeral], cat.EphemeralBytes)
	}
	return c, true
}

// dumpNodePool converts a compiled NodePool back to the v1 spelling.
func dumpNodePool(cl *cluster.Cluster, p *apis.NodePool) statedump.NodePool {
	syms := cl.Syms
	out := statedump.NodePool{Name: p.Name, Weight: p.Weight, Annotations: p.Annotations,
		NodeClassRef:           statedump.NodeClassRef{Group: p.NodeClassRef.Group, Kind: p.NodeClassRef.Kind, Name: p.NodeClassRef.Name},
		ExpireAfter:            p.ExpireAfter,
		TerminationGracePeriod: p.TerminationGracePeriod,
	}
	auto := p.NodeClass.AutoMode
	for _, l := range p.Labels {
		k := syms.Name(l.Key)
		if auto && k == apis.LabelComputeType {
			continue // EKS's label on every Auto Mode node, not the template's
		}
		if out.Labels == nil {
			out.Labels = map[string]string{}
		}
		out.Labels[k] = syms.Name(l.Value)
	}
	for _, r := range p.Requirements {
		req := statedump.NodePoolRequirement{NodeSelectorRequirement: statedump.Requirement(syms, r.Requirement)}
		if k := apis.AutoModeNodeLabel(req.Key); auto && k != "" {
			req.Key = k // as written: Auto Mode's eks.amazonaws.com key
		}
		if r.MinValues > 0 {
			m := int(r.MinValues)
			req.MinValues = &m
		}
		out.Requirements = append(out.Requirements, req)
	}
	for _, t := range p.Taints {
		out.Taints = append(out.Taints, statedump.Taint(syms, t))
	}
	for _, t := range p.StartupTaints {
		out.StartupTaints = append(out.StartupTaints, statedump.Taint(syms, t))
	}
	out.ConsolidationPolicy = p.Disruption.Policy.String()
	switch {
	case p.Disruption.ConsolidateNever:
		out.ConsolidateAfter = "Never"
	default:
		out.ConsolidateAfter = statedump.Duration(p.Disruption.ConsolidateAfter)
	}
	for _, b := range p.Disruption.Budgets {
		if b.Schedule != nil {
			continue // active only part of the time: not written (see statedump.NodePool)
		}
		v := strconv.Itoa(int(b.Nodes.Value))
		if b.Nodes.Percent {
			v += "%"
		}
		var reasons []string
		for _, r := range b.Reasons {
			reasons = append(reasons, r.String())
		}
		out.Budgets = append(out.Budgets, statedump.Budget{Nodes: v, Reasons: reasons})
	}
	if p.Limits.Any() {
		out.Limits = corev1.ResourceList{}
		for i, has := range p.Limits.Has {
			if has {
				var one cluster.Resources
				one[i] = p.Limits.Max[i]
				name := cl.Resources.Name(i)
				if q, ok := statedump.ResourceList(cl.Resources, one)[name]; ok {
					out.Limits[name] = q
				} else {
					out.Limits[name] = *resource.NewQuantity(0, resource.DecimalSI)
				}
			}
		}
		if p.Limits.Nodes >= 0 {
			out.Limits["nodes"] = *resource.NewQuantity(p.Limits.Nodes, resource.DecimalSI)
		}
	}
	return out
}
