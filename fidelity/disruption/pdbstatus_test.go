package disruptionfidelity

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// A PDB's status as the disruption controller computes it on a state with
// pods being deleted (a drain in progress): case-029's second decision,
// where the harness counted the 7 terminating pods as expected and so
// allowed no eviction; the controller's expected count is the
// Deployment's scale for maxUnavailable and a percentage minAvailable.
func TestFillPDBStatusCountsTheScale(t *testing.T) {
	isController := true
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "app-0", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr32(194)}}
	rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "app-0-abc", Namespace: "default",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: "app-0", Controller: &isController}}},
		Spec: appsv1.ReplicaSetSpec{Replicas: ptr32(194)}}
	c := &Case{Deployments: []*appsv1.Deployment{dep}, ReplicaSets: []*appsv1.ReplicaSet{rs}}
	for i := range 201 {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("app-0-%d", i), Namespace: "default", Labels: map[string]string{"app": "app-0"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "app-0-abc", Controller: &isController}}},
			Spec: corev1.PodSpec{NodeName: "n"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
		if i < 7 {
			now := metav1.Now()
			p.DeletionTimestamp = &now
		}
		c.Pods = append(c.Pods, p)
	}
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "app-0"}}
	one, pct, two00 := intstr.FromInt32(1), intstr.FromString("90%"), intstr.FromInt32(190)
	c.PDBs = []*policyv1.PodDisruptionBudget{
		{ObjectMeta: metav1.ObjectMeta{Name: "max", Namespace: "default"}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel, MaxUnavailable: &one}},
		{ObjectMeta: metav1.ObjectMeta{Name: "pct", Namespace: "default"}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel, MinAvailable: &pct}},
		{ObjectMeta: metav1.ObjectMeta{Name: "int", Namespace: "default"}, Spec: policyv1.PodDisruptionBudgetSpec{Selector: sel, MinAvailable: &two00}},
	}
	FillPDBStatus(c)
	// maxUnavailable 1 of a scale of 194: 193 desired, 194 healthy.
	require.Equal(t, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 194, DesiredHealthy: 193, ExpectedPods: 194, DisruptionsAllowed: 1}, c.PDBs[0].Status)
	// 90% of 194, rounded up: 175.
	require.Equal(t, int32(175), c.PDBs[1].Status.DesiredHealthy)
	require.Equal(t, int32(19), c.PDBs[1].Status.DisruptionsAllowed)
	// An integer minAvailable counts the pods, terminating ones too.
	require.Equal(t, policyv1.PodDisruptionBudgetStatus{CurrentHealthy: 194, DesiredHealthy: 190, ExpectedPods: 201, DisruptionsAllowed: 4}, c.PDBs[2].Status)
}

func ptr32(v int32) *int32 { return &v }
