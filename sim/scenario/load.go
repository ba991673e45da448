package scenario

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/internal/suggest"
	"github.com/clustersim/clustersim/sim/manifest"
)

// LoadFile loads a scenario from disk. Overrides are manifest files (on
// disk) whose objects replace the scenario's objects of the same kind,
// namespace and name, or are added: a proposed NodePool compared with the
// current one on the same workload.
func LoadFile(path string, overrides ...string) (*Scenario, error) {
	return load(diskSource{}, path, overrides)
}

// LoadFS loads a scenario from a file system such as the embedded
// scenarios; includes resolve inside the same file system. Overrides are
// read from disk.
func LoadFS(fsys fs.FS, path string, overrides ...string) (*Scenario, error) {
	return load(fsSource{fsys}, path, overrides)
}

// LoadFSOverrides is LoadFS with the overrides read from the same file
// system (an embedded sweep's override files).
func LoadFSOverrides(fsys fs.FS, path string, overrides ...string) (*Scenario, error) {
	return loadWith(fsSource{fsys}, path, nil, overrides, fsSource{fsys})
}

// loader holds the state of one load.
type loader struct {
	src source
	// overrideSrc reads override files (disk unless LoadFSOverrides).
	overrideSrc source
	// files are the files read, for Scenario.Files.
	files map[string]bool
	cat   *catalog.Catalog
	errs  manifest.Errors
	warns []Warning
	out   *Scenario

	scenarioDoc *manifest.Document
	doc         document
	// importedAt is spec.importedAt (zero: not set).
	importedAt time.Time
	// extendedResourceToleration is
	// spec.admission.extendedResourceToleration (default true).
	extendedResourceToleration bool
	// objects by ref ("Kind/namespace/name"), for duplicates and lookups.
	objects map[string]*manifest.Document
	order   []*manifest.Document
	// skipped counts kinds ignored with a warning, reported once per kind.
	skipped map[string][]*manifest.Document
	// groupReasons say why a component's kind under another API group was
	// skipped, by skipped's key (Kind.group).
	groupReasons map[string]string
	// compDocs are the documents each registered component reads (its
	// kinds and those it claims), by component name, in the order read.
	compDocs map[string][]*manifest.Document
	// settings are the components' settings fields as decoded (absent:
	// not set), settingsPath their paths (spec.karpenter), by name.
	settings     map[string]any
	settingsPath map[string]string
	// hpas are the HorizontalPodAutoscalers by the workload they scale.
	hpas map[string]*manifestHPA
	// classDocs and claimDocs are the StorageClasses by name and the
	// PersistentVolumeClaims by namespace/name (storage.go).
	classDocs map[string]*manifest.Document
	claimDocs map[string]*manifest.Document
	// joinRefs are the NodePools and node groups market join failures name.
	joinRefs []joinRef
	// nodeNames are the start nodes by name, for startOn and
	// startTerminating (hasNode builds it on first use).
	nodeNames map[string]bool
	// startNodes are the Node manifests' nodes in l.out.Nodes, for adoption
	// by the autoscalers (adopt.go).
	startNodes []startNode
	// refused are the objects (by refOf) whose errors are reported, refused
	// when read or not decoded: a reference to one is not also "missing".
	refused map[string]bool
	// badDurations are the Scenario's field paths whose duration did not
	// read (dur): that error is the field's only one.
	badDurations map[string]bool
}

// LoadManifests loads a scenario document held in memory (data; name
// locates it in messages) with manifest files and folders on disk read as
// if the scenario included them: sim lint -f, whose files are one cluster's
// manifests, checked exactly as a scenario including them would be.
func LoadManifests(name string, data []byte, files []string) (*Scenario, error) {
	return loadWith(memSource{name: name, data: data}, name, files, nil, diskSource{})
}

func load(src source, path string, overrides []string) (*Scenario, error) {
	return loadWith(src, path, nil, overrides, diskSource{})
}

// loadWith loads the scenario at path, with files (on disk) read as extra
// includes and then overrides (read from overrideSrc).
func loadWith(src source, path string, files, overrides []string, overrideSrc source) (*Scenario, error) {
	cat, err := catalog.Default()
	if err != nil {
		return nil, fmt.Errorf("embedded instance-type data: %w", err)
	}
	l := &loader{
		src:         src,
		overrideSrc: overrideSrc,
		files:       map[string]bool{},
		cat:         cat,
		objects:     map[string]*manifest.Document{},
		skipped:     map[string][]*manifest.Document{},
		compDocs:    map[string][]*manifest.Document{},
		out: &Scenario{
			File:      path,
			Catalog:   cat,
			Syms:      cluster.NewSymbols(),
			Resources: cluster.NewResourceNames(),
		},
	}
	if !src.exists(path) {
		return nil, &manifest.Error{File: path, Msg: "no such file", Hint: "give the path of a scenario file, or the name of an embedded scenario (sim scenarios lists them)"}
	}
	// Every file's problems and the references between the objects are
	// reported in one pass: a file that does not read, an object that is
	// refused, leaves the others to be read and compiled, so that one run
	// lists every error (a missing claim in one file, a missing volume in
	// another, a syntax error in a third), sorted by file and line.
	docs, err := l.read(src, path)
	if err != nil {
		l.failErr(err)
	}
	if err := l.findScenario(path, docs); err != nil {
		if len(l.errs) == 0 { // else the file did not read: that is why
			l.failErr(err)
		}
		return nil, l.errs.Err()
	}
	decoded := true
	if err := l.decodeScenario(); err != nil {
		// The includes are read as written, so that their errors come
		// with the Scenario's; the scenario is not compiled.
		l.failErr(err)
		decoded = false
		l.doc.Spec.Include = rawIncludes(l.scenarioDoc)
	}
	l.includeAll(path, docs)
	l.includeFiles(files)
	l.override(overrides)
	if decoded {
		l.compile()
	}
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	l.reportSkipped()
	l.out.Warnings = l.warns
	for f := range l.files {
		l.out.Files = append(l.out.Files, f)
	}
	slices.Sort(l.out.Files)
	return l.out, nil
}

// read reads a file or folder through src and records the files read.
func (l *loader) read(src source, p string) ([]*manifest.Document, error) {
	docs, err := src.read(p)
	if src.isFile(p) {
		l.files[p] = true
	}
	for _, d := range docs {
		if d.File != "" {
			l.files[d.File] = true
		}
	}
	return docs, err
}

func (l *loader) fail(e *manifest.Error) {
	if l.scenarioDoc != nil && e.File == l.scenarioDoc.File && l.badDurations[e.Path] {
		return // the field's duration did not read: that is its error ("must be positive" besides would be false)
	}
	l.errs = append(l.errs, e)
}

func (l *loader) failErr(err error) { l.errs = l.errs.Add(err) }

func (l *loader) warn(d *manifest.Document, path, format string, args ...any) {
	l.warnc(d, "", path, format, args...)
}

// warnc is warn with a code (one of the Code constants).
func (l *loader) warnc(d *manifest.Document, code, path, format string, args ...any) {
	w := Warning{Code: code, Msg: fmt.Sprintf(format, args...)}
	if d != nil {
		w.File, w.Line = d.File, d.LineOf(path)
		if path != "" {
			w.Msg = path + ": " + w.Msg
		}
	}
	l.warns = append(l.warns, w)
}

// findScenario picks the one Scenario document of the top file.
func (l *loader) findScenario(path string, docs []*manifest.Document) error {
	for _, d := range docs {
		if d.Kind != Kind {
			continue
		}
		if l.scenarioDoc != nil {
			return d.Errorf("", "keep one Scenario per file; put variants in separate files", "a second Scenario document (the first is at line %d)", l.scenarioDoc.Line)
		}
		l.scenarioDoc = d
	}
	if l.scenarioDoc == nil {
		return &manifest.Error{File: path, Msg: "no kind: Scenario document in this file",
			Hint: "a scenario file starts with apiVersion: " + APIVersion + ", kind: Scenario (see the README's scenario format)"}
	}
	return nil
}

func (l *loader) decodeScenario() error {
	d := l.scenarioDoc
	if d.APIVersion != APIVersion {
		return d.Errorf("apiVersion", "use apiVersion: "+APIVersion, "%q is not a Scenario version this simulator reads", d.APIVersion)
	}
	return l.decodeInto()
}

// includeAll collects the documents inlined next to the Scenario and those
// of every include, each file read once.
func (l *loader) includeAll(path string, top []*manifest.Document) {
	for _, d := range top {
		if d != l.scenarioDoc {
			l.addObject(d)
		}
	}
	read := map[string]bool{path: true}
	for i, inc := range l.doc.Spec.Include {
		field := fmt.Sprintf("spec.include[%d]", i)
		if strings.TrimSpace(inc) == "" {
			l.fail(l.scenarioDoc.Errorf(field, "remove the empty entry", "empty path"))
			continue
		}
		p := l.src.resolve(path, inc)
		if !l.src.exists(p) {
			l.fail(l.scenarioDoc.Errorf(field, "paths are relative to the scenario file's folder",
				"%s does not exist (looked for %s)", inc, p))
			continue
		}
		if read[p] {
			l.warn(l.scenarioDoc, field, "%s is already included; read once", inc)
			continue
		}
		if what := l.src.irregular(p); what != "" {
			l.fail(l.scenarioDoc.Errorf(field, "include regular files and folders only (a FIFO would hang the load, a device such as /dev/zero never ends)",
				"%s is %s", inc, what))
			continue
		}
		read[p] = true
		docs, err := l.read(l.src, p)
		if err != nil {
			l.failErr(err) // and the documents that did read are read on
		} else if len(docs) == 0 {
			l.warn(l.scenarioDoc, field, "%s holds no Kubernetes objects", inc)
		}
		for _, d := range docs {
			if d.Kind == Kind {
				l.fail(d.Errorf("kind", "an included file may hold Kubernetes objects only; run it as a scenario of its own", "a Scenario document inside an included file"))
				continue
			}
			l.addObject(d)
		}
	}
}

// rawIncludes are the Scenario document d's spec.include entries as
// written, for a document that did not decode (its errors are reported);
// none unless they are a list of scalars.
func rawIncludes(d *manifest.Document) []string {
	inc, _ := manifest.Scalars(manifest.Lookup(d.Node, "spec", "include"))
	return inc
}

// includeFiles reads manifest files and folders on disk as includes.
func (l *loader) includeFiles(paths []string) {
	for _, p := range paths {
		for _, d := range l.readObjects(diskSource{}, p, "no such file or folder", "give a manifest file or a folder of them",
			"lint a scenario file as sim lint FILE, without -f", "a Scenario document among manifests") {
			l.addObject(d)
		}
	}
}

// readObjects reads a manifest file or folder on disk and returns its
// Kubernetes objects. A missing path, a read error and every Scenario
// document in it are reported (with the messages and hints given) and
// skipped.
func (l *loader) readObjects(src source, p, missingMsg, missingHint, scenarioHint, scenarioMsg string) []*manifest.Document {
	if !src.exists(p) {
		l.fail(&manifest.Error{File: p, Msg: missingMsg, Hint: missingHint})
		return nil
	}
	docs, err := l.read(src, p)
	if err != nil {
		l.failErr(err) // and the documents that did read are read on
	}
	var objects []*manifest.Document
	for _, d := range docs {
		if d.Kind == Kind {
			l.fail(d.Errorf("kind", scenarioHint, "%s", scenarioMsg))
			continue
		}
		objects = append(objects, d)
	}
	return objects
}

// override reads override files: each object replaces the scenario's object
// with the same reference, or is added.
func (l *loader) override(paths []string) {
	for _, p := range paths {
		for _, d := range l.readObjects(l.overrideSrc, p, "no such override file", "give a manifest file whose objects replace the scenario's",
			"an override holds Kubernetes objects only", "a Scenario document in an override file") {
			if c := componentOf(d); c != nil {
				l.replaceComponentDoc(c, d)
			} else if _, ok := kinds[d.Kind]; ok && d.Name != "" && !customResource(d) {
				ref := l.refOf(d)
				if prev, exists := l.objects[ref]; exists {
					for i, o := range l.order {
						if o == prev {
							l.order = append(l.order[:i], l.order[i+1:]...)
							break
						}
					}
					delete(l.objects, ref)
					l.warns = append(l.warns, Warning{File: d.File, Line: d.Line, Msg: fmt.Sprintf("%s replaces the one at %s:%d", ref, prev.File, prev.Line)})
				}
			}
			l.addObject(d)
		}
	}
}

// Reads reports whether the loader reads document d, a document of a
// scenario's files: the Scenario, the kinds it compiles (the Kubernetes
// kinds it models, those of the registered components and the documents
// they claim), not those it skips (Secrets,
// ConfigMaps, Services, RBAC, unknown kinds), which change nothing in a
// run. sim sweep --emit-job ships only what it reads.
func Reads(d *manifest.Document) bool { return reads(d, componentOf(d)) }

// reads is Reads of d, whose component (nil: none) is c.
func reads(d *manifest.Document, c component.Component) bool {
	if d.Kind == Kind || c != nil {
		return true
	}
	k, ok := kinds[d.Kind]
	if !ok {
		return nearMiss(d.Kind) != "" // an error the loader reports
	}
	return k.skip == "" && !customResource(d)
}

// addObject checks the kind and remembers the object. An object repeated
// identically is read once; a kind the simulator does not read is skipped.
func (l *loader) addObject(d *manifest.Document) {
	c := componentOf(d)
	if c != nil {
		if !l.duplicateOf(d, l.compDocs[c.Name()]) {
			l.compDocs[c.Name()] = append(l.compDocs[c.Name()], d)
		}
		return
	}
	if l.otherGroup(d) || l.skipCustom(d) {
		return
	}
	k, ok := kinds[d.Kind]
	if !ok {
		if nearMiss(d.Kind) != "" {
			l.fail(unknownKind(d))
			return
		}
		l.skipped[d.Kind] = append(l.skipped[d.Kind], d)
		return
	}
	if k.skip != "" {
		l.skipped[d.Kind] = append(l.skipped[d.Kind], d)
		return
	}
	if k.unsupported != "" {
		l.fail(d.Errorf("kind", k.unsupported, "%s %s is not modelled by this version of the simulator", d.APIVersion, d.Kind))
		l.refuse(d)
		return
	}
	if d.APIVersion != k.apiVersion && (k.alsoServed == "" || d.APIVersion != k.alsoServed) {
		hint := "use apiVersion: " + k.apiVersion
		if k.note != "" {
			hint = k.note + "; " + hint
		}
		e := d.Errorf("apiVersion", hint, "%s is not a served version of %s", d.APIVersion, d.Kind)
		if _, v, _ := strings.Cut(d.APIVersion, "/"); strings.Contains(v, "alpha") || strings.Contains(v, "beta") {
			// A pre-release version that the served one replaced.
			e.Code = CodeRemovedVersion
		}
		l.fail(e)
		l.refuse(d)
		return
	}
	if d.Name == "" && d.Kind == "KubeSchedulerConfiguration" {
		d.Name = "kube-scheduler" // a config file has no metadata
	}
	if d.Name == "" {
		l.fail(d.Errorf("metadata.name", "every object needs metadata.name", "missing name"))
		return
	}
	ref := l.refOf(d)
	if prev, dup := l.objects[ref]; dup {
		if sameObject(prev, d) {
			l.identical(d, prev)
			return
		}
		l.fail(d.Errorf("metadata.name", "rename one of them or remove the duplicate",
			"duplicate %s (first defined at %s:%d)", ref, prev.File, prev.Line))
		return
	}
	l.objects[ref] = d
	l.order = append(l.order, d)
}

// refuse records that d's errors are reported and it is left out.
func (l *loader) refuse(d *manifest.Document) {
	if d.Name == "" {
		return
	}
	if l.refused == nil {
		l.refused = map[string]bool{}
	}
	l.refused[l.refOf(d)] = true
}

// refOf is Kind/namespace/name for namespaced kinds, Kind/name otherwise.
func (l *loader) refOf(d *manifest.Document) string {
	if kinds[d.Kind].clusterScoped {
		return d.Kind + "/" + d.Name
	}
	ns := d.Namespace
	if ns == "" {
		ns = DefaultNamespace
	}
	return d.Kind + "/" + ns + "/" + d.Name
}

type kindInfo struct {
	apiVersion    string
	clusterScoped bool
	// skip is set for kinds that do not change where pods land: the
	// reason, shown in a warning.
	skip string
	// unsupported is set for kinds that matter but are not modelled yet:
	// what to do instead.
	unsupported string
	// note explains an apiVersion mismatch (a removed version).
	note string
	// alsoServed is an older version still served (autoscaling/v1).
	alsoServed string
}

var kinds = map[string]kindInfo{
	"Deployment":            {apiVersion: "apps/v1", note: "extensions/v1beta1 and apps/v1beta* were removed in Kubernetes 1.16"},
	"StatefulSet":           {apiVersion: "apps/v1", note: "apps/v1beta* were removed in Kubernetes 1.16"},
	"ReplicaSet":            {apiVersion: "apps/v1"},
	"Job":                   {apiVersion: "batch/v1"},
	"Pod":                   {apiVersion: "v1"},
	"Node":                  {apiVersion: "v1", clusterScoped: true},
	"Namespace":             {apiVersion: "v1", clusterScoped: true},
	"PodDisruptionBudget":   {apiVersion: "policy/v1", note: "policy/v1beta1 was removed in Kubernetes 1.25"},
	"PriorityClass":         {apiVersion: "scheduling.k8s.io/v1", clusterScoped: true},
	"StorageClass":          {apiVersion: "storage.k8s.io/v1", clusterScoped: true},
	"PersistentVolume":      {apiVersion: "v1", clusterScoped: true},
	"PersistentVolumeClaim": {apiVersion: "v1"},
	// PodTemplate: the pod a CapacityBuffer's podTemplateRef keeps room
	// for (podtemplate.go).
	"PodTemplate": {apiVersion: "v1"},
	"KubeSchedulerConfiguration": {apiVersion: schedulerConfigAPIVersion, clusterScoped: true,
		note: "v1beta2 and v1beta3 were removed in Kubernetes 1.28 and 1.29"},

	"DaemonSet": {apiVersion: "apps/v1"},
	"HorizontalPodAutoscaler": {apiVersion: "autoscaling/v2", alsoServed: "autoscaling/v1",
		note: "autoscaling/v2beta1 and v2beta2 were removed in Kubernetes 1.25 and 1.26"},
	"CronJob": {apiVersion: "batch/v1", note: "batch/v1beta1 was removed in Kubernetes 1.25"},

	"Service":            {skip: "services do not affect scheduling"},
	"ConfigMap":          {skip: "config maps do not affect scheduling"},
	"Secret":             {skip: "secrets do not affect scheduling"},
	"ServiceAccount":     {skip: "service accounts do not affect scheduling"},
	"Ingress":            {skip: "ingresses do not affect scheduling"},
	"NetworkPolicy":      {skip: "network policies do not affect scheduling"},
	"Role":               {skip: "RBAC does not affect scheduling"},
	"RoleBinding":        {skip: "RBAC does not affect scheduling"},
	"ClusterRole":        {skip: "RBAC does not affect scheduling"},
	"ClusterRoleBinding": {skip: "RBAC does not affect scheduling"},
	"LimitRange":         {skip: "LimitRange defaults are not applied: pods keep the requests and limits their templates give"},
	"ResourceQuota":      {skip: "quotas are not enforced"},
}

// unknownKind is the error of a kind that is a near miss of one we read.
func unknownKind(d *manifest.Document) *manifest.Error {
	hint := "supported kinds: " + strings.Join(readKinds(), ", ")
	if s := nearMiss(d.Kind); s != "" {
		hint = "did you mean " + s + "? " + hint
	}
	return d.Errorf("kind", hint, "unknown kind %q (apiVersion %s)", d.Kind, d.APIVersion)
}

// closest returns the candidate within two edits of s (ignoring case), or
// "".
func closest(s string, candidates []string) string {
	return suggest.Closest(s, candidates, 2)
}
