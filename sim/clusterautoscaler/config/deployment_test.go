package config

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

// workloadDoc reads one workload (Deployment or DaemonSet) named name in
// kube-system, labelled app: app, whose pod template has the containers
// given (YAML list items indented eight spaces).
func workloadDoc(t *testing.T, file, kind, name, app, containers string) *manifest.Document {
	t.Helper()
	docs, err := manifest.ReadBytes(file, []byte("apiVersion: apps/v1\nkind: "+kind+
		"\nmetadata: {name: "+name+", namespace: kube-system}\nspec:\n  selector: {matchLabels: {app: "+app+"}}\n"+
		"  template:\n    metadata: {labels: {app: "+app+"}}\n    spec:\n      containers:\n"+containers))
	require.NoError(t, err)
	require.Len(t, docs, 1)
	return docs[0]
}

func deploymentDoc(t *testing.T, containers string) *manifest.Document {
	t.Helper()
	return workloadDoc(t, "ca.yaml", "Deployment", "cluster-autoscaler", "ca", containers)
}

func TestFindDeployment(t *testing.T) {
	cases := []struct {
		name       string
		containers string
		found      bool
		args       []string
		paths      []string
		other      string
	}{
		{"flags in command, as the AWS examples and the Helm chart write them",
			"        - name: cluster-autoscaler\n          image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0\n          command: [./cluster-autoscaler, --cloud-provider=aws, --expander=least-waste]\n",
			true, []string{"--cloud-provider=aws", "--expander=least-waste"},
			[]string{"spec.template.spec.containers[0].command[1]", "spec.template.spec.containers[0].command[2]"}, ""},
		{"flags in args, the image's entrypoint running it",
			"        - name: ca\n          image: k8s.gcr.io/autoscaling/cluster-autoscaler@sha256:0123\n          args: [--scan-interval=10s]\n",
			true, []string{"--scan-interval=10s"}, []string{"spec.template.spec.containers[0].args[0]"}, ""},
		{"both, and a sidecar first",
			"        - {name: proxy, image: envoyproxy/envoy:v1.30}\n        - name: ca\n          image: mirror.example.com/cluster-autoscaler-amd64:v1.2.2\n          command: [/cluster-autoscaler, --v=2]\n          args: [--expander=priority]\n",
			true, []string{"--v=2", "--expander=priority"},
			[]string{"spec.template.spec.containers[1].command[1]", "spec.template.spec.containers[1].args[0]"}, ""},
		{"a shell around it",
			"        - name: ca\n          image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0\n          command: [sh, -c, ./cluster-autoscaler --expander=random]\n",
			true, nil, nil, "sh -c ./cluster-autoscaler --expander=random"},
		{"another program",
			"        - name: web\n          image: nginx:1.27\n          command: [nginx, -g, daemon off;]\n",
			false, nil, nil, ""},
		{"an image named alike",
			"        - name: x\n          image: example.com/cluster-autoscaler-dashboard-ui:v1\n",
			false, nil, nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dep, ok := FindDeployment(deploymentDoc(t, tc.containers))
			require.Equal(t, tc.found, ok)
			if !ok {
				return
			}
			require.Equal(t, tc.args, dep.Args)
			require.Equal(t, tc.paths, dep.ArgPaths)
			require.Equal(t, tc.other, dep.OtherCommand)
		})
	}
}

func TestDeploymentOptionsErrorsAtTheEntry(t *testing.T) {
	d := deploymentDoc(t, "        - name: ca\n          image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0\n          command:\n            - ./cluster-autoscaler\n            - --balance-similar-node-groups\n          args:\n            - --nodes=1:10:general\n            - --scale-down-unneeded-time=5x\n")
	dep, ok := FindDeployment(d)
	require.True(t, ok)
	_, err := dep.Options()
	require.Error(t, err)
	require.Contains(t, err.Error(), "ca.yaml:17: spec.template.spec.containers[0].args[1]: --scale-down-unneeded-time:")

	d = deploymentDoc(t, "        - name: ca\n          image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0\n          command: [./cluster-autoscaler, --balance-similar-node-groups, --skip-nodes-with-system-pods=false]\n")
	dep, _ = FindDeployment(d)
	o, err := dep.Options()
	require.NoError(t, err)
	require.True(t, o.BalanceSimilarNodeGroups)
	require.False(t, o.SkipNodesWithSystemPods)
}
