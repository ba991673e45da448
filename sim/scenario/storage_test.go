package scenario

import (
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

var storageDocs = `---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions:
  - {key: topology.ebs.csi.aws.com/zone, values: [us-east-1b, us-east-1a]}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: efs}
provisioner: efs.csi.aws.com
` + fixtures.BoundEBSVolume("old", "legacy", "us-east-1c") + `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: shared}
spec:
  storageClassName: efs
  accessModes: [ReadWriteMany]
  resources: {requests: {storage: 5Gi}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]
      volumes:
      - {name: legacy, persistentVolumeClaim: {claimName: legacy}}
      - {name: shared, persistentVolumeClaim: {claimName: shared}}
      - {name: emptydir, emptyDir: {}}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      resources: {requests: {storage: 10Gi}}
`

func TestLoadStorage(t *testing.T) {
	sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + storageDocs)}}, "s.yaml")
	require.NoError(t, err)
	st := sc.Storage
	require.NotNil(t, st)
	require.Len(t, st.Classes, 2)
	gp3 := st.Classes[0]
	require.True(t, gp3.Zonal && gp3.Attach)
	require.Equal(t, cluster.WaitForFirstConsumer, gp3.Mode)
	require.Equal(t, "us-east-1a, us-east-1b", cluster.ZoneNames(sc.Syms, gp3.Zones))
	require.Equal(t, 0, st.Default)
	efs := st.Classes[1]
	require.False(t, efs.Zonal || efs.Attach, "EFS is not zonal")
	require.Equal(t, cluster.Immediate, efs.Mode)
	require.Len(t, st.Volumes, 1)
	require.Equal(t, "us-east-1c", cluster.ZoneNames(sc.Syms, st.Volumes[0].Zones))
	require.True(t, st.Volumes[0].Attach)
	require.Equal(t, []cluster.ClaimInput{
		{Namespace: sc.Syms.Intern("default"), Name: "legacy", NoClass: true},
		{Namespace: sc.Syms.Intern("default"), Name: "shared", Class: "efs"},
	}, st.Claims)
	require.Equal(t, []cluster.ClaimRef{{Name: "legacy"}, {Name: "shared"}, {Name: "data", Template: true}},
		sc.Workloads[0].Pod.Claims)
	require.Empty(t, sc.Warnings)
}

func TestStorageBadInput(t *testing.T) {
	for _, tc := range []struct{ name, docs, want string }{
		{"claim not among the manifests", `---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: x}]
  volumes: [{name: d, persistentVolumeClaim: {claimName: nope}}]
`, `s.yaml:12: spec.volumes: volume 0 names PersistentVolumeClaim "nope", which is not among the manifests (namespace default): the pods could never start; add the PersistentVolumeClaim to the manifests, or remove the volume`},
		{"unknown class", `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {storageClassName: gp2, accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}
`, `s.yaml:10: spec.storageClassName: no StorageClass named "gp2" among the manifests; add the StorageClass or name one of the manifests' (none)`},
		{"bad binding mode", `---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: x}
provisioner: ebs.csi.aws.com
volumeBindingMode: Later
`, `s.yaml:11: volumeBindingMode: unknown volumeBindingMode "Later"; use Immediate or WaitForFirstConsumer`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + tc.docs)}}, "s.yaml")
			require.Error(t, err)
			require.Equal(t, tc.want, err.Error())
		})
	}
}

func TestUnknownProvisionerWarns(t *testing.T) {
	sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(minimal + `---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: x}
provisioner: example.com/disk
`)}}, "s.yaml")
	require.NoError(t, err)
	require.Len(t, sc.Warnings, 1)
	require.Equal(t, `s.yaml:10: provisioner: provisioner "example.com/disk" is not one the simulator knows (ebs.csi.aws.com is zonal; EFS, FSx and NFS are not): its volumes are treated as usable from every zone, with no attach limit`, sc.Warnings[0].String())
	require.False(t, sc.Storage.Classes[0].Zonal)
}

// TestMultiNodeAccessModeOnEBSWarns: the EBS CSI driver's
// dynamic-provisioning example (kubernetes-sigs/aws-ebs-csi-driver,
// examples/kubernetes/dynamic-provisioning/manifests/{storageclass,claim}.yaml)
// with ReadWriteMany instead of ReadWriteOnce: the driver refuses it for a
// filesystem volume (Multi-Attach is io2 Block only, docs/multi-attach.md),
// so the claim would never provision; the simulator, which provisions it
// as ReadWriteOnce, says so. ReadWriteOnce and EFS say nothing.
func TestMultiNodeAccessModeOnEBSWarns(t *testing.T) {
	docs := func(provisioner, mode, volumeMode string) string {
		return minimal + `---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: ebs-sc
provisioner: ` + provisioner + `
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ebs-claim
spec:
  accessModes:
    - ` + mode + `
` + volumeMode + `  storageClassName: ebs-sc
  resources:
    requests:
      storage: 4Gi
`
	}
	load := func(d string) *Scenario {
		sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(d)}}, "s.yaml")
		require.NoError(t, err)
		return sc
	}
	sc := load(docs("ebs.csi.aws.com", "ReadWriteMany", ""))
	require.Len(t, sc.Warnings, 1)
	require.Contains(t, sc.Warnings[0].String(), "spec.accessModes: ReadWriteMany on EBS (StorageClass ebs-sc) without volumeMode: Block is refused by the EBS CSI driver")
	sc = load(docs("ebs.csi.aws.com", "ReadWriteMany", "  volumeMode: Block\n"))
	require.Len(t, sc.Warnings, 1)
	require.Contains(t, sc.Warnings[0].String(), "is io2 Multi-Attach")
	require.Empty(t, load(docs("ebs.csi.aws.com", "ReadWriteOnce", "")).Warnings)
	require.Empty(t, load(docs("efs.csi.aws.com", "ReadWriteMany", "")).Warnings)
}

// TestPVZoneOutsideScenarioWarns: the EBS CSI driver's static-provisioning
// PersistentVolume (kubernetes-sigs/aws-ebs-csi-driver,
// examples/kubernetes/static-provisioning/manifests/pv.yaml, zone under
// topology.ebs.csi.aws.com/zone) in a scenario whose zones do not include
// its zone is warned about, as a class's allowedTopologies zone is.
func TestPVZoneOutsideScenarioWarns(t *testing.T) {
	pv := func(zone string) string {
		return minimal + fixtures.EBSStaticPV(zone)
	}
	sc, err := LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(pv("us-east-2c"))}}, "s.yaml")
	require.NoError(t, err)
	require.Len(t, sc.Warnings, 1)
	require.Contains(t, sc.Warnings[0].String(), `spec.nodeAffinity.required.nodeSelectorTerms[0].matchExpressions[0].values[0]: zone "us-east-2c" is not one of the scenario's zones`)
	sc, err = LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(pv(sc.Zones[0]))}}, "s.yaml")
	require.NoError(t, err)
	require.Empty(t, sc.Warnings)
}
