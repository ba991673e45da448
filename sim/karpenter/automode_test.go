package karpenter_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/scenario"
)

// A cluster of EKS Auto Mode nodes only with a StorageClass of the
// self-managed EBS CSI driver (scenarios/stateful/db.yaml's gp3) gets a
// warning at its provisioner; with Auto Mode's ebs.csi.eks.amazonaws.com
// (the EKS guide's auto-ebs-sc), or with eksctl node groups that may run
// the driver, none.
func TestAutoModeStorageClassWarning(t *testing.T) {
	scen := `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: s}
spec:
  duration: 1h
  region: us-east-1
  zones: [us-east-1a, us-east-1b]
  karpenter: {autoMode: {}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata:
  name: gp3
  annotations: {storageclass.kubernetes.io/is-default-class: "true"}
provisioner: PROVISIONER
volumeBindingMode: WaitForFirstConsumer
parameters: {type: gp3}
`
	warnings := func(prov string) []string {
		sc, err := scenario.LoadManifests("s.yaml", []byte(strings.Replace(scen, "PROVISIONER", prov, 1)), nil)
		require.NoError(t, err)
		var out []string
		for _, w := range sc.Warnings {
			if w.Code == "ineffective.auto-mode-storage" {
				out = append(out, w.String())
			}
		}
		return out
	}
	require.Equal(t, []string{"s.yaml:15: provisioner: every node of this cluster is EKS Auto Mode's, whose block storage is ebs.csi.eks.amazonaws.com: volumes of StorageClass gp3 (ebs.csi.aws.com) are made only where the self-managed EBS CSI driver is installed, which nothing here shows; they are provisioned in the simulation as if it were (write provisioner: ebs.csi.eks.amazonaws.com, or install the EBS CSI driver (the aws-ebs-csi-driver add-on))"},
		warnings("ebs.csi.aws.com"))
	require.Len(t, warnings("kubernetes.io/aws-ebs"), 1)
	require.Empty(t, warnings("ebs.csi.eks.amazonaws.com"))
}
