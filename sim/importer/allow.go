package importer

import (
	"fmt"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"

	caconfig "github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	kpapis "github.com/clustersim/clustersim/sim/karpenter/apis"
)

// Allow lists. Every object the import writes keeps only the fields the
// simulation reads, named here field by field for the kinds read as maps
// (NodePools, node classes, ClusterConfigs) and built from the typed
// objects for the others: a field a newer API adds, or one an export
// carries that the simulation does not read (user data, Bottlerocket
// settings, registry credentials, subnet and security group IDs, KMS and
// target group ARNs, IAM roles, AMI owners), is left out without being
// named. What is kept is in docs/commands.md (sim import).

// keep says what of a value is kept: the value to write and whether to
// write it at all.
type keep func(im *Importer, v any) (any, bool)

// all keeps a value whole: a field whose every part the simulation reads
// (requirements, taints, limits), or one it checks strictly itself.
func all(_ *Importer, v any) (any, bool) { return v, true }

// fields keeps the listed keys of a map, each as its keep says.
type fields map[string]keep

func (f fields) keep(im *Importer, v any) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false // not the shape the simulation reads: the loader would refuse it anyway
	}
	out := map[string]any{}
	for k, kv := range m {
		if kf, listed := f[k]; listed {
			if w, ok := kf(im, kv); ok {
				out[k] = w
			}
		}
	}
	return out, true
}

// each keeps every item of a list as k says.
func each(k keep) keep {
	return func(im *Importer, v any) (any, bool) {
		l, ok := v.([]any)
		if !ok {
			return nil, false
		}
		out := make([]any, 0, len(l))
		for _, e := range l {
			if w, ok := k(im, e); ok {
				out = append(out, w)
			}
		}
		return out, true
	}
}

// annotationsKept keeps the annotations the models read.
func annotationsKept(_ *Importer, v any) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	strs := map[string]string{}
	for k, v := range m {
		if s, ok := v.(string); ok {
			strs[k] = s
		}
	}
	kept := keepAnnotations(strs)
	return kept, kept != nil
}

// nodeLabels keeps a map of node labels (a NodePool's template labels, an
// eksctl node group's labels), redacted as the nodes' are.
func nodeLabels(im *Importer, v any) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := map[string]any{}
	for k, v := range m {
		if s, ok := v.(string); ok {
			out[k] = im.nodeLabelValue(k, s)
		} else {
			out[k] = v // not a string: the loader says so
		}
	}
	return out, true
}

// requirements keeps node selector requirements (a NodePool's), their
// values redacted as the node labels they match.
func requirements(im *Importer, v any) (any, bool) {
	return each(func(im *Importer, v any) (any, bool) {
		r, ok := v.(map[string]any)
		if !ok {
			return v, true // the loader says what is wrong
		}
		key, _ := r["key"].(string)
		out := map[string]any{}
		for _, f := range []string{"key", "operator", "minValues"} {
			if x, ok := r[f]; ok {
				out[f] = x
			}
		}
		if vals, ok := r["values"].([]any); ok {
			vs := make([]any, len(vals))
			for i, x := range vals {
				if s, ok := x.(string); ok {
					vs[i] = im.nodeLabelValue(key, s)
				} else {
					vs[i] = x
				}
			}
			out["values"] = vs
		} else if x, ok := r["values"]; ok {
			out["values"] = x
		}
		return out, true
	})(im, v)
}

var objectMeta = fields{"name": all, "annotations": annotationsKept}

// nodePoolKept is a NodePool (karpenter.sh/v1 and v1beta1): what
// sim/karpenter/apis reads of it.
var nodePoolKept = fields{"apiVersion": all, "kind": all, "metadata": objectMeta.keep,
	"spec": fields{
		"template": fields{
			"metadata": fields{"labels": nodeLabels, "annotations": annotationsKept}.keep,
			"spec": fields{"taints": all, "startupTaints": all, "requirements": requirements, "nodeClassRef": all,
				"terminationGracePeriod": all, "expireAfter": all, "kubelet": all, "resources": all}.keep,
		}.keep,
		"disruption": all, "limits": all, "weight": all, "replicas": all,
	}.keep}

// nodeOverlayKept is a karpenter.sh/v1alpha1 NodeOverlay: all of its
// spec (requirements, price, priceAdjustment, capacity, weight).
var nodeOverlayKept = fields{"apiVersion": all, "kind": all, "metadata": objectMeta.keep,
	"spec": fields{"requirements": requirements, "price": all, "priceAdjustment": all, "capacity": all, "weight": all}.keep}

// capacityBufferKept is an autoscaling.x-k8s.io CapacityBuffer: all of
// its spec (the references, replicas, percentage, limits, strategy); its
// status is the buffer controller's and is worked out again.
var capacityBufferKept = fields{"apiVersion": all, "kind": all, "metadata": objectMeta.keep,
	"spec": fields{"provisioningStrategy": all, "podTemplateRef": all, "scalableRef": all, "replicas": all, "percentage": all, "limits": all}.keep}

// podTemplateKept is a v1 PodTemplate (a CapacityBuffer's
// podTemplateRef): its template as written.
var podTemplateKept = fields{"apiVersion": all, "kind": all, "metadata": objectMeta.keep, "template": all}

// provisionerKept is a karpenter.sh/v1alpha5 Provisioner, with the
// NodePool fields mixed manifests put at its spec level; the inline
// provider (subnets, security groups, instance profile, tags) is not read.
var provisionerKept = fields{"apiVersion": all, "kind": all, "metadata": objectMeta.keep,
	"spec": fields{"annotations": annotationsKept, "labels": nodeLabels, "taints": all, "startupTaints": all,
		"requirements": requirements, "kubeletConfiguration": all, "providerRef": all, "ttlSecondsAfterEmpty": all,
		"ttlSecondsUntilExpired": all, "limits": all, "weight": all, "consolidation": all,
		"consolidationPolicy": all, "consolidateAfter": all, "expireAfter": all, "disruption": all,
		"nodeClassRef": all, "kubelet": all}.keep}

// blockDevices keeps what sizes a node's ephemeral storage (and its
// volume's type and speed); KMS key and snapshot IDs are left out.
var blockDevices = each(fields{"deviceName": all, "rootVolume": all,
	"ebs": fields{"volumeSize": all, "volumeType": all, "iops": all, "throughput": all, "encrypted": all,
		"deleteOnTermination": all, "volumeInitializationRate": all}.keep}.keep)

// amiTerm keeps an amiSelectorTerms entry: its alias (which names the AMI
// family); a term without one keeps its id, name or SSM parameter (the
// loader warns when there are none), not its owner (an account).
func amiTerm(im *Importer, v any) (any, bool) {
	t, ok := v.(map[string]any)
	if !ok {
		return v, true
	}
	if a, ok := t["alias"]; ok {
		return map[string]any{"alias": a}, true
	}
	out := map[string]any{}
	for _, f := range []string{"id", "name", "ssmParameter"} {
		if s, ok := t[f].(string); ok {
			out[f] = im.redactID("ami-", s)
		}
	}
	if len(out) == 0 {
		out["name"] = im.redactID("ami-", "(selected by tags)")
	}
	return out, true
}

// ec2NodeClassKept is an EC2NodeClass: its AMI family, kubelet settings,
// block devices (the root volume's size) and instance store policy. Its
// subnet and security group selectors and its role or instance profile
// are the account's: the simulation does not read them, but the CRD
// requires them (the loader refuses an EC2NodeClass without them, as the
// API server does), so each one present is replaced by a stand-in.
var ec2NodeClassKept = fields{"apiVersion": all, "kind": all, "metadata": objectMeta.keep,
	"spec": fields{"amiFamily": all, "amiSelectorTerms": each(amiTerm), "kubelet": all,
		"blockDeviceMappings": blockDevices, "instanceStorePolicy": all, "capacityReservationSelectorTerms": reservationTerms,
		"subnetSelectorTerms":        standIn([]any{map[string]any{"id": "subnet-imported"}}),
		"securityGroupSelectorTerms": standIn([]any{map[string]any{"id": "sg-imported"}}),
		"role":                       standIn("imported"), "instanceProfile": standIn("imported")}.keep}

// standIn replaces a field the simulation does not read, but the CRD
// requires, by a value that says nothing about the account.
func standIn(v any) keep {
	return func(*Importer, any) (any, bool) { return v, true }
}

// reservationTerms drops an EC2NodeClass's capacity reservation terms
// (their tags and owners are the account's), noting that there were
// some: finishReservationTerms writes the ids its nodes run in instead.
func reservationTerms(im *Importer, v any) (any, bool) {
	im.sawReservationTerms = true
	return nil, false
}

// eksNodeClassKept is an EKS Auto Mode NodeClass: its ephemeral storage
// (the KMS key left out) and network policy default; roles, subnets,
// security groups, proxies, certificates and tags are not read.
var eksNodeClassKept = fields{"apiVersion": all, "kind": all, "metadata": objectMeta.keep,
	"spec": fields{"ephemeralStorage": fields{"size": all, "iops": all, "throughput": all}.keep, "networkPolicy": all}.keep}

// awsNodeTemplateKept is a karpenter.k8s.aws/v1alpha1 AWSNodeTemplate.
var awsNodeTemplateKept = fields{"apiVersion": all, "kind": all, "metadata": objectMeta.keep,
	"spec": fields{"amiFamily": all, "blockDeviceMappings": blockDevices}.keep}

// caTags keeps the Auto Scaling group tags the Cluster Autoscaler reads
// (k8s.io/cluster-autoscaler/...: auto-discovery and the node template of
// an empty group), the cluster name in them redacted; tags that other
// --node-group-auto-discovery flags name are added when written
// (finishClusterConfig), the others (cost centres, owners) are left out.
func caTags(im *Importer, v any) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	out := map[string]any{}
	for k, x := range m {
		if strings.HasPrefix(k, "k8s.io/cluster-autoscaler/") || strings.HasPrefix(k, "kubernetes.io/cluster/") {
			out[k] = x
		} else {
			im.pendingTags = append(im.pendingTags, pendingTag{tags: out, key: k, value: x})
		}
	}
	return out, true
}

// nodeGroupKept is an eksctl node group (managed or not): what
// sim/clusterautoscaler/config compiles.
var nodeGroupKept = fields{"name": all, "amiFamily": all, "instanceType": all, "instanceTypes": all,
	"instanceSelector": all, "availabilityZones": all, "desiredCapacity": all, "minSize": all, "maxSize": all,
	"volumeSize": all, "labels": nodeLabels, "taints": all, "maxPodsPerNode": all, "asgSuspendProcesses": all,
	"instancesDistribution": fields{"instanceTypes": all, "maxPrice": all, "onDemandBaseCapacity": all,
		"onDemandPercentageAboveBaseCapacity": all, "spotInstancePools": all, "spotAllocationStrategy": all,
		"capacityRebalance": all}.keep,
	"spot": all, "propagateASGTags": all, "tags": caTags, "outpostARN": redactedString,
	"iam": fields{"withAddonPolicies": fields{"autoScaler": all}.keep}.keep}

// clusterConfigKept is an eksctl ClusterConfig: its name, region and
// version, zones, Auto Mode setting and node groups.
var clusterConfigKept = fields{"apiVersion": all, "kind": all,
	"metadata":          fields{"name": clusterNameField, "region": all, "version": all, "tags": caTags}.keep,
	"availabilityZones": all, "localZones": all, "autoModeConfig": fields{"enabled": all, "nodePools": all}.keep,
	"nodeGroups": each(nodeGroupKept.keep), "managedNodeGroups": each(nodeGroupKept.keep)}

func clusterNameField(im *Importer, v any) (any, bool) {
	if s, ok := v.(string); ok {
		return im.clusterName(s), true
	}
	return v, true
}

// redactedString keeps a string with the identifiers --redact replaces
// (account IDs, cluster names) replaced.
func redactedString(im *Importer, v any) (any, bool) {
	if s, ok := v.(string); ok {
		return im.redactText(s), true
	}
	return v, true
}

// pendingTag is a tag kept only if a --node-group-auto-discovery flag
// names its key, which is known when the scenario is written.
type pendingTag struct {
	tags  map[string]any
	key   string
	value any
}

// mapKept reads an object as a map and keeps what the allow list says;
// the metadata's name is kept as written.
func (im *Importer) mapKept(w where, it *item, k fields) error {
	var m map[string]any
	if err := it.decode(&m); err != nil {
		return err
	}
	out, _ := k.keep(im, m)
	om := out.(map[string]any)
	md, _ := om["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	if !im.unique(w, it.kind, "", name) {
		return nil
	}
	im.passthru = append(im.passthru, om)
	return nil
}

// finishClusterConfig adds to the ClusterConfigs the tags that the
// Cluster Autoscaler's auto-discovery flags name (with the cluster name
// in their keys and values redacted), now that its Deployment is read.
func (im *Importer) finishClusterConfig() {
	var configs []map[string]any
	for _, o := range im.passthru {
		if o["kind"] == "ClusterConfig" {
			configs = append(configs, o)
		}
	}
	for _, o := range configs {
		for _, tags := range clusterConfigTags(o) {
			for k := range tags {
				im.seeClusterIn(k)
			}
		}
	}
	for _, o := range configs {
		for _, m := range clusterConfigTags(o) {
			for _, k := range sortedKeys(m) {
				v := m[k]
				delete(m, k)
				if s, ok := v.(string); ok {
					if label, ok := strings.CutPrefix(k, caconfig.TagPrefixLabel); ok {
						v = im.nodeLabelValue(label, s)
					} else {
						v = im.redactText(s)
					}
				}
				m[im.redactText(k)] = v
			}
		}
	}
	for _, p := range im.pendingTags {
		if im.discoveryKeys[p.key] {
			v := p.value
			if s, ok := v.(string); ok {
				v = im.redactText(s)
			}
			p.tags[im.redactText(p.key)] = v
		}
	}
	for _, o := range configs {
		if md, ok := o["metadata"].(map[string]any); ok {
			dropEmpty(md, "tags")
		}
		for _, k := range []string{"nodeGroups", "managedNodeGroups"} {
			gs, _ := o[k].([]any)
			for _, g := range gs {
				if gm, ok := g.(map[string]any); ok {
					dropEmpty(gm, "tags")
				}
			}
		}
	}
}

// dropEmpty deletes m[k] if it is an empty map (all its entries left out).
func dropEmpty(m map[string]any, k string) {
	if v, ok := m[k].(map[string]any); ok && len(v) == 0 {
		delete(m, k)
	}
}

// pdbKept is a PodDisruptionBudget's spec: its selector (redacted as pod
// labels are), minAvailable or maxUnavailable and eviction policy.
func (im *Importer) pdbKept(it *item) (map[string]any, error) {
	var p policyv1.PodDisruptionBudget
	if err := it.decode(&p); err != nil {
		return nil, err
	}
	s := p.Spec
	return toMap(policyv1.PodDisruptionBudgetSpec{MinAvailable: s.MinAvailable, MaxUnavailable: s.MaxUnavailable,
		Selector: im.Selector(s.Selector), UnhealthyPodEvictionPolicy: s.UnhealthyPodEvictionPolicy})
}

// hpaKept is a HorizontalPodAutoscaler's spec: its target, bounds, CPU
// utilization target and behavior. Metrics of other kinds (external
// metrics with selectors that name queues and accounts, per-container
// metrics) are not simulated: only their type is kept, for the loader's
// warning that names them.
func (im *Importer) hpaKept(it *item) (map[string]any, error) {
	ref := func(r autoscalingv2.CrossVersionObjectReference) autoscalingv2.CrossVersionObjectReference {
		return autoscalingv2.CrossVersionObjectReference{APIVersion: r.APIVersion, Kind: r.Kind, Name: im.workloadName(r.Name)}
	}
	if it.apiVersion == "autoscaling/v1" {
		var h autoscalingv1.HorizontalPodAutoscaler
		if err := it.decode(&h); err != nil {
			return nil, err
		}
		s := h.Spec
		r := ref(autoscalingv2.CrossVersionObjectReference(s.ScaleTargetRef))
		return toMap(autoscalingv1.HorizontalPodAutoscalerSpec{ScaleTargetRef: autoscalingv1.CrossVersionObjectReference(r),
			MinReplicas: s.MinReplicas, MaxReplicas: s.MaxReplicas, TargetCPUUtilizationPercentage: s.TargetCPUUtilizationPercentage})
	}
	var h autoscalingv2.HorizontalPodAutoscaler
	if err := it.decode(&h); err != nil {
		return nil, err
	}
	s := h.Spec
	out := autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref(s.ScaleTargetRef), MinReplicas: s.MinReplicas,
		MaxReplicas: s.MaxReplicas, Behavior: s.Behavior}
	for _, m := range s.Metrics {
		km := autoscalingv2.MetricSpec{Type: m.Type}
		if m.Type == autoscalingv2.ResourceMetricSourceType && m.Resource != nil {
			km.Resource = &autoscalingv2.ResourceMetricSource{Name: m.Resource.Name, Target: m.Resource.Target}
		}
		out.Metrics = append(out.Metrics, km)
	}
	return toMap(out)
}

// caContainer is the Cluster Autoscaler's container as written: its name,
// image (its version) and the flags the simulation reads; the other
// containers of its Deployment (sidecars, their commands and environment)
// are left out, as it is not simulated as a workload. A command that is
// not the cluster-autoscaler program (a shell wrapping it) is left out:
// its flags cannot be read, and the loader applies the upstream defaults
// as it would to the original.
func (im *Importer) caContainer(w where, ref string, dep *caconfig.Deployment, cs []corev1.Container) corev1.Container {
	i := 0
	if n, err := fmt.Sscanf(dep.Path, "spec.template.spec.containers[%d]", &i); n != 1 || err != nil || i >= len(cs) {
		i = 0
	}
	c := cs[i]
	out := corev1.Container{Name: c.Name, Image: dep.Image, Resources: c.Resources}
	if len(cs) > 1 {
		im.notice(w, ref, "%d other container(s) of the Cluster Autoscaler's Deployment left out (it is not simulated as a workload)", len(cs)-1)
	}
	if dep.OtherCommand != "" {
		im.notice(w, ref, "the Cluster Autoscaler's command is not the cluster-autoscaler program, so its flags cannot be read: the command and its arguments are left out (the upstream defaults apply; set spec.clusterAutoscaler.args)")
		return out
	}
	kept, dropped := caconfig.ModelledArgs(dep.Args)
	if len(c.Command) > 0 {
		out.Command = c.Command[:1] // the program; its flags go to args
	}
	out.Args = kept
	for _, a := range kept {
		if spec, ok := strings.CutPrefix(a, "--node-group-auto-discovery=asg:tag="); ok {
			for _, kv := range strings.Split(spec, ",") {
				k, _, _ := strings.Cut(kv, "=")
				im.discoveryKeys[k] = true
				im.seeClusterIn(k)
			}
		}
	}
	if len(dropped) > 0 {
		slices.Sort(dropped)
		im.notice(w, ref, "%d argument(s) of the Cluster Autoscaler that the simulation does not read left out: %s", len(dropped), strings.Join(slices.Compact(dropped), ", "))
	}
	return out
}

// karpenterContainer is Karpenter's controller container as the loader
// reads it: its name, the public image at its version (tag; the registry
// is not kept: a private mirror names whose it is), and of its env only
// the plain values of Karpenter's settings (apis.EnvNames); the cluster's
// name and endpoint, credentials, variables from ConfigMaps and Secrets,
// flags and other containers are left out. With --redact the interruption
// queue's name (often the cluster's) is redacted (a queue stays named).
func (im *Importer) karpenterContainer(w where, ref string, dep *kpapis.Deployment, cs []corev1.Container) corev1.Container {
	i := 0
	if n, err := fmt.Sscanf(dep.Path, "spec.template.spec.containers[%d]", &i); n != 1 || err != nil || i >= len(cs) {
		i = 0
	}
	c := cs[i]
	image := "public.ecr.aws/karpenter/controller"
	if at := strings.LastIndexByte(c.Image, '@'); at >= 0 {
		c.Image = c.Image[:at]
	}
	if colon := strings.LastIndexByte(c.Image, ':'); colon > strings.LastIndexByte(c.Image, '/') {
		image += c.Image[colon:]
	}
	out := corev1.Container{Name: c.Name, Image: image, Resources: c.Resources}
	if im.opts.Redact {
		out.Name = "c0"
	}
	read := kpapis.EnvNames()
	for _, e := range c.Env {
		if e.ValueFrom != nil || !slices.Contains(read, e.Name) {
			continue
		}
		v := e.Value
		if e.Name == "INTERRUPTION_QUEUE" && im.opts.Redact && v != "" {
			v = im.redactText(v)
			if v == e.Value {
				v = "redacted-queue"
			}
		}
		out.Env = append(out.Env, corev1.EnvVar{Name: e.Name, Value: v})
	}
	if len(cs) > 1 {
		im.notice(w, ref, "%d other container(s) of Karpenter's Deployment left out (it is not simulated as a workload)", len(cs)-1)
	}
	// Flags of the settings read become the variables they stand for (a
	// flag overrides the variable upstream, so it comes after it).
	fromArgs, other := kpapis.SettingArgs(c.Args)
	for _, kv := range fromArgs {
		v := kv[1]
		if kv[0] == "INTERRUPTION_QUEUE" && im.opts.Redact && v != "" {
			if v = im.redactText(v); v == kv[1] {
				v = "redacted-queue"
			}
		}
		out.Env = slices.DeleteFunc(out.Env, func(e corev1.EnvVar) bool { return e.Name == kv[0] })
		out.Env = append(out.Env, corev1.EnvVar{Name: kv[0], Value: v})
	}
	if len(other) > 0 {
		im.notice(w, ref, "%d argument(s) of Karpenter's controller that the simulation does not read left out", len(other))
	}
	return out
}

// redactCA redacts, with --redact, the Cluster Autoscaler's image (the
// account of its registry) and its flags (the cluster name in its
// auto-discovery tags and Auto Scaling group names), once every cluster
// name of the export is known.
func (im *Importer) redactCA(wl *workload) {
	d, ok := wl.obj.(appsv1.Deployment)
	if !im.opts.Redact || !ok || len(d.Spec.Template.Spec.Containers) == 0 {
		return
	}
	c := &d.Spec.Template.Spec.Containers[0]
	c.Image = im.redactImage(c.Image)
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		args[i] = im.redactText(a)
	}
	c.Args = args
	wl.obj = d
}

// clusterConfigTags are the tag maps of a ClusterConfig as kept: the
// cluster's and each node group's.
func clusterConfigTags(o map[string]any) []map[string]any {
	var out []map[string]any
	if md, ok := o["metadata"].(map[string]any); ok {
		if t, ok := md["tags"].(map[string]any); ok {
			out = append(out, t)
		}
	}
	for _, k := range []string{"nodeGroups", "managedNodeGroups"} {
		gs, _ := o[k].([]any)
		for _, g := range gs {
			if gm, ok := g.(map[string]any); ok {
				if t, ok := gm["tags"].(map[string]any); ok {
					out = append(out, t)
				}
			}
		}
	}
	return out
}
