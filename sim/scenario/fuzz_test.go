package scenario

import (
	"errors"
	"testing"
	"testing/fstest"

	"github.com/clustersim/clustersim/sim/internal/fixtures"
	"github.com/clustersim/clustersim/sim/manifest"
)

// FuzzLoad feeds arbitrary bytes to the scenario loader as a scenario file:
// it must never panic, and every failure must be a located *manifest.Error
// (or a list of them) that tells the user where.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(minimal))
	f.Add([]byte(minimal + "---\n" + barePod))
	f.Add([]byte(minimal + "  staticNodes: [{name: a, instanceType: m5.large, count: 2, taints: [{key: k, effect: NO_SCHEDULE}]}]\n"))
	f.Add([]byte(minimal + "  workloads: [{ref: Job/j, arrivals: {poisson: {ratePerHour: 5}}, runtime: {lognormal: {median: 1m, p90: 2m}}}]\n"))
	f.Add([]byte(minimal + "  market: {model: stochastic, events: [{at: 1m, pools: {zones: [us-east-1a]}, state: exhausted, reclaim: 0.5}]}\n"))
	f.Add([]byte(minimal + fixtures.HelloCronJob))
	f.Add([]byte(minimal + "---\n" + nightlyCronJob))
	f.Add([]byte(minimal + "---\n" + phpApache))
	f.Add([]byte("apiVersion: karpenter.sh/v1beta1\nkind: Provisioner\nmetadata: {name: x}\nspec: {ttlSecondsAfterEmpty: 30}\n"))
	f.Add([]byte(minimal + "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ca, namespace: kube-system}\nspec:\n  selector: {matchLabels: {a: b}}\n  template:\n    metadata: {labels: {a: b}}\n    spec:\n      containers: [{name: ca, image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.32.0, command: [./cluster-autoscaler, --expander=least-waste]}]\n"))
	f.Add([]byte(minimal + "---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Service, metadata: {name: s}}\n- {apiVersion: monitoring.coreos.com/v1, kind: ServiceMonitor, metadata: {name: s}}\n- {apiVersion: v1, kind: Service, metadata: {name: s}}\n"))
	f.Add([]byte("{\"apiVersion\": \"clustersim.dev/v1alpha1\", \"kind\": \"Scenario\", \"metadata\": {\"name\": \"j\"}, \"spec\": {\"duration\": \"1h\"}}"))
	f.Add([]byte(minimal + "  workloads: [{ref: Deployment/web, startOn: [n1, \"\", gone]}]\n" + startOnBase))
	// Names the API server refuses (issue 30): terminal escapes, a dot in
	// a StatefulSet's name, a pool whose nodes' names would be invalid.
	f.Add([]byte("apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: \"s\\e]0;x\\a\"}\nspec: {duration: 10m, staticNodes: [{name: \"A\\e[2J\", instanceType: m5.large, count: 1}]}\n---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db.0, namespace: \"x\\ry\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := LoadFS(fstest.MapFS{"s.yaml": {Data: data}}, "s.yaml")
		if err == nil {
			return
		}
		var one *manifest.Error
		var many manifest.Errors
		if !errors.As(err, &one) && !errors.As(err, &many) {
			t.Fatalf("an error without a location: %T %v", err, err)
		}
	})
}
