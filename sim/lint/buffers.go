package lint

import (
	"github.com/clustersim/clustersim/sim/capacitybuffer"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	"github.com/clustersim/clustersim/sim/workload"
)

// checkBuffers: a CapacityBuffer the Cluster Autoscaler acts on (both
// --capacity-buffer-* flags on) whose pod no node group can host keeps
// nothing: its fake pods stay unschedulable loop after loop (upstream
// the buffer gets a NotTriggerScaleUp event). Buffers the loader already
// warned of (another strategy, an unresolvable or missing reference) are
// left to those warnings.
func (c *checker) checkBuffers() {
	cfg := clusterautoscaler.ConfigIn(c.sc.Components)
	if cfg == nil {
		return
	}
	for i := range cfg.CapacityBuffers {
		b := &cfg.CapacityBuffers[i]
		if b.Strategy != capacitybuffer.ActiveCapacity || capacitybuffer.ClusterAutoscaler.Unresolvable(b) != "" {
			continue
		}
		spec := c.bufferPod(b)
		if spec == nil {
			continue
		}
		landed := false
		var groups []string
		for _, s := range c.sources {
			if s.Autoscaler != clusterautoscaler.Owner || s.lint == nil {
				continue
			}
			groups = append(groups, s.ID)
			if s.lint.Judge(spec).CanLand {
				landed = true
				break
			}
		}
		if landed {
			continue
		}
		c.add(Finding{Severity: Warning, Kind: KindIneffective, Sources: groups, File: b.File, Line: b.Line, Path: "spec",
			Message: b.String() + ": its pods fit no node group the Cluster Autoscaler scales (see the placement matrix for the workload or template): the buffer's fake pods stay unschedulable and no spare capacity is kept",
			Fix:     "point the buffer at a pod a node group can host, or add a node group for it"})
	}
}

// bufferPod is the pod spec a buffer copies, from the scenario's
// workloads or PodTemplates; nil when it is not there.
func (c *checker) bufferPod(b *capacitybuffer.Buffer) *cluster.PodSpec {
	kind, name := b.Ref()
	if kind == "PodTemplate" {
		for i := range c.sc.PodTemplates {
			if t := &c.sc.PodTemplates[i]; t.Namespace == b.Namespace && t.Name == name {
				return t.Pod
			}
		}
		return nil
	}
	want := map[string]workload.Kind{"Deployment": workload.Deployment, "ReplicaSet": workload.Deployment, "StatefulSet": workload.StatefulSet, "Job": workload.Job}
	k, ok := want[kind]
	if !ok {
		return nil
	}
	for i := range c.sc.Workloads {
		if w := &c.sc.Workloads[i]; w.Kind == k && w.Namespace == b.Namespace && w.Name == name && w.CronJob == nil {
			return w.Pod
		}
	}
	return nil
}
