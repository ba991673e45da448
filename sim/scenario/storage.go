package scenario

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Storage: StorageClasses, PersistentVolumes and PersistentVolumeClaims
// compile into a cluster.Storage; pod volumes that name claims into the
// spec's Claims (cluster.CompilePodSpec), a StatefulSet's
// volumeClaimTemplates here.

// zonalProvisioners make volumes that live in one zone and attach to one
// node at a time (EBS: the CSI driver, the in-tree name, which CSI
// migration hands to it, and EKS Auto Mode's managed EBS driver).
var zonalProvisioners = map[string]bool{"ebs.csi.aws.com": true, "kubernetes.io/aws-ebs": true, "ebs.csi.eks.amazonaws.com": true}

// sharedProvisioners make file systems every zone can mount: no zone,
// no attach limit.
var sharedProvisioners = map[string]bool{
	"efs.csi.aws.com": true, "fsx.csi.aws.com": true, "fsx.openzfs.csi.aws.com": true,
	"s3.csi.aws.com": true, "nfs.csi.k8s.io": true, "cluster.local/nfs-subdir-external-provisioner": true,
	"k8s-sigs.io/nfs-subdir-external-provisioner": true, "kubernetes.io/no-provisioner": true,
}

// zoneKeys are the node labels a volume's topology may name a zone by.
var zoneKeys = map[string]bool{
	"topology.ebs.csi.aws.com/zone":   true,
	corev1.LabelTopologyZone:          true,
	corev1.LabelFailureDomainBetaZone: true,
}

const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// compileStorage reads the storage kinds into l.out.Storage (nil when the
// manifests have none and no pod uses a claim).
func (l *loader) compileStorage() {
	classDocs, pvDocs, pvcDocs := l.docsOf("StorageClass"), l.docsOf("PersistentVolume"), l.docsOf("PersistentVolumeClaim")
	if len(classDocs)+len(pvDocs)+len(pvcDocs) == 0 {
		return
	}
	st := &cluster.Storage{Default: -1}
	for _, z := range l.out.Zones {
		st.Zones = append(st.Zones, l.out.Syms.Intern(z))
	}
	l.classDocs = map[string]*manifest.Document{}
	for _, d := range classDocs {
		sc, ok := decode[storagev1.StorageClass](l, d)
		if !ok {
			l.refuse(d) // its errors are reported: no "missing" for references to it
			continue
		}
		if prev, dup := l.classDocs[sc.Name]; dup {
			l.fail(d.Errorf("metadata.name", "give each StorageClass its own name", "a second StorageClass %q (the first is at %s:%d)", sc.Name, prev.File, prev.Line))
			continue
		}
		l.classDocs[sc.Name] = d
		c := cluster.StorageClass{Name: sc.Name, Provisioner: sc.Provisioner}
		switch {
		case zonalProvisioners[sc.Provisioner]:
			c.Zonal, c.Attach = true, true
		case sharedProvisioners[sc.Provisioner]:
		default:
			l.warn(d, "provisioner", "provisioner %q is not one the simulator knows (ebs.csi.aws.com is zonal; EFS, FSx and NFS are not): its volumes are treated as usable from every zone, with no attach limit", sc.Provisioner)
		}
		if m := sc.VolumeBindingMode; m != nil {
			switch *m {
			case storagev1.VolumeBindingImmediate:
			case storagev1.VolumeBindingWaitForFirstConsumer:
				c.Mode = cluster.WaitForFirstConsumer
			default:
				l.fail(d.Errorf("volumeBindingMode", "use Immediate or WaitForFirstConsumer", "unknown volumeBindingMode %q", *m))
			}
		}
		for i, term := range sc.AllowedTopologies {
			for j, e := range term.MatchLabelExpressions {
				path := fmt.Sprintf("allowedTopologies[%d].matchLabelExpressions[%d]", i, j)
				if !zoneKeys[e.Key] {
					l.warn(d, path+".key", "only zone keys (topology.kubernetes.io/zone, topology.ebs.csi.aws.com/zone) are modelled: %q is ignored", e.Key)
					continue
				}
				for k, v := range e.Values {
					if !slices.Contains(l.out.Zones, v) {
						l.warn(d, fmt.Sprintf("%s.values[%d]", path, k), "zone %q is not one of the scenario's zones (%s): no node will be there", v, strings.Join(l.out.Zones, ", "))
					}
					c.Zones = append(c.Zones, l.out.Syms.Intern(v))
				}
			}
		}
		if c.Zones != nil {
			slices.Sort(c.Zones)
			c.Zones = slices.Compact(c.Zones)
		}
		if sc.Annotations[defaultClassAnnotation] == "true" {
			if st.Default >= 0 {
				l.warn(d, "metadata.annotations", "a second default StorageClass (%s is one too): claims without storageClassName get the newest; the simulator takes the last in file order, %s", st.Classes[st.Default].Name, sc.Name)
			}
			st.Default = len(st.Classes)
		}
		st.Classes = append(st.Classes, c)
	}
	for _, d := range pvDocs {
		pv, ok := decode[corev1.PersistentVolume](l, d)
		if !ok {
			l.refuse(d) // its errors are reported: no "missing" for references to it
			continue
		}
		in := cluster.VolumeInput{Name: pv.Name, Class: pv.Spec.StorageClassName}
		if pv.Spec.CSI != nil && zonalProvisioners[pv.Spec.CSI.Driver] || pv.Spec.AWSElasticBlockStore != nil {
			in.Attach = true
		} else if i := st.ClassIndex(pv.Spec.StorageClassName); i >= 0 && pv.Spec.CSI == nil && pv.Spec.NFS == nil {
			in.Attach = st.Classes[i].Attach
		}
		if na := pv.Spec.NodeAffinity; na != nil && na.Required != nil {
			for i, term := range na.Required.NodeSelectorTerms {
				for j, e := range term.MatchExpressions {
					path := fmt.Sprintf("spec.nodeAffinity.required.nodeSelectorTerms[%d].matchExpressions[%d]", i, j)
					if !zoneKeys[e.Key] || e.Operator != corev1.NodeSelectorOpIn {
						l.warn(d, path, "only zone keys with operator In are modelled: %s %s is ignored", e.Key, e.Operator)
						continue
					}
					for k, v := range e.Values {
						if !slices.Contains(l.out.Zones, v) {
							l.warn(d, fmt.Sprintf("%s.values[%d]", path, k), "zone %q is not one of the scenario's zones (%s): no node will be there for the volume's pods", v, strings.Join(l.out.Zones, ", "))
						}
						in.Zones = append(in.Zones, l.out.Syms.Intern(v))
					}
				}
			}
		}
		if in.Zones == nil {
			for _, k := range []string{corev1.LabelTopologyZone, corev1.LabelFailureDomainBetaZone} {
				if z, ok := pv.Labels[k]; ok {
					in.Zones, in.ByLabel = []cluster.Sym{l.out.Syms.Intern(z)}, true
					break
				}
			}
		}
		if in.Zones != nil {
			slices.Sort(in.Zones)
			in.Zones = slices.Compact(in.Zones)
		} else if in.Attach {
			l.warn(d, "spec.nodeAffinity", "an EBS volume without node affinity or zone label: the simulator lets it attach in every zone (EBS volumes live in one; add its zone)")
		}
		if r := pv.Spec.ClaimRef; r != nil {
			in.ClaimNamespace, in.ClaimName = l.out.Syms.Intern(nsOr(r.Namespace)), r.Name
		}
		st.Volumes = append(st.Volumes, in)
	}
	l.claimDocs = map[string]*manifest.Document{}
	for _, d := range pvcDocs {
		pvc, ok := decode[corev1.PersistentVolumeClaim](l, d)
		if !ok {
			l.refuse(d) // its errors are reported: no "missing" for references to it
			continue
		}
		ns := nsOr(pvc.Namespace)
		in := cluster.ClaimInput{Namespace: l.out.Syms.Intern(ns), Name: pvc.Name, VolumeName: pvc.Spec.VolumeName}
		if c := pvc.Spec.StorageClassName; c != nil {
			in.Class, in.NoClass = *c, *c == ""
		}
		l.checkClass(d, "spec.storageClassName", in.Class, in.NoClass, st, in.VolumeName != "" || l.namedByVolume(st, in))
		l.checkAccessModes(d, "spec.accessModes", pvc.Spec.AccessModes, pvc.Spec.VolumeMode, in.Class, in.NoClass, st)
		if in.VolumeName != "" && !slices.ContainsFunc(st.Volumes, func(v cluster.VolumeInput) bool { return v.Name == in.VolumeName }) && !l.refused["PersistentVolume/"+in.VolumeName] {
			l.fail(d.Errorf("spec.volumeName", "add the PersistentVolume or remove spec.volumeName", "no PersistentVolume named %q among the manifests", in.VolumeName))
		}
		l.claimDocs[ns+"/"+pvc.Name] = d
		st.Claims = append(st.Claims, in)
	}
	l.out.Storage = st
}

// namedByVolume reports whether a PersistentVolume's claimRef names the
// claim.
func (l *loader) namedByVolume(st *cluster.Storage, in cluster.ClaimInput) bool {
	return slices.ContainsFunc(st.Volumes, func(v cluster.VolumeInput) bool {
		return v.ClaimName == in.Name && v.ClaimNamespace == in.Namespace
	})
}

// checkClass reports a claim's class that does not exist, or a claim
// that can never bind.
func (l *loader) checkClass(d *manifest.Document, path, class string, noClass bool, st *cluster.Storage, static bool) {
	switch {
	case static:
	case noClass:
		l.warnc(d, CodeUnbindableClaim, path, "storageClassName \"\" binds only to a PersistentVolume that names the claim: none does, so its pods stay Pending")
	case class == "" && st.Default < 0:
		l.warn(d, path, "no storageClassName and no default StorageClass (annotation %s: \"true\"): the claim stays unbound and its pods Pending", defaultClassAnnotation)
	case class != "" && st.ClassIndex(class) < 0 && !l.refused["StorageClass/"+class]:
		l.fail(d.Errorf(path, "add the StorageClass or name one of the manifests' ("+l.classNames(st)+")", "no StorageClass named %q among the manifests", class))
	}
}

// checkAccessModes warns about a multi-node access mode on an EBS class:
// the EBS CSI driver provisions ReadWriteMany only as a Block io2
// Multi-Attach volume (its docs/multi-attach.md) and refuses it for a
// filesystem; the simulator models every EBS claim as ReadWriteOnce.
func (l *loader) checkAccessModes(d *manifest.Document, path string, modes []corev1.PersistentVolumeAccessMode, volumeMode *corev1.PersistentVolumeMode, class string, noClass bool, st *cluster.Storage) {
	i := st.Default
	switch {
	case noClass:
		return
	case class != "":
		i = st.ClassIndex(class)
	}
	if i < 0 || !st.Classes[i].Zonal {
		return
	}
	for _, m := range modes {
		if m != corev1.ReadWriteMany && m != corev1.ReadOnlyMany {
			continue
		}
		if volumeMode != nil && *volumeMode == corev1.PersistentVolumeBlock {
			l.warn(d, path, "%s on EBS (StorageClass %s) is io2 Multi-Attach: several nodes in one zone may attach the volume, but the simulator attaches it to one node at a time (ReadWriteOnce)", m, st.Classes[i].Name)
		} else {
			l.warnc(d, CodeMultiAttach, path, "%s on EBS (StorageClass %s) without volumeMode: Block is refused by the EBS CSI driver (Multi-Attach is io2 Block only): in a cluster the claim never provisions and its pods stay Pending; the simulator provisions it as ReadWriteOnce", m, st.Classes[i].Name)
		}
		return
	}
}

func (l *loader) classNames(st *cluster.Storage) string {
	var names []string
	for _, c := range st.Classes {
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// compileClaims checks a workload's claim references and adds a
// StatefulSet's volumeClaimTemplates to its spec.
func (l *loader) compileClaims(o podObject, spec *cluster.PodSpec) {
	for i, t := range o.claimTemplates {
		ref := cluster.ClaimRef{Name: t.Name, Template: true}
		if c := t.Spec.StorageClassName; c != nil {
			ref.Class, ref.NoClass = *c, *c == ""
		}
		spec.Claims = append(spec.Claims, ref)
		l.checkClass(o.doc, fmt.Sprintf("spec.volumeClaimTemplates[%d].spec.storageClassName", i), ref.Class, ref.NoClass, l.storage(), false)
		l.checkAccessModes(o.doc, fmt.Sprintf("spec.volumeClaimTemplates[%d].spec.accessModes", i), t.Spec.AccessModes, t.Spec.VolumeMode, ref.Class, ref.NoClass, l.storage())
	}
	for i, ref := range spec.Claims {
		if ref.Template {
			continue
		}
		path := o.specPath + ".volumes"
		if ref.Ephemeral {
			l.checkClass(o.doc, path, ref.Class, ref.NoClass, l.storage(), false)
			continue
		}
		if _, ok := l.claimDocs[o.namespace+"/"+ref.Name]; !ok && !l.refused["PersistentVolumeClaim/"+o.namespace+"/"+ref.Name] {
			l.fail(o.doc.Errorf(path, "add the PersistentVolumeClaim to the manifests, or remove the volume", "volume %d names PersistentVolumeClaim %q, which is not among the manifests (namespace %s): the pods could never start", i, ref.Name, o.namespace))
		}
	}
}

// storage returns the scenario's storage, creating an empty one for specs
// that name claims in a scenario without storage manifests.
func (l *loader) storage() *cluster.Storage {
	if l.out.Storage == nil {
		st := &cluster.Storage{Default: -1}
		for _, z := range l.out.Zones {
			st.Zones = append(st.Zones, l.out.Syms.Intern(z))
		}
		l.out.Storage = st
		l.claimDocs = map[string]*manifest.Document{}
	}
	return l.out.Storage
}
