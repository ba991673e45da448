package kubeexport

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StatefulSet "pg" of Cluster.Storage: its pods run on these nodes, its
// claims data-pg-N are bound to volumes in those nodes' zones.
var StorageNodes = []int{1, 3, 5}

// ZoneOf is node i's zone.
func ZoneOf(i int) string { return zones[i%len(zones)] }

// VolumeName is the name of the PersistentVolume the provisioner made for
// claim i of the storage objects.
func VolumeName(i int) string { return fmt.Sprintf("pvc-%08x-0000-4000-8000-%012x", 0xd15c+i, i) }

// storage writes a default gp3 StorageClass (WaitForFirstConsumer), a
// StatefulSet pg of 3 with volumeClaimTemplates data whose claims are
// bound to EBS volumes in its pods' zones, a bare pod toolbox (node 2)
// with a claim toolbox-home, a generic ephemeral volume tmp (claim
// toolbox-tmp) and a claim the export lacks (scratch), and the claim
// of a generic ephemeral volume of a Deployment's pod.
func (c Cluster) storage(lw *listWriter, podIndex *int) {
	ns := "data"
	mode := storagev1.VolumeBindingWaitForFirstConsumer
	reclaim := corev1.PersistentVolumeReclaimDelete
	sc := &storagev1.StorageClass{TypeMeta: metav1.TypeMeta{APIVersion: "storage.k8s.io/v1", Kind: "StorageClass"}, ObjectMeta: meta("StorageClass", "", "gp3", 0, nil),
		Provisioner: "ebs.csi.aws.com", VolumeBindingMode: &mode, ReclaimPolicy: &reclaim, AllowVolumeExpansion: ptr(true),
		Parameters: map[string]string{"type": "gp3", "encrypted": "true", "kmsKeyId": "arn:aws:kms:us-east-1:123456789012:key/" + Secret}}
	sc.Annotations["storageclass.kubernetes.io/is-default-class"] = "true"
	lw.add(sc)
	class := "gp3"
	gi := resource.MustParse("10Gi")
	claimSpec := corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: gi}}, StorageClassName: &class,
		VolumeMode: ptr(corev1.PersistentVolumeFilesystem)}
	k := 0
	// claim writes a bound claim and its volume in node's zone.
	claim := func(name string, node int, owner *metav1.OwnerReference) {
		vol := VolumeName(k)
		pvc := &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"}, ObjectMeta: meta("PersistentVolumeClaim", ns, name, k, nil), Spec: *claimSpec.DeepCopy()}
		pvc.Spec.VolumeName = vol
		for a, v := range map[string]string{"pv.kubernetes.io/bind-completed": "yes", "pv.kubernetes.io/bound-by-controller": "yes",
			"volume.beta.kubernetes.io/storage-provisioner": "ebs.csi.aws.com", "volume.kubernetes.io/storage-provisioner": "ebs.csi.aws.com",
			"volume.kubernetes.io/selected-node": NodeName(node)} {
			pvc.Annotations[a] = v
		}
		pvc.Finalizers = []string{"kubernetes.io/pvc-protection"}
		if owner != nil {
			pvc.OwnerReferences = []metav1.OwnerReference{*owner}
		}
		pvc.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound, AccessModes: claimSpec.AccessModes, Capacity: corev1.ResourceList{corev1.ResourceStorage: gi}}
		lw.add(pvc)
		pv := &corev1.PersistentVolume{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolume"}, ObjectMeta: meta("PersistentVolume", "", vol, k, nil)}
		pv.Annotations["pv.kubernetes.io/provisioned-by"] = "ebs.csi.aws.com"
		pv.Annotations["volume.kubernetes.io/provisioner-deletion-secret-name"] = ""
		pv.Finalizers = []string{"external-provisioner.volume.kubernetes.io/finalizer", "kubernetes.io/pv-protection"}
		pv.Spec = corev1.PersistentVolumeSpec{Capacity: corev1.ResourceList{corev1.ResourceStorage: gi}, AccessModes: claimSpec.AccessModes,
			PersistentVolumeReclaimPolicy: reclaim, StorageClassName: class, VolumeMode: ptr(corev1.PersistentVolumeFilesystem),
			PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "ebs.csi.aws.com", VolumeHandle: fmt.Sprintf("vol-0%016x", k), FSType: "ext4",
				VolumeAttributes: map[string]string{"storage.kubernetes.io/csiProvisionerIdentity": "1700000000000-1234-ebs.csi.aws.com"}}},
			ClaimRef: &corev1.ObjectReference{APIVersion: "v1", Kind: "PersistentVolumeClaim", Namespace: ns, Name: name, UID: pvc.UID, ResourceVersion: pvc.ResourceVersion},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{
				{Key: "topology.kubernetes.io/zone", Operator: corev1.NodeSelectorOpIn, Values: []string{ZoneOf(node)}}}}}}}}
		pv.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumeBound, LastPhaseTransitionTime: &created}
		lw.add(pv)
		k++
	}

	labels := map[string]string{"app": "pg"}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: podSpec("pg", corev1.RestartPolicyAlways)}
	tmpl.Spec.Containers[0].VolumeMounts = append(tmpl.Spec.Containers[0].VolumeMounts, corev1.VolumeMount{Name: "data", MountPath: "/var/lib/postgresql"})
	ss := &appsv1.StatefulSet{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "StatefulSet"}, ObjectMeta: meta("StatefulSet", ns, "pg", 1, labels),
		Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl, ServiceName: "pg",
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
				ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: *claimSpec.DeepCopy(), Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}},
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.RetainPersistentVolumeClaimRetentionPolicyType}},
		Status: appsv1.StatefulSetStatus{Replicas: 3, ReadyReplicas: 3}}
	lw.add(ss)
	for o, node := range StorageNodes {
		name := fmt.Sprintf("pg-%d", o)
		t := *tmpl.DeepCopy()
		t.Labels = map[string]string{"app": "pg", "statefulset.kubernetes.io/pod-name": name, "controller-revision-hash": "pg-7c9"}
		p := pod(ns, name, *podIndex, t, ownerRef("StatefulSet", "apps/v1", "pg", 1), NodeName(node%c.Nodes), corev1.PodRunning)
		p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data-" + name}}})
		lw.add(p)
		*podIndex++
		claim("data-"+name, node%c.Nodes, nil)
	}

	// A bare pod on node 2 with a claim, an ephemeral volume and a claim
	// that is not exported.
	bareNode := 2 % c.Nodes
	bt := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"run": "toolbox"}}, Spec: podSpec("toolbox", corev1.RestartPolicyAlways)}
	bare := pod(ns, "toolbox", *podIndex, bt, metav1.OwnerReference{}, NodeName(bareNode), corev1.PodRunning)
	*podIndex++
	bare.OwnerReferences, bare.GenerateName = nil, ""
	bare.Spec.Volumes = append(bare.Spec.Volumes,
		corev1.Volume{Name: "home", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "toolbox-home"}}},
		corev1.Volume{Name: "tmp", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: *claimSpec.DeepCopy()}}}},
		corev1.Volume{Name: "scratch", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "scratch"}}})
	lw.add(bare)
	claim("toolbox-home", bareNode, nil)
	own := metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "toolbox", UID: bare.UID, Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	claim("toolbox-tmp", bareNode, &own)
	// The ephemeral claim of a Deployment's pod (not exported here).
	own = metav1.OwnerReference{APIVersion: "v1", Kind: "Pod", Name: "cache-7d9f0-abcde", UID: uid("Pod", 999999), Controller: ptr(true), BlockOwnerDeletion: ptr(true)}
	claim("cache-7d9f0-abcde-tmp", 0, &own)
}
