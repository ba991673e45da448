package config

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/manifest"
)

func readDoc(t *testing.T, yaml string) *manifest.Document {
	t.Helper()
	docs, err := manifest.ReadBytes("cm.yaml", []byte(yaml))
	require.NoError(t, err)
	require.Len(t, docs, 1)
	return docs[0]
}

// caScenario starts a Scenario document at its clusterAutoscaler section
// (line 5); the fields follow, indented by four spaces.
const caScenario = "apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: x}\nspec:\n  clusterAutoscaler:\n"

func TestPriorityConfigMap(t *testing.T) {
	d := readDoc(t, `apiVersion: v1
kind: ConfigMap
metadata:
  name: cluster-autoscaler-priority-expander
  namespace: kube-system
data:
  priorities: |-
    10:
      - .*spot.*
    1:
      - .*
`)
	p, err := ParsePriorityConfigMap(d)
	require.NoError(t, err)
	require.Len(t, p.Rules, 2)
	require.Equal(t, 10, p.Rules[0].Priority)
	require.Equal(t, []int{9}, p.Rules[0].Lines)
	require.Equal(t, []int{11}, p.Rules[1].Lines)
	prio, ok := p.Of("eks-spot-workers-1234")
	require.True(t, ok)
	require.Equal(t, 10, prio)
	prio, ok = p.Of("eks-od-workers-1234")
	require.True(t, ok)
	require.Equal(t, 1, prio)
}

func TestPriorityConfigMapErrors(t *testing.T) {
	cases := []struct {
		name, data, want string
	}{
		{"invalid regex", "  priorities: |-\n    10:\n      - .*spot(\n    1:\n      - .*\n",
			"cm.yaml:9: data.priorities: priority 10: invalid regex \".*spot(\": missing closing ): `.*spot(`; use Go (RE2) regular expression syntax, e.g. .*spot.*"},
		{"not a number", "  priorities: |-\n    high:\n      - .*\n",
			`cm.yaml:8: data.priorities: priority "high" is not a whole number; priorities are whole numbers; higher wins`},
		{"not a list", "  priorities: |-\n    10: .*spot.*\n",
			`cm.yaml:8: data.priorities: priority 10 must have a list of regexes; write 10: ["regex", ...]`},
		{"empty", "  priorities: \"\"\n",
			`cm.yaml:7: data.priorities: the priority configuration is empty; write priority: [regexes], e.g. 10: [".*spot.*"]`},
		{"missing key", "  priority: |-\n    10: [.*]\n",
			`cm.yaml:6: data: no data.priorities: the priority expander ignores this ConfigMap; did you mean "priorities"?`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := readDoc(t, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cluster-autoscaler-priority-expander\n  namespace: kube-system\ndata:\n"+c.data)
			_, err := ParsePriorityConfigMap(d)
			require.EqualError(t, err, c.want)
		})
	}
}

func TestPriorityConfigMapWrongName(t *testing.T) {
	d := readDoc(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: priorities}\ndata: {priorities: \"10: [.*]\"}\n")
	_, err := ParsePriorityConfigMap(d)
	require.EqualError(t, err, `cm.yaml:3: metadata.name: ConfigMap "priorities" is not the priority expander's; the priority expander reads only the ConfigMap named cluster-autoscaler-priority-expander`)
}

func TestSettingsSpecCompile(t *testing.T) {
	d := readDoc(t, caScenario+`    args: [--expander=priority,least-waste, --scan-interval=20s]
    priorities:
      10: [".*spot.*"]
      5: ["(bad"]
    asgRefreshInterval: 2m
`)
	spec := SettingsSpec{Args: []string{"--expander=priority,least-waste", "--scan-interval=20s"},
		Priorities: map[string][]string{"10": {".*spot.*"}, "5": {"(bad"}}, ASGRefreshInterval: "2m"}
	_, err := spec.Compile(d, "spec.clusterAutoscaler")
	require.EqualError(t, err, "cm.yaml:9: spec.clusterAutoscaler.priorities[\"5\"][0]: invalid regex \"(bad\": missing closing ): `(bad`; use Go (RE2) regular expression syntax, e.g. .*spot.*")
	spec.Priorities["5"] = []string{".*"}
	s, err := spec.Compile(d, "spec.clusterAutoscaler")
	require.NoError(t, err)
	require.Equal(t, []string{"priority", "least-waste"}, s.Expanders)
	require.Equal(t, 20e9, float64(s.ScanInterval))
	require.Equal(t, 120e9, float64(s.ASGRefreshInterval))
	require.Equal(t, 10, s.Priorities.Rules[0].Priority)
	require.Equal(t, 5, s.Priorities.Rules[1].Priority)
}

func TestCrossCheck(t *testing.T) {
	groups := []NodeGroup{
		{Name: "spot", ASGName: "eks-spot-1", Tags: map[string]string{TagEnabled: "true"}, MinSize: 0, MaxSize: 5, File: "c.yaml", Line: 7, Path: "managedNodeGroups[0]"},
		{Name: "od", ASGName: "eksctl-demo-nodegroup-od-NodeGroup-X", Tags: map[string]string{}, MinSize: 1, MaxSize: 3, File: "c.yaml", Line: 12, Path: "nodeGroups[0]"},
	}
	mk := func(args []string, prios map[string][]string) Settings {
		s, err := (&SettingsSpec{Args: args, Priorities: prios}).Compile(nil, "spec.clusterAutoscaler")
		require.NoError(t, err)
		return s
	}
	msgs := func(ws []*manifest.Error) string {
		var out []string
		for _, w := range ws {
			out = append(out, w.Error())
		}
		return strings.Join(out, "\n")
	}

	s := mk([]string{"--expander=priority"}, nil)
	_, err := CrossCheck(groups, &s)
	require.EqualError(t, err, "spec.clusterAutoscaler.args: --expander uses priority but no priorities are configured: the real Cluster Autoscaler would then scale up nothing; add the cluster-autoscaler-priority-expander ConfigMap (data.priorities) or spec.clusterAutoscaler.priorities")

	s = mk([]string{"--expander=priority", "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled"}, map[string][]string{"10": {"spot"}, "1": {"^nomatch$"}})
	warns, err := CrossCheck(groups, &s)
	require.NoError(t, err)
	require.Equal(t, `priority 1: regex "^nomatch$" matches no node group; regexes match ASG names: eks-spot-1, eksctl-demo-nodegroup-od-NodeGroup-X
c.yaml:12: nodeGroups[0]: node group od is not autoscaled: no --nodes names it and its ASG lacks the tags --node-group-auto-discovery looks for (for eksctl nodeGroups set iam.withAddonPolicies.autoScaler: true)`, msgs(warns))
	sel := Select(groups, &s)
	require.Equal(t, []Selected{{true, 0, 5}, {false, 1, 3}}, sel)

	s = mk([]string{"--nodes=2:8:od", "--nodes=1:2:nope"}, nil)
	_, err = CrossCheck(groups, &s)
	require.EqualError(t, err, "spec.clusterAutoscaler.args[1]: --nodes names no node group \"nope\"; name a node group or its ASG: od, spot")
	s = mk([]string{"--nodes=2:8:od"}, nil)
	require.Equal(t, []Selected{{false, 0, 5}, {true, 2, 8}}, Select(groups, &s))

	s = mk(nil, map[string][]string{"1": {".*"}})
	warns, err = CrossCheck(groups, &s)
	require.NoError(t, err)
	require.Equal(t, "priorities are configured but --expander does not use priority: they are ignored\nspec.clusterAutoscaler.args: neither --nodes nor --node-group-auto-discovery is given: the Cluster Autoscaler finds no node group and autoscales none (the AWS provider discovers Auto Scaling groups only through these flags); add --node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/<cluster name> (the tags eksctl gives a node group with iam.withAddonPolicies.autoScaler: true), or --nodes=<min>:<max>:<ASG name> per group", msgs(warns))
	require.Equal(t, []Selected{{false, 0, 5}, {false, 1, 3}}, Select(groups, &s), "a Cluster Autoscaler without --nodes or auto-discovery manages no group")

	// No Cluster Autoscaler at all: plain ASGs, whatever the flags say.
	s = mk([]string{"--nodes=2:8:od"}, nil)
	s.Running = false
	require.Equal(t, []Selected{{false, 0, 5}, {false, 1, 3}}, Select(groups, &s))
	warns, err = CrossCheck(groups, &s)
	require.NoError(t, err)
	require.Empty(t, warns)
}
