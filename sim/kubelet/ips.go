package kubelet

import (
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// ips is the VPC CNI's side of a pod start: the pod's sandbox needs an
// address of its node's subnet (aws/amazon-vpc-cni-k8s: pods get secondary
// addresses of the node's ENIs, which come from the node's subnet). With
// none free the pod stays ContainerCreating (bound, not running) until a
// pod of the subnet ends or a node of it goes; waiting pods start first
// come, first served. DaemonSet pods take no address: they are taken to
// run on the host network, as aws-node, kube-proxy and most node agents
// do.
type ips struct {
	subnets *cloud.Subnets
	held    []int32 // by PodID: the subnet + 1 of the pod's address, 0 for none
	waiting [][]cluster.PodID
	since   map[cluster.PodID]engine.Time
	retry   []bool // a retry event is scheduled for the subnet
	// waitedPods and waited: pods that waited for an address and started,
	// and for how long in all.
	waitedPods int
	waited     engine.Time
}

// SetSubnets makes pods take addresses from subnets (nil: unlimited).
func (k *Kubelet) SetSubnets(s *cloud.Subnets) {
	if s == nil || s.Len() == 0 {
		return
	}
	k.ip = &ips{subnets: s, waiting: make([][]cluster.PodID, s.Len()), retry: make([]bool, s.Len()),
		since: map[cluster.PodID]engine.Time{}}
}

// IPWaits reports the pods that waited for an address and the seconds
// they waited in all, as of now: pods still waiting count, with their wait
// so far (a lower bound, as for pods pending at the end).
func (k *Kubelet) IPWaits() (pods int, seconds float64) {
	if k.ip == nil {
		return 0, 0
	}
	total := k.ip.waited
	for _, t := range k.ip.since {
		total += k.eng.Now() - t // integer time: the order of the sum does not matter
	}
	return k.ip.waitedPods + len(k.ip.since), total.Seconds()
}

// takeIP gives the pod an address of its node's subnet, and reports
// whether it may start (it waits otherwise).
func (k *Kubelet) takeIP(id cluster.PodID) bool {
	ip := k.ip
	p := &k.cl.Pods[id]
	if ip == nil || p.Spec.DaemonSet {
		return true
	}
	sub := ip.subnets.SubnetOf(cloud.InstanceID(k.cl.Nodes[p.Node].Instance))
	if sub < 0 {
		return true
	}
	for int(id) >= len(ip.held) {
		ip.held = append(ip.held, 0)
	}
	if !ip.subnets.TakeIP(sub) {
		if _, ok := ip.since[id]; !ok {
			ip.since[id] = k.eng.Now()
			ip.waiting[sub] = append(ip.waiting[sub], id)
		}
		return false
	}
	ip.held[id] = sub + 1
	if t, ok := ip.since[id]; ok {
		delete(ip.since, id)
		ip.waitedPods++
		ip.waited += k.eng.Now() - t
	}
	return true
}

// ipChange returns an ended pod's address and, when addresses may have
// come free (a pod ended, a node went), schedules a retry of the waiting
// pods.
func (k *Kubelet) ipChange(c cluster.Change) {
	ip := k.ip
	switch c.Kind {
	case cluster.PodDeleted, cluster.PodFinished:
		delete(ip.since, c.Pod)
		if int(c.Pod) < len(ip.held) && ip.held[c.Pod] > 0 {
			sub := ip.held[c.Pod] - 1
			ip.held[c.Pod] = 0
			ip.subnets.ReleaseIP(sub)
			k.scheduleRetry(sub)
		}
	case cluster.NodeRemoved:
		// EC2 returns the node's addresses as its instance ends, which may
		// come just after the node goes: retry once this moment's work is
		// done.
		for sub := range ip.waiting {
			if len(ip.waiting[sub]) > 0 {
				k.scheduleRetry(int32(sub))
			}
		}
	}
}

func (k *Kubelet) scheduleRetry(sub int32) {
	ip := k.ip
	if ip.retry[sub] || len(ip.waiting[sub]) == 0 {
		return
	}
	ip.retry[sub] = true
	k.eng.After(0, engine.Event{Handler: k.id, Kind: evIPRetry, Obj: sub})
}

// retryIPs starts the subnet's waiting pods while it has addresses.
func (k *Kubelet) retryIPs(sub int32) {
	ip := k.ip
	ip.retry[sub] = false
	q := ip.waiting[sub]
	for len(q) > 0 && ip.subnets.Free(sub) > 0 {
		id := q[0]
		q = q[1:]
		if _, ok := ip.since[id]; !ok || k.cl.Pods[id].Phase != cluster.Bound {
			delete(ip.since, id)
			continue // deleted while it waited
		}
		if k.takeIP(id) {
			k.start(id)
		}
	}
	ip.waiting[sub] = q
}
