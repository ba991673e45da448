package statedump

import (
	"fmt"
	"hash/fnv"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Storage: the StorageClasses, the PersistentVolumes (manifests' and
// provisioned ones, the zone they live in as node affinity, or as the
// zone label when that is how their manifest gave it, and claimRef), the
// PersistentVolumeClaims (class, volumeName) and the pods' claim volumes,
// so that sim import of the dump binds every claim to its volume in its
// zone again.

// ebsDriver is the EBS CSI driver: the driver of a volume that attaches.
const ebsDriver = "ebs.csi.aws.com"

const defaultClassAnnotation = "storageclass.kubernetes.io/is-default-class"

// claimVolume is a pod volume naming claim name.
func claimVolume(volume, claim string) corev1.Volume {
	return corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

var rwo = []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce}

// refClass is a template's or ephemeral volume's storageClassName.
func refClass(r cluster.ClaimRef) *string {
	switch {
	case r.NoClass:
		return new("")
	case r.Class != "":
		return new(r.Class)
	}
	return nil
}

// specVolumes are a compiled spec's claim volumes (not its
// StatefulSet's templates): persistentVolumeClaim volumes claim-N, and
// generic ephemeral volumes under their own names.
func specVolumes(s *cluster.PodSpec) []corev1.Volume {
	var out []corev1.Volume
	for i, r := range s.Claims {
		switch {
		case r.Template:
		case r.Ephemeral:
			out = append(out, corev1.Volume{Name: r.Name, VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
				VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{AccessModes: rwo, StorageClassName: refClass(r)}}}}})
		default:
			out = append(out, claimVolume(fmt.Sprintf("claim-%d", i), r.Name))
		}
	}
	return out
}

// podVolumes are a pod's claim volumes: its spec's, and one per
// StatefulSet template naming the claim TEMPLATE-POD, as the StatefulSet
// controller writes them.
func podVolumes(s *cluster.PodSpec, shared []corev1.Volume, pod string) []corev1.Volume {
	out := shared
	for _, r := range s.Claims {
		if r.Template {
			if len(out) == len(shared) {
				out = append([]corev1.Volume(nil), shared...)
			}
			out = append(out, claimVolume(r.Name, r.Name+"-"+pod))
		}
	}
	return out
}

// claimTemplates are a StatefulSet's volumeClaimTemplates.
func claimTemplates(s *cluster.PodSpec) []corev1.PersistentVolumeClaim {
	var out []corev1.PersistentVolumeClaim
	for _, r := range s.Claims {
		if r.Template {
			out = append(out, corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: r.Name},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: rwo, StorageClassName: refClass(r)}})
		}
	}
	return out
}

// volumeHandle is a stable EBS volume ID for a volume.
func volumeHandle(name string) string {
	h := fnv.New64a()
	h.Write([]byte(name))
	return fmt.Sprintf("vol-%017x", h.Sum64())
}

func (d *dumper) zoneNames(zones []cluster.Sym) []string {
	out := make([]string, len(zones))
	for i, z := range zones {
		out[i] = d.cl.Syms.Name(z)
	}
	return out
}

func (d *dumper) storage() {
	cl := d.cl
	if !cl.HasStorage() {
		return
	}
	epoch := metav1.NewTime(d.in.Epoch.UTC())
	classes := cl.StorageClasses()
	provisioner := map[string]string{}
	for i, c := range classes {
		provisioner[c.Name] = c.Provisioner
		mode := storagev1.VolumeBindingImmediate
		if c.Mode == cluster.WaitForFirstConsumer {
			mode = storagev1.VolumeBindingWaitForFirstConsumer
		}
		reclaim := corev1.PersistentVolumeReclaimDelete
		sc := &storagev1.StorageClass{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"},
			ObjectMeta:  metav1.ObjectMeta{Name: c.Name, UID: UID("StorageClass", "", c.Name), CreationTimestamp: epoch},
			Provisioner: c.Provisioner, VolumeBindingMode: &mode, ReclaimPolicy: &reclaim}
		if i == cl.DefaultStorageClass() {
			sc.Annotations = map[string]string{defaultClassAnnotation: "true"}
		}
		if c.Zones != nil {
			sc.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{
				{Key: corev1.LabelTopologyZone, Values: d.zoneNames(c.Zones)}}}}
		}
		d.item(sc)
	}
	claims := cl.Claims()
	vols := cl.Volumes()
	for i := range vols {
		v := &vols[i]
		if v.Claim != cluster.NoClaim && claims[v.Claim].Gone {
			continue // deleted with its ephemeral claim (reclaim policy Delete)
		}
		pv := &corev1.PersistentVolume{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"},
			ObjectMeta: metav1.ObjectMeta{Name: v.Name, UID: UID("PersistentVolume", "", v.Name), CreationTimestamp: epoch},
			Spec: corev1.PersistentVolumeSpec{AccessModes: rwo, StorageClassName: v.ClassName,
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete}}
		switch {
		case v.Attach:
			pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: ebsDriver, VolumeHandle: volumeHandle(v.Name)}
		case provisioner[v.ClassName] != "":
			pv.Spec.CSI = &corev1.CSIPersistentVolumeSource{Driver: provisioner[v.ClassName], VolumeHandle: v.Name}
		}
		if v.Zones != nil {
			if v.ByLabel {
				pv.Labels = map[string]string{corev1.LabelTopologyZone: cl.Syms.Name(v.Zones[0])}
			} else {
				pv.Spec.NodeAffinity = &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
					MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: d.zoneNames(v.Zones)}}}}}}
			}
		}
		pv.Status.Phase = corev1.VolumeAvailable
		if v.Claim != cluster.NoClaim {
			c := &claims[v.Claim]
			ns := cl.Syms.Name(c.Namespace)
			pv.Spec.ClaimRef = &corev1.ObjectReference{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: ns, Name: c.Name,
				UID: UID("PersistentVolumeClaim", ns, c.Name)}
			pv.Status.Phase = corev1.VolumeBound
		}
		d.item(pv)
	}
	// The pod a generic ephemeral volume's claim belongs to owns it.
	owner := map[cluster.ClaimID]string{}
	for i := range cl.Pods {
		if cl.Pods[i].Phase.Terminal() {
			continue
		}
		for _, id := range cl.ClaimsOf(cluster.PodID(i)) {
			if claims[id].Ephemeral {
				owner[id] = cl.Pods[i].Name
			}
		}
	}
	for i := range claims {
		c := &claims[i]
		if c.Gone {
			continue
		}
		ns := cl.Syms.Name(c.Namespace)
		pvc := &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: metav1.ObjectMeta{Name: c.Name, Namespace: ns, UID: UID("PersistentVolumeClaim", ns, c.Name), CreationTimestamp: d.time(c.Created)},
			Spec:       corev1.PersistentVolumeClaimSpec{AccessModes: rwo, StorageClassName: new(""), VolumeName: c.Want}}
		if c.Class >= 0 {
			pvc.Spec.StorageClassName = new(classes[c.Class].Name)
		}
		if pod, ok := owner[cluster.ClaimID(i)]; ok {
			t := true
			pvc.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: pod, UID: UID("Pod", ns, pod), Controller: &t, BlockOwnerDeletion: &t}}
		}
		pvc.Status.Phase = corev1.ClaimPending
		if c.Volume != cluster.NoVolume {
			pvc.Spec.VolumeName = vols[c.Volume].Name
			pvc.Status.Phase = corev1.ClaimBound
			pvc.Status.AccessModes = rwo
		}
		d.item(pvc)
	}
}
