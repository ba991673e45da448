package statedump

import (
	"strconv"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// sharedSpec is podSpec built once per compiled spec (every replica of a
// template shares one): the copy returned shares its slices and maps with
// the others, so callers set only its top-level fields.
func (d *dumper) sharedSpec(s *cluster.PodSpec) corev1.PodSpec {
	if d.specs == nil {
		d.specs = map[*cluster.PodSpec]corev1.PodSpec{}
	}
	out, ok := d.specs[s]
	if !ok {
		out = d.podSpec(s)
		d.specs[s] = out
	}
	return out
}

// podSpec rebuilds a pod spec from its compiled form.
func (d *dumper) podSpec(s *cluster.PodSpec) corev1.PodSpec {
	syms, res := d.cl.Syms, d.cl.Resources
	r := s.Requests
	r[cluster.Pods] = 0 // the simulator's own count of the pod, not a request
	req := ResourceList(res, r)
	var lim corev1.ResourceList
	for name, q := range req {
		if i, _ := res.Lookup(name); i >= 4 {
			if lim == nil {
				lim = corev1.ResourceList{}
			}
			lim[name] = q // extended resources need limits equal to requests
		}
	}
	out := corev1.PodSpec{
		Containers: []corev1.Container{{Name: "main", Image: "clustersim.dev/placeholder",
			Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}},
		SchedulerName:     s.SchedulerName,
		PriorityClassName: s.PriorityClassName,
		Volumes:           specVolumes(s),
	}
	if len(req) == 0 {
		out.Containers[0].Resources.Requests = nil
	}
	if s.Priority != 0 || s.PriorityClassName != "" {
		p := s.Priority
		out.Priority = &p
	}
	if s.PreemptNever {
		never := corev1.PreemptNever
		out.PreemptionPolicy = &never
	}
	// Always written: 0 (the EKS guide's inflate) is not the 30s default.
	g := int64(s.TerminationGrace.Seconds())
	out.TerminationGracePeriodSeconds = &g
	if len(s.NodeSelector) > 0 {
		out.NodeSelector = map[string]string{}
		for _, r := range s.NodeSelector {
			if r.Op == cluster.OpIn && len(r.Values) == 1 {
				out.NodeSelector[syms.Name(r.Key)] = syms.Name(r.Values[0])
			}
		}
	}
	for _, t := range s.Tolerations {
		out.Tolerations = append(out.Tolerations, toleration(syms, t))
	}
	var aff corev1.Affinity
	if s.Affinity != nil || len(s.Preferred) > 0 {
		na := &corev1.NodeAffinity{}
		if s.Affinity != nil {
			na.RequiredDuringSchedulingIgnoredDuringExecution = &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{}}
			for _, t := range s.Affinity.Terms {
				na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms = append(
					na.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms, NodeSelectorTerm(syms, t))
			}
		}
		for _, p := range s.Preferred {
			na.PreferredDuringSchedulingIgnoredDuringExecution = append(na.PreferredDuringSchedulingIgnoredDuringExecution,
				corev1.PreferredSchedulingTerm{Weight: p.Weight, Preference: NodeSelectorTerm(syms, p.Term)})
		}
		aff.NodeAffinity = na
	}
	if len(s.PodAffinity)+len(s.PreferredPodAffinity) > 0 {
		aff.PodAffinity = &corev1.PodAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution:  d.affinityTerms(s.PodAffinity),
			PreferredDuringSchedulingIgnoredDuringExecution: d.weightedTerms(s.PreferredPodAffinity),
		}
	}
	if len(s.PodAntiAffinity)+len(s.PreferredPodAntiAffinity) > 0 {
		aff.PodAntiAffinity = &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution:  d.affinityTerms(s.PodAntiAffinity),
			PreferredDuringSchedulingIgnoredDuringExecution: d.weightedTerms(s.PreferredPodAntiAffinity),
		}
	}
	if aff != (corev1.Affinity{}) {
		out.Affinity = &aff
	}
	for _, c := range s.Spread {
		tsc := corev1.TopologySpreadConstraint{MaxSkew: c.MaxSkew, TopologyKey: syms.Name(c.TopologyKey),
			WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: labelSelector(syms, c.Selector)}
		if c.Hard {
			tsc.WhenUnsatisfiable = corev1.DoNotSchedule
		}
		if c.MinDomains > 0 {
			m := c.MinDomains
			tsc.MinDomains = &m
		}
		if !c.HonorNodeAffinity {
			ignore := corev1.NodeInclusionPolicyIgnore
			tsc.NodeAffinityPolicy = &ignore
		}
		if c.HonorTaints {
			honor := corev1.NodeInclusionPolicyHonor
			tsc.NodeTaintsPolicy = &honor
		}
		out.TopologySpreadConstraints = append(out.TopologySpreadConstraints, tsc)
	}
	return out
}

func toleration(syms *cluster.Symbols, t cluster.Toleration) corev1.Toleration {
	out := corev1.Toleration{Effect: corev1.TaintEffect(t.Effect.String())}
	if t.Key != cluster.NoSym {
		out.Key = syms.Name(t.Key)
	}
	switch t.Op {
	case cluster.TolerateExists:
		out.Operator = corev1.TolerationOpExists
	default:
		out.Operator = corev1.TolerationOpEqual
		if t.Value != cluster.NoSym {
			out.Value = syms.Name(t.Value)
		}
	}
	if t.Seconds != cluster.Forever && t.Effect == cluster.EffectNoExecute {
		s := int64(t.Seconds.Seconds())
		out.TolerationSeconds = &s
	}
	return out
}

// NodeSelectorTerm converts a compiled node selector term.
func NodeSelectorTerm(syms *cluster.Symbols, t cluster.Term) corev1.NodeSelectorTerm {
	var out corev1.NodeSelectorTerm
	for _, r := range t.Reqs {
		req := Requirement(syms, r)
		if r.Field {
			out.MatchFields = append(out.MatchFields, req)
		} else {
			out.MatchExpressions = append(out.MatchExpressions, req)
		}
	}
	return out
}

// Requirement converts a compiled requirement.
func Requirement(syms *cluster.Symbols, r cluster.Requirement) corev1.NodeSelectorRequirement {
	out := corev1.NodeSelectorRequirement{Key: syms.Name(r.Key), Operator: corev1.NodeSelectorOperator(r.Op.String())}
	if r.Field {
		out.Key = metav1.ObjectNameField
	}
	switch r.Op {
	case cluster.OpIn, cluster.OpNotIn:
		for _, v := range r.Values {
			out.Values = append(out.Values, syms.Name(v))
		}
	case cluster.OpGt, cluster.OpLt:
		out.Values = []string{strconv.FormatInt(r.Num, 10)}
	}
	return out
}

func labelSelector(syms *cluster.Symbols, s cluster.LabelSelector) *metav1.LabelSelector {
	if s.Nothing {
		return nil
	}
	out := &metav1.LabelSelector{}
	for _, r := range s.Reqs {
		if r.Op == cluster.OpIn && len(r.Values) == 1 {
			if out.MatchLabels == nil {
				out.MatchLabels = map[string]string{}
			}
			out.MatchLabels[syms.Name(r.Key)] = syms.Name(r.Values[0])
			continue
		}
		req := Requirement(syms, r)
		out.MatchExpressions = append(out.MatchExpressions, metav1.LabelSelectorRequirement{Key: req.Key,
			Operator: metav1.LabelSelectorOperator(req.Operator), Values: req.Values})
	}
	return out
}

func (d *dumper) affinityTerm(t cluster.AffinityTerm) corev1.PodAffinityTerm {
	syms := d.cl.Syms
	out := corev1.PodAffinityTerm{LabelSelector: labelSelector(syms, t.Selector), TopologyKey: syms.Name(t.TopologyKey)}
	for _, ns := range t.Namespaces {
		out.Namespaces = append(out.Namespaces, syms.Name(ns))
	}
	if t.NamespaceSelector != nil {
		out.NamespaceSelector = labelSelector(syms, *t.NamespaceSelector)
	}
	return out
}

func (d *dumper) affinityTerms(ts []cluster.AffinityTerm) []corev1.PodAffinityTerm {
	var out []corev1.PodAffinityTerm
	for _, t := range ts {
		out = append(out, d.affinityTerm(t))
	}
	return out
}

func (d *dumper) weightedTerms(ts []cluster.AffinityTerm) []corev1.WeightedPodAffinityTerm {
	var out []corev1.WeightedPodAffinityTerm
	for _, t := range ts {
		out = append(out, corev1.WeightedPodAffinityTerm{Weight: t.Weight, PodAffinityTerm: d.affinityTerm(t)})
	}
	return out
}

// annotations are the ones the models read.
func annotations(s *cluster.PodSpec) map[string]string {
	var out map[string]string
	set := func(k, v string) {
		if out == nil {
			out = map[string]string{}
		}
		out[k] = v
	}
	if s.DoNotDisrupt {
		set("karpenter.sh/do-not-disrupt", "true")
	} else if s.DoNotDisruptFor > 0 {
		set("karpenter.sh/do-not-disrupt", s.DoNotDisruptFor.String())
	}
	if s.SafeToEvict != nil {
		set("cluster-autoscaler.kubernetes.io/safe-to-evict", strconv.FormatBool(*s.SafeToEvict))
	}
	if s.ConsumesProvReq != "" {
		set("autoscaling.x-k8s.io/consume-provisioning-request", s.ConsumesProvReq)
	}
	return out
}

// owner is the controller that a pod of instance k of workload w names.
func (d *dumper) owner(w *Workload, k int32) (metav1.OwnerReference, bool) {
	t := true
	ref := metav1.OwnerReference{Controller: &t, BlockOwnerDeletion: &t}
	switch w.Kind {
	case KindDeployment:
		ref.APIVersion, ref.Kind, ref.Name = "apps/v1", "ReplicaSet", rsName(w)
	case KindStatefulSet, KindDaemonSet:
		ref.APIVersion, ref.Kind, ref.Name = "apps/v1", w.Kind, w.Name
	case KindJob:
		if k < 0 || int(k) >= len(w.Instances) {
			return ref, false
		}
		ref.APIVersion, ref.Kind, ref.Name = "batch/v1", "Job", w.Instances[k].Name
	default:
		return ref, false
	}
	ref.UID = UID(ref.Kind, w.Namespace, ref.Name)
	return ref, true
}

func rsName(w *Workload) string { return w.Name + "-" + TemplateHash(w.Namespace, w.Name) }

// podLabels are the spec's labels, plus pod-template-hash on a
// Deployment's pods.
func (d *dumper) podLabels(w *Workload, s *cluster.PodSpec) map[string]string {
	ls := d.labels(s.Labels)
	if w != nil && w.Kind == KindDeployment {
		if ls == nil {
			ls = map[string]string{}
		}
		ls[appsv1.DefaultDeploymentUniqueLabelKey] = TemplateHash(w.Namespace, w.Name)
	}
	return ls
}

func (d *dumper) pods() {
	for i := range d.cl.Pods {
		p := &d.cl.Pods[i]
		if p.Phase.Terminal() {
			continue
		}
		var w *Workload
		if p.Workload >= 0 && int(p.Workload) < len(d.in.Workloads) {
			w = &d.in.Workloads[p.Workload]
		}
		ns := d.cl.Syms.Name(p.Namespace)
		pod := corev1.Pod{
			TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
			ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: ns, UID: UID("Pod", ns, p.Name),
				Labels: d.podLabels(w, p.Spec), Annotations: annotations(p.Spec), CreationTimestamp: d.time(p.Created)},
			Spec: d.sharedSpec(p.Spec),
		}
		if w != nil && d.in.InstanceOf != nil {
			if ref, ok := d.owner(w, d.in.InstanceOf(cluster.PodID(i))); ok {
				pod.OwnerReferences = []metav1.OwnerReference{ref}
			}
		}
		if w != nil && w.Kind == KindJob {
			pod.Spec.RestartPolicy = corev1.RestartPolicyNever
		}
		pod.Spec.NodeName = p.Spec.NodeName
		pod.Spec.Volumes = podVolumes(p.Spec, pod.Spec.Volumes, p.Name)
		scheduled := corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: d.time(p.BoundAt)}
		pod.Status.Phase = corev1.PodPending
		if p.Phase.OnNode() {
			pod.Spec.NodeName = d.cl.Nodes[p.Node].Name
			pod.Status.HostIP = ""
		}
		switch p.Phase {
		case cluster.Pending:
			scheduled = corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, LastTransitionTime: d.time(p.Created)}
			if p.Unschedulable {
				scheduled.Reason = corev1.PodReasonUnschedulable
				scheduled.Message = "0/" + strconv.Itoa(d.cl.LiveNodes()) + " nodes are available"
			}
		case cluster.Running:
			pod.Status.Phase = corev1.PodRunning
			// An imported pod keeps the start time of the export
			// (do-not-disrupt durations count from it).
			st := d.time(p.StartTime())
			pod.Status.StartTime = &st
		}
		pod.Status.Conditions = []corev1.PodCondition{scheduled}
		if p.Terminating {
			now := metav1.NewTime(d.now)
			pod.DeletionTimestamp = &now
			g := int64(30)
			if pod.Spec.TerminationGracePeriodSeconds != nil {
				g = *pod.Spec.TerminationGracePeriodSeconds
			}
			pod.DeletionGracePeriodSeconds = &g
		}
		d.item(&pod)
	}
}

// template is a workload's pod template.
func (d *dumper) template(w *Workload) corev1.PodTemplateSpec {
	t := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: d.podLabels(w, w.Pod), Annotations: annotations(w.Pod)},
		Spec: d.podSpec(w.Pod)}
	t.Spec.NodeName = w.Pod.NodeName
	if w.Kind == KindJob {
		t.Spec.RestartPolicy = corev1.RestartPolicyNever
	}
	if w.Kind == KindStatefulSet && w.ReadyAfter > 0 {
		t.Spec.Containers[0].ReadinessProbe = readinessAfter(w.ReadyAfter)
	}
	return t
}

// readinessAfter is a readinessProbe that makes a pod Ready d after it
// starts (whole seconds, rounded up): the kubelet runs it when the
// container starts, inside its initial delay, then a period later, just
// past it (kubelet.ReadyAfter). The model's probes run no handler: none is
// written.
func readinessAfter(d time.Duration) *corev1.Probe {
	s := int32((d + time.Second - 1) / time.Second)
	return &corev1.Probe{InitialDelaySeconds: s, PeriodSeconds: s, SuccessThreshold: 1}
}

// selector selects the workload's pods: its pods' labels.
func (d *dumper) selector(w *Workload) *metav1.LabelSelector {
	if s := w.Pod.OwnerSelector; s != nil && !s.Nothing {
		return labelSelector(d.cl.Syms, *s)
	}
	return &metav1.LabelSelector{MatchLabels: d.labels(w.Pod.Labels)}
}

// counts are a workload's live pods: all, Running, by instance.
func (d *dumper) counts() (all, running [][]int32) {
	all = make([][]int32, len(d.in.Workloads))
	running = make([][]int32, len(d.in.Workloads))
	for i, w := range d.in.Workloads {
		all[i] = make([]int32, len(w.Instances))
		running[i] = make([]int32, len(w.Instances))
	}
	if d.in.InstanceOf == nil {
		return all, running
	}
	for i := range d.cl.Pods {
		p := &d.cl.Pods[i]
		if p.Phase.Terminal() || p.Workload < 0 || int(p.Workload) >= len(all) {
			continue
		}
		k := d.in.InstanceOf(cluster.PodID(i))
		if k < 0 || int(k) >= len(all[p.Workload]) {
			continue
		}
		all[p.Workload][k]++
		if p.Phase == cluster.Running {
			running[p.Workload][k]++
		}
	}
	return all, running
}

func (d *dumper) controllers() {
	all, running := d.counts()
	meta := func(kind string, w *Workload, name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: w.Namespace, UID: UID(kind, w.Namespace, name),
			Labels: d.labels(w.Pod.Labels), CreationTimestamp: metav1.NewTime(d.in.Epoch.UTC())}
	}
	sum := func(xs []int32) (n int32) {
		for _, x := range xs {
			n += x
		}
		return n
	}
	desired := func(w *Workload) (n int32) {
		for _, in := range w.Instances {
			n += in.Desired
		}
		return n
	}
	for _, kind := range []string{KindDeployment, "ReplicaSet", KindStatefulSet, KindDaemonSet, KindJob} {
		for i := range d.in.Workloads {
			w := &d.in.Workloads[i]
			if len(w.Instances) == 0 {
				continue // not arrived yet
			}
			replicas, live, ready := desired(w), sum(all[i]), sum(running[i])
			switch {
			case kind == KindDeployment && w.Kind == KindDeployment:
				d.item(&appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: kind}, ObjectMeta: meta(kind, w, w.Name),
					Spec:   appsv1.DeploymentSpec{Replicas: &replicas, Selector: d.selector(w), Template: d.template(w)},
					Status: appsv1.DeploymentStatus{Replicas: live, ReadyReplicas: ready, AvailableReplicas: ready, UpdatedReplicas: live}})
			case kind == "ReplicaSet" && w.Kind == KindDeployment:
				t, dep := true, meta(KindDeployment, w, w.Name)
				m := meta(kind, w, rsName(w))
				m.Labels = d.podLabels(w, w.Pod)
				m.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: KindDeployment, Name: w.Name, UID: dep.UID,
					Controller: &t, BlockOwnerDeletion: &t}}
				sel := d.selector(w)
				if sel.MatchLabels == nil {
					sel.MatchLabels = map[string]string{}
				}
				sel.MatchLabels[appsv1.DefaultDeploymentUniqueLabelKey] = TemplateHash(w.Namespace, w.Name)
				d.item(&appsv1.ReplicaSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: kind}, ObjectMeta: m,
					Spec:   appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: sel, Template: d.template(w)},
					Status: appsv1.ReplicaSetStatus{Replicas: live, ReadyReplicas: ready, AvailableReplicas: ready}})
			case kind == KindStatefulSet && w.Kind == KindStatefulSet:
				policy := appsv1.ParallelPodManagement
				if w.OrderedReady {
					policy = appsv1.OrderedReadyPodManagement
				}
				d.item(&appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: kind}, ObjectMeta: meta(kind, w, w.Name),
					Spec: appsv1.StatefulSetSpec{Replicas: &replicas, ServiceName: w.Name, Selector: d.selector(w), Template: d.template(w),
						VolumeClaimTemplates: claimTemplates(w.Pod), PodManagementPolicy: policy, MinReadySeconds: w.MinReadySeconds},
					Status: appsv1.StatefulSetStatus{Replicas: live, ReadyReplicas: ready, AvailableReplicas: ready}})
			case kind == KindDaemonSet && w.Kind == KindDaemonSet:
				d.item(&appsv1.DaemonSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: kind}, ObjectMeta: meta(kind, w, w.Name),
					Spec: appsv1.DaemonSetSpec{Selector: d.selector(w), Template: d.template(w)},
					Status: appsv1.DaemonSetStatus{DesiredNumberScheduled: live, CurrentNumberScheduled: live, NumberReady: ready,
						NumberAvailable: ready}})
			case kind == KindJob && w.Kind == KindJob:
				for k, in := range w.Instances {
					if in.Done {
						continue
					}
					par, comp, bl := w.Parallelism, in.Desired, w.BackoffLimit
					d.item(&batchv1.Job{TypeMeta: metav1.TypeMeta{APIVersion: "batch/v1", Kind: kind}, ObjectMeta: meta(kind, w, in.Name),
						Spec:   batchv1.JobSpec{Parallelism: &par, Completions: &comp, BackoffLimit: &bl, Template: d.template(w)},
						Status: batchv1.JobStatus{Active: all[i][k], Ready: &running[i][k], Succeeded: in.Succeeded, Failed: in.Failures}})
				}
			}
		}
	}
}
