package lint

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scenario"
)

// sim lint -f of a chart alone (the Online Boutique's twelve Deployments,
// testdata/microservices-demo): no capacity source, so nothing can run;
// one finding says so and names the workloads (the first eight, then how
// many more), not one error per workload.
func TestNoCapacitySourceIsOneFinding(t *testing.T) {
	const dir = "testdata/microservices-demo"
	docs, err := manifest.ReadPath(dir)
	require.NoError(t, err)
	sc, err := scenario.LoadManifests("sim-lint-f.yaml", FilesScenario(docs, ""), []string{dir})
	require.NoError(t, err)
	require.Len(t, sc.Workloads, 12)
	r := Check(sc)
	fs := findingsOf(r, KindUnhostable)
	require.Len(t, fs, 1)
	require.Equal(t, 1, r.Summary.Errors)
	f := fs[0]
	require.Equal(t, Error, f.Severity)
	require.Empty(t, f.Workload)
	require.Equal(t, "testdata/microservices-demo/kubernetes-manifests.yaml", f.File)
	require.Equal(t, 5, f.Line)
	require.Equal(t, "no capacity source (NodePool, node group, static pool or Node) is given, so none of the 12 workload(s) can ever run: "+
		"Deployment/default/emailservice, Deployment/default/checkoutservice, Deployment/default/recommendationservice, Deployment/default/frontend, "+
		"Deployment/default/paymentservice, Deployment/default/productcatalogservice, Deployment/default/cartservice, Deployment/default/loadgenerator and 4 more", f.Message)
	require.Contains(t, f.Fix, "a Karpenter NodePool and its EC2NodeClass")

	// With a capacity source, each workload is judged on its own again.
	r = check(t, dbOnly, deployment("web", "500m", ""), deployment("api", "500m", ""))
	require.Len(t, findingsOf(r, KindUnhostable), 2)
}
