package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	caconfig "github.com/clustersim/clustersim/sim/clusterautoscaler/config"
	"github.com/clustersim/clustersim/sim/internal/duration"
	"github.com/clustersim/clustersim/sim/internal/suggest"
	kpapis "github.com/clustersim/clustersim/sim/karpenter/apis"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Options of an import.
type Options struct {
	// Redact replaces namespace, workload and node names with stable
	// hashes.
	Redact bool
	// Name of the scenario (default "imported") and its Duration
	// (default 1h).
	Name     string
	Duration string
}

// Check reports a duration the scenario would refuse.
func (o Options) Check() error {
	if o.Duration == "" {
		return nil
	}
	d, err := duration.Parse(o.Duration)
	switch {
	case errors.Is(err, duration.ErrTooLong) || (err == nil && d > duration.Year):
		// sim run would refuse the scenario written.
		return fmt.Errorf("duration %q: longer than a year, the most a scenario runs (366d or 8784h)", o.Duration)
	case err != nil:
		return fmt.Errorf("duration %q: %v; write e.g. 1h, 90m or 7d", o.Duration, err)
	case d <= 0:
		return fmt.Errorf("duration %q: must be positive", o.Duration)
	}
	return nil
}

// Notice is one line of the import's report: an object that could not be
// placed as it was, or a kind that was skipped, and what was done.
type Notice struct {
	File, Pos string // Pos: the line (YAML) or items[i] (JSON)
	Object    string // Kind/namespace/name, or "" for a summary
	Msg       string
}

func (n Notice) String() string {
	if n.Object == "" {
		return fmt.Sprintf("%s:%s: %s", n.File, n.Pos, n.Msg)
	}
	return fmt.Sprintf("%s:%s: %s: %s", n.File, n.Pos, n.Object, n.Msg)
}

// Error lists every problem of an import at once.
type Error struct{ Problems []Notice }

func (e *Error) Error() string {
	var b strings.Builder
	for i, p := range e.Problems {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// DefaultDuration is the imported scenario's duration unless Options say.
const DefaultDuration = "1h"

// where locates an object for messages.
type where struct{ file, pos string }

// node is a Node of the export, cleaned.
type node struct {
	where
	name  string // as exported
	out   map[string]any
	owner string // "NodePool x", "node group y", "" (static)
}

// annotate sets an annotation on the cleaned Node.
func (n *node) annotate(k, v string) {
	md := n.out["metadata"].(map[string]any)
	a, _ := md["annotations"].(map[string]string)
	if a == nil {
		a = map[string]string{}
	}
	a[k] = v
	md["annotations"] = a
}

// placement collects where one controller's pods run: node names as
// exported ("" pending), and a StatefulSet's by ordinal.
type placement struct {
	where
	nodes     []string
	byOrdinal map[int]string
	// started are the pods' status.startTime (zero: none), same order as
	// nodes; startedByOrdinal a StatefulSet's.
	started          []time.Time
	startedByOrdinal map[int]time.Time
	// terminating are its pods with a deletionTimestamp, bound to a node.
	terminating []termPod
	// annotated are, by "key=value" of a podAnnotations annotation, the
	// pods ("ns/name") that carry it themselves.
	annotated map[string][]string
}

// termPod is a terminating pod: its node (as exported) and when its
// grace period ends: its deletionTimestamp, which the API server sets to
// the deletion's time plus the grace period (deletionGracePeriodSeconds).
type termPod struct {
	node  string
	until time.Time
}

// workload is a controller of the export, cleaned.
type workload struct {
	where
	kind, namespace, name string // as exported
	obj                   any
	runtime               bool // a Job: the entry needs a runtime
	statefulSet           bool
	ca                    bool  // the Cluster Autoscaler's Deployment: not a workload
	karpenter             bool  // Karpenter's Deployment: its settings, not a workload
	startMax              int32 // pods it starts with (replicas, or a Job's running pods at most)
	// tmplAnnotations are the kept annotations of its pod template.
	tmplAnnotations map[string]string
}

func (w *workload) ref() string { return w.kind + "/" + w.namespace + "/" + w.name }

// Importer reads exports one file at a time and builds a scenario.
type Importer struct {
	opts    Options
	cat     *catalog.Catalog
	notices []Notice
	errs    []Notice

	nodes map[string]*node
	// sawReservationTerms: an EC2NodeClass had
	// capacityReservationSelectorTerms (reservations.go).
	sawReservationTerms bool
	workloads           []*workload
	byRef               map[string]*workload
	rsOwner             map[string]string // "ns/rs" -> "ns/deployment" of ReplicaSets a Deployment owns
	placements          map[string]*placement
	barePods            []map[string]any
	passthru            []map[string]any // NodePools, node classes, ClusterConfigs, ...
	others              []any            // PDBs, HPAs, PriorityClasses, Namespaces (typed, cleaned)
	claimPool           map[string]string
	// claimNotes are, by node name, what its NodeClaim says that goes on
	// the Node as annotations: its hash annotations
	// (claimHashAnnotations) and when its Drifted condition turned true
	// (driftedSinceAnnotation).
	claimNotes map[string]map[string]string
	// claimPodEvent is, by node name, its NodeClaim's
	// status.lastPodEventTime.
	claimPodEvent map[string]metav1.Time
	skipped       map[string]*skip
	seen          map[string]where
	strings       map[string]string
	// classValue is the priority pods of a class were given; classUsed
	// the classes templates and pods name; classes those exported.
	classValue map[string]int32
	classUsed  map[string]where
	classes    map[string]bool
	storage    *storageState // nil: no storage object or claim volume read
	cur        where         // the item being read
	caArgs     bool
	// clusterNames and accounts are the cluster names and AWS account IDs
	// seen, which --redact replaces wherever they appear (redact.go);
	// discoveryKeys the tag keys of the Cluster Autoscaler's
	// --node-group-auto-discovery flags, whose node group tags are kept.
	clusterNames  []string
	accounts      map[string]bool
	discoveryKeys map[string]bool
	pendingTags   []pendingTag

	terminating, finished int
	// now is the export's time: the newest creationTimestamp or status
	// condition time (lastHeartbeatTime, lastTransitionTime) of its Nodes.
	now time.Time
}

// seeTime moves the export's time to t if t is newer.
func (im *Importer) seeTime(t metav1.Time) {
	if t.Time.After(im.now) {
		im.now = t.Time
	}
}

type skip struct {
	count int
	first where
	why   string
}

// New returns an empty importer; cat (may be nil) checks instance types.
func New(opts Options, cat *catalog.Catalog) *Importer {
	if opts.Name == "" {
		opts.Name = "imported"
	}
	if opts.Duration == "" {
		opts.Duration = DefaultDuration
	}
	return &Importer{opts: opts, cat: cat, nodes: map[string]*node{}, byRef: map[string]*workload{},
		rsOwner: map[string]string{}, placements: map[string]*placement{}, claimPool: map[string]string{},
		skipped: map[string]*skip{}, seen: map[string]where{}, strings: map[string]string{},
		classValue: map[string]int32{}, classUsed: map[string]where{}, classes: map[string]bool{},
		accounts: map[string]bool{}, discoveryKeys: map[string]bool{}}
}

// Notices are the report lines so far.
func (im *Importer) Notices() []Notice { return im.notices }

func (im *Importer) notice(w where, obj, format string, args ...any) {
	im.notices = append(im.notices, Notice{File: w.file, Pos: w.pos, Object: obj, Msg: fmt.Sprintf(format, args...)})
}

func (im *Importer) problem(w where, obj, format string, args ...any) {
	im.errs = append(im.errs, Notice{File: w.file, Pos: w.pos, Object: obj, Msg: fmt.Sprintf(format, args...)})
}

// Add reads one export. A file that cannot be read to its end (cut short,
// not an export) is an error naming the file; problems with single
// objects are collected and returned by Build.
func (im *Importer) Add(file string, r io.Reader) error {
	err := scan(r, func(it *item) error {
		im.item(file, it)
		return nil
	})
	var pe *posError
	switch {
	case errors.As(err, &pe):
		return fmt.Errorf("%s:%s: %w", file, pe.pos, pe.err)
	case err != nil:
		return fmt.Errorf("%s: %w", file, err)
	}
	return nil
}

// secretKinds are never decoded.
var secretKinds = map[string]bool{"Secret": true, "ConfigMap": true}

// readVersions are the API versions read, by kind.
var readVersions = map[string][]string{
	"Node": {"v1"}, "Pod": {"v1"}, "Namespace": {"v1"},
	"Deployment": {"apps/v1"}, "ReplicaSet": {"apps/v1"}, "StatefulSet": {"apps/v1"}, "DaemonSet": {"apps/v1"},
	"Job": {"batch/v1"}, "CronJob": {"batch/v1"},
	"PodDisruptionBudget":     {"policy/v1"},
	"HorizontalPodAutoscaler": {"autoscaling/v2", "autoscaling/v1"},
	"PriorityClass":           {"scheduling.k8s.io/v1"},
	"NodePool":                {"karpenter.sh/v1", "karpenter.sh/v1beta1"},
	"NodeClaim":               {"karpenter.sh/v1", "karpenter.sh/v1beta1"},
	"NodeOverlay":             {"karpenter.sh/v1alpha1"},
	"CapacityBuffer":          {"autoscaling.x-k8s.io/v1beta1", "autoscaling.x-k8s.io/v1alpha1"},
	"PodTemplate":             {"v1"},
	"EC2NodeClass":            {"karpenter.k8s.aws/v1", "karpenter.k8s.aws/v1beta1"},
	"NodeClass":               {"eks.amazonaws.com/v1"},
	"Provisioner":             {"karpenter.sh/v1alpha5"},
	"AWSNodeTemplate":         {"karpenter.k8s.aws/v1alpha1"},
	"ClusterConfig":           {"eksctl.io/v1alpha5"},
	"StorageClass":            {"storage.k8s.io/v1"},
	"PersistentVolume":        {"v1"},
	"PersistentVolumeClaim":   {"v1"},
}

// customGroup returns the API group of apiVersion when the object is
// another API's kind of a name the import reads (a Volcano
// batch.volcano.sh Job, the kwok operator's NodePool): neither a
// Kubernetes group (manifest.KubernetesGroup) nor the group of one of the
// versions read, nor a letter or two from one (a mistake, whose problem
// says which versions are read).
func customGroup(apiVersion string, versions []string) (string, bool) {
	g, _, ok := strings.Cut(apiVersion, "/")
	if !ok || manifest.KubernetesGroup(g) {
		return "", false
	}
	var groups []string
	for _, v := range versions {
		if vg, _, ok := strings.Cut(v, "/"); ok {
			groups = append(groups, vg)
		}
	}
	if suggest.Closest(g, groups, 2) != "" {
		return "", false
	}
	return g, true
}

func (im *Importer) item(file string, it *item) {
	w := where{file, it.pos()}
	im.cur = w
	if secretKinds[it.kind] {
		im.skip(w, it.kind, "never read (nothing secret leaves)")
		return
	}
	versions, read := readVersions[it.kind]
	if !read {
		if it.kind == "" {
			im.problem(w, "", "an object without kind: not a Kubernetes object (is this a kubectl export?)")
			return
		}
		im.skip(w, it.kind, "does not change where pods land")
		return
	}
	if g, ok := customGroup(it.apiVersion, versions); ok {
		im.skip(w, it.kind+"."+g, "a custom resource of API group "+g+", not the "+it.kind+" of "+strings.Join(versions, ", ")+": its controller, and the pods it would create, are not simulated")
		return
	}
	if !slices.Contains(versions, it.apiVersion) {
		im.problem(w, im.objectName(it), "apiVersion %q is not read (read: %s); export it with a newer kubectl or API server", it.apiVersion, strings.Join(versions, ", "))
		return
	}
	if im.opts.Redact {
		if it.json != nil {
			im.seeIdentifiers(it.json)
		} else {
			im.seeIdentifiers(it.yamlText)
		}
	}
	var err error
	switch it.kind {
	case "Node":
		err = im.node(w, it)
	case "Pod":
		err = im.pod(w, it)
	case "Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob":
		err = im.controller(w, it)
	case "NodeClaim":
		err = im.nodeClaim(it)
	case "NodePool":
		err = im.mapKept(w, it, nodePoolKept)
	case "NodeOverlay":
		err = im.mapKept(w, it, nodeOverlayKept)
	case "CapacityBuffer":
		err = im.mapKept(w, it, capacityBufferKept)
	case "PodTemplate":
		err = im.mapKept(w, it, podTemplateKept)
	case "Provisioner":
		err = im.mapKept(w, it, provisionerKept)
	case "EC2NodeClass":
		err = im.mapKept(w, it, ec2NodeClassKept)
	case "NodeClass":
		err = im.mapKept(w, it, eksNodeClassKept)
	case "AWSNodeTemplate":
		err = im.mapKept(w, it, awsNodeTemplateKept)
	case "ClusterConfig":
		err = im.clusterConfig(w, it)
	case "StorageClass":
		err = im.storageClass(w, it)
	case "PersistentVolume":
		err = im.persistentVolume(w, it)
	case "PersistentVolumeClaim":
		err = im.persistentVolumeClaim(w, it)
	default:
		err = im.other(w, it)
	}
	if err != nil {
		im.problem(w, im.objectName(it), "cannot decode: %v (fix that field, or export the object again unedited)", err)
	}
}

// objectName is Kind/namespace/name of an item, read from its metadata.
func (im *Importer) objectName(it *item) string {
	var o struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if it.decode(&o) != nil || o.Metadata.Name == "" {
		return it.kind
	}
	if o.Metadata.Namespace == "" {
		return it.kind + "/" + o.Metadata.Name
	}
	return it.kind + "/" + o.Metadata.Namespace + "/" + o.Metadata.Name
}

func (im *Importer) skip(w where, kind, why string) {
	s := im.skipped[kind]
	if s == nil {
		s = &skip{first: w, why: why}
		im.skipped[kind] = s
	}
	s.count++
}

// unique reports a second object of one kind and name (two clusters'
// exports mixed, or a file given twice).
func (im *Importer) unique(w where, kind, ns, name string) bool {
	key := kind + "/" + ns + "/" + name
	if prev, dup := im.seen[key]; dup {
		obj := kind + "/" + name
		if ns != "" {
			obj = kind + "/" + ns + "/" + name
		}
		im.problem(w, obj, "a second %s of this name (the first is at %s:%s): are exports of two clusters mixed, or a file given twice?", kind, prev.file, prev.pos)
		return false
	}
	im.seen[key] = w
	return true
}

func (im *Importer) node(w where, it *item) error {
	var n corev1.Node
	if err := it.decode(&n); err != nil {
		return err
	}
	if !im.unique(w, "Node", "", n.Name) {
		return nil
	}
	obj := "Node/" + n.Name
	if os := n.Labels["kubernetes.io/os"]; os != "" && os != "linux" {
		im.notice(w, obj, "a %s node: skipped (only Linux nodes are simulated); its pods start pending", os)
		return nil
	}
	typ := n.Labels["node.kubernetes.io/instance-type"]
	if typ == "" {
		typ = n.Labels["beta.kubernetes.io/instance-type"]
	}
	if im.cat != nil {
		if _, ok := im.cat.Lookup(typ); !ok {
			if len(n.Status.Allocatable) == 0 && len(n.Status.Capacity) == 0 {
				im.notice(w, obj, "instance type %q is not in the catalogue and the node has no status.allocatable: skipped", typ)
				return nil
			}
			im.notice(w, obj, "instance type %q is not in the catalogue: sized from its status.allocatable, and it costs 0", typ)
		}
	}
	im.seeTime(n.CreationTimestamp)
	// An unhealthy condition node repair acts on (Ready False or Unknown,
	// the node monitoring agent's) is kept, with its lastTransitionTime,
	// so that the toleration counts from the real transition.
	var unhealthy []map[string]any
	for _, c := range n.Status.Conditions {
		im.seeTime(c.LastHeartbeatTime)
		im.seeTime(c.LastTransitionTime)
		if _, ok := cluster.ParseNodeCondition(string(c.Type) + "=" + string(c.Status)); ok && len(unhealthy) == 0 {
			uc := map[string]any{"type": string(c.Type), "status": string(c.Status)}
			if c.Reason != "" {
				uc["reason"] = c.Reason
			}
			if !c.LastTransitionTime.IsZero() {
				uc["lastTransitionTime"] = c.LastTransitionTime.UTC().Format(time.RFC3339)
			}
			unhealthy = append(unhealthy, uc)
			im.notice(w, obj, "%s was %s at the export (%s): simulated as unhealthy from its lastTransitionTime", c.Type, c.Status, c.Reason)
			continue
		}
		if c.Type == corev1.NodeReady && c.Status != corev1.ConditionTrue {
			im.notice(w, obj, "Ready was %s at the export (%s): simulated as a Ready node", c.Status, c.Reason)
		}
	}
	labels := map[string]string{}
	for k, v := range n.Labels {
		labels[k] = im.nodeLabelValue(k, v)
	}
	md := map[string]any{"name": im.nodeName(n.Name), "labels": labels}
	if !n.CreationTimestamp.IsZero() {
		md["creationTimestamp"] = n.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z")
	}
	if a := keepAnnotations(n.Annotations); a != nil {
		md["annotations"] = a
	}
	spec := map[string]any{}
	if len(n.Spec.Taints) > 0 {
		spec["taints"] = n.Spec.Taints
	}
	if n.Spec.Unschedulable {
		spec["unschedulable"] = true
	}
	status := map[string]any{}
	if len(n.Status.Allocatable) > 0 {
		status["allocatable"] = n.Status.Allocatable
	}
	if len(n.Status.Capacity) > 0 {
		status["capacity"] = n.Status.Capacity
	}
	if len(unhealthy) > 0 {
		status["conditions"] = unhealthy
	}
	out := map[string]any{"apiVersion": "v1", "kind": "Node", "metadata": md}
	if len(spec) > 0 {
		out["spec"] = spec
	}
	if len(status) > 0 {
		out["status"] = status
	}
	nd := &node{where: w, name: n.Name, out: out}
	switch {
	case n.Labels["karpenter.sh/nodepool"] != "":
		nd.owner = "NodePool " + n.Labels["karpenter.sh/nodepool"]
	case n.Labels["karpenter.sh/provisioner-name"] != "":
		nd.owner = "Provisioner " + n.Labels["karpenter.sh/provisioner-name"]
	case n.Labels["eks.amazonaws.com/nodegroup"] != "":
		nd.owner = "managed node group " + n.Labels["eks.amazonaws.com/nodegroup"]
	case n.Labels["alpha.eksctl.io/nodegroup-name"] != "":
		nd.owner = "node group " + n.Labels["alpha.eksctl.io/nodegroup-name"]
	}
	im.nodes[n.Name] = nd
	return nil
}

func (im *Importer) nodeClaim(it *item) error {
	var c struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     struct {
			ExpireAfter *string `json:"expireAfter"`
		} `json:"spec"`
		Status struct {
			NodeName         string       `json:"nodeName"`
			LastPodEventTime *metav1.Time `json:"lastPodEventTime"`
			Conditions       []struct {
				Type               string      `json:"type"`
				Status             string      `json:"status"`
				LastTransitionTime metav1.Time `json:"lastTransitionTime"`
			} `json:"conditions"`
		} `json:"status"`
	}
	if err := it.decode(&c); err != nil {
		return err
	}
	if p := c.Metadata.Labels["karpenter.sh/nodepool"]; p != "" && c.Status.NodeName != "" {
		im.claimPool[c.Status.NodeName] = p
	}
	note := func(k, v string) {
		if c.Status.NodeName == "" {
			return
		}
		if im.claimNotes == nil {
			im.claimNotes = map[string]map[string]string{}
		}
		if im.claimNotes[c.Status.NodeName] == nil {
			im.claimNotes[c.Status.NodeName] = map[string]string{}
		}
		im.claimNotes[c.Status.NodeName][k] = v
	}
	for _, k := range claimHashAnnotations {
		if v, ok := c.Metadata.Annotations[k]; ok {
			note(k, v)
		}
	}
	// Upstream expires a NodeClaim by its own spec.expireAfter, set from
	// its NodePool when it was made, counted from its creation: not by the
	// pool's value now.
	if e := c.Spec.ExpireAfter; e != nil {
		switch d, err := time.ParseDuration(*e); {
		case *e == "Never":
			note(expiresAtAnnotation, "Never")
		case err == nil && !c.Metadata.CreationTimestamp.IsZero():
			note(expiresAtAnnotation, c.Metadata.CreationTimestamp.Add(d).UTC().Format(time.RFC3339))
		}
	}
	for _, cond := range c.Status.Conditions {
		if cond.Type == "Drifted" && cond.Status == "True" && !cond.LastTransitionTime.IsZero() {
			note(driftedSinceAnnotation, cond.LastTransitionTime.UTC().Format(time.RFC3339))
		}
	}
	if t := c.Status.LastPodEventTime; t != nil && !t.IsZero() && c.Status.NodeName != "" {
		if im.claimPodEvent == nil {
			im.claimPodEvent = map[string]metav1.Time{}
		}
		im.claimPodEvent[c.Status.NodeName] = *t
		im.seeTime(*t)
	}
	return nil
}

// controllerOf is the pod's controlling owner.
func controllerOf(refs []metav1.OwnerReference) *metav1.OwnerReference {
	for i := range refs {
		if r := &refs[i]; r.Controller != nil && *r.Controller {
			return r
		}
	}
	if len(refs) > 0 {
		return &refs[0]
	}
	return nil
}

// podLite is what a pod owned by a controller contributes: read without
// decoding the whole pod (the bulk of a large export).
type podLite struct {
	Metadata struct {
		Annotations       map[string]string `json:"annotations"`
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		DeletionTimestamp *string           `json:"deletionTimestamp"`
		OwnerReferences   []ownerLite       `json:"ownerReferences"`
	} `json:"metadata"`
	Spec struct {
		NodeName          string `json:"nodeName"`
		PriorityClassName string `json:"priorityClassName"`
		Priority          *int32 `json:"priority"`
	} `json:"spec"`
	Status struct {
		Phase     string  `json:"phase"`
		StartTime *string `json:"startTime"`
	} `json:"status"`
}

type ownerLite struct {
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Controller *bool  `json:"controller"`
}

// owner is the controlling owner's kind and name.
func (p *podLite) owner() (kind, name string) {
	for _, r := range p.Metadata.OwnerReferences {
		if r.Controller != nil && *r.Controller {
			return r.Kind, r.Name
		}
	}
	if len(p.Metadata.OwnerReferences) > 0 {
		return p.Metadata.OwnerReferences[0].Kind, p.Metadata.OwnerReferences[0].Name
	}
	return "", ""
}

// ownedKinds are the controllers whose pods are counted, not kept.
// (A pod owned by a Deployment directly is not what a Deployment
// controller makes, but a state dumped by another tool may say so.)
var ownedKinds = map[string]bool{"ReplicaSet": true, "StatefulSet": true, "Job": true, "DaemonSet": true, "Deployment": true}

func (im *Importer) pod(w where, it *item) error {
	var lite podLite
	ok := false
	switch {
	case it.lite != nil:
		lite, ok = it.lite.podLite, true
	case it.json != nil:
		ok = json.Unmarshal(it.json, &lite) == nil
	default:
		ok = lite.fromYAML(it.yamlText)
	}
	if ok {
		im.seePriority(&lite)
		kind, _ := lite.owner()
		if done := lite.Status.Phase == string(corev1.PodSucceeded) || lite.Status.Phase == string(corev1.PodFailed); done || lite.Metadata.DeletionTimestamp != nil || ownedKinds[kind] {
			im.podOwned(w, &lite)
			return nil
		}
	}
	var p corev1.Pod
	if err := it.decode(&p); err != nil {
		return err
	}
	lite = liteOf(&p)
	im.seePriority(&lite)
	if kind, _ := lite.owner(); p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed || p.DeletionTimestamp != nil || ownedKinds[kind] {
		im.podOwned(w, &lite)
		return nil
	}
	if !im.unique(w, "Pod", p.Namespace, p.Name) {
		return nil
	}
	node := p.Spec.NodeName
	if owner := controllerOf(p.OwnerReferences); owner != nil && owner.Kind != "Node" {
		// (A pod owned by its Node is a static pod the kubelet runs from a file.)
		im.notice(w, "Pod/"+p.Namespace+"/"+p.Name, "owned by %s %s, a kind that is not read: imported as a bare Pod", owner.Kind, owner.Name)
	}
	spec := im.podSpec(p.Spec)
	spec.NodeName = im.nodeName(node)
	out := corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: im.meta(p.ObjectMeta, true), Spec: spec}
	if cluster.IsMirrorPod(p.ObjectMeta) {
		// A static pod: the scenario marks it by the annotation the API
		// server gives mirror pods (its value, a hash of the kubelet's
		// file, is not kept), so that no autoscaler moves or drains it.
		if out.Annotations == nil {
			out.Annotations = map[string]string{}
		}
		out.Annotations[cluster.MirrorAnnotation] = "static"
	}
	m, err := toMap(out)
	if err != nil {
		return err
	}
	if _, ok := cluster.DoNotDisruptDuration(p.Annotations["karpenter.sh/do-not-disrupt"]); ok && p.Status.StartTime != nil {
		// Its do-not-disrupt duration counts from its start at the export,
		// not from its restart in the run: the loader reads startTime.
		m["status"] = map[string]any{"startTime": p.Status.StartTime.UTC().Format(time.RFC3339)}
	}
	m["_node"] = node
	m["_where"] = w
	m["_ns"] = nsOr(p.Namespace)
	m["_obj"] = "Pod/" + nsOr(p.Namespace) + "/" + p.Name
	if len(spec.Volumes) > 0 {
		im.st().barePods[nsOr(p.Namespace)+"/"+p.Name] = true
	}
	im.barePods = append(im.barePods, m)
	return nil
}

// liteOf is the podLite of a decoded pod.
func liteOf(p *corev1.Pod) podLite {
	var l podLite
	l.Metadata.Name, l.Metadata.Namespace = p.Name, p.Namespace
	if p.DeletionTimestamp != nil {
		ts := p.DeletionTimestamp.UTC().Format(time.RFC3339)
		l.Metadata.DeletionTimestamp = &ts
	}
	for _, k := range podAnnotations {
		if v, ok := p.Annotations[k]; ok {
			if l.Metadata.Annotations == nil {
				l.Metadata.Annotations = map[string]string{}
			}
			l.Metadata.Annotations[k] = v
		}
	}
	for _, r := range p.OwnerReferences {
		l.Metadata.OwnerReferences = append(l.Metadata.OwnerReferences, ownerLite{Kind: r.Kind, Name: r.Name, Controller: r.Controller})
	}
	l.Spec.NodeName, l.Status.Phase = p.Spec.NodeName, string(p.Status.Phase)
	if p.Status.StartTime != nil {
		st := p.Status.StartTime.UTC().Format(time.RFC3339)
		l.Status.StartTime = &st
	}
	l.Spec.PriorityClassName, l.Spec.Priority = p.Spec.PriorityClassName, p.Spec.Priority
	return l
}

// podOwned records a pod that is finished, terminating, or owned by a
// controller: where it runs counts for its controller.
func (im *Importer) podOwned(w where, p *podLite) {
	ns, name := p.Metadata.Namespace, p.Metadata.Name
	if !im.unique(w, "Pod", ns, name) {
		return
	}
	if p.Status.Phase == string(corev1.PodSucceeded) || p.Status.Phase == string(corev1.PodFailed) {
		im.finished++
		return
	}
	kind, owner := p.owner()
	if p.Metadata.DeletionTimestamp != nil {
		im.podTerminating(w, p, kind, owner)
		return
	}
	if kind == "DaemonSet" {
		return // the DaemonSet runs one on every matching node
	}
	node := im.intern(p.Spec.NodeName)
	key := kind + "/" + ns + "/" + owner
	pl := im.placements[key]
	if pl == nil {
		pl = &placement{where: w}
		im.placements[key] = pl
	}
	for _, k := range podAnnotations {
		if v, ok := p.Metadata.Annotations[k]; ok {
			if pl.annotated == nil {
				pl.annotated = map[string][]string{}
			}
			kv := k + "=" + v
			pl.annotated[kv] = append(pl.annotated[kv], ns+"/"+name)
		}
	}
	var started time.Time
	if st := p.Status.StartTime; st != nil {
		if t, err := time.Parse(time.RFC3339, *st); err == nil {
			started = t
		}
	}
	if kind == "StatefulSet" {
		if o := ordinal(name, owner); o >= 0 {
			if pl.byOrdinal == nil {
				pl.byOrdinal, pl.startedByOrdinal = map[int]string{}, map[int]time.Time{}
			}
			pl.byOrdinal[o], pl.startedByOrdinal[o] = node, started
		}
		return
	}
	pl.nodes = append(pl.nodes, node)
	pl.started = append(pl.started, started)
}

// podTerminating records a pod with a deletionTimestamp: a Deployment's
// or a Job's pod bound to a node starts terminating where it runs until
// its grace period ends; the others are left out (counted for a notice).
func (im *Importer) podTerminating(w where, p *podLite, kind, owner string) {
	until, err := time.Parse(time.RFC3339, *p.Metadata.DeletionTimestamp)
	if err != nil || p.Spec.NodeName == "" || (kind != "ReplicaSet" && kind != "Job" && kind != "Deployment") {
		im.terminating++
		return
	}
	key := kind + "/" + p.Metadata.Namespace + "/" + owner
	pl := im.placements[key]
	if pl == nil {
		pl = &placement{where: w}
		im.placements[key] = pl
	}
	pl.terminating = append(pl.terminating, termPod{node: im.intern(p.Spec.NodeName), until: until})
}

// seePriority records the priority the API server gave a pod of a
// class, for classes the export lacks.
func (im *Importer) seePriority(p *podLite) {
	if c := p.Spec.PriorityClassName; c != "" && p.Spec.Priority != nil {
		if _, ok := im.classValue[c]; !ok {
			im.classValue[c] = *p.Spec.Priority
		}
	}
}

// intern shares one string per node name among the pods.
func (im *Importer) intern(s string) string {
	if v, ok := im.strings[s]; ok {
		return v
	}
	im.strings[s] = s
	return s
}

func (im *Importer) controller(w where, it *item) error {
	var meta metav1.ObjectMeta
	var obj any
	wl := &workload{where: w, kind: it.kind}
	switch it.kind {
	case "Deployment":
		var d appsv1.Deployment
		if err := it.decode(&d); err != nil {
			return err
		}
		meta = d.ObjectMeta
		var ca *caconfig.Deployment
		if isCAImage(d.Spec.Template.Spec.Containers) {
			ca = im.caDeployment(w, it)
		}
		var kp *kpapis.Deployment
		if ca == nil && isKarpenterImage(d.Spec.Template.Spec.Containers) {
			kp = im.karpenterDeployment(w, it)
		}
		tmpl := im.template(d.Spec.Template)
		if kp != nil {
			// Karpenter's controller: its settings, not a workload.
			c := im.karpenterContainer(w, "Deployment/"+nsOr(meta.Namespace)+"/"+meta.Name, kp, d.Spec.Template.Spec.Containers)
			tmpl = corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmpl.Labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{c}}}
			wl.karpenter = true
		}
		if ca != nil {
			// The Cluster Autoscaler: its configuration, not a workload.
			c := im.caContainer(w, "Deployment/"+nsOr(meta.Namespace)+"/"+meta.Name, ca, d.Spec.Template.Spec.Containers)
			if im.opts.Redact {
				c.Name = "c0"
			}
			tmpl = corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: tmpl.Labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{c}}}
			im.caArgs, wl.ca = true, true
		}
		obj = appsv1.Deployment{TypeMeta: typeMeta2("apps/v1", "Deployment"), ObjectMeta: im.meta(meta, false),
			Spec: appsv1.DeploymentSpec{Replicas: d.Spec.Replicas, Selector: im.Selector(d.Spec.Selector), Template: tmpl}}
		wl.startMax = replicas(d.Spec.Replicas)
	case "ReplicaSet":
		var rs appsv1.ReplicaSet
		if err := it.decode(&rs); err != nil {
			return err
		}
		meta = rs.ObjectMeta
		if o := controllerOf(rs.OwnerReferences); o != nil && o.Kind == "Deployment" {
			im.rsOwner[rs.Namespace+"/"+rs.Name] = rs.Namespace + "/" + o.Name
			return nil // its Deployment is the workload
		}
		obj = appsv1.ReplicaSet{TypeMeta: typeMeta2("apps/v1", "ReplicaSet"), ObjectMeta: im.meta(meta, false),
			Spec: appsv1.ReplicaSetSpec{Replicas: rs.Spec.Replicas, Selector: im.Selector(rs.Spec.Selector), Template: im.template(rs.Spec.Template)}}
		wl.startMax = replicas(rs.Spec.Replicas)
	case "StatefulSet":
		var s appsv1.StatefulSet
		if err := it.decode(&s); err != nil {
			return err
		}
		meta = s.ObjectMeta
		tmpl := im.template(s.Spec.Template)
		keepProbeTiming(&tmpl.Spec, &s.Spec.Template.Spec)
		obj = appsv1.StatefulSet{TypeMeta: typeMeta2("apps/v1", "StatefulSet"), ObjectMeta: im.meta(meta, false),
			Spec: appsv1.StatefulSetSpec{Replicas: s.Spec.Replicas, Selector: im.Selector(s.Spec.Selector), Template: tmpl,
				VolumeClaimTemplates: im.claimTemplates(nsOr(s.Namespace), s.Name, s.Spec.VolumeClaimTemplates),
				PodManagementPolicy:  s.Spec.PodManagementPolicy, MinReadySeconds: s.Spec.MinReadySeconds}}
		wl.statefulSet = true
		wl.startMax = replicas(s.Spec.Replicas)
	case "DaemonSet":
		var s appsv1.DaemonSet
		if err := it.decode(&s); err != nil {
			return err
		}
		meta = s.ObjectMeta
		obj = appsv1.DaemonSet{TypeMeta: typeMeta2("apps/v1", "DaemonSet"), ObjectMeta: im.meta(meta, false),
			Spec: appsv1.DaemonSetSpec{Selector: im.Selector(s.Spec.Selector), Template: im.template(s.Spec.Template)}}
	case "Job":
		var j batchv1.Job
		if err := it.decode(&j); err != nil {
			return err
		}
		meta = j.ObjectMeta
		if jobDone(&j) {
			im.finished++
			return nil
		}
		completions := int32(1)
		if j.Spec.Completions != nil {
			completions = *j.Spec.Completions
		} else if j.Spec.Parallelism != nil {
			completions = *j.Spec.Parallelism
		}
		// Its progress: the completions still to run.
		remaining := max(completions-j.Status.Succeeded, 0)
		spec := batchv1.JobSpec{Parallelism: j.Spec.Parallelism, Completions: &remaining, BackoffLimit: j.Spec.BackoffLimit,
			PodFailurePolicy: im.failurePolicy(j.Spec.PodFailurePolicy, j.Spec.Template.Spec), Template: im.template(j.Spec.Template)}
		obj = batchv1.Job{TypeMeta: typeMeta2("batch/v1", "Job"), ObjectMeta: im.meta(meta, false), Spec: spec}
		wl.runtime = true
		par := remaining
		if j.Spec.Parallelism != nil {
			par = min(*j.Spec.Parallelism, remaining)
		}
		wl.startMax = par
	case "CronJob":
		var c batchv1.CronJob
		if err := it.decode(&c); err != nil {
			return err
		}
		meta = c.ObjectMeta
		js := c.Spec.JobTemplate.Spec
		spec := c.Spec
		spec = batchv1.CronJobSpec{Schedule: spec.Schedule, TimeZone: spec.TimeZone, StartingDeadlineSeconds: spec.StartingDeadlineSeconds,
			ConcurrencyPolicy: spec.ConcurrencyPolicy, Suspend: spec.Suspend}
		spec.JobTemplate = batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Parallelism: js.Parallelism, Completions: js.Completions,
			BackoffLimit: js.BackoffLimit, PodFailurePolicy: im.failurePolicy(js.PodFailurePolicy, js.Template.Spec), Template: im.template(js.Template)}}
		obj = batchv1.CronJob{TypeMeta: typeMeta2("batch/v1", "CronJob"), ObjectMeta: im.meta(meta, false), Spec: spec}
	}
	if !im.unique(w, it.kind, meta.Namespace, meta.Name) {
		return nil
	}
	wl.namespace, wl.name, wl.obj = nsOr(meta.Namespace), meta.Name, obj
	// obj holds values, not pointers (a pointer case never matched, so
	// every annotated template's pods were reported as lacking it).
	switch o := obj.(type) {
	case appsv1.Deployment:
		wl.tmplAnnotations = o.Spec.Template.Annotations
	case appsv1.ReplicaSet:
		wl.tmplAnnotations = o.Spec.Template.Annotations
	case appsv1.StatefulSet:
		wl.tmplAnnotations = o.Spec.Template.Annotations
	case batchv1.Job:
		wl.tmplAnnotations = o.Spec.Template.Annotations
	}
	im.workloads = append(im.workloads, wl)
	im.byRef[wl.ref()] = wl
	return nil
}

// failurePolicy is a Job's podFailurePolicy; with --redact a rule's
// containerName follows the container's redacted name (c0, c1, ...).
func (im *Importer) failurePolicy(p *batchv1.PodFailurePolicy, spec corev1.PodSpec) *batchv1.PodFailurePolicy {
	if p == nil || !im.opts.Redact {
		return p
	}
	out := p.DeepCopy()
	for i := range out.Rules {
		c := out.Rules[i].OnExitCodes
		if c == nil || c.ContainerName == nil {
			continue
		}
		name := "c0"
		for _, cs := range [][]corev1.Container{spec.Containers, spec.InitContainers} {
			for k := range cs {
				if cs[k].Name == *c.ContainerName {
					name = fmt.Sprintf("c%d", k)
				}
			}
		}
		c.ContainerName = &name
	}
	return out
}

func replicas(r *int32) int32 {
	if r == nil {
		return 1
	}
	return *r
}

func nsOr(ns string) string {
	if ns == "" {
		return "default"
	}
	return ns
}

func typeMeta2(apiVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: apiVersion, Kind: kind}
}

// jobDone reports a Job that is complete or failed: it holds no capacity.
func jobDone(j *batchv1.Job) bool {
	for _, c := range j.Status.Conditions {
		if (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

// isKarpenterImage: a container's image names Karpenter's controller (the
// loader's test, apis.FindDeployment, decides).
func isKarpenterImage(cs []corev1.Container) bool {
	for _, c := range cs {
		if strings.Contains(c.Image, "karpenter/controller") {
			return true
		}
	}
	return false
}

func isCAImage(cs []corev1.Container) bool {
	for _, c := range cs {
		if strings.Contains(c.Image, "cluster-autoscaler") || (len(c.Command) > 0 && strings.Contains(c.Command[0], "cluster-autoscaler")) {
			return true
		}
	}
	return false
}

// itemDocument is the item as the scenario loader reads it, so that the
// loader's own tests decide what it is; nil if it does not read as one
// document.
func itemDocument(w where, it *item) *manifest.Document {
	data := it.json
	if data == nil {
		data = it.yamlText
	}
	docs, err := manifest.ReadBytes(w.file, data)
	if err != nil || len(docs) != 1 {
		return nil
	}
	return docs[0]
}

// karpenterDeployment asks the scenario loader's own test (a container
// of Karpenter's controller image) and returns what it finds, or nil.
func (im *Importer) karpenterDeployment(w where, it *item) *kpapis.Deployment {
	if d := itemDocument(w, it); d != nil {
		if dep, ok := kpapis.FindDeployment(d); ok {
			return dep
		}
	}
	return nil
}

// caDeployment asks the scenario loader's own test (the Cluster
// Autoscaler's Deployment configures the simulated one by its flags) and
// returns what it finds, or nil.
func (im *Importer) caDeployment(w where, it *item) *caconfig.Deployment {
	if d := itemDocument(w, it); d != nil {
		if dep, ok := caconfig.FindDeployment(d); ok {
			return dep
		}
	}
	return nil
}

// clusterConfig keeps what the Cluster Autoscaler's compiler reads of an
// eksctl ClusterConfig (clusterConfigKept): its name, region, zones and
// node groups' sizes, instance types, labels, taints and autoscaler tags;
// not its VPC, IAM, SSH keys, bootstrap commands, user data or Bottlerocket
// settings.
func (im *Importer) clusterConfig(w where, it *item) error {
	var m map[string]any
	if err := it.decode(&m); err != nil {
		return err
	}
	out, _ := clusterConfigKept.keep(im, m)
	im.passthru = append(im.passthru, out.(map[string]any))
	return nil
}

// other reads PDBs, HPAs, PriorityClasses and Namespaces: their spec and
// names, nothing else.
func (im *Importer) other(w where, it *item) error {
	var m map[string]any
	if err := it.decode(&m); err != nil {
		return err
	}
	md, _ := m["metadata"].(map[string]any)
	name, _ := md["name"].(string)
	ns, _ := md["namespace"].(string)
	if !im.unique(w, it.kind, ns, name) {
		return nil
	}
	out := map[string]any{"apiVersion": it.apiVersion, "kind": it.kind}
	meta := map[string]any{}
	switch it.kind {
	case "Namespace":
		meta["name"] = im.namespace(name)
		if l, ok := md["labels"].(map[string]any); ok {
			for k, v := range l {
				if s, ok := v.(string); ok {
					l[k] = im.namespaceLabelValue(k, s)
				}
			}
			meta["labels"] = l
		}
	case "PriorityClass":
		meta["name"] = name
		im.classes[name] = true
		for _, k := range []string{"value", "globalDefault", "preemptionPolicy"} {
			if v, ok := m[k]; ok {
				out[k] = v
			}
		}
	default: // PDB, HPA
		meta["name"] = im.workloadName(name)
		meta["namespace"] = im.namespace(ns)
		var spec map[string]any
		var err error
		if it.kind == "PodDisruptionBudget" {
			spec, err = im.pdbKept(it)
		} else {
			spec, err = im.hpaKept(it)
		}
		if err != nil {
			return err
		}
		out["spec"] = spec
	}
	out["metadata"] = meta
	im.others = append(im.others, out)
	return nil
}

// toMap turns a typed object into a map, without the empty fields the
// typed form writes (creationTimestamp: null, status: {}, resources: {}).
func toMap(v any) (map[string]any, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	delete(m, "status")
	prune(m)
	return m, nil
}

// emptyDropped are fields whose empty value ({}) the typed form writes
// and that mean nothing when empty.
var emptyDropped = map[string]bool{"status": true, "resources": true, "strategy": true, "metadata": true,
	"updateStrategy": true, "limits": true, "requests": true, "spec": false}

func prune(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case nil:
			delete(m, k)
		case map[string]any:
			prune(x)
			if len(x) == 0 && emptyDropped[k] {
				delete(m, k)
			}
		case []any:
			for _, e := range x {
				if em, ok := e.(map[string]any); ok {
					prune(em)
				}
			}
		}
	}
}
