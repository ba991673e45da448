package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/kubelet"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/workload"
)

// Built-in priority classes every cluster has (scheduling.SystemCriticalPriority
// and +1000), and the highest value a user class may take
// (scheduling.HighestUserDefinablePriority).
var builtinPriorityClasses = map[string]int32{
	"system-cluster-critical": 2000000000,
	"system-node-critical":    2000001000,
}

const highestUserPriority = 1000000000

// kubeletDefaultMaxPods is the kubelet's --max-pods default, for Node
// manifests without status.allocatable.pods.
const kubeletDefaultMaxPods = 110

type priorityClass struct {
	value        int32
	preemptNever bool
	global       bool
}

func (l *loader) compile() {
	l.compileSpec()
	l.compileMarket(l.out.File)
	l.compileNodeFailures()
	classes := l.compilePriorityClasses()
	l.compileStaticPools()
	l.compileNodes()
	l.compilePDBs()
	l.compileNamespaces()
	l.compileStorage()
	l.compileSchedulerConfigs()
	l.compileComponents()
	l.adoptNodes()
	l.checkJoinRefs()
	l.compileWorkloads(classes)
	l.compilePodTemplates()
}

func (l *loader) dur(path, s string, def time.Duration) time.Duration {
	if s == "" {
		return def
	}
	d, err := parseDuration(s)
	if err != nil {
		l.fail(l.scenarioDoc.Errorf(path, durationHintFor(err), "%v", err))
		if l.badDurations == nil {
			l.badDurations = map[string]bool{}
		}
		l.badDurations[path] = true
		return def
	}
	return d
}

func (l *loader) compileSpec() {
	d, s, out := l.scenarioDoc, &l.doc.Spec, l.out
	out.Name = l.doc.Metadata.Name
	if out.Name == "" {
		l.fail(d.Errorf("metadata.name", "name the scenario: it appears in every report", "missing name"))
	} else if !printable(out.Name) {
		l.fail(d.Errorf("metadata.name", "use letters, digits, spaces and punctuation: it appears in every report", "the scenario's name %s holds control characters", quote(out.Name)))
	}
	out.Description = l.doc.Metadata.Annotations["description"]
	out.Seed = DefaultSeed
	if s.Seed != nil {
		out.Seed = *s.Seed
	}
	if s.Duration == "" {
		l.fail(d.Errorf("spec.duration", "set how much simulated time to run, e.g. duration: 2h", "missing duration"))
	}
	if s.Duration != "" {
		// One error per mistake: an unreadable duration is not also
		// "not positive".
		if v, err := parseDuration(s.Duration); err != nil {
			l.fail(d.Errorf("spec.duration", durationHintFor(err), "%v", err))
		} else if v == 0 {
			l.fail(d.Errorf("spec.duration", "set a positive duration, e.g. 2h", "duration must be positive"))
		} else {
			out.Duration = v
		}
	}
	out.StrandedAfter = l.dur("spec.strandedAfter", s.StrandedAfter, DefaultStrandedAfter)
	if out.StrandedAfter == 0 {
		l.fail(d.Errorf("spec.strandedAfter", "use a positive threshold such as 10m", "must be positive"))
	}
	out.PodStartDelay = l.dur("spec.podStartDelay", s.PodStartDelay, kubelet.DefaultStartDelay)
	out.ComputeTime = s.ComputeTime == nil || *s.ComputeTime
	l.extendedResourceToleration = s.Admission == nil || s.Admission.ExtendedResourceToleration == nil || *s.Admission.ExtendedResourceToleration
	if s.ImportedAt != "" {
		t, err := time.Parse(time.RFC3339, s.ImportedAt)
		if err != nil {
			l.fail(d.Errorf("spec.importedAt", "write a time as kubectl prints it, e.g. 2026-03-01T12:00:00Z", "not an RFC 3339 time: %q", s.ImportedAt))
		} else {
			l.importedAt = t
		}
	}

	l.compileEpoch()
	l.compileLocation()
	l.compileNetwork()
}

// compileEpoch sets the wall clock of simulated time 0: spec.epoch, else
// a component's own setting of it (spec.karpenter.startTime, which came
// first), else spec.importedAt (an imported cluster goes on from its
// export's time: its budget schedules and CronJobs read that clock), else
// DefaultEpoch.
func (l *loader) compileEpoch() {
	l.out.Epoch = DefaultEpoch
	if e := l.doc.Spec.Epoch; e != "" {
		t, err := time.Parse(time.RFC3339, e)
		if err != nil {
			l.fail(l.scenarioDoc.Errorf("spec.epoch", "write an RFC 3339 time such as 2026-01-05T00:00:00Z", "%q is not a time", e))
			return
		}
		l.out.Epoch = t.UTC()
		return
	}
	for _, c := range component.Registered() {
		if ep, ok := c.(component.Epocher); ok {
			if t, ok := ep.Epoch(l.settings[c.Name()]); ok {
				l.out.Epoch = t
				return
			}
		}
	}
	if !l.importedAt.IsZero() {
		l.out.Epoch = l.importedAt.UTC()
	}
}

// compileLocation sets the region and zones: spec.region and spec.zones,
// else the first eksctl ClusterConfig's metadata.region and its
// availabilityZones (the first component that locates the cluster:
// component.Locator) (the cluster's subnets are in those zones, and
// Karpenter's EC2NodeClass usually selects the same subnets), else
// us-east-1 and the region's first three zones. Every zone must be one of
// the region's (catalog.Zones).
func (l *loader) compileLocation() {
	d, s, out := l.scenarioDoc, &l.doc.Spec, l.out
	regionDoc, regionPath := d, "spec.region"
	out.Region = s.Region
	var ccZones []string
	loc, located := l.componentLocation()
	if located {
		if out.Region == "" && loc.Region != "" {
			out.Region, regionDoc, regionPath = loc.Region, loc.Doc, loc.RegionPath
		}
		if loc.Region == out.Region {
			ccZones = loc.Zones
		}
	}
	if out.Region == "" {
		out.Region = DefaultRegion
	}
	if !slices.Contains(l.cat.Regions(), out.Region) {
		hint := "regions with EC2 data: " + strings.Join(l.cat.Regions(), ", ")
		if regionDoc != d {
			hint = "set the Scenario's spec.region (sim lint -f: --region) to one of the regions with EC2 data: " + strings.Join(l.cat.Regions(), ", ")
		}
		l.fail(regionDoc.Errorf(regionPath, hint, "%q is not in the embedded EC2 data", out.Region))
	} else if out.Region != catalog.PriceBaseRegion {
		l.warn(regionDoc, regionPath, "on-demand prices are known only for %s; its prices stand in for %s (real prices there differ; spot uses %s's Spot Advisor savings against them)",
			catalog.PriceBaseRegion, out.Region, out.Region)
	}
	zonesDoc, zonesPath := d, "spec.zones"
	out.Zones = s.Zones
	switch {
	case len(out.Zones) > 0:
	case len(ccZones) > 0:
		out.Zones, zonesDoc, zonesPath = ccZones, loc.Doc, loc.ZonesPath
	case catalog.Zones(out.Region) != nil:
		out.Zones = catalog.DefaultZones(out.Region)
	default: // an unknown region, already an error
		out.Zones = []string{out.Region + "a", out.Region + "b", out.Region + "c"}
	}
	seen := map[string]bool{}
	for i, z := range out.Zones {
		path := fmt.Sprintf("%s[%d]", zonesPath, i)
		if msg := catalog.CheckZone(out.Region, z); msg != "" && catalog.Zones(out.Region) != nil {
			l.fail(zonesDoc.Errorf(path, "use zones of "+out.Region+", e.g. "+out.Region+"a", "%s", msg))
		}
		if seen[z] {
			l.fail(zonesDoc.Errorf(path, "list each zone once", "duplicate zone %q", z))
		}
		seen[z] = true
	}
}

func (l *loader) hasZone(z string) bool {
	for _, have := range l.out.Zones {
		if have == z {
			return true
		}
	}
	return false
}

func (l *loader) compilePriorityClasses() map[string]priorityClass {
	classes := map[string]priorityClass{}
	for name, v := range builtinPriorityClasses {
		classes[name] = priorityClass{value: v}
	}
	var global *manifest.Document
	for _, d := range l.docsOf("PriorityClass") {
		pc, ok := decode[schedulingv1.PriorityClass](l, d)
		if !ok {
			l.refuse(d)
			continue
		}
		if _, builtin := builtinPriorityClasses[pc.Name]; builtin {
			l.fail(d.Errorf("metadata.name", "choose another name", "%s is a built-in class", pc.Name))
			continue
		}
		if pc.Value > highestUserPriority {
			l.fail(d.Errorf("value", "user classes go up to 1000000000; higher values are reserved for system classes", "value %d is too high", pc.Value))
		}
		c := priorityClass{value: pc.Value, global: pc.GlobalDefault}
		if pc.PreemptionPolicy != nil && *pc.PreemptionPolicy == corev1.PreemptNever {
			c.preemptNever = true
		}
		if pc.GlobalDefault {
			if global != nil {
				l.fail(d.Errorf("globalDefault", "keep one globalDefault class", "a second global default (the first is %s)", global.Name))
			}
			global = d
		}
		classes[pc.Name] = c
	}
	return classes
}

// docsOf returns the objects of one kind in file order.
func (l *loader) docsOf(kind string) []*manifest.Document {
	var out []*manifest.Document
	for _, d := range l.order {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

func (l *loader) compileStaticPools() {
	d := l.scenarioDoc
	names := map[string]bool{}
	total := 0
	for i, p := range l.doc.Spec.StaticNodes {
		base := fmt.Sprintf("spec.staticNodes[%d]", i)
		if p.Name == "" {
			l.fail(d.Errorf(base+".name", "name each pool: node names derive from it", "missing name"))
			continue
		}
		if names[p.Name] {
			l.fail(d.Errorf(base+".name", "pool names must be unique", "duplicate pool %q", p.Name))
			continue
		}
		if errs := validation.IsDNS1123Subdomain(p.Name + "-1"); len(errs) > 0 {
			l.fail(d.Errorf(base+".name", "rename it: its nodes are named NAME-1, NAME-2, ..., which must be lower-case letters, digits, '-' and '.', starting with a letter or digit",
				"static pool name %s makes node names that are not DNS-1123 subdomains%s", quote(p.Name), specific(errs)))
			continue
		}
		names[p.Name] = true
		l.out.StaticPools = append(l.out.StaticPools, StaticPool{Name: p.Name, File: d.File, Line: d.LineOf(base), Path: base})
		it, ok := l.cat.Lookup(p.InstanceType)
		if !ok {
			hint := "see sim/catalog/data/ec2-instance-types.csv for the known types"
			if s := catalog.Suggest(l.cat, p.InstanceType); len(s) > 0 {
				hint = "did you mean " + strings.Join(s, ", ") + "?"
			}
			if p.InstanceType == "" {
				l.fail(d.Errorf(base+".instanceType", "give an EC2 instance type such as m5.large", "missing instanceType"))
			} else {
				l.fail(d.Errorf(base+".instanceType", hint, "unknown instance type %q", p.InstanceType))
			}
			continue
		}
		if os := p.Labels[labelOS]; os != "" && os != "linux" {
			l.fail(d.Errorf(fmt.Sprintf("%s.labels[%q]", base, labelOS), "remove the label (static nodes are Linux) or the pool", "%s nodes are not simulated: only Linux nodes are", osName(os)))
			continue
		}
		count, ok := requiredCount(l, base+".count", p.Count, MaxStaticNodes, "give the number of nodes, e.g. count: 3")
		if !ok {
			continue
		}
		total += count
		ct, ok := cluster.ParseCapacityType(p.CapacityType)
		if !ok || ct == cluster.Reserved {
			l.fail(d.Errorf(base+".capacityType", "use on-demand or spot", "unknown capacity type %q", p.CapacityType))
			continue
		}
		zones := p.Zones
		if len(zones) == 0 {
			zones = l.out.Zones
		}
		bad := false
		for j, z := range zones {
			if !l.hasZone(z) {
				l.fail(d.Errorf(fmt.Sprintf("%s.zones[%d]", base, j), "use one of spec.zones: "+strings.Join(l.out.Zones, ", "), "zone %q is not in the scenario", z))
				bad = true
			}
		}
		var taints []cluster.Taint
		for j, t := range p.Taints {
			if w := nodeTaintWarning(t.Key); w != "" {
				l.warnc(d, component.CodeNodeTaint, fmt.Sprintf("%s.taints[%d]", base, j), "%s", w)
			}
			ct, err := l.taint(t)
			if err != nil {
				l.fail(d.Errorf(fmt.Sprintf("%s.taints[%d]", base, j), "effects are NoSchedule, PreferNoSchedule, NoExecute", "%v", err))
				bad = true
				continue
			}
			taints = append(taints, ct)
		}
		if bad {
			continue
		}
		price, ok := l.price(it, ct)
		if !ok {
			l.warn(d, base+".instanceType", "no %s price for %s in %s: its cost counts as 0", ct, it.Name, l.out.Region)
		}
		alloc := l.allocatable(it)
		for n := 0; n < *p.Count; n++ {
			zone := zones[n%len(zones)]
			labels := map[string]string{}
			for k, v := range p.Labels {
				labels[k] = v
			}
			l.wellKnownLabels(labels, it, zone)
			l.out.Nodes = append(l.out.Nodes, cluster.Node{
				Name:            fmt.Sprintf("%s-%d", p.Name, n+1),
				Labels:          cluster.CompileLabels(l.out.Syms, labels),
				Taints:          taints,
				Allocatable:     alloc,
				State:           cluster.NodeReady,
				InstanceType:    it.Name,
				Zone:            l.out.Syms.Intern(zone),
				CapacityType:    ct,
				PriceUSDPerHour: price,
				Owner:           cluster.OwnedByStatic,
				OwnerName:       p.Name,
			})
		}
	}
	if total > MaxStaticNodes {
		l.fail(d.Errorf("spec.staticNodes", "split the scenario or use fewer nodes", "%d static nodes in all, more than %d", total, MaxStaticNodes))
	}
}

func (l *loader) taint(t taint) (cluster.Taint, error) {
	effect := t.Effect
	// eksctl spells effects NO_SCHEDULE; accept both spellings.
	switch effect {
	case "NO_SCHEDULE":
		effect = "NoSchedule"
	case "PREFER_NO_SCHEDULE":
		effect = "PreferNoSchedule"
	case "NO_EXECUTE":
		effect = "NoExecute"
	}
	return cluster.CompileTaint(l.out.Syms, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(effect)})
}

// labelOS is the node label that names the operating system; only linux
// nodes are simulated.
const labelOS = "kubernetes.io/os"

// osName spells an operating system as in prose: Windows for windows.
func osName(os string) string {
	if os == "windows" {
		return "Windows"
	}
	return os
}

// wellKnownLabels sets the labels every EKS node carries, unless the user set them.
func (l *loader) wellKnownLabels(labels map[string]string, it *catalog.InstanceType, zone string) {
	set := func(k, v string) {
		if _, ok := labels[k]; !ok {
			labels[k] = v
		}
	}
	set("node.kubernetes.io/instance-type", it.Name)
	set("topology.kubernetes.io/zone", zone)
	set("topology.kubernetes.io/region", l.out.Region)
	set("kubernetes.io/arch", it.Arch)
	set("kubernetes.io/os", "linux")
}

func (l *loader) price(it *catalog.InstanceType, ct cluster.CapacityType) (float64, bool) {
	if ct == cluster.Spot {
		return l.cat.SpotPriceEstimate(l.out.Region, it.Name)
	}
	p, _, ok := l.cat.OnDemandPrice(l.out.Region, it.Name)
	return p, ok
}

func (l *loader) allocatable(it *catalog.InstanceType) cluster.Resources {
	a := it.Allocatable(catalog.KubeletOptions{})
	var r cluster.Resources
	r[cluster.CPU] = a.CPUMilli
	r[cluster.Memory] = a.MemoryBytes
	r[cluster.Ephemeral] = a.EphemeralBytes
	r[cluster.Pods] = a.Pods
	for _, e := range it.Accelerators() { // nvidia.com/gpu, amd.com/gpu, Neuron, Gaudi
		if i, err := l.out.Resources.Index(corev1.ResourceName(e.Name)); err == nil {
			r[i] = e.Count
		}
	}
	return r
}

// compileNodes turns Node manifests into static nodes.
func (l *loader) compileNodes() {
	for _, d := range l.docsOf("Node") {
		n, ok := decode[corev1.Node](l, d)
		if !ok {
			continue
		}
		labels := map[string]string{}
		for k, v := range n.Labels {
			labels[k] = v
		}
		if os := labels[labelOS]; os != "" && os != "linux" {
			l.fail(d.Errorf(fmt.Sprintf("metadata.labels[%q]", labelOS), "remove this Node to simulate the Linux part of the cluster (pods that need it then stay Pending)", "%s nodes are not simulated: only Linux nodes are", osName(os)))
			continue
		}
		typ := labels["node.kubernetes.io/instance-type"]
		it, known := l.cat.Lookup(typ)
		// The node's size: its allocatable, else its capacity, else its
		// instance type's allocatable.
		var alloc cluster.Resources
		sized, sizePath := n.Status.Allocatable, "status.allocatable"
		if len(sized) == 0 {
			sized, sizePath = n.Status.Capacity, "status.capacity"
		}
		switch {
		case len(sized) > 0:
			r, err := l.out.Resources.FromList(sized)
			if err != nil {
				l.fail(d.Errorf(sizePath, "", "%v", err))
				continue
			}
			alloc = r
			if sizePath == "status.capacity" {
				l.warn(d, "status", "no status.allocatable: capacity is used as allocatable, with no room reserved for the system")
			}
		case known:
			alloc = l.allocatable(it)
		default:
			l.fail(d.Errorf("status", "give status.allocatable (cpu, memory, pods) or a known node.kubernetes.io/instance-type label", "cannot tell how big node %s is", n.Name))
			continue
		}
		if alloc[cluster.Pods] == 0 {
			alloc[cluster.Pods] = kubeletDefaultMaxPods
		}
		zone := labels["topology.kubernetes.io/zone"]
		if zone == "" {
			l.warn(d, "metadata.labels", "no topology.kubernetes.io/zone label: zone spread cannot count this node")
		} else if !l.hasZone(zone) {
			l.warn(d, "metadata.labels", "zone %s is not in spec.zones", zone)
		}
		ct := cluster.OnDemand
		for _, key := range []string{"karpenter.sh/capacity-type", "eks.amazonaws.com/capacityType"} {
			if v, ok := labels[key]; ok {
				c, ok := cluster.ParseCapacityType(v)
				if !ok {
					l.fail(d.Errorf("metadata.labels", "use on-demand or spot", "%s: unknown capacity type %q", key, v))
				}
				ct = c
			}
		}
		var taints []cluster.Taint
		for i, t := range n.Spec.Taints {
			if w := nodeTaintWarning(t.Key); w != "" {
				l.warnc(d, component.CodeNodeTaint, fmt.Sprintf("spec.taints[%d]", i), "%s", w)
			}
			c, err := cluster.CompileTaint(l.out.Syms, t)
			if err != nil {
				l.fail(d.Errorf(fmt.Sprintf("spec.taints[%d]", i), "", "%v", err))
				continue
			}
			taints = append(taints, c)
		}
		price := 0.0
		if known {
			var ok bool
			if price, ok = l.price(it, ct); !ok {
				l.warn(d, "metadata.labels", "no %s price for %s: its cost counts as 0", ct, typ)
			}
		} else {
			l.warn(d, "metadata.labels", "no known node.kubernetes.io/instance-type: node %s costs 0", n.Name)
		}
		var age time.Duration
		if created := n.CreationTimestamp.Time; !l.importedAt.IsZero() && !created.IsZero() {
			if age = l.importedAt.Sub(created); age < 0 {
				l.warn(d, "metadata.creationTimestamp", "created after spec.importedAt (%s): counted as new at the start", l.importedAt.UTC().Format(time.RFC3339))
				age = 0
			}
		}
		cond, condAgo := l.startCondition(d, n.Status.Conditions)
		if cond.NotReady() {
			taints = withNotReadyTaint(l.out.Syms, taints, cond)
		}
		podEventAgo, hasPodEvent := l.exportTime(d, n.Annotations, LastPodEventAnnotation, "consolidateAfter counts from the start")
		driftedAgo, hasDrifted := l.exportTime(d, n.Annotations, DriftedSinceAnnotation, "its drift counts from the start")
		expiresIn, hasExpiry, never := l.expiresAt(d, n.Annotations)
		l.startNodes = append(l.startNodes, startNode{idx: len(l.out.Nodes), doc: d, labels: labels,
			priced: known && price > 0})
		l.out.Nodes = append(l.out.Nodes, cluster.Node{
			Name:            n.Name,
			Labels:          cluster.CompileLabels(l.out.Syms, labels),
			Taints:          taints,
			Allocatable:     alloc,
			Unschedulable:   n.Spec.Unschedulable,
			State:           cluster.NodeReady,
			InstanceType:    typ,
			Zone:            l.out.Syms.Intern(zone),
			CapacityType:    ct,
			PriceUSDPerHour: price,
			Owner:           cluster.OwnedByStatic,
			OwnerName:       "Node/" + n.Name,
			AgeAtStart:      age,
			LastPodEventAgo: podEventAgo,
			HasLastPodEvent: hasPodEvent,
			DriftedAgo:      driftedAgo,
			HasDriftedAt:    hasDrifted,
			ExpiresIn:       expiresIn,
			HasExpiry:       hasExpiry,
			NeverExpires:    never,
			Annotations:     n.Annotations,
			Condition:       cond,
			ConditionSince:  -condAgo,
		})
	}
}

// startCondition reads a start node's unhealthy condition (the first of
// status.conditions that is one, as sim import keeps it): its
// lastTransitionTime before spec.importedAt is how long it has held at
// the start, so that node repair's toleration counts from the real
// transition (without importedAt or the time: from the start).
func (l *loader) startCondition(d *manifest.Document, conds []corev1.NodeCondition) (cluster.NodeCondition, time.Duration) {
	for i, c := range conds {
		cond, ok := cluster.ParseNodeCondition(string(c.Type) + "=" + string(c.Status))
		if !ok {
			continue
		}
		var ago time.Duration
		if at := c.LastTransitionTime.Time; !l.importedAt.IsZero() && !at.IsZero() {
			if ago = l.importedAt.Sub(at); ago < 0 {
				l.warn(d, fmt.Sprintf("status.conditions[%d].lastTransitionTime", i), "after spec.importedAt (%s): the condition counts from the start", l.importedAt.UTC().Format(time.RFC3339))
				ago = 0
			}
		}
		return cond, ago
	}
	return cluster.Healthy, 0
}

// withNotReadyTaint adds the node lifecycle controller's NoExecute taint
// of a Ready condition that is not True, when the export lacks it.
func withNotReadyTaint(syms *cluster.Symbols, taints []cluster.Taint, cond cluster.NodeCondition) []cluster.Taint {
	key := syms.Intern(cluster.TaintNotReady)
	if cond == cluster.ReadyUnknown {
		key = syms.Intern(cluster.TaintUnreachable)
	}
	for _, t := range taints {
		if t.Key == key && t.Effect == cluster.EffectNoExecute {
			return taints
		}
	}
	return append(taints, cluster.Taint{Key: key, Effect: cluster.EffectNoExecute})
}

// LastPodEventAnnotation carries, on a Node of an imported state, its
// NodeClaim's status.lastPodEventTime (sim import writes it): Karpenter's
// consolidateAfter goes on from it instead of starting over at the run's
// start.
const LastPodEventAnnotation = "clustersim.dev/last-pod-event-time"

// DriftedSinceAnnotation carries, on a Node of an imported state, the
// lastTransitionTime of its NodeClaim's Drifted condition (sim import
// writes it): Karpenter replaces drifted nodes oldest drift first.
const DriftedSinceAnnotation = "clustersim.dev/drifted-since"

// ExpiresAtAnnotation carries, on a Node of an imported state, when its
// NodeClaim expires: its creationTimestamp plus its own spec.expireAfter
// (RFC 3339), or Never (sim import writes it). Karpenter expires a
// NodeClaim by the expireAfter it was made with, not by its NodePool's
// value now.
const ExpiresAtAnnotation = "clustersim.dev/expires-at"

// expiresAt reads a Node's ExpiresAtAnnotation: how long after the start
// it expires (0 or less: at once), or never; ok false when absent or
// unusable (with an error or warning).
func (l *loader) expiresAt(d *manifest.Document, annotations map[string]string) (in time.Duration, ok, never bool) {
	if annotations[ExpiresAtAnnotation] == "Never" {
		return 0, true, true
	}
	t, _, ok := l.annotatedTime(d, annotations, ExpiresAtAnnotation, ", or Never", "the NodePool's expireAfter counts from the node's creation")
	if !ok {
		return 0, false, false
	}
	return t.Sub(l.importedAt), true, false
}

// exportTime reads a Node's time annotation key (LastPodEventAnnotation,
// DriftedSinceAnnotation): how long before spec.importedAt it was; ok
// false when absent or unusable (with an error or warning; without
// importedAt, the warning says what follows: without).
func (l *loader) exportTime(d *manifest.Document, annotations map[string]string, key, without string) (time.Duration, bool) {
	t, path, ok := l.annotatedTime(d, annotations, key, "", without)
	if !ok {
		return 0, false
	}
	return l.beforeImport(d, path, t), true
}

// beforeImport is how long before spec.importedAt (set) t was, the field
// at path; a time after it counts as the start, with a warning.
func (l *loader) beforeImport(d *manifest.Document, path string, t time.Time) time.Duration {
	ago := l.importedAt.Sub(t)
	if ago < 0 {
		l.warn(d, path, "after spec.importedAt (%s): counted as at the start", l.importedAt.UTC().Format(time.RFC3339))
		return 0
	}
	return ago
}

// annotatedTime reads a Node's time annotation key (RFC 3339), which
// counts against spec.importedAt; ok false when absent, not a time (an
// error: hint ends its advice) or without importedAt (a warning saying
// what follows: without).
func (l *loader) annotatedTime(d *manifest.Document, annotations map[string]string, key, hint, without string) (t time.Time, path string, ok bool) {
	v, has := annotations[key]
	if !has {
		return time.Time{}, "", false
	}
	path = "metadata.annotations." + key
	t, err := time.Parse(time.RFC3339, v)
	if err != nil {
		l.fail(d.Errorf(path, "write a time as kubectl prints it, e.g. 2026-03-01T12:00:00Z"+hint, "not an RFC 3339 time: %q", v))
		return time.Time{}, path, false
	}
	if l.importedAt.IsZero() {
		l.warn(d, path, "ignored without spec.importedAt, which it is counted from: %s", without)
		return time.Time{}, path, false
	}
	return t, path, true
}

func (l *loader) compilePDBs() {
	for _, d := range l.docsOf("PodDisruptionBudget") {
		pdb, ok := decode[policyv1.PodDisruptionBudget](l, d)
		if !ok {
			continue
		}
		out := cluster.PDB{Namespace: l.out.Syms.Intern(nsOr(pdb.Namespace)), Name: pdb.Name}
		sel, err := cluster.CompileLabelSelector(l.out.Syms, pdb.Spec.Selector)
		if err != nil {
			l.fail(d.Errorf("spec.selector", "", "%v", err))
			continue
		}
		out.Selector = sel
		if pdb.Spec.Selector == nil {
			l.warnc(d, CodeEmptyBudget, "spec.selector", "no selector: this budget covers no pods")
		}
		switch {
		case pdb.Spec.MinAvailable != nil && pdb.Spec.MaxUnavailable != nil:
			l.fail(d.Errorf("spec", "set one of them", "minAvailable and maxUnavailable are mutually exclusive"))
			continue
		case pdb.Spec.MinAvailable != nil:
			out.MinAvailable = l.intOrPercent(d, "spec.minAvailable", *pdb.Spec.MinAvailable)
		case pdb.Spec.MaxUnavailable != nil:
			out.MaxUnavailable = l.intOrPercent(d, "spec.maxUnavailable", *pdb.Spec.MaxUnavailable)
		default:
			l.fail(d.Errorf("spec", "set minAvailable or maxUnavailable", "a budget needs minAvailable or maxUnavailable"))
			continue
		}
		l.out.PDBs = append(l.out.PDBs, out)
	}
}

func (l *loader) intOrPercent(d *manifest.Document, path string, v intstr.IntOrString) *cluster.IntOrPercent {
	if v.Type == intstr.Int {
		if v.IntVal < 0 {
			l.fail(d.Errorf(path, "", "must not be negative"))
		}
		return &cluster.IntOrPercent{Value: v.IntVal}
	}
	s := strings.TrimSuffix(v.StrVal, "%")
	var n int32
	if _, err := fmt.Sscanf(s, "%d", &n); err != nil || s == v.StrVal || n < 0 || n > 100 {
		l.fail(d.Errorf(path, "write a whole number or a percentage such as 50%", "%q is neither", v.StrVal))
	}
	return &cluster.IntOrPercent{Value: n, Percent: true}
}

func nsOr(ns string) string {
	if ns == "" {
		return DefaultNamespace
	}
	return ns
}

// podObject is what the workload kinds have in common once decoded.
type podObject struct {
	doc         *manifest.Document
	kind        workload.Kind
	namespace   string
	name        string
	template    *corev1.PodTemplateSpec
	selector    *metav1.LabelSelector // the controller's selector (ReplicaSet, StatefulSet)
	specPath    string                // field path of the pod spec in the document
	replicas    int32
	replicasSet bool // spec.replicas is given
	parallelism int32
	completions int32
	// claimTemplates are a StatefulSet's volumeClaimTemplates.
	claimTemplates []corev1.PersistentVolumeClaim
	// orderedReady and minReady are a StatefulSet's podManagementPolicy
	// (OrderedReady unless Parallel) and minReadySeconds.
	orderedReady bool
	minReady     time.Duration
	// backoffLimit and ignoreDisruptions of a Job (podFailurePolicy).
	backoffLimit      int32
	ignoreDisruptions bool
	// activeDeadline is a Job's activeDeadlineSeconds (0: none).
	activeDeadline time.Duration
	// cron is set on a CronJob (kind Job: its jobTemplate).
	cron *cronObject
	// startedAgo is how long a bare Pod had run at spec.importedAt (its
	// status.startTime, which sim import keeps when a do-not-disrupt
	// duration counts from it); 0: not given.
	startedAgo time.Duration
}

// podStartedAgo reads a bare Pod's status.startTime: how long before
// spec.importedAt it started (0 when not given, or later).
func (l *loader) podStartedAgo(d *manifest.Document, start *metav1.Time) time.Duration {
	if start == nil || start.IsZero() {
		return 0
	}
	if l.importedAt.IsZero() {
		l.warn(d, "status.startTime", "ignored without spec.importedAt, which it is counted from: the pod counts as started at the run's start")
		return 0
	}
	return l.beforeImport(d, "status.startTime", start.Time)
}

func (l *loader) compileWorkloads(classes map[string]priorityClass) {
	var objs []podObject
	// broken are the workloads whose errors are reported already: a
	// spec.workloads entry naming one is not "no workload" besides.
	broken := maps.Clone(l.refused)
	if broken == nil {
		broken = map[string]bool{}
	}
	for _, d := range l.order {
		before := len(l.errs)
		o, ok := l.decodeWorkload(d)
		if ok {
			objs = append(objs, o)
		} else if len(l.errs) > before {
			broken[l.refOf(d)] = true
		}
	}
	timings := l.timingsByRef(objs, broken)
	l.hpas = l.compileHPAs(objs)
	priority := func(name string) (int32, bool, bool) {
		if name == "" {
			for _, c := range sortedClasses(classes) {
				if c.global {
					return c.value, c.preemptNever, true
				}
			}
			return 0, false, true
		}
		c, ok := classes[name]
		// A class whose own error is reported is not also missing.
		return c.value, c.preemptNever, ok || l.refused["PriorityClass/"+name]
	}
	var estimate int64
	var refs []string
	var entries []timingEntry
	for _, o := range objs {
		spec := l.compileTemplate(o, &o.template.Spec, o.specPath, priority)
		if spec == nil {
			continue
		}
		if len(o.template.Spec.Containers) == 0 {
			l.fail(o.doc.Errorf(o.specPath+".containers", "a pod needs at least one container", "no containers"))
			continue
		}
		l.warnUnmodelled(o, spec)
		if spec.Claims != nil || len(o.claimTemplates) > 0 {
			l.compileClaims(o, spec)
		}
		if o.selector != nil {
			sel, _ := cluster.CompileLabelSelector(l.out.Syms, o.selector) // checked in decodeWorkload
			spec.OwnerSelector = &sel
		}
		if o.kind == workload.BarePod && cluster.IsMirrorPod(o.template.ObjectMeta) {
			if spec.NodeName == "" {
				l.fail(o.doc.Errorf("metadata.ownerReferences", "give spec.nodeName, the node whose kubelet runs it, or remove the Node owner", "a pod owned by a Node is a static pod and runs on that node only"))
				continue
			}
			spec.Mirror = true
		}
		if o.kind == workload.DaemonSet {
			spec.DaemonSet = true
			spec.Tolerations = workload.DaemonSetTolerations(l.out.Syms, spec.Tolerations)
		}
		if asks := spec.Requests; asks[cluster.CPU] == 0 && asks[cluster.Memory] == 0 {
			// Limits count: the API server copies them into missing
			// requests (cluster.PodRequests).
			asks[cluster.Pods] = 0
			if asks.IsZero() {
				l.warn(o.doc, o.specPath+".containers", "no cpu or memory requests or limits: the pods fit anywhere and need no capacity")
			}
		}
		readyAfter, ok := l.readyAfter(o)
		if !ok {
			continue
		}
		ws := workload.Spec{Kind: o.kind, Namespace: o.namespace, Name: o.name, Pod: spec,
			Parallelism: o.parallelism, Completions: o.completions, BackoffLimit: o.backoffLimit, ActiveDeadline: o.activeDeadline,
			IgnoreDisruptions: o.ignoreDisruptions, OrderedReady: o.orderedReady, ReadyAfter: readyAfter, MinReady: o.minReady,
			TwinOf: -1, File: o.doc.File, Line: o.doc.Line}
		t := timings[l.refOf(o.doc)]
		estimate += l.applyTiming(o, t, &ws, priority)
		if o.startedAgo > 0 {
			if a := ws.Arrivals.Times; len(a) > 0 && a[0] > 0 {
				l.warn(o.doc, "status.startTime", "the pod is created at %s, after the start: its startTime (before the export) is ignored", a[0])
			} else {
				ws.StartedAgo = []time.Duration{o.startedAgo}
			}
		}
		l.out.Workloads = append(l.out.Workloads, ws)
		refs = append(refs, l.refOf(o.doc))
		entries = append(entries, t)
	}
	l.resolveSplits(refs, entries)
	perDaemonSet := l.daemonSetPods(estimate)
	for _, ws := range l.out.Workloads {
		if ws.Kind == workload.DaemonSet {
			estimate += perDaemonSet
		}
	}
	l.out.EstimatedPods = estimate
	if estimate > MaxPods {
		l.fail(l.scenarioDoc.Errorf("spec.workloads", "lower arrival rates, replicas or the duration, or split the scenario",
			"this scenario would create about %d pods, more than the %d a run may hold", estimate, MaxPods))
	}
}

// compileTemplate compiles a pod spec of a workload object, reporting
// errors and warnings at their lines.
func (l *loader) compileTemplate(o podObject, spec *corev1.PodSpec, specPath string, priority func(string) (int32, bool, bool)) *cluster.PodSpec {
	if l.extendedResourceToleration {
		spec = extendedResourceTolerations(spec)
	}
	out, warns, err := cluster.CompilePodSpec(l.out.Syms, l.out.Resources, cluster.PodSpecInput{
		Namespace:   o.namespace,
		Labels:      o.template.Labels,
		Annotations: o.template.Annotations,
		Spec:        spec,
		Priority:    priority,
	})
	if err != nil {
		if fe, ok := err.(*cluster.FieldError); ok {
			l.fail(o.doc.Errorf(specPath+"."+fe.Path, "", "%s", fe.Msg))
		} else {
			l.fail(o.doc.Errorf(specPath, "", "%v", err))
		}
		return nil
	}
	for _, w := range warns {
		l.warnc(o.doc, w.Code, specPath, "%s", w.Msg)
	}
	return out
}

func sortedClasses(m map[string]priorityClass) []priorityClass {
	out := make([]priorityClass, 0, len(m))
	for _, n := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[n])
	}
	return out
}

// requiredCount checks a count the scenario document must give, from 0 to
// max; ok is false after an error.
func requiredCount[N int | int32](l *loader, path string, n *N, max N, missingHint string) (count N, ok bool) {
	d := l.scenarioDoc
	if n == nil {
		l.fail(d.Errorf(path, missingHint, "missing count"))
		return 0, false
	}
	if *n < 0 || *n > max {
		l.fail(d.Errorf(path, fmt.Sprintf("use 0 to %d", max), "count %d is out of range", *n))
		return 0, false
	}
	return *n, true
}

// decode decodes d into a T; a decoding error is recorded and ok is false.
func decode[T any](l *loader, d *manifest.Document) (obj T, ok bool) {
	if err := d.Decode(&obj); err != nil {
		l.failErr(err)
		return obj, false
	}
	return obj, true
}

// decodeWorkload decodes the pod-owning kinds; ok is false for other kinds
// or on error.
func (l *loader) decodeWorkload(d *manifest.Document) (podObject, bool) {
	o := podObject{doc: d, name: d.Name, namespace: nsOr(d.Namespace)}
	checkSelector := func(sel *metav1.LabelSelector, labels map[string]string) bool {
		if sel == nil {
			l.fail(d.Errorf("spec.selector", "set spec.selector.matchLabels to the template's labels", "missing selector"))
			return false
		}
		s, err := cluster.CompileLabelSelector(l.out.Syms, sel)
		if err != nil {
			l.fail(d.Errorf("spec.selector", "", "%v", err))
			return false
		}
		if !s.Matches(l.out.Syms, cluster.CompileLabels(l.out.Syms, labels)) {
			l.fail(d.Errorf("spec.selector", "make spec.template.metadata.labels match spec.selector", "selector does not match template labels (the API server rejects this)"))
			return false
		}
		return true
	}
	// replicated fills in what Deployments, ReplicaSets and StatefulSets
	// share: a template, a replica count and a selector.
	replicated := func(kind workload.Kind, template *corev1.PodTemplateSpec, replicas *int32, selector *metav1.LabelSelector) (podObject, bool) {
		o.kind, o.template, o.specPath = kind, template, "spec.template.spec"
		o.replicas, o.replicasSet = replicasOr1(replicas), replicas != nil
		o.selector = selector
		return o, checkSelector(selector, template.Labels)
	}
	switch d.Kind {
	case "Deployment":
		obj, ok := decode[appsv1.Deployment](l, d)
		if !ok {
			return o, false
		}
		return replicated(workload.Deployment, &obj.Spec.Template, obj.Spec.Replicas, obj.Spec.Selector)
	case "ReplicaSet":
		obj, ok := decode[appsv1.ReplicaSet](l, d)
		if !ok {
			return o, false
		}
		return replicated(workload.Deployment, &obj.Spec.Template, obj.Spec.Replicas, obj.Spec.Selector)
	case "StatefulSet":
		obj, ok := decode[appsv1.StatefulSet](l, d)
		if !ok {
			return o, false
		}
		o.claimTemplates = obj.Spec.VolumeClaimTemplates
		if !l.podManagement(d, &obj.Spec, &o) {
			return o, false
		}
		return replicated(workload.StatefulSet, &obj.Spec.Template, obj.Spec.Replicas, obj.Spec.Selector)
	case "DaemonSet":
		obj, ok := decode[appsv1.DaemonSet](l, d)
		if !ok {
			return o, false
		}
		o.kind, o.template, o.specPath = workload.DaemonSet, &obj.Spec.Template, "spec.template.spec"
		return o, checkSelector(obj.Spec.Selector, obj.Spec.Template.Labels)
	case "Job":
		obj, ok := decode[batchv1.Job](l, d)
		if !ok {
			return o, false
		}
		return l.decodeJobSpec(d, o, &obj.Spec, "spec")
	case "CronJob":
		obj, ok := decode[batchv1.CronJob](l, d)
		if !ok {
			return o, false
		}
		return l.decodeCronJob(d, o, &obj)
	case "Pod":
		obj, ok := decode[corev1.Pod](l, d)
		if !ok {
			return o, false
		}
		o.kind, o.specPath = workload.BarePod, "spec"
		o.template = &corev1.PodTemplateSpec{ObjectMeta: obj.ObjectMeta, Spec: obj.Spec}
		o.startedAgo = l.podStartedAgo(d, obj.Status.StartTime)
		return o, true
	}
	return o, false
}

// podManagement reads a StatefulSet's spec.podManagementPolicy (the API
// defaults it to OrderedReady) and spec.minReadySeconds; ok is false after
// an error.
func (l *loader) podManagement(d *manifest.Document, spec *appsv1.StatefulSetSpec, o *podObject) bool {
	switch spec.PodManagementPolicy {
	case "", appsv1.OrderedReadyPodManagement:
		o.orderedReady = true
	case appsv1.ParallelPodManagement:
	default:
		l.fail(d.Errorf("spec.podManagementPolicy", "use OrderedReady (the default) or Parallel",
			"unknown podManagementPolicy %q", spec.PodManagementPolicy))
		return false
	}
	if spec.MinReadySeconds < 0 {
		l.fail(d.Errorf("spec.minReadySeconds", "give 0 or more seconds", "minReadySeconds %d is negative", spec.MinReadySeconds))
		return false
	}
	o.minReady = time.Duration(spec.MinReadySeconds) * time.Second
	return true
}

func replicasOr1(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

// compileNamespaces records namespace labels (for namespaceSelector terms).
func (l *loader) compileNamespaces() {
	for _, d := range l.docsOf("Namespace") {
		ns, ok := decode[corev1.Namespace](l, d)
		if !ok {
			continue
		}
		if l.out.NamespaceLabels == nil {
			l.out.NamespaceLabels = map[cluster.Sym]cluster.Labels{}
		}
		l.out.NamespaceLabels[l.out.Syms.Intern(ns.Name)] = cluster.CompileLabels(l.out.Syms, ns.Labels)
	}
}

// warnUnmodelled says which parts of a pod spec the scheduler model does not
// enforce yet, so a run is never silently wrong about them.
func (l *loader) warnUnmodelled(o podObject, spec *cluster.PodSpec) {
	served := len(l.out.SchedulerProfiles) == 0 && spec.SchedulerName == corev1.DefaultSchedulerName
	for _, p := range l.out.SchedulerProfiles {
		served = served || p.SchedulerName == spec.SchedulerName
	}
	if !served {
		l.warnc(o.doc, CodeNoScheduler, o.specPath+".schedulerName", "no scheduler profile is named %q: these pods stay Pending", spec.SchedulerName)
	}
}

// compileComponents compiles every registered component's documents and
// settings, in registration order; those that run (a configuration
// returned) go into Scenario.Components.
func (l *loader) compileComponents() {
	env := component.Env{Syms: l.out.Syms, Resources: l.out.Resources, Catalog: l.cat, Region: l.out.Region,
		Zones: l.out.Zones, ComputeTime: l.out.ComputeTime, Epoch: l.out.Epoch, Scenario: l.scenarioDoc, Reservations: l.out.Market.Reservations}
	for _, c := range component.Registered() {
		var peers []*manifest.Document
		for _, o := range component.Registered() {
			if o.Name() != c.Name() {
				peers = append(peers, l.compDocs[o.Name()]...)
			}
		}
		in := component.Input{Docs: l.compDocs[c.Name()], Settings: l.settings[c.Name()], SettingsPath: l.settingsPath[c.Name()], Others: l.order, Peers: peers}
		cfg, warns, err := c.Compile(env, in)
		l.warns = append(l.warns, warns...)
		if err != nil {
			l.failErr(err)
		}
		if cfg != nil && err == nil {
			l.out.Components = append(l.out.Components, component.Compiled{Name: c.Name(), Config: cfg})
		}
	}
}

// componentLocation is the first registered component's location of the
// cluster (an eksctl ClusterConfig's region and zones).
func (l *loader) componentLocation() (component.Location, bool) {
	for _, c := range component.Registered() {
		if lc, ok := c.(component.Locator); ok {
			if loc, ok := lc.Location(l.compDocs[c.Name()]); ok {
				return loc, true
			}
		}
	}
	return component.Location{}, false
}

// nodeTaintWarning asks every registered component about a taint on a
// node it did not launch.
func nodeTaintWarning(key string) string {
	for _, c := range component.Registered() {
		if w, ok := c.(component.NodeTaintWarner); ok {
			if msg := w.NodeTaintWarning(key); msg != "" {
				return msg
			}
		}
	}
	return ""
}
