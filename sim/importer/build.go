package importer

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
)

// JobRuntime is how long each pod of an imported Job or CronJob runs: an
// export does not say, so the scenario says it and a notice asks for a
// better figure.
const JobRuntime = "10m"

// scenarioDoc is our Scenario document as the import writes it.
type scenarioDoc struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   scenarioMeta `json:"metadata"`
	Spec       scenarioSpec `json:"spec"`
}

type scenarioMeta struct {
	Name        string            `json:"name"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type scenarioSpec struct {
	Duration   string          `json:"duration"`
	ImportedAt string          `json:"importedAt,omitempty"`
	Region     string          `json:"region,omitempty"`
	Zones      []string        `json:"zones,omitempty"`
	Market     *marketEntry    `json:"market,omitempty"`
	Workloads  []workloadEntry `json:"workloads,omitempty"`
}

type workloadEntry struct {
	Ref     string            `json:"ref"`
	Runtime map[string]string `json:"runtime,omitempty"`
	StartOn []string          `json:"startOn,omitempty"`
	// StartedAgo: how long each startOn pod had run (written when a
	// do-not-disrupt duration counts from it).
	StartedAgo []string `json:"startedAgo,omitempty"`
	// StartTerminating: pods terminating at the export.
	StartTerminating []termEntry `json:"startTerminating,omitempty"`
}

type termEntry struct {
	Node string `json:"node"`
	For  string `json:"for"`
}

// Write checks what was read and writes the scenario: the Scenario
// document, then the cleaned manifests. Problems found while reading are
// returned together, and nothing is written then.
func (im *Importer) Write(w io.Writer) error {
	if len(im.errs) > 0 {
		return &Error{Problems: im.errs}
	}
	for nodeName, pool := range im.claimPool {
		if n := im.nodes[nodeName]; n != nil && n.owner == "" {
			n.owner = "NodePool " + pool
		}
	}
	im.lastPodEvents()
	im.finishClusterConfig()
	im.missingClasses()
	im.ownerNotices()
	im.groupSizes()
	starts, ages, terms := im.resolvePlacements()
	im.skipNotices()

	doc := scenarioDoc{APIVersion: "clustersim.dev/v1alpha1", Kind: "Scenario",
		Metadata: scenarioMeta{Name: im.opts.Name, Annotations: map[string]string{
			"description": "A cluster imported by sim import: its nodes, workloads and autoscalers at the time of the export."}},
		Spec: scenarioSpec{Duration: im.opts.Duration}}
	if !im.now.IsZero() {
		doc.Spec.ImportedAt = im.now.UTC().Format(time.RFC3339)
	}
	doc.Spec.Region, doc.Spec.Zones = im.location()
	if rs := im.inferReservations(); len(rs) > 0 {
		doc.Spec.Market = &marketEntry{Reservations: rs}
	}
	for _, o := range im.passthru {
		if o["kind"] != "ClusterConfig" {
			continue
		}
		if o["availabilityZones"] != nil {
			doc.Spec.Zones = nil // the ClusterConfig's subnets' zones apply
			break
		}
		// Zones a node group spans but no node of the export is in (its
		// nodes there were gone) stay zones of the cluster.
		doc.Spec.Zones = im.groupZones(o, doc.Spec.Region, doc.Spec.Zones)
	}
	for _, wl := range im.workloads {
		if wl.ca || wl.karpenter {
			continue // the autoscalers' Deployments are not workloads: the loader refuses an entry for them
		}
		e := workloadEntry{Ref: im.outRef(wl)}
		if wl.runtime || wl.kind == "CronJob" {
			e.Runtime = map[string]string{"fixed": JobRuntime}
			im.notice(wl.where, wl.ref(), "how long its pods run is not in the export: each runs %s (set runtime in spec.workloads)", JobRuntime)
		}
		e.StartOn, e.StartedAgo = starts[wl], ages[wl]
		e.StartTerminating = terms[wl]
		if e.Runtime != nil || len(e.StartOn) > 0 || len(e.StartTerminating) > 0 {
			doc.Spec.Workloads = append(doc.Spec.Workloads, e)
		}
	}

	bw := bufio.NewWriterSize(w, 1<<20)
	write := func(v any) error {
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		if _, err := bw.WriteString("---\n"); err != nil {
			return err
		}
		_, err = bw.Write(im.scrub(data))
		return err
	}
	if _, err := bw.WriteString("# Written by sim import; regenerate it rather than edit it, and put changes in +override files.\n"); err != nil {
		return err
	}
	if err := write(doc); err != nil {
		return err
	}
	for _, o := range im.others {
		if err := write(o); err != nil {
			return err
		}
	}
	for _, o := range im.passthru {
		if err := write(o); err != nil {
			return err
		}
	}
	for _, o := range im.storageObjects() {
		m, err := toMap(o)
		if err != nil {
			return err
		}
		if err := write(m); err != nil {
			return err
		}
	}
	names := sortedKeys(im.nodes)
	sort.Slice(names, func(i, j int) bool { return im.nodeName(names[i]) < im.nodeName(names[j]) })
	for _, n := range names {
		if err := write(im.nodes[n].out); err != nil {
			return err
		}
	}
	for _, wl := range im.workloads {
		if wl.ca {
			im.redactCA(wl)
		}
		m, err := toMap(wl.obj)
		if err != nil {
			return err
		}
		im.fixWorkloadVolumes(wl, m)
		if err := write(m); err != nil {
			return err
		}
	}
	for _, p := range im.barePods {
		node, _ := p["_node"].(string)
		wh, _ := p["_where"].(where)
		ns, _ := p["_ns"].(string)
		obj, _ := p["_obj"].(string)
		for _, k := range []string{"_node", "_where", "_ns", "_obj"} {
			delete(p, k)
		}
		if spec, ok := p["spec"].(map[string]any); ok {
			im.fixVolumes(spec, wh, obj, ns)
		}
		if node != "" && im.nodes[node] == nil {
			md, _ := p["metadata"].(map[string]any)
			im.notice(wh, fmt.Sprintf("Pod/%v/%v", md["namespace"], md["name"]), "runs on node %s, which the scenario does not have (not in the export, or skipped): it starts pending", node)
			if spec, ok := p["spec"].(map[string]any); ok {
				delete(spec, "nodeName")
			}
		}
		if err := write(p); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func (im *Importer) outRef(wl *workload) string {
	return wl.kind + "/" + im.namespace(wl.namespace) + "/" + im.workloadName(wl.name)
}

// resolvePlacements gives each workload the nodes its pods run on: pods
// of a ReplicaSet a Deployment owns count for the Deployment.
func (im *Importer) resolvePlacements() (map[*workload][]string, map[*workload][]string, map[*workload][]termEntry) {
	running := map[*workload][]startPod{}
	startedByOrdinal := map[*workload]map[int]time.Time{}
	terminating := map[*workload][]termPod{}
	ordinals := map[*workload]map[int]string{}
	for _, key := range sortedKeys(im.placements) {
		pl := im.placements[key]
		kind, rest, _ := strings.Cut(key, "/")
		ref := key
		if kind == "ReplicaSet" {
			if dep, ok := im.rsOwner[rest]; ok {
				ref = "Deployment/" + dep
			} else if im.byRef[ref] == nil {
				// The ReplicaSet is not in the export: its name is its
				// Deployment's and a hash.
				if i := strings.LastIndexByte(rest, '-'); i > 0 && im.byRef["Deployment/"+rest[:i]] != nil {
					ref = "Deployment/" + rest[:i]
					im.notice(pl.where, key, "not in the export: its pods count for %s, by its name", ref)
				}
			}
		}
		wl := im.byRef[ref]
		if wl == nil {
			n := len(pl.nodes) + len(pl.byOrdinal) + len(pl.terminating)
			im.notice(pl.where, key, "%d pod(s) owned by it, which is not in the export: skipped (export %ss too)", n, strings.ToLower(kind))
			continue
		}
		im.podAnnotationNotices(pl, wl)
		for i, n := range pl.nodes {
			running[wl] = append(running[wl], startPod{n, pl.started[i]})
		}
		terminating[wl] = append(terminating[wl], pl.terminating...)
		if pl.byOrdinal != nil {
			ordinals[wl], startedByOrdinal[wl] = pl.byOrdinal, pl.startedByOrdinal
		}
	}
	out := map[*workload][]string{}
	ages := map[*workload][]string{}
	terms := map[*workload][]termEntry{}
	for _, wl := range im.workloads {
		var missing []string
		mapNode := func(n string) string {
			if n == "" {
				return ""
			}
			if im.nodes[n] == nil {
				missing = append(missing, n)
				return ""
			}
			return im.nodeName(n)
		}
		var list []string
		var started []time.Time
		if wl.statefulSet {
			// Up to the highest ordinal a pod holds: a pending pod is
			// listed ("") so that it exists at the start, as it does in
			// the cluster; the missing ordinals above are left to the
			// StatefulSet controller, which with OrderedReady creates
			// them one at a time.
			last := -1
			for o := range ordinals[wl] {
				if o < int(wl.startMax) {
					last = max(last, o)
				}
			}
			for o := 0; o <= last; o++ {
				list = append(list, mapNode(ordinals[wl][o]))
				started = append(started, startedByOrdinal[wl][o])
			}
		} else {
			var bound []startPod
			for _, sp := range running[wl] {
				if m := mapNode(sp.node); m != "" {
					bound = append(bound, startPod{m, sp.started})
				}
			}
			slices.SortFunc(bound, func(a, b startPod) int {
				if c := strings.Compare(a.node, b.node); c != 0 {
					return c
				}
				return a.started.Compare(b.started)
			})
			if len(bound) > int(wl.startMax) {
				im.notice(wl.where, wl.ref(), "%d pods run but it keeps %d (a rollout or scale-down in progress): the first %d start bound", len(bound), wl.startMax, wl.startMax)
				bound = bound[:wl.startMax]
			}
			for _, sp := range bound {
				list = append(list, sp.node)
				started = append(started, sp.started)
			}
		}
		for !wl.statefulSet && len(list) > 0 && list[len(list)-1] == "" {
			list, started = list[:len(list)-1], started[:len(started)-1]
		}
		if len(missing) > 0 {
			slices.Sort(missing)
			missing = slices.Compact(missing)
			im.notice(wl.where, wl.ref(), "pods on node(s) the scenario does not have (not in the export, or skipped: %s): they start pending", strings.Join(firstN(missing, 3), ", "))
		}
		if len(list) > 0 {
			out[wl] = list
			if wl.doNotDisruptFor() {
				ages[wl] = im.startedAgo(started)
			}
		}
		for _, tp := range terminating[wl] {
			m := mapNode(tp.node)
			if m == "" || (wl.kind != "Deployment" && wl.kind != "Job") {
				im.terminating++
				continue
			}
			left := max(tp.until.Sub(im.now), 0).Round(time.Second)
			terms[wl] = append(terms[wl], termEntry{Node: m, For: left.String()})
		}
	}
	return out, ages, terms
}

// startPod is a running pod of a controller: its node and its
// status.startTime (zero: none).
type startPod struct {
	node    string
	started time.Time
}

// doNotDisruptFor says whether the workload's pod template carries
// karpenter.sh/do-not-disrupt as a duration, which counts from each pod's
// start: then its startOn pods need their ages (startedAgo).
func (wl *workload) doNotDisruptFor() bool {
	_, ok := cluster.DoNotDisruptDuration(wl.tmplAnnotations["karpenter.sh/do-not-disrupt"])
	return ok
}

// startedAgo is how long each pod had run at the export (importedAt less
// its startTime, in whole seconds, at least 0); a pod without a start
// time (pending) gets 0s.
func (im *Importer) startedAgo(started []time.Time) []string {
	out := make([]string, len(started))
	for i, t := range started {
		age := time.Duration(0)
		if !t.IsZero() && !im.now.IsZero() {
			age = max(im.now.Sub(t), 0).Round(time.Second)
		}
		out[i] = age.String()
	}
	return out
}

func firstN(s []string, n int) []string {
	if len(s) > n {
		return append(s[:n:n], fmt.Sprintf("and %d more", len(s)-n))
	}
	return s
}

// ownerNotices says, per NodePool and node group, what becomes of its
// nodes: they are adopted by it when the scenario has it (the loader
// decides and says so), else they are static nodes.
func (im *Importer) ownerNotices() {
	byOwner := map[string][]*node{}
	for _, n := range im.nodes {
		if n.owner != "" {
			byOwner[n.owner] = append(byOwner[n.owner], n)
		}
	}
	for _, o := range sortedKeys(byOwner) {
		ns := byOwner[o]
		sort.Slice(ns, func(i, j int) bool { return ns[i].name < ns[j].name })
		if strings.HasPrefix(o, "NodePool ") || strings.HasPrefix(o, "Provisioner ") {
			im.notice(ns[0].where, "Node/"+ns[0].name, "%d node(s) of %s start as its NodeClaims when the scenario has that %s (Karpenter adopts them: consolidation, drift, expiration and limits see them), else as static nodes", len(ns), o, strings.Fields(o)[0])
			continue
		}
		im.notice(ns[0].where, "Node/"+ns[0].name, "%d node(s) of %s start as its instances when the scenario has that group (an eksctl ClusterConfig: they count in its size and may be scaled in), else as static nodes", len(ns), o)
	}
}

// podAnnotationNotices names the pods of a workload that carry, on the
// pod itself, a podAnnotations annotation its template does not: the
// simulated pods are made from the template, so they lose it.
func (im *Importer) podAnnotationNotices(pl *placement, wl *workload) {
	for _, kv := range sortedKeys(pl.annotated) {
		k, v, _ := strings.Cut(kv, "=")
		if tv, ok := wl.tmplAnnotations[k]; ok && tv == v {
			continue
		}
		pods := pl.annotated[kv]
		sort.Strings(pods)
		shown := pods
		if len(shown) > 3 {
			shown = shown[:3]
		}
		list := strings.Join(shown, ", ")
		if len(pods) > len(shown) {
			list += fmt.Sprintf(" and %d more", len(pods)-len(shown))
		}
		im.notice(pl.where, wl.ref(), "%d of its pods (%s) carry %s: %q themselves, which its pod template does not: the simulated pods are made from the template and do not have it (set it on the template to simulate it)", len(pods), list, k, v)
	}
}

// lastPodEvents writes each Karpenter node's NodeClaim
// status.lastPodEventTime on its Node (scenario.LastPodEventAnnotation)
// its hash annotations (claimHashAnnotations) and the time its Drifted
// condition turned true (scenario.DriftedSinceAnnotation),
// so that consolidateAfter goes on from it; a notice names the nodes of a
// NodePool without one, whose timers start over at the run's start.
func (im *Importer) lastPodEvents() {
	var without []string
	var at where
	for _, name := range sortedKeys(im.nodes) {
		n := im.nodes[name]
		if !strings.HasPrefix(n.owner, "NodePool ") {
			continue
		}
		for k, v := range im.claimNotes[name] {
			n.annotate(k, v)
		}
		t, ok := im.claimPodEvent[name]
		if !ok {
			if len(without) == 0 {
				at = n.where
			}
			without = append(without, im.nodeName(name))
			continue
		}
		n.annotate(lastPodEventAnnotation, t.UTC().Format(time.RFC3339))
	}
	if len(without) > 0 {
		im.notice(at, "Node/"+without[0], "%d Karpenter node(s) without a NodeClaim status.lastPodEventTime in the export (%s): their consolidateAfter counts from the run's start, as if a pod had just come or gone (export nodeclaims with the nodes to keep it)", len(without), strings.Join(without, ", "))
	}
}

// groupSizes sets each ClusterConfig node group's desiredCapacity to the
// number of its nodes in the export (within its minSize and maxSize): the
// Auto Scaling group's desired capacity now, which the nodes the group
// adopts make up, where the ClusterConfig holds the size it was created
// with. A notice says so where it changes.
func (im *Importer) groupSizes() {
	count := map[string]int{}
	for _, n := range im.nodes {
		for _, prefix := range []string{"managed node group ", "node group "} {
			if name, ok := strings.CutPrefix(n.owner, prefix); ok {
				count[name]++
				break
			}
		}
	}
	for _, o := range im.passthru {
		if o["kind"] != "ClusterConfig" {
			continue
		}
		for _, k := range []string{"nodeGroups", "managedNodeGroups"} {
			gs, _ := o[k].([]any)
			for _, g := range gs {
				gm, ok := g.(map[string]any)
				if !ok {
					continue
				}
				name, _ := gm["name"].(string)
				n := count[name]
				if lo, ok := asInt(gm["minSize"]); ok && n < lo {
					n = lo
				}
				if hi, ok := asInt(gm["maxSize"]); ok && n > hi {
					n = hi
				}
				if was, ok := asInt(gm["desiredCapacity"]); !ok || was != n {
					gm["desiredCapacity"] = n
					im.notices = append(im.notices, Notice{File: "(all files)", Pos: "-",
						Msg: fmt.Sprintf("node group %s: desiredCapacity set to %d, its %d node(s) in the export (within minSize and maxSize): the group adopts them", name, n, count[name])})
				}
			}
		}
	}
}

// asInt reads a YAML number.
func asInt(v any) (int, bool) {
	switch x := v.(type) {
	case int:
		return x, true
	case int64:
		return int(x), true
	case uint64:
		return int(x), true
	case float64:
		return int(x), true
	}
	return 0, false
}

func (im *Importer) skipNotices() {
	for _, k := range sortedKeys(im.skipped) {
		s := im.skipped[k]
		im.notice(s.first, "", "%d %s object(s) skipped: %s", s.count, k, s.why)
	}
	if im.terminating > 0 {
		im.notices = append(im.notices, Notice{File: "(all files)", Pos: "-", Msg: fmt.Sprintf("%d terminating pod(s) left out (not bound, not a Deployment's or Job's, or on a node the scenario does not have): they are going away, and their controllers' replicas are counted", im.terminating)})
	}
	if im.finished > 0 {
		im.notices = append(im.notices, Notice{File: "(all files)", Pos: "-", Msg: fmt.Sprintf("%d finished pod(s) and Job(s) left out: they hold no capacity", im.finished)})
	}
}

// groupZones adds the availabilityZones of a ClusterConfig's node groups
// (those of the region) to zones, sorted.
func (im *Importer) groupZones(cfg map[string]any, region string, zones []string) []string {
	if len(zones) == 0 {
		return zones // no node told the region: the loader's defaults apply
	}
	set := map[string]bool{}
	for _, z := range zones {
		set[z] = true
	}
	for _, k := range []string{"nodeGroups", "managedNodeGroups"} {
		gs, _ := cfg[k].([]any)
		for _, g := range gs {
			gm, _ := g.(map[string]any)
			azs, _ := gm["availabilityZones"].([]any)
			for _, a := range azs {
				if z, ok := a.(string); ok && catalog.CheckZone(region, z) == "" {
					set[z] = true
				}
			}
		}
	}
	return sortedKeys(set)
}

// location is the region most nodes are in and its zones that nodes use.
func (im *Importer) location() (string, []string) {
	regions := map[string]int{}
	for _, n := range im.nodes {
		if r := nodeLabel(n, "topology.kubernetes.io/region"); r != "" {
			regions[r]++
		}
	}
	region, most := "", 0
	for _, r := range sortedKeys(regions) {
		if regions[r] > most {
			region, most = r, regions[r]
		}
	}
	if region == "" {
		return "", nil
	}
	zones := map[string]bool{}
	for _, n := range im.nodes {
		if z := nodeLabel(n, "topology.kubernetes.io/zone"); z != "" && catalog.CheckZone(region, z) == "" {
			zones[z] = true
		}
	}
	return region, sortedKeys(zones)
}

func nodeLabel(n *node, key string) string {
	md, _ := n.out["metadata"].(map[string]any)
	l, _ := md["labels"].(map[string]string)
	return l[key]
}

// builtinClasses exist in every cluster.
var builtinClasses = map[string]bool{"system-cluster-critical": true, "system-node-critical": true}

// missingClasses writes a PriorityClass for each class the pods name but
// the export lacks, with the priority the API server gave its pods (0
// when no pod of it was exported).
func (im *Importer) missingClasses() {
	for _, c := range sortedKeys(im.classUsed) {
		if builtinClasses[c] || im.classes[c] {
			continue
		}
		v, known := im.classValue[c]
		if known {
			im.notice(im.classUsed[c], "PriorityClass/"+c, "not in the export: written with value %d, the priority its pods have (export priorityclasses for its preemptionPolicy)", v)
		} else {
			im.notice(im.classUsed[c], "PriorityClass/"+c, "not in the export and no pod of it either: written with value 0 (export priorityclasses)")
		}
		im.others = append([]any{map[string]any{"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
			"metadata": map[string]any{"name": c}, "value": v}}, im.others...)
	}
}
