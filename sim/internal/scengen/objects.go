package scengen

import (
	"fmt"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/clustersim/clustersim/sim/catalog"
)

// The Kubernetes objects of a plan, built with the API's types. With
// export set they carry what the API server adds (uids, status, owner
// references), as kubectl get -o yaml prints them; without, they are
// manifests as a user writes them.

func ptr[T any](v T) *T { return &v }

// hash32 is the FNV-1a hash of s: stable names and ids.
func hash32(s string) uint32 {
	var h uint32 = 2166136261
	for _, c := range []byte(s) {
		h = (h ^ uint32(c)) * 16777619
	}
	return h
}

// uid is a stable uid for an object.
func uid(kind, name string) types.UID {
	h := hash32(kind + "/" + name)
	return types.UID(fmt.Sprintf("%08x-0000-4000-8000-%012x", h, h))
}

func (p *plan) meta(kind, ns, name string, labels map[string]string, export bool) metav1.ObjectMeta {
	m := metav1.ObjectMeta{Name: name, Namespace: ns, Labels: labels}
	if export {
		m.UID = uid(kind, ns+"/"+name)
		m.ResourceVersion = "1000"
		m.CreationTimestamp = metav1.NewTime(importedAt.Add(-2 * time.Hour))
	}
	return m
}

// nodeObject is a start node as kubectl shows it: the labels Karpenter,
// EKS or eksctl set; allocatable from the catalogue.
func (p *plan) nodeObject(n *node, export bool) map[string]any {
	labels := map[string]string{
		"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": n.name,
		"node.kubernetes.io/instance-type": n.typ, "topology.kubernetes.io/zone": n.zone, "topology.kubernetes.io/region": region,
	}
	family, size, _ := strings.Cut(n.typ, ".")
	switch {
	case n.pool != nil:
		labels["karpenter.sh/nodepool"] = n.pool.name
		labels["karpenter.sh/capacity-type"] = n.capacity
		labels["karpenter.sh/initialized"] = "true"
		labels["karpenter.sh/registered"] = "true"
		labels["karpenter.k8s.aws/instance-category"] = family[:1]
		labels["karpenter.k8s.aws/instance-family"] = family
		labels["karpenter.k8s.aws/instance-generation"] = strings.TrimLeft(family[1:], "abcdefghijklmnopqrstuvwxyz")[:1]
		labels["karpenter.k8s.aws/instance-size"] = size
	case n.group != nil && n.group.managed:
		labels["eks.amazonaws.com/nodegroup"] = n.group.name
		labels["eks.amazonaws.com/capacityType"] = strings.ToUpper(strings.ReplaceAll(n.capacity, "-", "_"))
		labels["alpha.eksctl.io/nodegroup-name"] = n.group.name
	case n.group != nil:
		labels["alpha.eksctl.io/nodegroup-name"] = n.group.name
		labels["alpha.eksctl.io/cluster-name"] = "demo"
	}
	it, _ := p.cat.Lookup(n.typ)
	a, c := it.Allocatable(catalog.KubeletOptions{}), it.Capacity(catalog.KubeletOptions{})
	quantities := func(r catalog.Resources) map[string]any {
		return map[string]any{"cpu": resource.NewMilliQuantity(r.CPUMilli, resource.DecimalSI).String(),
			"memory": resource.NewQuantity(r.MemoryBytes, resource.BinarySI).String(), "pods": fmt.Sprint(r.Pods)}
	}
	md := map[string]any{"name": n.name, "labels": labels, "creationTimestamp": importedAt.Add(-n.age).Format(time.RFC3339)}
	status := map[string]any{"allocatable": quantities(a)}
	nd := map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": md, "status": status}
	if export {
		md["uid"], md["resourceVersion"] = string(uid("Node", n.name)), "1000"
		nd["spec"] = map[string]any{"providerID": providerID(n)}
		status["capacity"] = quantities(c)
		status["conditions"] = []any{map[string]any{"type": "Ready", "status": "True", "reason": "KubeletReady",
			"message": "kubelet is posting ready status", "lastHeartbeatTime": importedAt.Format(time.RFC3339),
			"lastTransitionTime": importedAt.Add(-n.age).Format(time.RFC3339)}}
		status["nodeInfo"] = map[string]any{"architecture": "amd64", "operatingSystem": "linux", "kubeletVersion": "v1.31.0-eks-a737599",
			"containerRuntimeVersion": "containerd://1.7.22", "osImage": "Amazon Linux 2023"}
	}
	return nd
}

// providerID is a node's EC2 instance, as the kubelet reports it.
func providerID(n *node) string {
	return fmt.Sprintf("aws:///%s/i-%017x", n.zone, hash32("Instance/"+n.name))
}

// template is a workload's pod template: one container with requests,
// the do-not-disrupt annotation when asked.
func (w *work) template() corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": w.name}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example.com/" + w.name + ":1",
			Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceCPU:    *resource.NewMilliQuantity(w.cpu, resource.DecimalSI),
				corev1.ResourceMemory: *resource.NewQuantity(w.mem*1024*1024, resource.BinarySI)}}}}}}
	if w.doNotDisrupt {
		t.Annotations = map[string]string{"karpenter.sh/do-not-disrupt": "true"}
	}
	if w.grace > 0 {
		t.Spec.TerminationGracePeriodSeconds = ptr(w.grace)
	}
	switch w.kind {
	case "Job":
		t.Spec.RestartPolicy = corev1.RestartPolicyNever
	case "DaemonSet":
		t.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	}
	return t
}

// controller is w's controlling object (nil for a bare Pod).
func (p *plan) controller(w *work, export bool) any {
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.name}}
	m := p.meta(w.kind, w.ns, w.name, map[string]string{"app": w.name}, export)
	tm := func(apiVersion string) metav1.TypeMeta { return metav1.TypeMeta{APIVersion: apiVersion, Kind: w.kind} }
	running := int32(0)
	for _, n := range w.startOn {
		if n != "" {
			running++
		}
	}
	switch w.kind {
	case "Deployment":
		d := &appsv1.Deployment{TypeMeta: tm("apps/v1"), ObjectMeta: m,
			Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(w.replicas)), Selector: sel, Template: w.template()}}
		if export {
			d.Status = appsv1.DeploymentStatus{Replicas: int32(w.replicas), ReadyReplicas: running, AvailableReplicas: running}
		}
		return d
	case "StatefulSet":
		s := &appsv1.StatefulSet{TypeMeta: tm("apps/v1"), ObjectMeta: m,
			Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(w.replicas)), Selector: sel, Template: w.template(), ServiceName: w.name,
				PodManagementPolicy: appsv1.ParallelPodManagement}}
		if w.orderedReady {
			s.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
		}
		if export {
			s.Status = appsv1.StatefulSetStatus{Replicas: running, ReadyReplicas: running}
		}
		return s
	case "Job":
		j := &batchv1.Job{TypeMeta: tm("batch/v1"), ObjectMeta: m,
			Spec: batchv1.JobSpec{Parallelism: ptr(int32(w.replicas)), Completions: ptr(int32(w.completions)), Template: w.template()}}
		if export {
			j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": string(m.UID)}}
			j.Spec.Template.Labels["batch.kubernetes.io/controller-uid"] = string(m.UID)
			j.Status = batchv1.JobStatus{Active: running, Succeeded: int32(w.succeeded), StartTime: ptr(metav1.NewTime(importedAt.Add(-time.Minute)))}
		}
		return j
	case "DaemonSet":
		return &appsv1.DaemonSet{TypeMeta: tm("apps/v1"), ObjectMeta: m, Spec: appsv1.DaemonSetSpec{Selector: sel, Template: w.template()}}
	}
	return nil
}

// barePod is a bare Pod on its node (spec.nodeName), as written or as
// exported.
func (p *plan) barePod(w *work, export bool) *corev1.Pod {
	t := w.template()
	pod := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: p.meta("Pod", w.ns, w.name, t.Labels, export), Spec: t.Spec}
	pod.Annotations = t.Annotations
	pod.Spec.NodeName = w.startOn[0]
	if export {
		pod.Status = corev1.PodStatus{Phase: corev1.PodRunning}
	}
	return pod
}

// pdbObject is a budget.
func (p *plan) pdbObject(b *pdb, export bool) *policyv1.PodDisruptionBudget {
	amount := func(v any) *intstr.IntOrString {
		switch v := v.(type) {
		case int:
			return ptr(intstr.FromInt32(int32(v)))
		case string:
			return ptr(intstr.FromString(v))
		}
		return nil
	}
	return &policyv1.PodDisruptionBudget{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"},
		ObjectMeta: p.meta("PodDisruptionBudget", b.ns, b.name, nil, export),
		Spec: policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": b.app}},
			MinAvailable: amount(b.minAvailable), MaxUnavailable: amount(b.maxUnavail)}}
}

// nodePool is a NodePool, as Karpenter's examples write it.
func (pl *pool) object() map[string]any {
	reqs := []any{map[string]any{"key": "karpenter.sh/capacity-type", "operator": "In", "values": pl.capacity},
		map[string]any{"key": "kubernetes.io/arch", "operator": "In", "values": []string{"amd64"}}}
	if pl.requireCategory {
		reqs = append(reqs, map[string]any{"key": "karpenter.k8s.aws/instance-category", "operator": "In", "values": []string{"c", "m", "r"}})
	}
	if pl.requireGenAbove {
		reqs = append(reqs, map[string]any{"key": "karpenter.k8s.aws/instance-generation", "operator": "Gt", "values": []string{"4"}})
	}
	tmpl := map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
		"requirements": reqs}
	if pl.tgp != "" {
		tmpl["terminationGracePeriod"] = pl.tgp
	}
	if pl.expireAfter != "" {
		tmpl["expireAfter"] = pl.expireAfter
	}
	disruption := map[string]any{"consolidationPolicy": pl.policy, "consolidateAfter": pl.after}
	if pl.budgets != nil {
		disruption["budgets"] = pl.budgets
	}
	return map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": map[string]any{"name": pl.name},
		"spec": map[string]any{"template": map[string]any{"spec": tmpl}, "disruption": disruption}}
}

// ec2NodeClass is the EC2NodeClass default of Karpenter's examples.
func ec2NodeClass() map[string]any {
	sel := []any{map[string]any{"tags": map[string]any{"karpenter.sh/discovery": "demo"}}}
	return map[string]any{"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": map[string]any{"name": "default"},
		"spec": map[string]any{"amiSelectorTerms": []any{map[string]any{"alias": "al2023@latest"}}, "role": "KarpenterNodeRole-demo",
			"subnetSelectorTerms": sel, "securityGroupSelectorTerms": sel}}
}

// nodeClaim is the NodeClaim of a Karpenter node, as kubectl prints it.
func nodeClaim(n *node) map[string]any {
	return map[string]any{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
		"metadata": map[string]any{"name": fmt.Sprintf("%s-%05x", n.pool.name, hash32(n.name)&0xfffff),
			"labels": map[string]any{"karpenter.sh/nodepool": n.pool.name, "node.kubernetes.io/instance-type": n.typ}},
		"spec":   map[string]any{"nodeClassRef": map[string]any{"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}},
		"status": map[string]any{"nodeName": n.name, "providerID": providerID(n)}}
}

// clusterConfig is the eksctl ClusterConfig with the plan's node group.
func (p *plan) clusterConfig() map[string]any {
	g := p.group
	ng := map[string]any{"name": g.name, "minSize": g.min, "maxSize": g.max, "desiredCapacity": max(g.min, min(p.groupNodes(), g.max)),
		"tags": map[string]any{"k8s.io/cluster-autoscaler/enabled": "true", "k8s.io/cluster-autoscaler/demo": "owned"}}
	if g.spot {
		ng["instanceTypes"] = []string{g.instanceType}
		ng["spot"] = true
	} else {
		ng["instanceType"] = g.instanceType
	}
	key := "nodeGroups"
	if g.managed {
		key = "managedNodeGroups"
	}
	return map[string]any{"apiVersion": "eksctl.io/v1alpha5", "kind": "ClusterConfig",
		"metadata": map[string]any{"name": "demo", "region": region}, "availabilityZones": p.zones, key: []any{ng}}
}

// groupNodes is how many start nodes the node group has.
func (p *plan) groupNodes() int {
	n := 0
	for _, nd := range p.nodes {
		if nd.group != nil {
			n++
		}
	}
	return n
}

// caDeploymentObject is the Cluster Autoscaler's Deployment with the
// plan's flags, as its AWS example runs it.
func (p *plan) caDeploymentObject() *appsv1.Deployment {
	labels := map[string]string{"app": "cluster-autoscaler"}
	return &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: p.meta("Deployment", "kube-system", "cluster-autoscaler", labels, true),
		Spec: appsv1.DeploymentSpec{Replicas: ptr(int32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "cluster-autoscaler", Image: "registry.k8s.io/autoscaling/cluster-autoscaler:v1.31.0",
				Command: append([]string{"./cluster-autoscaler", "--cloud-provider=aws"}, p.caArgs...)}}}}}}
}

// replicaSet is the ReplicaSet of a Deployment, owned by it.
func (p *plan) replicaSet(w *work, name string, tmpl corev1.PodTemplateSpec) *appsv1.ReplicaSet {
	m := p.meta("ReplicaSet", w.ns, name, map[string]string{"app": w.name}, true)
	m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: w.name,
		UID: uid("Deployment", w.ns+"/"+w.name), Controller: ptr(true)}}
	return &appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}, ObjectMeta: m,
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr(int32(w.replicas)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": w.name}},
			Template: tmpl}}
}
