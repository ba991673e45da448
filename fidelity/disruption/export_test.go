package disruptionfidelity

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	karpv1 "sigs.k8s.io/karpenter/pkg/apis/v1"

	"github.com/clustersim/clustersim/sim/catalog"
)

// The export is what kubectl prints: a List whose items decode with the
// k8s.io/api and Karpenter types, every object of the case once.
func TestExportDecodes(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	cc, err := BuildCatalogue(cat)
	require.NoError(t, err)
	scheme := runtime.NewScheme()
	require.NoError(t, corev1.AddToScheme(scheme))
	require.NoError(t, appsv1.AddToScheme(scheme))
	require.NoError(t, policyv1.AddToScheme(scheme))
	scheme.AddKnownTypes(schema.GroupVersion{Group: "karpenter.sh", Version: "v1"}, &karpv1.NodePool{}, &karpv1.NodeClaim{})
	dec := serializer.NewCodecFactory(scheme).UniversalDeserializer()
	for _, c := range Generate(cc, 1, 5) {
		b, err := c.Export()
		require.NoError(t, err)
		var list struct {
			Kind  string            `json:"kind"`
			Items []json.RawMessage `json:"items"`
		}
		require.NoError(t, json.Unmarshal(b, &list))
		require.Equal(t, "List", list.Kind)
		kinds := map[string]int{}
		for _, raw := range list.Items {
			var head struct{ Kind string }
			require.NoError(t, json.Unmarshal(raw, &head))
			kinds[head.Kind]++
			if head.Kind == "EC2NodeClass" {
				continue // the AWS provider's type, not imported here
			}
			_, _, err := dec.Decode(raw, nil, nil)
			require.NoError(t, err, "%s: %s", c.Name, head.Kind)
		}
		require.Equal(t, map[string]int{"EC2NodeClass": 1, "NodePool": len(c.Pools), "NodeClaim": len(c.NodeClaims), "Node": len(c.Nodes),
			"Deployment": len(c.Deployments), "ReplicaSet": len(c.ReplicaSets), "DaemonSet": len(c.DaemonSets),
			"PodDisruptionBudget": len(c.PDBs), "Pod": len(c.Pods)}, withoutZeros(kinds, c))
		require.GreaterOrEqual(t, len(c.Nodes), 3)
		require.LessOrEqual(t, len(c.Nodes), 60)
	}
}

func withoutZeros(kinds map[string]int, c *Case) map[string]int {
	for _, k := range []string{"DaemonSet", "PodDisruptionBudget"} {
		if _, ok := kinds[k]; !ok {
			kinds[k] = 0
		}
	}
	return kinds
}

// The generator is deterministic: the same seed gives the same export.
func TestGenerateDeterministic(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	cc, err := BuildCatalogue(cat)
	require.NoError(t, err)
	a, b := Generate(cc, 7, 3), Generate(cc, 7, 3)
	for i := range a {
		x, err := a[i].Export()
		require.NoError(t, err)
		y, err := b[i].Export()
		require.NoError(t, err)
		require.Equal(t, string(x), string(y))
	}
}

// The repair cases are clusters of their own (not Generate's, which stay
// as they were), deterministic, with the NodeRepair gate on and some
// nodes unhealthy: due and not yet due, a pool past the 20% breaker now
// and then, a Ready condition that is not True with its NoExecute taint.
func TestGenerateRepair(t *testing.T) {
	cat, err := catalog.Default()
	require.NoError(t, err)
	cc, err := BuildCatalogue(cat)
	require.NoError(t, err)
	a, b := GenerateRepair(cc, 1, 20), GenerateRepair(cc, 1, 20)
	shapes := map[string]int{}
	for i, c := range a {
		require.Equal(t, fmt.Sprintf("repair-%03d", i), c.Name)
		require.True(t, c.NodeRepair, c.Name)
		x, err := c.Export()
		require.NoError(t, err)
		y, err := b[i].Export()
		require.NoError(t, err)
		require.Equal(t, string(x), string(y))
		for _, s := range c.Shape {
			shapes[s]++
		}
		unhealthy := 0
		for _, n := range c.Nodes {
			for _, cond := range n.Status.Conditions {
				if cond.Status == corev1.ConditionTrue {
					continue
				}
				unhealthy++
				require.False(t, cond.LastTransitionTime.Before(&n.CreationTimestamp), "%s: a condition cannot predate its node", n.Name)
				if cond.Type == corev1.NodeReady {
					want := corev1.TaintNodeNotReady
					if cond.Status == corev1.ConditionUnknown {
						want = corev1.TaintNodeUnreachable
					}
					require.True(t, slices.ContainsFunc(n.Spec.Taints, func(t corev1.Taint) bool { return t.Key == want && t.Effect == corev1.TaintEffectNoExecute }), n.Name)
				}
			}
		}
		require.Positive(t, unhealthy, c.Name)
	}
	require.Equal(t, 20, shapes["repair"])
	require.Positive(t, shapes["repair-due"])
	require.Positive(t, shapes["repair-not-due"])
	require.Positive(t, shapes["repair-breaker"])
}
