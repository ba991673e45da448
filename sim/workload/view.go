package workload

import "github.com/clustersim/clustersim/sim/cluster"

// InstanceView is one created copy of a workload (a Deployment, one Job
// of a Poisson or CronJob series), for readers outside the model (a state
// dump). It is a copy: changing it changes nothing.
type InstanceView struct {
	Name string
	// Desired is the replica count (Deployments, StatefulSets) or the
	// completions (Jobs); Succeeded and Failures count a Job's pods that
	// succeeded and failed; Done and Failed say the Job completed or hit
	// its backoffLimit.
	Desired, Succeeded, Failures int32
	Done, Failed                 bool
	// Live is how many of its pods are not yet deleted or finished.
	Live int
}

// Instances returns the instances of workload w created so far.
func (c *Controllers) Instances(w int32) []InstanceView {
	ins := c.ctrls[w].instances
	out := make([]InstanceView, len(ins))
	for i, in := range ins {
		out[i] = InstanceView{Name: in.name, Desired: in.desired, Succeeded: in.succeeded, Failures: in.failures,
			Done: in.done, Failed: in.failed, Live: len(in.live)}
	}
	return out
}

// PDBScale is the disruption controller's expected count of a budget
// (getExpectedScale): the desired replicas of the Deployments and
// StatefulSets in its namespace whose pod template it selects; ok false
// when it selects none. Pods of Jobs and bare pods have no scale; a budget
// over them counts the pods that exist (upstream cannot compute one and
// allows no disruption: not modelled).
func (c *Controllers) PDBScale(b *cluster.PDB) (int, bool) {
	total, found := 0, false
	for _, ctl := range c.ctrls {
		s := &ctl.spec
		if (s.Kind != Deployment && s.Kind != StatefulSet) || ctl.ns != b.Namespace || s.Pod == nil || !b.Selector.Matches(c.cl.Syms, s.Pod.Labels) {
			continue
		}
		for _, in := range ctl.instances {
			total += int(in.desired)
			found = true
		}
	}
	return total, found
}

// InstanceOf returns the index (in Instances of the pod's workload) of
// the instance that created pod id, or -1 for a pod no controller made.
func (c *Controllers) InstanceOf(id cluster.PodID) int32 {
	if int(id) < 0 || int(id) >= len(c.owner) || c.owner[id].ctrl < 0 {
		return -1
	}
	return c.owner[id].inst
}

// ScaleOf is a Deployment's or StatefulSet's pod template and desired
// replicas (the HPA's latest, if one scales it), or a Job's template and
// parallelism (the Cluster Autoscaler's job resolver reads
// spec.parallelism), for a CapacityBuffer's scalableRef; a ReplicaSet is
// compiled as a Deployment and found as one. ok false when no such
// workload exists (yet: a workload created later has no instance before
// then).
func (c *Controllers) ScaleOf(namespace, kind, name string) (*cluster.PodSpec, int32, bool) {
	want := Deployment
	switch kind {
	case "Deployment", "ReplicaSet":
	case "StatefulSet":
		want = StatefulSet
	case "Job":
		want = Job
	default:
		return nil, 0, false
	}
	for _, ctl := range c.ctrls {
		s := &ctl.spec
		if s.Kind != want || s.Namespace != namespace || s.Name != name || s.Pod == nil || len(ctl.instances) == 0 || s.CronJob != nil {
			continue
		}
		if want == Job {
			return s.Pod, s.Parallelism, true
		}
		return s.Pod, ctl.instances[len(ctl.instances)-1].desired, true
	}
	return nil, 0, false
}
