package importer

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Storage: StorageClasses, PersistentVolumes, PersistentVolumeClaims and
// the pods' claim volumes (persistentVolumeClaim, ephemeral) and a
// StatefulSet's volumeClaimTemplates are carried over, so a live
// cluster's StatefulSets keep their volumes' zones. They are kept with
// their exported names while reading (a StatefulSet may come after its
// claims) and renamed when written (renameClaim): with --redact a claim
// TEMPLATE-STS-N of a StatefulSet of the export becomes the redacted
// template, the redacted StatefulSet name and N, which is the name the
// model gives the claim of that ordinal; a generic ephemeral volume's
// claim POD-VOLUME follows its redacted pod and volume.

// defaultClassAnnotation marks the default StorageClass.
const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// provisionerAnnotations name the provisioner of a claim's class on the
// claim (set by the PV controller).
var provisionerAnnotations = []string{"volume.kubernetes.io/storage-provisioner", "volume.beta.kubernetes.io/storage-provisioner"}

type classRec struct {
	where
	sc storagev1.StorageClass
}

type pvRec struct {
	where
	pv corev1.PersistentVolume
}

type pvcRec struct {
	where
	pvc corev1.PersistentVolumeClaim
	// ownerPod: the pod a generic ephemeral volume's claim belongs to.
	ownerPod string
}

// claimUse is a claim a pod spec's volume names (not a template's).
type claimUse struct {
	where
	obj   string // Kind/namespace/name of the pod or workload
	ns    string
	claim string
}

// storageState is what the importer keeps of the storage kinds.
type storageState struct {
	classes []*classRec
	pvs     []*pvRec
	pvcs    []*pvcRec
	// claims: namespace/name of the exported claims.
	claims map[string]bool
	// classUsed: classes claims, templates and ephemeral volumes name
	// (where first), with the provisioner their claims name.
	classUsed   map[string]where
	provisioner map[string]string
	// templates: per namespace, StatefulSet name -> its claim templates.
	templates map[string]map[string][]string
	// barePods: namespace/name of the bare pods kept.
	barePods map[string]bool
}

func (im *Importer) st() *storageState {
	if im.storage == nil {
		im.storage = &storageState{claims: map[string]bool{}, classUsed: map[string]where{}, provisioner: map[string]string{},
			templates: map[string]map[string][]string{}, barePods: map[string]bool{}}
	}
	return im.storage
}

func (im *Importer) useClass(c *string, prov string) {
	if c == nil || *c == "" {
		return
	}
	s := im.st()
	if _, ok := s.classUsed[*c]; !ok {
		s.classUsed[*c] = im.cur
	}
	if prov != "" && s.provisioner[*c] == "" {
		s.provisioner[*c] = prov
	}
}

func (im *Importer) storageClass(w where, it *item) error {
	var sc storagev1.StorageClass
	if err := it.decode(&sc); err != nil {
		return err
	}
	if !im.unique(w, "StorageClass", "", sc.Name) {
		return nil
	}
	out := storagev1.StorageClass{TypeMeta: typeMeta2("storage.k8s.io/v1", "StorageClass"),
		ObjectMeta:  metav1.ObjectMeta{Name: sc.Name},
		Provisioner: sc.Provisioner, VolumeBindingMode: sc.VolumeBindingMode, AllowedTopologies: im.topologies(sc.AllowedTopologies),
		ReclaimPolicy: sc.ReclaimPolicy}
	if v, ok := sc.Annotations[defaultClassAnnotation]; ok {
		out.Annotations = map[string]string{defaultClassAnnotation: v}
	}
	// Parameters may name keys and accounts (kmsKeyId); the volume type
	// is kept, as a reader expects it.
	if t, ok := sc.Parameters["type"]; ok {
		out.Parameters = map[string]string{"type": t}
	}
	im.st().classes = append(im.st().classes, &classRec{where: w, sc: out})
	return nil
}

func (im *Importer) persistentVolume(w where, it *item) error {
	var pv corev1.PersistentVolume
	if err := it.decode(&pv); err != nil {
		return err
	}
	if !im.unique(w, "PersistentVolume", "", pv.Name) {
		return nil
	}
	out := corev1.PersistentVolume{TypeMeta: typeMeta2("v1", "PersistentVolume"), ObjectMeta: metav1.ObjectMeta{Name: pv.Name}}
	for _, k := range []string{corev1.LabelTopologyZone, corev1.LabelFailureDomainBetaZone, corev1.LabelTopologyRegion, corev1.LabelFailureDomainBetaRegion} {
		if v, ok := pv.Labels[k]; ok {
			if out.Labels == nil {
				out.Labels = map[string]string{}
			}
			out.Labels[k] = v
		}
	}
	s := pv.Spec
	out.Spec = corev1.PersistentVolumeSpec{Capacity: s.Capacity, AccessModes: s.AccessModes, StorageClassName: s.StorageClassName,
		PersistentVolumeReclaimPolicy: s.PersistentVolumeReclaimPolicy, VolumeMode: s.VolumeMode, NodeAffinity: s.NodeAffinity}
	switch {
	case s.CSI != nil:
		out.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: s.CSI.Driver, VolumeHandle: s.CSI.VolumeHandle, FSType: s.CSI.FSType}
	case s.AWSElasticBlockStore != nil:
		out.Spec.AWSElasticBlockStore = &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: s.AWSElasticBlockStore.VolumeID, FSType: s.AWSElasticBlockStore.FSType}
	case s.NFS != nil:
		out.Spec.NFS = &corev1.NFSVolumeSource{Server: s.NFS.Server, Path: s.NFS.Path}
	}
	if r := s.ClaimRef; r != nil {
		out.Spec.ClaimRef = &corev1.ObjectReference{Namespace: nsOr(r.Namespace), Name: r.Name}
	}
	if s.CSI != nil && s.StorageClassName != "" {
		im.st().provisioner[s.StorageClassName] = s.CSI.Driver
	}
	im.st().pvs = append(im.st().pvs, &pvRec{where: w, pv: out})
	return nil
}

func (im *Importer) persistentVolumeClaim(w where, it *item) error {
	var pvc corev1.PersistentVolumeClaim
	if err := it.decode(&pvc); err != nil {
		return err
	}
	ns := nsOr(pvc.Namespace)
	if !im.unique(w, "PersistentVolumeClaim", ns, pvc.Name) {
		return nil
	}
	rec := &pvcRec{where: w}
	if o := controllerOf(pvc.OwnerReferences); o != nil && o.Kind == "Pod" {
		rec.ownerPod = o.Name
	}
	s := pvc.Spec
	rec.pvc = corev1.PersistentVolumeClaim{TypeMeta: typeMeta2("v1", "PersistentVolumeClaim"),
		ObjectMeta: metav1.ObjectMeta{Name: pvc.Name, Namespace: ns},
		Spec: corev1.PersistentVolumeClaimSpec{AccessModes: s.AccessModes, Resources: corev1.VolumeResourceRequirements{Requests: s.Resources.Requests},
			StorageClassName: s.StorageClassName, VolumeName: s.VolumeName, VolumeMode: s.VolumeMode}}
	prov := ""
	for _, a := range provisionerAnnotations {
		if p := pvc.Annotations[a]; p != "" && prov == "" {
			prov = p
		}
	}
	im.useClass(s.StorageClassName, prov)
	st := im.st()
	st.claims[ns+"/"+pvc.Name] = true
	st.pvcs = append(st.pvcs, rec)
	return nil
}

// topologies redacts a class's allowedTopologies as the node labels they
// match.
func (im *Importer) topologies(ts []corev1.TopologySelectorTerm) []corev1.TopologySelectorTerm {
	if !im.opts.Redact || ts == nil {
		return ts
	}
	out := make([]corev1.TopologySelectorTerm, len(ts))
	for i, t := range ts {
		for _, e := range t.MatchLabelExpressions {
			r := corev1.TopologySelectorLabelRequirement{Key: e.Key}
			for _, v := range e.Values {
				r.Values = append(r.Values, im.nodeLabelValue(e.Key, v))
			}
			out[i].MatchLabelExpressions = append(out[i].MatchLabelExpressions, r)
		}
	}
	return out
}

// claimVolumes are the volumes of a pod spec that name claims, as
// exported (renamed when written); a generic ephemeral volume keeps its
// claim template's spec.
func (im *Importer) claimVolumes(vols []corev1.Volume) []corev1.Volume {
	var out []corev1.Volume
	for _, v := range vols {
		switch {
		case v.PersistentVolumeClaim != nil:
			out = append(out, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: v.PersistentVolumeClaim.ClaimName, ReadOnly: v.PersistentVolumeClaim.ReadOnly}}})
		case v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil:
			t := v.Ephemeral.VolumeClaimTemplate
			im.useClass(t.Spec.StorageClassName, "")
			out = append(out, corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
				VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: cleanClaimSpec(t.Spec)}}}})
		}
	}
	return out
}

func cleanClaimSpec(s corev1.PersistentVolumeClaimSpec) corev1.PersistentVolumeClaimSpec {
	return corev1.PersistentVolumeClaimSpec{AccessModes: s.AccessModes, Resources: corev1.VolumeResourceRequirements{Requests: s.Resources.Requests},
		StorageClassName: s.StorageClassName, VolumeMode: s.VolumeMode}
}

// claimTemplates cleans a StatefulSet's volumeClaimTemplates and records
// their names, by which its claims are named.
func (im *Importer) claimTemplates(ns, set string, ts []corev1.PersistentVolumeClaim) []corev1.PersistentVolumeClaim {
	if len(ts) == 0 {
		return nil
	}
	var out []corev1.PersistentVolumeClaim
	var names []string
	for _, t := range ts {
		im.useClass(t.Spec.StorageClassName, "")
		out = append(out, corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: t.Name}, Spec: cleanClaimSpec(t.Spec)})
		names = append(names, t.Name)
	}
	st := im.st()
	if st.templates[ns] == nil {
		st.templates[ns] = map[string][]string{}
	}
	st.templates[ns][set] = names
	return out
}

// className, pvName and volumeName rename for --redact.
func (im *Importer) className(c string) string {
	if c == "" || !im.opts.Redact {
		return c
	}
	return hash("sc-", c)
}

func (im *Importer) pvName(n string) string {
	if n == "" || !im.opts.Redact {
		return n
	}
	return hash("pv-", n)
}

func (im *Importer) volumeName(n string) string {
	if n == "" || !im.opts.Redact {
		return n
	}
	return hash("vol-", n)
}

func (im *Importer) templateName(n string) string {
	if !im.opts.Redact {
		return n
	}
	return hash("vct-", n)
}

// claimName renames a claim of namespace ns (as exported) so that the
// model still finds it: a StatefulSet's claim TEMPLATE-STS-N follows its
// StatefulSet; a generic ephemeral volume's claim (owner a pod) follows
// its pod and volume.
func (im *Importer) claimName(ns, name, ownerPod string) string {
	if !im.opts.Redact {
		return name
	}
	if ownerPod != "" {
		if vol, ok := strings.CutPrefix(name, ownerPod+"-"); ok && vol != "" {
			return im.workloadName(ownerPod) + "-" + im.volumeName(vol)
		}
	}
	if st := im.storage; st != nil {
		best, out := 0, ""
		for _, set := range sortedKeys(st.templates[ns]) {
			for _, t := range st.templates[ns][set] {
				prefix := t + "-" + set + "-"
				rest, ok := strings.CutPrefix(name, prefix)
				if ok && len(prefix) > best && isOrdinal(rest) {
					best, out = len(prefix), im.templateName(t)+"-"+im.workloadName(set)+"-"+rest
				}
			}
		}
		if out != "" {
			return out
		}
	}
	return hash("pvc-", name)
}

func isOrdinal(s string) bool {
	if s == "" || len(s) > 7 {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// fixVolumes renames the claim volumes of a pod spec (a map of the
// written object) and drops those whose claim the export lacks, with a
// notice naming the pod or workload and the claim.
func (im *Importer) fixVolumes(spec map[string]any, w where, obj, ns string) {
	vols, _ := spec["volumes"].([]any)
	if len(vols) == 0 {
		return
	}
	var kept []any
	for _, v := range vols {
		vm, _ := v.(map[string]any)
		name, _ := vm["name"].(string)
		if pvc, ok := vm["persistentVolumeClaim"].(map[string]any); ok {
			claim, _ := pvc["claimName"].(string)
			if im.storage == nil || !im.storage.claims[ns+"/"+claim] {
				im.notice(w, obj, "volume %q names PersistentVolumeClaim %s/%s, which is not in the export: the volume is dropped and the pod kept; it schedules as if the volume were in every zone (export persistentvolumeclaims and persistentvolumes with the pods)", name, ns, claim)
				continue
			}
			pvc["claimName"] = im.claimName(ns, claim, "")
		}
		if eph, ok := vm["ephemeral"].(map[string]any); ok {
			if t, ok := eph["volumeClaimTemplate"].(map[string]any); ok {
				renameClassIn(im, t)
			}
		}
		vm["name"] = im.volumeName(name)
		kept = append(kept, vm)
	}
	if len(kept) == 0 {
		delete(spec, "volumes")
		return
	}
	spec["volumes"] = kept
}

// renameClassIn renames spec.storageClassName of a claim (template) map.
func renameClassIn(im *Importer, claim map[string]any) {
	if s, ok := claim["spec"].(map[string]any); ok {
		if c, ok := s["storageClassName"].(string); ok {
			s["storageClassName"] = im.className(c)
		}
	}
}

// fixWorkloadVolumes applies fixVolumes to a written workload's pod
// template and renames a StatefulSet's claim templates.
func (im *Importer) fixWorkloadVolumes(wl *workload, m map[string]any) {
	spec, _ := m["spec"].(map[string]any)
	if wl.kind == "CronJob" {
		jt, _ := spec["jobTemplate"].(map[string]any)
		spec, _ = jt["spec"].(map[string]any)
	}
	tmpl, _ := spec["template"].(map[string]any)
	if ps, ok := tmpl["spec"].(map[string]any); ok {
		im.fixVolumes(ps, wl.where, wl.ref(), wl.namespace)
	}
	if wl.kind != "StatefulSet" {
		return
	}
	ts, _ := m["spec"].(map[string]any)["volumeClaimTemplates"].([]any)
	for _, t := range ts {
		tm, _ := t.(map[string]any)
		if md, ok := tm["metadata"].(map[string]any); ok {
			if n, ok := md["name"].(string); ok {
				md["name"] = im.templateName(n)
			}
		}
		renameClassIn(im, tm)
	}
}

// storageObjects are the storage objects to write, renamed, in a stable
// order: classes, volumes, claims. An ephemeral volume's claim whose pod
// is not a bare pod of the scenario is left out (its controller's pods
// get new names and claims), with the volume bound to it; a claim bound
// to a volume the export lacks is written unbound.
func (im *Importer) storageObjects() []any {
	st := im.storage
	if st == nil {
		return nil
	}
	var out []any
	classes := map[string]bool{}
	for _, c := range st.classes {
		classes[c.sc.Name] = true
	}
	// Classes the claims name but the export lacks: written with the
	// provisioner their claims or volumes name (else the EBS driver) and
	// WaitForFirstConsumer, the EBS driver's documented mode.
	for _, c := range sortedKeys(st.classUsed) {
		if classes[c] {
			continue
		}
		prov := st.provisioner[c]
		if prov == "" {
			prov = "ebs.csi.aws.com"
		}
		im.notice(st.classUsed[c], "StorageClass/"+c, "not in the export: written with provisioner %s and volumeBindingMode WaitForFirstConsumer (export storageclasses for the real ones)", prov)
		mode := storagev1.VolumeBindingWaitForFirstConsumer
		st.classes = append(st.classes, &classRec{sc: storagev1.StorageClass{TypeMeta: typeMeta2("storage.k8s.io/v1", "StorageClass"),
			ObjectMeta: metav1.ObjectMeta{Name: c}, Provisioner: prov, VolumeBindingMode: &mode}})
	}
	sort.SliceStable(st.classes, func(i, j int) bool { return st.classes[i].sc.Name < st.classes[j].sc.Name })
	for _, c := range st.classes {
		sc := c.sc
		sc.Name = im.className(sc.Name)
		out = append(out, sc)
	}

	dropped := map[string]bool{} // claims left out, namespace/name
	var claims []any
	pvNames := map[string]bool{}
	for _, p := range st.pvs {
		pvNames[p.pv.Name] = true
	}
	sort.SliceStable(st.pvcs, func(i, j int) bool {
		a, b := st.pvcs[i].pvc, st.pvcs[j].pvc
		return a.Namespace+"/"+a.Name < b.Namespace+"/"+b.Name
	})
	ephemeral := 0
	for _, r := range st.pvcs {
		pvc := *r.pvc.DeepCopy()
		key := pvc.Namespace + "/" + pvc.Name
		if r.ownerPod != "" && !st.barePods[pvc.Namespace+"/"+r.ownerPod] {
			dropped[key] = true
			ephemeral++
			continue
		}
		if v := pvc.Spec.VolumeName; v != "" && !pvNames[v] {
			im.notice(r.where, "PersistentVolumeClaim/"+key, "bound to PersistentVolume %s, which is not in the export: written unbound, so its volume's zone is lost and it binds anew (export persistentvolumes)", v)
			pvc.Spec.VolumeName = ""
		}
		pvc.Name = im.claimName(pvc.Namespace, pvc.Name, r.ownerPod)
		pvc.Namespace = im.namespace(pvc.Namespace)
		pvc.Spec.VolumeName = im.pvName(pvc.Spec.VolumeName)
		if c := pvc.Spec.StorageClassName; c != nil {
			pvc.Spec.StorageClassName = new(im.className(*c))
		}
		claims = append(claims, pvc)
	}
	if ephemeral > 0 {
		im.notices = append(im.notices, Notice{File: "(all files)", Pos: "-", Msg: fmt.Sprintf("%d generic ephemeral volume claim(s) of controllers' pods left out, with their volumes: the simulated pods create their own", ephemeral)})
	}
	sort.SliceStable(st.pvs, func(i, j int) bool { return st.pvs[i].pv.Name < st.pvs[j].pv.Name })
	for _, p := range st.pvs {
		pv := *p.pv.DeepCopy()
		owner := ""
		if r := pv.Spec.ClaimRef; r != nil {
			if dropped[r.Namespace+"/"+r.Name] {
				continue
			}
			for _, c := range st.pvcs {
				if c.pvc.Namespace == r.Namespace && c.pvc.Name == r.Name {
					owner = c.ownerPod
				}
			}
			r.Name = im.claimName(r.Namespace, r.Name, owner)
			r.Namespace = im.namespace(r.Namespace)
		}
		pv.Name = im.pvName(pv.Name)
		pv.Spec.StorageClassName = im.className(pv.Spec.StorageClassName)
		if im.opts.Redact {
			if pv.Spec.CSI != nil {
				pv.Spec.CSI.VolumeHandle = hash("vol-", pv.Spec.CSI.VolumeHandle)
			}
			if pv.Spec.AWSElasticBlockStore != nil {
				pv.Spec.AWSElasticBlockStore.VolumeID = hash("vol-", pv.Spec.AWSElasticBlockStore.VolumeID)
			}
			if pv.Spec.NFS != nil {
				pv.Spec.NFS.Server, pv.Spec.NFS.Path = hash("nfs-", pv.Spec.NFS.Server), "/"
			}
			if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil {
				na.Required.NodeSelectorTerms = im.nodeSelectorTerms(na.Required.NodeSelectorTerms)
			}
		}
		out = append(out, pv)
	}
	return append(out, claims...)
}
