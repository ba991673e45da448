package lint

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scenario"
)

// FilesScenarioName is the name of the Scenario FilesScenario writes.
const FilesScenarioName = "manifests"

// filesRuntime is the run time FilesScenario gives each Job: lint needs
// none, the loader needs one.
const filesRuntime = "10m"

// FilesScenario returns a minimal Scenario document for linting manifests
// on their own (sim lint -f): one hour in the region of the first eksctl
// ClusterConfig (else scenario.DefaultRegion) and its default zones, and a
// spec.workloads entry with a run time for every Job, which a scenario
// needs and a manifest cannot say. A region without embedded EC2 data
// falls back to the default. Load it with the manifests as includes:
// scenario.LoadManifests(name, FilesScenario(docs), files).
func FilesScenario(docs []*manifest.Document) []byte {
	region := scenario.DefaultRegion
	var known []string
	if cat, err := catalog.Default(); err == nil {
		known = cat.Regions()
	}
	for _, d := range docs {
		if d.Kind == "ClusterConfig" {
			if r := scalarAt(d, "metadata", "region"); r != "" && slices.Contains(known, r) {
				region = r
				break
			}
		}
	}
	var jobs []string
	seen := map[string]bool{}
	for _, d := range docs {
		if d.Kind != "Job" || d.Name == "" {
			continue
		}
		ns := d.Namespace
		if ns == "" {
			ns = scenario.DefaultNamespace
		}
		ref := "Job/" + ns + "/" + d.Name
		if !seen[ref] {
			seen[ref] = true
			jobs = append(jobs, ref)
		}
	}
	sort.Strings(jobs)
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\nmetadata: {name: %s}\nspec:\n  duration: 1h\n  region: %q\n",
		scenario.APIVersion, scenario.Kind, FilesScenarioName, region)
	if len(jobs) > 0 {
		b.WriteString("  workloads:\n")
		for _, j := range jobs {
			fmt.Fprintf(&b, "    - {ref: %q, runtime: {fixed: %s}}\n", j, filesRuntime)
		}
	}
	return []byte(b.String())
}

// scalarAt reads a scalar under a document's mapping keys ("" if absent).
func scalarAt(d *manifest.Document, keys ...string) string {
	n := d.Node
	for _, k := range keys {
		if n == nil || len(n.Content)%2 != 0 {
			return ""
		}
		var next = n
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next, found = n.Content[i+1], true
				break
			}
		}
		if !found {
			return ""
		}
		n = next
	}
	if n == nil || len(n.Content) > 0 {
		return ""
	}
	return n.Value
}
