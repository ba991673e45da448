package config

import (
	"strings"
	"testing"

	"github.com/clustersim/clustersim/sim/manifest"
)

// FuzzParseFlags: any args list is parsed or refused with a located
// message, never a panic.
func FuzzParseFlags(f *testing.F) {
	f.Add("--expander=priority,least-waste\n--scan-interval=10s\n--max-node-provision-time=15m")
	f.Add("--scale-down-utilization-threshold=0.5\n--balance-similar-node-groups\n--v=4")
	f.Add("--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled\n--nodes=1:10:ng")
	f.Add("--expander=bogus\n--scan-interval=-1s\nscan-interval")
	docs, err := manifest.ReadBytes("s.yaml", []byte("apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: f}\nspec: {}\n"))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, args string) {
		_, err := ParseFlags(strings.Split(args, "\n"), docs[0], "spec.clusterAutoscaler.args")
		if err != nil && !strings.Contains(err.Error(), "s.yaml") {
			t.Fatalf("an error without its file: %v", err)
		}
	})
}
