package scheduler

import (
	"github.com/clustersim/clustersim/sim/cluster"
)

// Volume plugins (k8s framework/plugins volumebinding, volumezone,
// nodevolumelimits). What a pod's claims demand of a node is its spec's
// cluster.VolumePin (sim/cluster volumes.go): pods without claims have
// none and pass at once.
const (
	NameVolumeBinding    = "VolumeBinding"
	NameVolumeZone       = "VolumeZone"
	NameNodeVolumeLimits = "NodeVolumeLimits"
)

// volumeBinding rejects nodes where a bound volume cannot be used (its
// node affinity names other zones) or where an unbound
// WaitForFirstConsumer claim's class cannot provision (allowedTopologies),
// and every node for a pod with an unbound claim nothing can bind. Its
// verdict depends only on the pin (part of the spec class) and the
// node's zone: a static filter.
type volumeBinding struct {
	unbound, conflict, noBind Reason
}

func newVolumeBinding(h Handle, _ PluginArgs) (Plugin, error) {
	return &volumeBinding{
		unbound:  h.Reason(cluster.MsgVolumeUnbound, Unresolvable),
		conflict: h.Reason(cluster.MsgVolumeConflict, Unresolvable),
		noBind:   h.Reason(cluster.MsgVolumeNoBind, Unresolvable),
	}, nil
}

func (p *volumeBinding) Name() string { return NameVolumeBinding }

// Events: a new node, or a pod bound (which may bind a claim another pod
// shares).
func (p *volumeBinding) Events() Event { return EvNodeAdd | EvNodeUpdate | EvPodAssigned }

func (p *volumeBinding) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
	if cs.Spec.Volume == nil {
		return Pass
	}
	switch cs.Spec.Volume.Check(n.Zone) {
	case cluster.VolumeUnbound:
		return p.unbound
	case cluster.VolumeConflict:
		return p.conflict
	case cluster.VolumeNoBind:
		return p.noBind
	}
	return Pass
}

// volumeZone rejects nodes outside the zones of a bound volume's zone
// labels.
type volumeZone struct{ reason Reason }

func newVolumeZone(h Handle, _ PluginArgs) (Plugin, error) {
	return &volumeZone{reason: h.Reason(cluster.MsgVolumeZone, Unresolvable)}, nil
}

func (p *volumeZone) Name() string  { return NameVolumeZone }
func (p *volumeZone) Events() Event { return EvNodeAdd | EvNodeUpdate }

func (p *volumeZone) Filter(cs *CycleState, _ cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
	if v := cs.Spec.Volume; v != nil && !v.Label.Allows(n.Zone) {
		return p.reason
	}
	return Pass
}

func (*volumeBinding) isStatic() {}
func (*volumeZone) isStatic()    {}

// nodeVolumeLimits rejects nodes where the pod's volumes not attached
// there yet would exceed the node's attach limit (cluster.AttachLimit).
type nodeVolumeLimits struct {
	cl     *cluster.Cluster
	reason Reason
}

func newNodeVolumeLimits(h Handle, _ PluginArgs) (Plugin, error) {
	return &nodeVolumeLimits{cl: h.Cluster(), reason: h.Reason(cluster.MsgVolumeLimit, Resolvable)}, nil
}

func (p *nodeVolumeLimits) Name() string  { return NameNodeVolumeLimits }
func (p *nodeVolumeLimits) Events() Event { return EvNodeAdd | EvPodUnassigned }

func (p *nodeVolumeLimits) PreFilter(cs *CycleState) bool {
	return cs.Spec.Volume == nil || cs.Spec.Volume.Attach == 0
}

func (p *nodeVolumeLimits) Filter(cs *CycleState, id cluster.NodeID, n *cluster.Node, _ *[]Reason) Reason {
	if p.cl.AttachedVolumes(id)+p.cl.NewAttachments(cs.Pod, id) > p.cl.AttachLimit(n) {
		return p.reason
	}
	return Pass
}
