package scenario

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/internal/suggest"
	"github.com/clustersim/clustersim/sim/manifest"
)

// otherKinds are well-known kinds that real bundles (Helm charts, kubectl
// get -o yaml, operators' manifests) carry next to the workloads, none of
// which the simulator reads: each is skipped with the reason given, in one
// info line per kind. Kinds in neither this map nor kinds are skipped too
// (skipUnknown), unless the name is a near miss of a kind we read.
var otherKinds = map[string]string{
	"VolumeAttachment":                 "attachments are derived from the pods' claims",
	"CSIDriver":                        "CSI drivers are known by their provisioner name",
	"CSINode":                          "attach limits come from the instance type",
	"VolumeSnapshot":                   "snapshots do not affect scheduling",
	"VolumeSnapshotClass":              "snapshots do not affect scheduling",
	"IngressClass":                     "ingress classes do not affect scheduling",
	"Endpoints":                        "service endpoints do not affect scheduling",
	"EndpointSlice":                    "service endpoints do not affect scheduling",
	"GatewayClass":                     "gateway routing does not affect scheduling",
	"Gateway":                          "gateway routing does not affect scheduling",
	"HTTPRoute":                        "gateway routing does not affect scheduling",
	"GRPCRoute":                        "gateway routing does not affect scheduling",
	"ServiceMonitor":                   "monitoring configuration does not affect scheduling",
	"PodMonitor":                       "monitoring configuration does not affect scheduling",
	"PrometheusRule":                   "monitoring configuration does not affect scheduling",
	"ServiceEntry":                     "service mesh configuration does not affect scheduling",
	"DestinationRule":                  "service mesh configuration does not affect scheduling",
	"VirtualService":                   "service mesh configuration does not affect scheduling",
	"APIService":                       "API registrations do not affect scheduling",
	"Lease":                            "leases do not affect scheduling",
	"Event":                            "events do not affect scheduling",
	"PodSecurityPolicy":                "pod security policies do not affect scheduling",
	"ControllerRevision":               "controller revisions do not affect scheduling",
	"VerticalPodAutoscaler":            "VPA recommendations are not applied: pods keep the requests they are written with",
	"NodeClaim":                        "NodeClaims are Karpenter's record of the nodes it launched: the simulated Karpenter launches its own",
	"CustomResourceDefinition":         "custom resource definitions do not affect scheduling",
	"ValidatingWebhookConfiguration":   admissionNotRun,
	"MutatingWebhookConfiguration":     admissionNotRun,
	"ValidatingAdmissionPolicy":        admissionNotRun,
	"ValidatingAdmissionPolicyBinding": admissionNotRun,
	"MutatingAdmissionPolicy":          admissionNotRun,
	"MutatingAdmissionPolicyBinding":   admissionNotRun,
	"CertificateSigningRequest":        "certificates do not affect scheduling",
	"RuntimeClass":                     "runtime classes are not modelled: pods that name one schedule as if it had no node selector or overhead",
	"FlowSchema":                       "API priority and fairness does not affect scheduling",
	"ResourceClaim":                    draNotModelled,
	"ResourceClaimTemplate":            draNotModelled,
	"DeviceClass":                      draNotModelled,
	"ResourceSlice":                    draNotModelled,
	"PriorityLevelConfiguration":       "API priority and fairness does not affect scheduling",
}

const (
	admissionNotRun = "admission webhooks and policies are not run: pods are admitted as written"
	// draNotModelled: Dynamic Resource Allocation (resource.k8s.io);
	// pods' claims get a warning of their own (cluster.CodeResourceClaims).
	draNotModelled = "Dynamic Resource Allocation is not modelled: no device is allocated, and pods that claim one are scheduled as if they claimed none"
	// skipUnknown is the reason for a kind the simulator knows nothing of.
	skipUnknown = "the simulator does not read this kind: whatever its controller would create is not simulated"
)

// skipReason says why objects of a skipped kind are left out.
func (l *loader) skipReason(kind string) string {
	if r, ok := l.groupReasons[kind]; ok {
		return r
	}
	if k, ok := kinds[kind]; ok && k.skip != "" {
		return k.skip
	}
	if r, ok := otherKinds[kind]; ok {
		return r
	}
	return skipUnknown
}

// readKinds lists every kind the simulator reads, for the "supported kinds"
// hint: the workload and cluster kinds and the registered components'.
func readKinds() []string {
	names := component.KindNames()
	for k, info := range kinds {
		if info.skip == "" && info.unsupported == "" {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	return names
}

// nearMiss returns the kind the simulator reads that kind is a misspelling
// of (at most two edits, ignoring case), or "": such a kind is an error, not
// a skipped object, so that "Deploymnet" is never silently dropped.
func nearMiss(kind string) string {
	if _, ok := otherKinds[kind]; ok {
		return ""
	}
	if s := closest(kind, readKinds()); s != "" && s != kind {
		return s
	}
	return ""
}

// reportSkipped adds one info line per skipped kind: how many objects,
// where, and why.
func (l *loader) reportSkipped() {
	for _, k := range slices.Sorted(maps.Keys(l.skipped)) {
		docs := l.skipped[k]
		first := docs[0]
		var files []string
		for _, d := range docs {
			if d.File != first.File && !slices.Contains(files, d.File) {
				files = append(files, d.File)
			}
		}
		where := ""
		switch {
		case len(files) > 3:
			where = fmt.Sprintf(" (also in %s and %d more file(s))", strings.Join(files[:3], ", "), len(files)-3)
		case len(files) > 0:
			where = " (also in " + strings.Join(files, ", ") + ")"
		}
		l.warns = append(l.warns, Warning{File: first.File, Line: first.Line, Info: true,
			Msg: fmt.Sprintf("%d %s object(s) skipped%s: %s", len(docs), k, where, l.skipReason(k))})
	}
}

// sameObject reports whether two documents hold the same object, field for
// field (their position aside): a file included twice, or the EC2NodeClass
// every Karpenter example repeats.
func sameObject(a, b *manifest.Document) bool {
	if a.APIVersion != b.APIVersion || a.Kind != b.Kind || a.Name != b.Name || a.Namespace != b.Namespace {
		return false
	}
	ca, errA := manifest.Canonical(a)
	cb, errB := manifest.Canonical(b)
	return errA == nil && errB == nil && ca == cb
}

// duplicateOf looks for an earlier document with d's kind and name among
// docs. An identical one makes d redundant: an info line, and true (drop
// d). A different one is left to the caller's duplicate check.
func (l *loader) duplicateOf(d *manifest.Document, docs []*manifest.Document) bool {
	for _, prev := range docs {
		if prev.Kind == d.Kind && prev.Name == d.Name && prev.Namespace == d.Namespace && sameObject(prev, d) {
			l.identical(d, prev)
			return true
		}
	}
	return false
}

// identical notes that d repeats prev exactly and is read once.
func (l *loader) identical(d, prev *manifest.Document) {
	l.warns = append(l.warns, Warning{File: d.File, Line: d.Line, Info: true,
		Msg: fmt.Sprintf("%s is an identical copy of the one at %s:%d: read once", d.Ref(), prev.File, prev.Line)})
}

// componentOf is the registered component that reads d: the one that
// claims it, else the one registered for its API group and kind; nil for
// none.
func componentOf(d *manifest.Document) component.Component {
	cs := component.Registered()
	for _, c := range cs {
		if cl, ok := c.(component.Claimer); ok && cl.Claims(d) {
			return c
		}
	}
	if c, ok := component.ForKind(component.KindOf(d)); ok {
		return c
	}
	// A group that is a mistake for the component's (none, or a letter or
	// two off) is the component's too: its compile step checks
	// apiVersion and says what the served versions are, as it does for a
	// wrong version in its own group.
	if c, _, typo, ok := foreignGroup(d); ok && typo {
		return c
	}
	return nil
}

// replaceComponentDoc drops the earlier document of c that the override d
// replaces (the component says which, and how to say so), with a warning.
func (l *loader) replaceComponentDoc(c component.Component, d *manifest.Document) {
	docs := l.compDocs[c.Name()]
	for i, prev := range docs {
		msg, ok := "", false
		if r, is := c.(component.Replacer); is {
			msg, ok = r.Replaces(prev, d)
		} else if prev.Kind == d.Kind && prev.Name == d.Name && prev.Namespace == d.Namespace {
			msg, ok = fmt.Sprintf("%s/%s replaces the one at %s:%d", d.Kind, d.Name, prev.File, prev.Line), true
		}
		if ok {
			l.compDocs[c.Name()] = append(docs[:i:i], docs[i+1:]...)
			l.warns = append(l.warns, Warning{File: d.File, Line: d.Line, Msg: msg})
			return
		}
	}
}

// otherGroup skips a document whose kind a component reads under an
// unrelated API group (a NodePool of nodes.example.com: another product's
// kind), with a line that says whose kind it is not; a group that is a
// mistake for the component's went to the component (componentOf). It
// reports whether it handled d.
func (l *loader) otherGroup(d *manifest.Document) bool {
	c, want, typo, ok := foreignGroup(d)
	if !ok || typo {
		return false
	}
	g := component.KindOf(d).Group
	key := d.Kind + "." + g
	l.skipped[key] = append(l.skipped[key], d)
	if l.groupReasons == nil {
		l.groupReasons = map[string]string{}
	}
	l.groupReasons[key] = fmt.Sprintf("the simulator reads %s of API group %s (%s), not of %s: a custom resource, whose controller is not simulated, nor whatever it would create", d.Kind, want.Group, c.Name(), g)
	return true
}

// foreignGroup finds the first registered component that reads d's kind
// in another API group (want), and whether d's group is a mistake for
// want's (typo: none, or one or two letters off) rather than another
// API's kind of the same name.
func foreignGroup(d *manifest.Document) (c component.Component, want component.Kind, typo, ok bool) {
	g := component.KindOf(d).Group
	for _, c := range component.Registered() {
		for _, k := range c.Kinds() {
			if k.Kind == d.Kind && k.Group != g {
				return c, k, g == "" || suggest.Closest(g, []string{k.Group}, 2) != "", true
			}
		}
	}
	return nil, component.Kind{}, false, false
}

// customResource reports whether d, whose kind has the name of a
// Kubernetes kind the simulator knows (kinds: a Job, a StatefulSet, a
// Service, ...), is another API's kind of that name: a Volcano
// batch.volcano.sh Job, an OpenKruise apps.kruise.io StatefulSet, a
// Knative serving.knative.dev Service. Its group is neither a Kubernetes
// group (manifest.KubernetesGroup: there a wrong version is the user's mistake, such
// as apps/v1beta1 or batch/v1beta1, and an error says what is served) nor
// one or two letters from the kind's own (a typo, the same error).
func customResource(d *manifest.Document) bool {
	k, ok := kinds[d.Kind]
	if !ok {
		return false
	}
	g := component.KindOf(d).Group
	if manifest.KubernetesGroup(g) {
		return false
	}
	if k.apiVersion != "" {
		want := component.KindOf(&manifest.Document{APIVersion: k.apiVersion}).Group
		if suggest.Closest(g, []string{want}, 2) != "" {
			return false
		}
	}
	return true
}

// skipCustom skips d when it is a custom resource (customResource) with
// one info line per kind and group (Job.batch.volcano.sh): its controller
// is not simulated, so neither are the pods it would create. It reports
// whether it skipped d.
func (l *loader) skipCustom(d *manifest.Document) bool {
	if !customResource(d) {
		return false
	}
	g := component.KindOf(d).Group
	key := d.Kind + "." + g
	l.skipped[key] = append(l.skipped[key], d)
	if l.groupReasons == nil {
		l.groupReasons = map[string]string{}
	}
	of := "Kubernetes's " + d.Kind
	if v := kinds[d.Kind].apiVersion; v != "" {
		of += " (" + v + ")"
	}
	l.groupReasons[key] = fmt.Sprintf("a custom resource of API group %s, not %s: the simulator does not read it, and the pods its controller would create are not simulated", g, of)
	return true
}

// CustomResource reports whether d is a custom resource that has the name
// of a Kubernetes kind (a Volcano batch.volcano.sh Job): the loader skips
// it (customResource).
func CustomResource(d *manifest.Document) bool { return customResource(d) }
