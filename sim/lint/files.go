package lint

import (
	"fmt"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scenario"
)

// FilesScenarioName is the name of the Scenario FilesScenario writes.
const FilesScenarioName = "manifests"

// filesRuntime is the run time FilesScenario gives each Job: lint needs
// none, the loader needs one.
const filesRuntime = "10m"

// FilesScenario returns a minimal Scenario document for linting manifests
// on their own (sim lint -f): one hour in region (sim lint --region) when it
// is not "", else where the scenario loader puts a scenario without
// spec.region (the first eksctl ClusterConfig's region and zones, else
// scenario.DefaultRegion and its a, b and c zones), and a spec.workloads
// entry with a run time for every Job, which a scenario needs and a
// manifest cannot say. Load it with the manifests as includes:
// scenario.LoadManifests(name, FilesScenario(docs, region), files).
func FilesScenario(docs []*manifest.Document, region string) []byte {
	var jobs []string
	seen := map[string]bool{}
	for _, d := range docs {
		if d.Kind != "Job" || d.Name == "" || scenario.CustomResource(d) {
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
	fmt.Fprintf(&b, "apiVersion: %s\nkind: %s\nmetadata: {name: %s}\nspec:\n  duration: 1h\n",
		scenario.APIVersion, scenario.Kind, FilesScenarioName)
	if region != "" {
		fmt.Fprintf(&b, "  region: %q\n", region)
	}
	if len(jobs) > 0 {
		b.WriteString("  workloads:\n")
		for _, j := range jobs {
			fmt.Fprintf(&b, "    - {ref: %q, runtime: {fixed: %s}}\n", j, filesRuntime)
		}
	}
	return []byte(b.String())
}
