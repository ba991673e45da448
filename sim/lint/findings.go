package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/statedump"
	"github.com/clustersim/clustersim/sim/workload"
)

// landing is a cell that can host, with its source.
type landing struct {
	c *cell
	s *source
}

func (c *checker) landings(r *row) []landing {
	var out []landing
	for i := range r.cells {
		if r.cells[i].CanLand {
			out = append(out, landing{&r.cells[i], c.sources[i]})
		}
	}
	return out
}

func ids(ls []landing) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.s.ID
	}
	return out
}

// workloadFinding locates a finding at the workload's pod template.
func (c *checker) workloadFinding(w int, sev Severity, kind, msg, fix string, sources []string) Finding {
	wl := &c.sc.Workloads[w]
	path := "spec.template.spec"
	switch {
	case wl.Kind == workload.BarePod:
		path = "spec"
	case wl.CronJob != nil:
		path = "spec.jobTemplate.spec.template.spec"
	}
	return Finding{Severity: sev, Kind: kind, Workload: wl.Ref(), Sources: sources, File: wl.File, Line: wl.Line, Path: path, Message: msg, Fix: fix}
}

func (c *checker) add(f Finding) { c.res.Findings = append(c.res.Findings, f) }

// findings derives every finding from the matrix and the loader's
// warnings, then sorts them.
func (c *checker) findings() {
	for _, f := range c.failed {
		c.add(f)
	}
	anyRace := false
	var stranded []int // workloads unhostable for want of any capacity source
	for _, r := range c.rows {
		if r.variant != "" {
			continue
		}
		raced := c.checkRace(r)
		if fr := c.fbRow[r.w]; fr != nil {
			raced = c.checkRace(fr) || raced
		}
		anyRace = anyRace || raced
		c.checkTemplates(r)
		c.checkSelectors(r)
		if fr := c.fbRow[r.w]; fr != nil {
			c.checkTemplates(fr)
		}
		if len(c.sources) == 0 {
			stranded = append(stranded, r.w)
			continue
		}
		pinnedOut := c.checkVolumeZones(r)
		hosts := c.landings(r)
		if len(hosts) == 0 {
			// A volume-zone error already says why when only the
			// volume's zone keeps every source away.
			if !pinnedOut || !c.landsUnpinned(r) {
				c.checkUnhostable(r)
			}
			continue
		}
		c.checkSpotOnly(r, hosts)
		c.checkOverlap(r, hosts, raced)
		c.checkFlexibility(r, hosts)
	}
	c.checkNoCapacity(stranded)
	c.checkSeparated(anyRace)
	c.checkBuffers()
	c.loaderFindings()
	sortFindings(c.res.Findings)
	for _, f := range c.res.Findings {
		switch f.Severity {
		case Error:
			c.res.Summary.Errors++
		case Warning:
			c.res.Summary.Warnings++
		default:
			c.res.Summary.Infos++
		}
	}
}

// sortFindings orders by severity (errors first), then file and line; the
// order of generation breaks ties.
func sortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.File != b.File {
			return a.File < b.File
		}
		return a.Line < b.Line
	})
}

// nearest picks, among the cells of r that cannot host and pass keep, the
// one closest to hosting: an untolerated taint first (one toleration
// away), then a label or affinity, then zones, types and capacity types,
// then size and limits; ties go to matrix order.
func (c *checker) nearest(r *row, keep func(*source) bool) (*cell, *source) {
	var bc *cell
	var bs *source
	best := 99
	for i := range r.cells {
		cl := &r.cells[i]
		s := c.sources[i]
		if cl.CanLand || !keep(s) {
			continue
		}
		if k := whyRank(cl.why.Kind); k < best {
			best, bc, bs = k, cl, s
		}
	}
	return bc, bs
}

// whyRank orders reasons by how close they are to hosting: an
// untolerated taint first (one toleration away), then a label or
// affinity, then zones, types and capacity types, then size and limits.
func whyRank(kind string) int {
	switch kind {
	case "taint":
		return 0
	case "label", "affinity", "template":
		return 1
	case "zone", "instance-type", "capacity-type":
		return 2
	case "too-big", "limit", "min-values":
		return 3
	}
	return 4
}

func (c *checker) checkUnhostable(r *row) {
	w := &c.sc.Workloads[r.w]
	if needsNonLinux(c.syms, w.Pod) {
		c.add(c.workloadFinding(r.w, Error, KindUnhostable,
			fmt.Sprintf("%s needs Windows nodes (kubernetes.io/os), which are not simulated: its pods stay Pending", w.Ref()),
			"leave it out of the simulated manifests (Windows NodePools and node classes are skipped with a warning; Windows node groups are refused)", nil))
		return
	}
	fix := "make one capacity source accept its pods"
	if s, bs := c.fewestBlockers(r); s != nil {
		fix = blockersFix(s, bs)
	}
	if fr := c.fbRow[r.w]; fr != nil {
		if ls := c.landings(fr); len(ls) > 0 {
			c.add(c.workloadFinding(r.w, Warning, KindUnhostable,
				fmt.Sprintf("no capacity source can host %s as written; only its resubmitted pods can run (on %s), so every pod waits %s first",
					w.Ref(), strings.Join(ids(ls), ", "), statedump.Duration(w.Fallback.After)), fix, nil))
			return
		}
	}
	c.add(c.workloadFinding(r.w, Error, KindUnhostable,
		fmt.Sprintf("no capacity source can ever host %s: its pods are stranded by construction", w.Ref()), fix, nil))
}

// maxListed is how many workloads a finding names before "and N more".
const maxListed = 8

// checkNoCapacity reports, once, the workloads of a scenario without any
// capacity source (sim lint -f of a chart alone): one finding, not one per
// workload, located at the first.
func (c *checker) checkNoCapacity(ws []int) {
	if len(ws) == 0 {
		return
	}
	names := make([]string, 0, min(len(ws), maxListed))
	for _, w := range ws[:min(len(ws), maxListed)] {
		names = append(names, c.sc.Workloads[w].Ref())
	}
	list := strings.Join(names, ", ")
	if len(ws) > maxListed {
		list += fmt.Sprintf(" and %d more", len(ws)-maxListed)
	}
	f := c.workloadFinding(ws[0], Error, KindUnhostable,
		fmt.Sprintf("no capacity source (NodePool, node group, static pool or Node) is given, so none of the %d workload(s) can ever run: %s", len(ws), list),
		"add the capacity they are to run on: a Karpenter NodePool and its EC2NodeClass, an eksctl ClusterConfig's node groups, spec.staticNodes or Node manifests (sim lint -f nodepool.yaml workloads/)", nil)
	f.Workload = ""
	c.add(f)
}

// twin is the other workload of a split, or -1.
func (c *checker) twin(w int) int {
	wl := &c.sc.Workloads[w]
	switch {
	case wl.Split != nil:
		return int(wl.Split.Twin)
	case wl.TwinOf >= 0:
		return int(wl.TwinOf)
	}
	return -1
}

func onDemandHosts(ls []landing) []landing {
	var out []landing
	for _, l := range ls {
		if !l.s.spot {
			out = append(out, l)
		}
	}
	return out
}

func (c *checker) checkSpotOnly(r *row, hosts []landing) {
	if len(onDemandHosts(hosts)) > 0 {
		return
	}
	w := &c.sc.Workloads[r.w]
	spot := ids(hosts)
	var fallbacks []string
	fbNote := ""
	if fr := c.fbRow[r.w]; fr != nil {
		if od := onDemandHosts(c.landings(fr)); len(od) > 0 {
			fallbacks = append(fallbacks, fmt.Sprintf("its resubmit fallback (after %s) can land on %s", statedump.Duration(w.Fallback.After), strings.Join(ids(od), ", ")))
		} else {
			fbNote = fmt.Sprintf("; its resubmit fallback (after %s) cannot land on on-demand capacity either", statedump.Duration(w.Fallback.After))
		}
	}
	if t := c.twin(r.w); t >= 0 {
		if tr := c.byW[t]; tr != nil {
			if od := onDemandHosts(c.landings(tr)); len(od) > 0 {
				fallbacks = append(fallbacks, fmt.Sprintf("its split twin %s can land on %s", c.sc.Workloads[t].Ref(), strings.Join(ids(od), ", ")))
			}
		}
	}
	if len(fallbacks) > 0 {
		c.add(c.workloadFinding(r.w, Info, KindSpotFallback,
			fmt.Sprintf("only spot capacity can host %s (%s); %s, so it does not strand when spot runs dry", w.Ref(), strings.Join(spot, ", "), strings.Join(fallbacks, "; ")),
			"", spot))
		return
	}
	var fixes []string
	for _, h := range hosts {
		if h.s.lint != nil && h.s.lint.OnDemandFix != "" {
			fixes = append(fixes, h.s.lint.OnDemandFix)
			break
		}
	}
	fixes = append(fixes, "resubmit pods still pending after a timeout with a spec that on-demand capacity accepts (spec.workloads[].resubmit, as hybrid-isolated does)")
	if cl, s := c.nearest(r, func(s *source) bool { return !s.spot && s.CapacityType != "none" }); cl != nil && cl.why.Fix != "" {
		note := ""
		if !s.static() && c.hasOtherAutoscaler(hosts, s) {
			note = ", which makes the two autoscalers race for it"
		}
		fixes = append(fixes, fmt.Sprintf("let %s take it too (%s): %s%s", s.ID, cl.why.Text, cl.why.Fix, note))
	}
	c.add(c.workloadFinding(r.w, Warning, KindSpotOnly,
		fmt.Sprintf("only spot capacity can host %s (%s) and it has no fallback: when spot runs dry its pods strand%s", w.Ref(), strings.Join(spot, ", "), fbNote),
		strings.Join(fixes, "; or "), spot))
}

// hasOtherAutoscaler: some host is provisioned by another autoscaler
// than s's.
func (c *checker) hasOtherAutoscaler(hosts []landing, s *source) bool {
	for _, h := range hosts {
		if !h.s.static() && h.s.Autoscaler != s.Autoscaler {
			return true
		}
	}
	return false
}

// byAutoscaler groups sources by their autoscaler, in matrix order (the
// components' registration order).
type byAutoscaler struct {
	names  []string // LintName of each, in order
	ids    [][]string
	labels [][]string
	first  []*source
}

func (b *byAutoscaler) add(s *source, id string, dedupe bool) {
	i := slices.Index(b.names, s.by)
	if i < 0 {
		b.names, b.ids, b.labels, b.first = append(b.names, s.by), append(b.ids, nil), append(b.labels, nil), append(b.first, s)
		i = len(b.names) - 1
	}
	if !dedupe || len(b.ids[i]) == 0 || b.ids[i][len(b.ids[i])-1] != id {
		b.ids[i] = append(b.ids[i], id)
	}
	b.labels[i] = append(b.labels[i], s.labels...)
}

// list words the groups: "Karpenter (a, b) and the Cluster Autoscaler
// (c)".
func (b *byAutoscaler) list() string {
	parts := make([]string, len(b.names))
	for i, n := range b.names {
		parts[i] = fmt.Sprintf("%s (%s)", n, strings.Join(b.ids[i], ", "))
	}
	if len(parts) < 2 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

func (b *byAutoscaler) allIDs() []string {
	var out []string
	for _, ids := range b.ids {
		out = append(out, ids...)
	}
	return out
}

// checkRace reports a row two autoscalers would provision for.
func (c *checker) checkRace(r *row) bool {
	var by byAutoscaler
	for i := range r.cells {
		if s := c.sources[i]; r.cells[i].Provisions && !s.static() {
			by.add(s, s.ID, false)
		}
	}
	if len(by.names) < 2 {
		return false
	}
	who := c.sc.Workloads[r.w].Ref()
	if r.variant != "" {
		who = "the resubmitted pods of " + who
	}
	fix := "let one autoscaler own it: require a label only one side's nodes carry"
	var l []string
	for _, ls := range by.labels {
		l = append(l, uniqueSorted(ls)...)
	}
	if len(l) > 0 {
		fix += " (e.g. " + strings.Join(l, " or ") + ")"
	}
	fix += ", or taint one side's nodes and tolerate that taint only in the workloads meant for it"
	c.add(c.workloadFinding(r.w, Warning, KindRace,
		fmt.Sprintf("both %s can provision nodes for %s: they race for its pending pods and may both launch", by.list(), who), fix, by.allIDs()))
	return true
}

func (c *checker) checkSeparated(anyRace bool) {
	var by byAutoscaler
	for _, s := range c.sources {
		if !s.static() {
			by.add(s, s.pool, true)
		}
	}
	if anyRace || len(by.names) < 2 || len(c.rows) == 0 {
		return
	}
	first := by.first[0]
	c.add(Finding{Severity: Info, Kind: KindSeparated, Sources: by.allIDs(), File: first.File, Line: first.Line,
		Message: fmt.Sprintf("%s never provision for the same workload: they do not race", by.list())})
}

// checkTemplates reports sources that would grow for pods that cannot run
// on the nodes they add (a Cluster Autoscaler node group whose template
// does not match its nodes).
func (c *checker) checkTemplates(r *row) {
	for i := range r.cells {
		cl := &r.cells[i]
		s := c.sources[i]
		if !cl.unfit || s.lint.Unfit == nil {
			continue
		}
		who := c.sc.Workloads[r.w].Ref()
		if r.variant != "" {
			who = "the resubmitted pods of " + who
		}
		msg, fix := s.lint.Unfit(who, cl.why.Text)
		f := c.workloadFinding(r.w, Warning, KindTemplateMismatch, msg, fix, []string{s.ID})
		f.File, f.Line, f.Path = s.File, s.Line, s.path
		c.add(f)
	}
}

// intentKey: a label key that says where a workload is meant to run (not
// one every node has, such as zone or architecture).
func intentKey(k string) bool {
	switch k {
	case keyZone, keyInstanceType, "topology.kubernetes.io/region", "kubernetes.io/arch", "kubernetes.io/os",
		"kubernetes.io/hostname", "beta.kubernetes.io/arch", "beta.kubernetes.io/os", "beta.kubernetes.io/instance-type",
		"failure-domain.beta.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/region":
		return false
	}
	return true
}

func (c *checker) checkOverlap(r *row, hosts []landing, raced bool) {
	w := &c.sc.Workloads[r.w]
	spec := r.spec
	kinds := map[string]bool{} // by autoscaler; "" for static capacity
	for _, h := range hosts {
		kinds[h.s.Autoscaler] = true
	}
	if len(kinds) < 2 {
		return
	}
	if raced && !kinds[""] {
		return // the race finding says it
	}
	// Labels it selects: every host carries them.
	var sel []string
	for i := range spec.NodeSelector {
		if k := c.syms.Name(spec.NodeSelector[i].Key); intentKey(k) {
			sel = append(sel, k+" "+fmtOp(c.syms, &spec.NodeSelector[i]))
		}
	}
	if spec.Affinity != nil {
		for ti := range spec.Affinity.Terms {
			for i := range spec.Affinity.Terms[ti].Reqs {
				rq := &spec.Affinity.Terms[ti].Reqs[i]
				if k := c.syms.Name(rq.Key); !rq.Field && intentKey(k) {
					sel = append(sel, k+" "+fmtOp(c.syms, rq))
				}
			}
		}
	}
	if len(sel) > 0 {
		c.add(c.workloadFinding(r.w, Warning, KindOverlap,
			fmt.Sprintf("%s selects %s, which capacity of different kinds carries (%s): its pods can land on any of them",
				w.Ref(), strings.Join(uniqueSorted(sel), ", "), strings.Join(ids(hosts), ", ")),
			"select a label only the capacity it is meant for carries, or taint the other capacity", ids(hosts)))
		return
	}
	// Taints it tolerates by name say which capacity it is meant for.
	var meant, other []landing
	var tolerated []string
	for _, h := range hosts {
		hit := false
		for _, t := range h.s.taints {
			if t.Effect == cluster.EffectPreferNoSchedule || !tolerates(spec, t) {
				continue
			}
			hit = true
			tolerated = append(tolerated, fmtTaint(c.syms, t))
		}
		if hit {
			meant = append(meant, h)
		} else {
			other = append(other, h)
		}
	}
	if len(meant) == 0 || len(other) == 0 {
		return
	}
	meantKinds := map[string]bool{}
	for _, m := range meant {
		meantKinds[m.s.Autoscaler] = true
	}
	var cross []landing
	for _, o := range other {
		if !meantKinds[o.s.Autoscaler] {
			cross = append(cross, o)
		}
	}
	if len(cross) == 0 {
		return
	}
	fix := fmt.Sprintf("taint %s and tolerate that taint only where it is meant to run, or make %s require a label only %s carries",
		strings.Join(ids(cross), ", "), w.Ref(), strings.Join(ids(meant), ", "))
	c.add(c.workloadFinding(r.w, Warning, KindOverlap,
		fmt.Sprintf("%s is meant for %s (it tolerates %s) but %s can also take it: nothing keeps it off",
			w.Ref(), strings.Join(ids(meant), ", "), strings.Join(uniqueSorted(tolerated), ", "), strings.Join(ids(cross), ", ")),
		fix, append(ids(meant), ids(cross)...)))
}

// tolerates: a toleration naming the taint's key tolerates it (a wildcard
// toleration says nothing about intent).
func tolerates(spec *cluster.PodSpec, t cluster.Taint) bool {
	for i := range spec.Tolerations {
		if tol := &spec.Tolerations[i]; tol.Key != cluster.NoSym && tol.Tolerates(t) {
			return true
		}
	}
	return false
}

func (c *checker) checkFlexibility(r *row, hosts []landing) {
	w := &c.sc.Workloads[r.w]
	var types []string
	var first *source
	for _, h := range hosts {
		if !h.s.spot {
			continue
		}
		if first == nil {
			first = h.s
		}
		types = append(types, h.c.InstanceTypes...)
	}
	types = uniqueSorted(types)
	if first != nil && len(types) < AWSMinSpotTypes {
		fix := fmt.Sprintf("allow more instance types in %s", first.ID)
		path := first.path
		switch {
		case first.lint != nil:
			fix, path = first.lint.FlexibilityFix, first.lint.FlexibilityPath
		case first.path != "":
			path = first.path + ".instanceType"
		}
		f := c.workloadFinding(r.w, Warning, KindSpotFlexibility,
			fmt.Sprintf("%s can use only %d spot instance type(s) (%s): AWS recommends at least %d per workload, so that one capacity pool running dry does not stop it",
				w.Ref(), len(types), strings.Join(types, ", "), AWSMinSpotTypes), fix, []string{first.ID})
		f.File, f.Line, f.Path = first.File, first.Line, path
		c.add(f)
	}
	for _, h := range hosts {
		if h.s.lint == nil || h.s.lint.SpotToSpot == nil || !h.s.spot {
			continue
		}
		if msg, fix, ok := h.s.lint.SpotToSpot(w.Ref(), len(h.c.InstanceTypes)); ok {
			f := c.workloadFinding(r.w, Warning, KindSpotToSpot, msg, fix, []string{h.s.ID})
			f.File, f.Line, f.Path = h.s.File, h.s.Line, h.s.path
			c.add(f)
		}
	}
}

// loaderFindings turns the loader's warnings into findings, by their
// codes (codeFindings); the message is only shown, never read.
func (c *checker) loaderFindings() {
	for _, w := range c.sc.Warnings {
		path, msg := splitPath(w.Msg)
		f := Finding{Severity: Info, Kind: KindInput, File: w.File, Line: w.Line, Path: path, Message: msg, Fix: w.Fix}
		codeSeen(w.Code)
		if cf, ok := classify(w.Code); ok && !w.Info {
			// A note (Info: a skipped kind, a copy read once) is info as
			// it is.
			f.Severity, f.Kind = cf.sev, cf.kind
		}
		if f.Fix != "" {
			// The Cluster Autoscaler's warnings end with their fix
			// ("; fix"), an unknown label's and a legacy node class's in
			// parentheses: say it once.
			f.Message = strings.TrimSuffix(f.Message, "; "+f.Fix)
			if f.Kind == KindUnknownLabel || f.Kind == KindObsolete {
				f.Message = strings.TrimSuffix(f.Message, " ("+f.Fix+")")
			}
		}
		if f.Fix == "" && f.Kind == KindObsolete {
			f.Fix = "rewrite it as a karpenter.sh/v1 NodePool (sim run lists each conversion)"
		}
		c.add(f)
	}
}

// codeFinding is the severity and kind a warning or error code makes.
type codeFinding struct {
	sev  Severity
	kind string
}

// codeFindings are the codes lint raises above an input-warning (info),
// as the components and the loader name them (their Code constants);
// every other code, and none, is an input-warning. A code under
// "ineffective." is an ineffective-setting warning.
var codeFindings = map[string]codeFinding{
	// The Cluster Autoscaler (sim/clusterautoscaler/config).
	"ca.price-expander-exits": {Error, KindStartupFailure}, // the real one exits (klog.Fatalf): not a run
	"ca.removed-flag":         {Warning, KindObsolete},
	// Karpenter (sim/karpenter/apis). The API server refuses a kind that
	// never existed in its apiVersion ("no matches for kind"): an error,
	// although the simulator reads it as the version it resembles.
	"karpenter.no-such-kind":  {Error, KindObsolete},
	"karpenter.legacy":        {Warning, KindObsolete},
	"karpenter.unknown-label": {Warning, KindUnknownLabel},
	// A Windows NodePool or node class, skipped.
	"karpenter.windows-skipped": {Warning, KindNotSimulated},
}

// codeSeen hears every code lint reads (the tests check that each code
// of codeFindings and obsoleteErrors comes from some input).
var codeSeen = func(string) {}

// ineffectivePrefix starts the codes of settings that do nothing.
const ineffectivePrefix = "ineffective."

// classify maps a code to its finding; false for an input-warning.
func classify(code string) (codeFinding, bool) {
	if cf, ok := codeFindings[code]; ok {
		return cf, true
	}
	if strings.HasPrefix(code, ineffectivePrefix) {
		return codeFinding{Warning, KindIneffective}, true
	}
	return codeFinding{}, false
}

// obsoleteErrors are the load-error codes that make an obsolete-setting
// finding rather than invalid.
var obsoleteErrors = map[string]bool{"karpenter.legacy": true, "karpenter.legacy-field": true, "api.removed-version": true}

// splitPath splits "spec.x: message" into the field path and the message.
func splitPath(msg string) (string, string) {
	p, rest, ok := strings.Cut(msg, ": ")
	if !ok || p == "" || strings.ContainsAny(p, " ,;") {
		return "", msg
	}
	return p, rest
}

// FromLoadError turns a scenario's load errors (manifest.Error or
// manifest.Errors) into a Result with one error finding each: an obsolete
// Karpenter field in a karpenter.sh/v1 NodePool, or a legacy Karpenter API
// (by their codes), is an obsolete-setting, the rest invalid. ok is false for other errors (a missing file).
func FromLoadError(name string, err error) (Result, bool) {
	errs, ok := manifest.AsErrors(err)
	if !ok {
		return Result{}, false
	}
	res := Result{SchemaVersion: SchemaVersion, Scenario: name, Sources: []Source{}, Placements: []Placement{}, Findings: []Finding{}}
	for _, e := range errs {
		f := Finding{Severity: Error, Kind: KindInvalid, File: e.File, Line: e.Line, Path: e.Path, Message: e.Msg, Fix: e.Hint}
		codeSeen(e.Code)
		if obsoleteErrors[e.Code] {
			f.Kind = KindObsolete
		}
		res.Findings = append(res.Findings, f)
	}
	sortFindings(res.Findings)
	res.Summary.Errors = len(res.Findings)
	return res, true
}
