package lint

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/internal/fixtures"
)

// TestVolumeZoneOnEmbeddedScenarios: a StatefulSet with per-replica EBS
// volumes on node groups spanning three zones (template node in the
// first) is flagged for the other two zones; one group per zone, or a
// NodePool over every zone, is not.
func TestVolumeZoneOnEmbeddedScenarios(t *testing.T) {
	fs := findingsOf(Check(loadEmbedded(t, "stateful-zone-ca")), KindVolumeZone)
	require.Len(t, fs, 1)
	require.Equal(t, Warning, fs[0].Severity)
	require.Equal(t, "StatefulSet/data/db", fs[0].Workload)
	require.Contains(t, fs[0].Message, "a pod whose volume is in us-east-1b or us-east-1c can come back only there")
	require.Contains(t, fs[0].Message, "NodeGroup/db-spot's template node is in us-east-1a")
	require.Contains(t, fs[0].Message, "; while it waits, the StatefulSet (podManagementPolicy OrderedReady) creates none of its missing higher ordinals")
	require.Contains(t, fs[0].Fix, "--balance-similar-node-groups")
	for _, name := range []string{"stateful-zone-ca-per-az", "stateful-zone-karpenter"} {
		require.Empty(t, findingsOf(Check(loadEmbedded(t, name)), KindVolumeZone), name)
	}
}

// pvIn is a Deployment's claim bound to an EBS PersistentVolume in zone.
func pvIn(zone string) string { return fixtures.BoundEBSVolume("pv", "data", zone) }

const useData = `      volumes: [{name: data, persistentVolumeClaim: {claimName: data}}]
`

// TestVolumeZoneBoundVolume: a bound volume in a zone no NodePool allows
// is an error; in an allowed zone, nothing.
func TestVolumeZoneBoundVolume(t *testing.T) {
	pool := nodePool("p", "{}", `      requirements:
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
`, "") + nodeClass
	r := check(t, header, pool, pvIn("us-east-1b"), deployment("app", "500m", useData))
	fs := findingsOf(r, KindVolumeZone)
	require.Len(t, fs, 1)
	require.Equal(t, Error, fs[0].Severity)
	require.True(t, strings.HasPrefix(fs[0].Message, "its pods' bound PersistentVolume is in us-east-1b, and no capacity source would add a node there"), fs[0].Message)
	require.Empty(t, findingsOf(check(t, header, pool, pvIn("us-east-1a"), deployment("app", "500m", useData)), KindVolumeZone))
}

// realStaticPV is kubernetes-sigs/aws-ebs-csi-driver's static provisioning
// example (examples/kubernetes/static-provisioning/manifests/{pv,claim,pod}.yaml),
// reduced: the zone moved to us-east-1c and the pod given a cpu request.
var realStaticPV = fixtures.EBSStaticPV("us-east-1c") + `---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ebs-claim
spec:
  storageClassName: "" # Empty string must be explicitly set otherwise default StorageClass will be set
  volumeName: test-pv
  accessModes:
    - ReadWriteOnce
  resources:
    requests:
      storage: 5Gi
---
apiVersion: v1
kind: Pod
metadata:
  name: app
spec:
  containers:
  - name: app
    image: public.ecr.aws/amazonlinux/amazonlinux
    resources: {requests: {cpu: 500m}}
    volumeMounts:
    - name: persistent-storage
      mountPath: /data
  volumes:
  - name: persistent-storage
    persistentVolumeClaim:
      claimName: ebs-claim
`

// TestVolumeZoneMatrixBoundVolume: the placement matrix judges a pod
// whose claim is bound to a PersistentVolume in one zone with its volume
// there, as the scheduler and the Cluster Autoscaler do: a node group
// spanning other zones neither lands it nor scales up for it (the matrix
// said yes to both while the volume-zone finding said no node would
// come), and the finding still names the template's zone.
func TestVolumeZoneMatrixBoundVolume(t *testing.T) {
	group := `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - {name: ng, instanceType: m5.large, availabilityZones: [us-east-1a, us-east-1b], minSize: 0, maxSize: 3, desiredCapacity: 0}
`
	hdr := strings.Replace(caHeader, "[us-east-1a, us-east-1b]", "[us-east-1a, us-east-1b, us-east-1c]", 1)
	r := check(t, hdr, group, realStaticPV)
	c := cellOf(t, r, "Pod/default/app", "", "NodeGroup/ng")
	require.False(t, c.CanLand, "%+v", c)
	require.False(t, c.Provisions, "%+v", c)
	require.NotEmpty(t, c.Reason)
	fs := findingsOf(r, KindVolumeZone)
	require.Len(t, fs, 1)
	require.Equal(t, Error, fs[0].Severity)
	require.Contains(t, fs[0].Message, "bound PersistentVolume is in us-east-1c")
	require.Contains(t, fs[0].Message, "NodeGroup/ng's template node is in us-east-1a")
	// One error for one cause: not also "no capacity source can ever host".
	require.Empty(t, findingsOf(r, KindUnhostable))

	// In a zone the group spans, the matrix says yes.
	r = check(t, hdr, group, strings.Replace(realStaticPV, "- us-east-1c", "- us-east-1a", 1))
	c = cellOf(t, r, "Pod/default/app", "", "NodeGroup/ng")
	require.True(t, c.CanLand && c.Provisions, "%+v", c)
	require.Empty(t, findingsOf(r, KindVolumeZone))
}

// realIo1Class is kubernetes-sigs/aws-ebs-csi-driver's StorageClass example
// (examples/kubernetes/storageclass/manifests/storageclass.yaml: io1,
// iopsPerGB, encrypted, xfs, allowedTopologies one zone), reduced: the zone
// moved to us-east-1c; with the dynamic-provisioning example's claim
// (examples/kubernetes/dynamic-provisioning/manifests/claim.yaml).
const realIo1Class = `---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: ebs-sc
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
parameters:
  csi.storage.k8s.io/fstype: xfs
  type: io1
  iopsPerGB: "50"
  encrypted: "true"
allowedTopologies:
- matchLabelExpressions:
  - key: topology.kubernetes.io/zone
    values:
    - us-east-1c
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ebs-claim
spec:
  accessModes:
    - ReadWriteOnce
  storageClassName: ebs-sc
  resources:
    requests:
      storage: 4Gi
`

// TestVolumeZoneMatrixAllowedTopologies: a WaitForFirstConsumer claim
// whose class allows one zone keeps its pod to that zone before it is
// provisioned (VolumeBinding: "didn't find available persistent volumes
// to bind" elsewhere), so a node group spanning other zones can neither
// land nor add a node for it (the matrix said yes to both, and no finding
// came, while the run stranded the pod); a group in that zone can.
func TestVolumeZoneMatrixAllowedTopologies(t *testing.T) {
	group := func(zones string) string {
		return `---
apiVersion: eksctl.io/v1alpha5
kind: ClusterConfig
metadata: {name: demo, region: us-east-1}
managedNodeGroups:
  - {name: ng, instanceType: m5.large, availabilityZones: ` + zones + `, minSize: 0, maxSize: 3, desiredCapacity: 0}
`
	}
	pod := realStaticPV[strings.Index(realStaticPV, "---\napiVersion: v1\nkind: Pod"):]
	hdr := strings.Replace(caHeader, "[us-east-1a, us-east-1b]", "[us-east-1a, us-east-1b, us-east-1c]", 1)
	r := check(t, hdr, group("[us-east-1a, us-east-1b]"), realIo1Class, pod)
	c := cellOf(t, r, "Pod/default/app", "", "NodeGroup/ng")
	require.False(t, c.CanLand, "%+v", c)
	require.False(t, c.Provisions, "%+v", c)
	require.Contains(t, c.Reason, "didn't find available persistent volumes to bind")
	require.Len(t, findingsOf(r, KindUnhostable), 1)

	r = check(t, hdr, group("[us-east-1c]"), realIo1Class, pod)
	c = cellOf(t, r, "Pod/default/app", "", "NodeGroup/ng")
	require.True(t, c.CanLand && c.Provisions, "%+v", c)
	require.Empty(t, findingsOf(r, KindUnhostable))
}
