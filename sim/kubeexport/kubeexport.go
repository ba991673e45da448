// Package kubeexport writes, for tests and benchmarks, what `kubectl get
// nodes,pods,deployments,... -A -o yaml` (or -o json) prints for an EKS
// cluster: a List (apiVersion v1, kind List, metadata.resourceVersion "")
// of objects built with the real k8s.io/api types and filled in as the API
// server fills them (uids, resourceVersions, creationTimestamps,
// managedFields, ownerReferences, status with conditions, default
// tolerations, service account volumes), plus what sim import must never
// carry over (a Secret, a ConfigMap, env values, args). It streams: a
// gigabyte export is written one object at a time.
package kubeexport

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// Secret is the value of the export's Secret, env values and args: it must
// never appear in an import.
const Secret = "s3cr3t-value-do-not-leak"

// Cluster shapes the export.
type Cluster struct {
	// Nodes: half in a Karpenter NodePool "default" (spot), half in the
	// managed node group "core" (on-demand), m5.4xlarge across three
	// zones of us-east-1.
	Nodes int
	// Deployments of Replicas each; their pods run round-robin on the
	// nodes. Each has a ReplicaSet; every fourth also has an old one
	// scaled to 0 (a past rollout).
	Deployments, Replicas int
	// Pending pods of the first Deployment beyond its running ones
	// (its replicas include them); Terminating extra pods of it.
	Pending, Terminating int
	// Extra adds a StatefulSet (3 pods), a Job in progress (4 of 10
	// done, 2 running), a DaemonSet (a pod on every node), a bare Pod, an
	// HPA, a PDB, a Secret, a ConfigMap and a Service.
	Extra bool
	// Storage adds what kubectl get storageclasses,pv,pvc prints and
	// pods that use claims (StorageWrite): needs 6 nodes at least.
	Storage bool
	// JSON writes -o json instead of -o yaml.
	JSON bool
}

var created = metav1.NewTime(time.Date(2026, 11, 20, 8, 30, 0, 0, time.UTC))

var zones = []string{"us-east-1a", "us-east-1b", "us-east-1c"}

// NodeName is the name of node i.
func NodeName(i int) string { return fmt.Sprintf("ip-10-0-%d-%d.ec2.internal", i/250, i%250+1) }

// DeploymentName is the name of Deployment d.
func DeploymentName(d int) string { return fmt.Sprintf("svc-%04d", d) }

// NodeOfPod is the node the r-th pod of Deployment d runs on.
func (c Cluster) NodeOfPod(d, r int) int { return (d*c.Replicas + r) % c.Nodes }

func uid(kind string, i int) types.UID {
	return types.UID(fmt.Sprintf("%08x-%04x-4%03x-8000-%012x", len(kind)*7919+i, i%65536, i%4096, i))
}

// managed is the managedFields the API server records: the creator's
// entry and, as on every running pod, the kubelet's status entry (the bulk
// of a real export's pods).
func managed(manager string) []metav1.ManagedFieldsEntry {
	return []metav1.ManagedFieldsEntry{{
		Manager: manager, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &created,
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"0\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:env":{".":{},"k:{\"name\":\"DB_PASSWORD\"}":{".":{},"f:name":{},"f:value":{}}},"f:image":{},"f:imagePullPolicy":{},"f:name":{},"f:ports":{".":{},"k:{\"containerPort\":8080,\"protocol\":\"TCP\"}":{".":{},"f:containerPort":{},"f:protocol":{}}},"f:readinessProbe":{".":{},"f:httpGet":{".":{},"f:path":{},"f:port":{},"f:scheme":{}}},"f:resources":{".":{},"f:limits":{".":{},"f:memory":{}},"f:requests":{".":{},"f:cpu":{},"f:memory":{}}},"f:terminationMessagePath":{},"f:terminationMessagePolicy":{}}},"f:dnsPolicy":{},"f:enableServiceLinks":{},"f:restartPolicy":{},"f:schedulerName":{},"f:securityContext":{},"f:terminationGracePeriodSeconds":{},"f:topologySpreadConstraints":{}}}`)},
	}, {
		Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", Time: &created, Subresource: "status",
		FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:status":{"f:conditions":{"k:{\"type\":\"ContainersReady\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Initialized\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"PodReadyToStartContainers\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}},"k:{\"type\":\"Ready\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:status":{},"f:type":{}}},"f:containerStatuses":{},"f:hostIP":{},"f:hostIPs":{},"f:phase":{},"f:podIP":{},"f:podIPs":{".":{},"k:{\"ip\":\"10.1.0.1\"}":{".":{},"f:ip":{}}},"f:startTime":{}}}`)},
	}}
}

func meta(kind, ns, name string, i int, labels map[string]string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: ns, UID: uid(kind, i), ResourceVersion: fmt.Sprint(1000 + i),
		Generation: 1, CreationTimestamp: created, Labels: labels, ManagedFields: managed("kube-controller-manager"),
		Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"env":"` + Secret + `"}`}}
}

func ptr[T any](v T) *T { return &v }

// Node is node i as the API server returns it.
func (c Cluster) Node(i int) *corev1.Node {
	zone := zones[i%len(zones)]
	name := NodeName(i)
	labels := map[string]string{
		"beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/instance-type": "m5.4xlarge", "beta.kubernetes.io/os": "linux",
		"failure-domain.beta.kubernetes.io/region": "us-east-1", "failure-domain.beta.kubernetes.io/zone": zone,
		"k8s.io/cloud-provider-aws": "a1b2c3", "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": name, "kubernetes.io/os": "linux",
		"node.kubernetes.io/instance-type": "m5.4xlarge", "topology.k8s.aws/zone-id": "use1-az" + fmt.Sprint(i%3+1),
		"topology.kubernetes.io/region": "us-east-1", "topology.kubernetes.io/zone": zone,
	}
	var taints []corev1.Taint
	if i%2 == 0 {
		for k, v := range map[string]string{"karpenter.sh/nodepool": "default", "karpenter.sh/capacity-type": "spot",
			"karpenter.sh/initialized": "true", "karpenter.sh/registered": "true", "karpenter.k8s.aws/instance-family": "m5",
			"karpenter.k8s.aws/instance-size": "4xlarge", "karpenter.k8s.aws/instance-cpu": "16"} {
			labels[k] = v
		}
	} else {
		for k, v := range map[string]string{"eks.amazonaws.com/nodegroup": "core", "eks.amazonaws.com/capacityType": "ON_DEMAND",
			"eks.amazonaws.com/nodegroup-image": "ami-0123456789abcdef0", "eks.amazonaws.com/sourceLaunchTemplateId": "lt-0123456789abcdef0"} {
			labels[k] = v
		}
		if i%10 == 1 {
			taints = []corev1.Taint{{Key: "dedicated", Value: "core", Effect: corev1.TaintEffectNoSchedule}}
		}
	}
	n := &corev1.Node{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Node"}, ObjectMeta: meta("Node", "", name, i, labels)}
	n.Annotations = map[string]string{"alpha.kubernetes.io/provided-node-ip": "10.0.0.1", "node.alpha.kubernetes.io/ttl": "0",
		"volumes.kubernetes.io/controller-managed-attach-detach": "true", "csi.volume.kubernetes.io/nodeid": `{"ebs.csi.aws.com":"i-0abc"}`}
	n.Spec = corev1.NodeSpec{ProviderID: fmt.Sprintf("aws:///%s/i-%017x", zone, i), Taints: taints}
	rl := func(cpu, mem, pods string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem),
			corev1.ResourcePods: resource.MustParse(pods), corev1.ResourceEphemeralStorage: resource.MustParse("76006436Ki"),
			"hugepages-1Gi": resource.MustParse("0"), "hugepages-2Mi": resource.MustParse("0")}
	}
	beat := metav1.NewTime(created.Add(time.Hour))
	n.Status = corev1.NodeStatus{
		Capacity: rl("16", "64687112Ki", "234"), Allocatable: rl("15890m", "63669256Ki", "234"),
		Conditions: []corev1.NodeCondition{
			{Type: corev1.NodeMemoryPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: beat, LastTransitionTime: created, Reason: "KubeletHasSufficientMemory", Message: "kubelet has sufficient memory available"},
			{Type: corev1.NodeDiskPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: beat, LastTransitionTime: created, Reason: "KubeletHasNoDiskPressure"},
			{Type: corev1.NodePIDPressure, Status: corev1.ConditionFalse, LastHeartbeatTime: beat, LastTransitionTime: created, Reason: "KubeletHasSufficientPID"},
			{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: beat, LastTransitionTime: created, Reason: "KubeletReady", Message: "kubelet is posting ready status"},
		},
		Addresses:       []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "10.0.0.1"}, {Type: corev1.NodeHostName, Address: name}, {Type: corev1.NodeInternalDNS, Address: name}},
		DaemonEndpoints: corev1.NodeDaemonEndpoints{KubeletEndpoint: corev1.DaemonEndpoint{Port: 10250}},
		NodeInfo: corev1.NodeSystemInfo{MachineID: "ec2abc", SystemUUID: "ec2abc", BootID: "b00t", KernelVersion: "6.1.112-124.190.amzn2023.x86_64",
			OSImage: "Amazon Linux 2023.6.20241010", ContainerRuntimeVersion: "containerd://1.7.22", KubeletVersion: "v1.31.0-eks-a737599",
			KubeProxyVersion: "v1.31.0-eks-a737599", OperatingSystem: "linux", Architecture: "amd64"},
		Images: []corev1.ContainerImage{{Names: []string{"602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni@sha256:abc"}, SizeBytes: 44000000}},
	}
	return n
}

func container(name string, cpu, mem string) corev1.Container {
	return corev1.Container{
		Name: name, Image: "123456789012.dkr.ecr.us-east-1.amazonaws.com/" + name + ":v1.2.3",
		Command: []string{"/app/server"}, Args: []string{"--token=" + Secret},
		Env: []corev1.EnvVar{{Name: "DB_PASSWORD", Value: Secret},
			{Name: "API_KEY", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "api"}, Key: "key"}}}},
		Ports:                    []corev1.ContainerPort{{ContainerPort: 8080, Protocol: corev1.ProtocolTCP}},
		Resources:                corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu), corev1.ResourceMemory: resource.MustParse(mem)}, Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(mem)}},
		VolumeMounts:             []corev1.VolumeMount{{Name: "kube-api-access-abcde", MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true}},
		TerminationMessagePath:   "/dev/termination-log",
		TerminationMessagePolicy: corev1.TerminationMessageReadFile,
		ImagePullPolicy:          corev1.PullIfNotPresent,
		ReadinessProbe:           &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}}, PeriodSeconds: 10},
	}
}

// podSpec is a template's spec as the API server defaults it.
func podSpec(name string, restart corev1.RestartPolicy) corev1.PodSpec {
	return corev1.PodSpec{
		Containers:                    []corev1.Container{container(name, "100m", "128Mi")},
		RestartPolicy:                 restart,
		TerminationGracePeriodSeconds: ptr(int64(30)),
		DNSPolicy:                     corev1.DNSClusterFirst,
		ServiceAccountName:            "default",
		SecurityContext:               &corev1.PodSecurityContext{},
		SchedulerName:                 corev1.DefaultSchedulerName,
		Tolerations:                   []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "core", Effect: corev1.TaintEffectNoSchedule}},
		TopologySpreadConstraints: []corev1.TopologySpreadConstraint{{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
			WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}}},
	}
}

// pod is a pod of a controller, as the API server and kubelet leave it.
func pod(ns, name string, i int, tmpl corev1.PodTemplateSpec, owner metav1.OwnerReference, node string, phase corev1.PodPhase) *corev1.Pod {
	p := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: meta("Pod", ns, name, i, tmpl.Labels), Spec: *tmpl.Spec.DeepCopy()}
	p.Annotations = nil
	p.GenerateName = owner.Name + "-"
	p.OwnerReferences = []metav1.OwnerReference{owner}
	p.ManagedFields = managed("kubelet")
	p.Spec.NodeName = node
	p.Spec.Priority = ptr(int32(0))
	p.Spec.EnableServiceLinks = ptr(true)
	p.Spec.PreemptionPolicy = ptr(corev1.PreemptLowerPriority)
	p.Spec.Tolerations = append(p.Spec.Tolerations,
		corev1.Toleration{Key: "node.kubernetes.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))},
		corev1.Toleration{Key: "node.kubernetes.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(300))})
	p.Spec.Volumes = []corev1.Volume{{Name: "kube-api-access-abcde", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Path: "token", ExpirationSeconds: ptr(int64(3607))}}}}}}}
	p.Status = corev1.PodStatus{Phase: phase, QOSClass: corev1.PodQOSBurstable}
	if phase == corev1.PodPending && node == "" {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, LastTransitionTime: created,
			Reason: "Unschedulable", Message: "0/3 nodes are available: 3 Insufficient cpu. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."}}
		return p
	}
	p.Status.HostIP, p.Status.PodIP = "10.0.0.1", fmt.Sprintf("10.1.%d.%d", i/250%250, i%250)
	p.Status.StartTime = &created
	p.Status.Conditions = []corev1.PodCondition{
		{Type: corev1.PodReadyToStartContainers, Status: corev1.ConditionTrue, LastTransitionTime: created},
		{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, LastTransitionTime: created},
		{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: created},
		{Type: corev1.ContainersReady, Status: corev1.ConditionTrue, LastTransitionTime: created},
		{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: created},
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: tmpl.Spec.Containers[0].Name, Ready: true, RestartCount: 0,
		Image: tmpl.Spec.Containers[0].Image, ImageID: "sha256:0123", ContainerID: "containerd://0123", Started: ptr(true),
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: created}}}}
	return p
}

func ownerRef(kind, apiVersion, name string, i int) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: uid(kind, i), Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
}

// Write writes the export.
func (c Cluster) Write(w io.Writer) error {
	lw := newListWriter(w, c.JSON)
	for i := 0; i < c.Nodes; i++ {
		lw.add(c.Node(i))
	}
	podIndex := 0
	for d := 0; d < c.Deployments; d++ {
		name := DeploymentName(d)
		ns := fmt.Sprintf("team-%d", d%7)
		labels := map[string]string{"app": name}
		tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels, Annotations: map[string]string{"checksum/config": "abc"}},
			Spec: podSpec(name, corev1.RestartPolicyAlways)}
		replicas := int32(c.Replicas)
		if d == 0 {
			replicas += int32(c.Pending)
		}
		dep := &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}, ObjectMeta: meta("Deployment", ns, name, d, labels),
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl,
				Strategy:             appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr(intstr.FromString("25%")), MaxUnavailable: ptr(intstr.FromString("25%"))}},
				RevisionHistoryLimit: ptr(int32(10)), ProgressDeadlineSeconds: ptr(int32(600))},
			Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: replicas, UpdatedReplicas: replicas, ReadyReplicas: int32(c.Replicas), AvailableReplicas: int32(c.Replicas),
				Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: corev1.ConditionTrue, Reason: "MinimumReplicasAvailable", LastUpdateTime: created, LastTransitionTime: created}}}}
		lw.add(dep)
		hash := fmt.Sprintf("7d9f%05x", d)
		rsLabels := map[string]string{"app": name, "pod-template-hash": hash}
		rsName := name + "-" + hash
		rsTmpl := *tmpl.DeepCopy()
		rsTmpl.Labels = rsLabels
		rs := &appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "ReplicaSet"}, ObjectMeta: meta("ReplicaSet", ns, rsName, d, rsLabels),
			Spec:   appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: rsLabels}, Template: rsTmpl},
			Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: int32(c.Replicas), AvailableReplicas: int32(c.Replicas), ObservedGeneration: 1}}
		rs.OwnerReferences = []metav1.OwnerReference{ownerRef("Deployment", "apps/v1", name, d)}
		rs.Annotations["deployment.kubernetes.io/revision"] = "2"
		lw.add(rs)
		if d%4 == 0 {
			old := rs.DeepCopy()
			old.Name = name + "-5c6b" + fmt.Sprintf("%05x", d)
			old.Spec.Replicas = ptr(int32(0))
			old.Status = appsv1.ReplicaSetStatus{}
			lw.add(old)
		}
		owner := ownerRef("ReplicaSet", "apps/v1", rsName, d)
		// The running pods differ only in name, uid, resourceVersion,
		// node and IP: marshal one with placeholders and fill them in (a
		// gigabyte export is written in seconds).
		proto := pod(ns, "zzNAMEzz", 0, rsTmpl, owner, "zzNODEzz", corev1.PodRunning)
		proto.UID, proto.ResourceVersion, proto.Status.PodIP = "zzUIDzz", "zzRVzz", "zzIPzz"
		text := lw.text(proto)
		for r := 0; r < c.Replicas; r++ {
			rv := fmt.Sprint(1000 + podIndex)
			if !c.JSON {
				rv = `"` + rv + `"`
			}
			lw.raw(strings.NewReplacer("zzNAMEzz", fmt.Sprintf("%s-%05x", rsName, r), "zzNODEzz", NodeName(c.NodeOfPod(d, r)),
				"zzUIDzz", string(uid("Pod", podIndex)), "zzRVzz", rv, "zzIPzz", fmt.Sprintf("10.1.%d.%d", podIndex/250%250, podIndex%250)).Replace(text))
			podIndex++
		}
		if d == 0 {
			for r := 0; r < c.Pending; r++ {
				lw.add(pod(ns, fmt.Sprintf("%s-p%04x", rsName, r), podIndex, rsTmpl, owner, "", corev1.PodPending))
				podIndex++
			}
			for r := 0; r < c.Terminating; r++ {
				p := pod(ns, fmt.Sprintf("%s-t%04x", rsName, r), podIndex, rsTmpl, owner, NodeName(r%c.Nodes), corev1.PodRunning)
				p.DeletionTimestamp, p.DeletionGracePeriodSeconds = &created, ptr(int64(30))
				lw.add(p)
				podIndex++
			}
		}
	}
	if c.Extra {
		c.extra(lw, &podIndex)
	}
	if c.Storage {
		c.storage(lw, &podIndex)
	}
	return lw.close()
}

func (c Cluster) extra(lw *listWriter, podIndex *int) {
	ns := "data"
	// A StatefulSet of 3: pods db-0..db-2 on nodes 1, 3, 5.
	labels := map[string]string{"app": "db"}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec("db", corev1.RestartPolicyAlways)}
	// Of a PriorityClass the export lacks (priorityclasses were not
	// exported); its pods carry the value the API server resolved.
	tmpl.Spec.PriorityClassName = "database-critical"
	ss := &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, ObjectMeta: meta("StatefulSet", ns, "db", 0, labels),
		Spec:   appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl, ServiceName: "db"},
		Status: appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 3}}
	lw.add(ss)
	for o := 0; o < 3; o++ {
		t := *tmpl.DeepCopy()
		t.Labels = map[string]string{"app": "db", "statefulset.kubernetes.io/pod-name": fmt.Sprintf("db-%d", o), "controller-revision-hash": "db-5d8"}
		p := pod(ns, fmt.Sprintf("db-%d", o), *podIndex, t, ownerRef("StatefulSet", "apps/v1", "db", 0), NodeName((2*o+1)%c.Nodes), corev1.PodRunning)
		p.Spec.Priority = ptr(int32(100000))
		lw.add(p)
		*podIndex++
	}
	// A Job of 10 completions, 4 done, 2 running.
	jl := map[string]string{"batch.kubernetes.io/controller-uid": string(uid("Job", 0)), "batch.kubernetes.io/job-name": "etl", "controller-uid": string(uid("Job", 0)), "job-name": "etl"}
	jt := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: jl}, Spec: podSpec("etl", corev1.RestartPolicyNever)}
	job := &batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"}, ObjectMeta: meta("Job", ns, "etl", 0, jl),
		Spec: batchv1.JobSpec{Parallelism: ptr(int32(2)), Completions: ptr(int32(10)), BackoffLimit: ptr(int32(6)), Template: jt,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"batch.kubernetes.io/controller-uid": string(uid("Job", 0))}}, CompletionMode: ptr(batchv1.NonIndexedCompletion), Suspend: ptr(false)},
		Status: batchv1.JobStatus{Active: 2, Succeeded: 4, StartTime: &created, Ready: ptr(int32(2)), Terminating: ptr(int32(0))}}
	lw.add(job)
	for k := 0; k < 2; k++ {
		lw.add(pod(ns, fmt.Sprintf("etl-%05x", k), *podIndex, jt, ownerRef("Job", "batch/v1", "etl", 0), NodeName(k%c.Nodes), corev1.PodRunning))
		*podIndex++
	}
	done := pod(ns, "etl-done1", *podIndex, jt, ownerRef("Job", "batch/v1", "etl", 0), NodeName(0), corev1.PodSucceeded)
	lw.add(done)
	*podIndex++
	// A DaemonSet with a pod on every node.
	dl := map[string]string{"k8s-app": "aws-node"}
	dt := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: dl}, Spec: podSpec("aws-node", corev1.RestartPolicyAlways)}
	dt.Spec.Tolerations = []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	dt.Spec.TopologySpreadConstraints = nil
	lw.add(&appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"}, ObjectMeta: meta("DaemonSet", "kube-system", "aws-node", 0, dl),
		Spec: appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: dl}, Template: dt}})
	for i := 0; i < c.Nodes; i++ {
		lw.add(pod("kube-system", fmt.Sprintf("aws-node-%05x", i), *podIndex, dt, ownerRef("DaemonSet", "apps/v1", "aws-node", 0), NodeName(i), corev1.PodRunning))
		*podIndex++
	}
	// A bare Pod on node 2.
	bare := pod("default", "debug", *podIndex, corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"run": "debug"}}, Spec: podSpec("debug", corev1.RestartPolicyAlways)},
		metav1.OwnerReference{}, NodeName(2%c.Nodes), corev1.PodRunning)
	bare.OwnerReferences, bare.GenerateName = nil, ""
	lw.add(bare)
	// An HPA on the first Deployment, a PDB on it.
	first := DeploymentName(0)
	lw.add(&autoscalingv2.HorizontalPodAutoscaler{TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v2", Kind: "HorizontalPodAutoscaler"}, ObjectMeta: meta("HorizontalPodAutoscaler", "team-0", first, 0, nil),
		Spec: autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: first},
			MinReplicas: ptr(int32(1)), MaxReplicas: int32(c.Replicas + c.Pending + 10),
			Metrics: []autoscalingv2.MetricSpec{{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr(int32(70))}}}}},
		Status: autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: int32(c.Replicas), DesiredReplicas: int32(c.Replicas)}})
	lw.add(&policyv1.PodDisruptionBudget{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "PodDisruptionBudget"}, ObjectMeta: meta("PodDisruptionBudget", "team-0", first, 0, nil),
		Spec:   policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": first}}},
		Status: policyv1.PodDisruptionBudgetStatus{CurrentHealthy: int32(c.Replicas), DesiredHealthy: int32(c.Replicas - 1), ExpectedPods: int32(c.Replicas)}})
	// What must never be read or carried over.
	lw.add(&corev1.Secret{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"}, ObjectMeta: meta("Secret", ns, "api", 0, nil),
		Type: corev1.SecretTypeOpaque, Data: map[string][]byte{"key": []byte(Secret)}})
	lw.add(&corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}, ObjectMeta: meta("ConfigMap", ns, "settings", 0, nil),
		Data: map[string]string{"password": Secret}})
	lw.add(&corev1.Service{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Service"}, ObjectMeta: meta("Service", ns, "db", 0, nil),
		Spec: corev1.ServiceSpec{Selector: labels, Ports: []corev1.ServicePort{{Port: 5432}}}})
}

// listWriter writes a List one item at a time, as kubectl prints it.
type listWriter struct {
	w    *bufio.Writer
	json bool
	n    int
	err  error
}

func newListWriter(w io.Writer, asJSON bool) *listWriter {
	lw := &listWriter{w: bufio.NewWriterSize(w, 1<<20), json: asJSON}
	if asJSON {
		lw.w.WriteString("{\n    \"apiVersion\": \"v1\",\n    \"items\": [\n")
	} else {
		lw.w.WriteString("apiVersion: v1\nitems:\n")
	}
	return lw
}

func (lw *listWriter) add(obj any) { lw.raw(lw.text(obj)) }

// text is an object as it appears among the List's items.
func (lw *listWriter) text(obj any) string {
	if lw.err != nil {
		return ""
	}
	data, err := json.MarshalIndent(obj, "        ", "    ")
	if err != nil {
		lw.err = err
		return ""
	}
	if lw.json {
		return "        " + string(data)
	}
	y, err := yaml.JSONToYAML(data)
	if err != nil {
		lw.err = err
		return ""
	}
	// kubectl's items: "- " before the first line, two spaces before the
	// others.
	var b strings.Builder
	for i, line := range strings.SplitAfter(strings.TrimSuffix(string(y), "\n"), "\n") {
		if i == 0 {
			b.WriteString("- ")
		} else {
			b.WriteString("  ")
		}
		b.WriteString(line)
	}
	b.WriteString("\n")
	return b.String()
}

// raw writes an item's text.
func (lw *listWriter) raw(text string) {
	if lw.err != nil {
		return
	}
	if lw.json && lw.n > 0 {
		lw.w.WriteString(",\n")
	}
	lw.w.WriteString(text)
	lw.n++
}

func (lw *listWriter) close() error {
	if lw.err != nil {
		return lw.err
	}
	if lw.json {
		lw.w.WriteString("\n    ],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n")
	} else {
		lw.w.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	}
	return lw.w.Flush()
}
