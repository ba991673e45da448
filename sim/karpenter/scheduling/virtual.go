package scheduling

import "github.com/clustersim/clustersim/sim/cluster"

// Virtual pods are a CapacityBuffer's placeholders (KC
// state/virtualpods): pods that exist only in Karpenter's solves, never in
// the cluster. They carry PodIDs from VirtualBase up, which no cluster
// pod reaches, and their records live here (SetVirtual), not in the
// cluster's table; every read of a solve's pod record goes through pod.
const VirtualBase cluster.PodID = 1 << 30

// IsVirtual reports whether id is a virtual pod's.
func IsVirtual(id cluster.PodID) bool { return id >= VirtualBase }

// SetVirtual replaces the virtual pods: pods[i] gets PodID VirtualBase+i.
// The records must stay unchanged until the next call.
func (sv *Solvers) SetVirtual(pods []cluster.Pod) {
	sv.virtual = pods
	if n := len(pods); len(sv.virtualMark) < n {
		sv.virtualMark = append(sv.virtualMark, make([]uint32, n-len(sv.virtualMark))...)
	}
}

// VirtualIDs are the current virtual pods' IDs.
func (sv *Solvers) VirtualIDs() []cluster.PodID {
	out := make([]cluster.PodID, len(sv.virtual))
	for i := range out {
		out[i] = VirtualBase + cluster.PodID(i)
	}
	return out
}

// Virtual is virtual pod id's record.
func (sv *Solvers) Virtual(id cluster.PodID) *cluster.Pod { return &sv.virtual[id-VirtualBase] }

// pod is the record of a pod of a solve, real or virtual.
func (sv *Solvers) pod(id cluster.PodID) *cluster.Pod {
	if id >= VirtualBase {
		return &sv.virtual[id-VirtualBase]
	}
	return &sv.cl.Pods[id]
}

// mark is where a solve's stamp for pod id is kept.
func (sv *Solvers) mark(id cluster.PodID) *uint32 {
	if id >= VirtualBase {
		return &sv.virtualMark[id-VirtualBase]
	}
	return &sv.podMark[id]
}
