package sim_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/clustersim/clustersim/"

// tier of every package under sim (by its path below sim/); a package
// missing here fails the test, so a new package must be placed.
var tiers = map[string]string{
	"engine": "core", "dist": "core",
	"component": "contract", "component/builtin": "driver", "component/componenttest": "test",
	"cluster": "state", "catalog": "state", "cloud": "state", "invariants": "state",
	"scheduler": "model", "karpenter": "model", "karpenter/scheduling": "model", "karpenter/overlay": "model", "clusterautoscaler": "model", "spotmarket": "model",
	"workload": "model", "kubelet": "model", "taintmanager": "model", "eviction": "model",
	"manifest": "input", "scenario": "input", "karpenter/apis": "input", "capacitybuffer": "input",
	"clusterautoscaler/config": "input", "clusterautoscaler/provreq": "input", "scalegen": "input", "importer": "input",
	"report": "output", "trace": "output", "statedump": "output",
	"simulation": "driver", "experiment": "driver", "lint": "driver", "sweep": "driver", "explain": "driver", "verdict": "driver",
	"internal/suggest": "helper", "internal/duration": "helper", "internal/clip": "helper", "internal/choose": "test", "internal/fixtures": "helper",
	"internal/cron": "helper", "cloud/cloudtest": "test", "internal/testscript": "test", "internal/simscript": "test",
	"kubeexport": "test", "internal/props": "test", "internal/scengen": "test",
}

// allowed says which tiers a tier's non-test files may import, besides
// the exceptions in allowedPackage.
var allowed = map[string][]string{
	"core":     {},
	"state":    {"core", "state", "helper"},
	"contract": {"core", "state", "helper"},
	"model":    {"core", "state", "contract", "helper"},
	"input":    {"core", "state", "contract", "input", "helper"},
	"output":   {"core", "state"},
	"driver":   {"core", "state", "contract", "model", "input", "output", "driver", "helper"},
	"helper":   {},
	"test":     {"core", "state", "contract", "model", "input", "output", "driver", "helper", "test"},
}

// allowedPackage lists the imports across the tier rules that the package
// doc names: a model reads the compiled form of its own input, and the
// scenario compiler builds the models' configuration.
var allowedPackage = map[string][]string{
	"karpenter":            {"karpenter/apis", "karpenter/scheduling", "karpenter/overlay", "manifest", "capacitybuffer"},
	"karpenter/scheduling": {"karpenter/apis", "karpenter/overlay"},
	"karpenter/overlay":    {"karpenter/apis"},
	"clusterautoscaler":    {"clusterautoscaler/config", "clusterautoscaler/provreq", "manifest", "capacitybuffer"},
	"component":            {"manifest"},
	"scenario":             {"kubelet", "scheduler", "spotmarket", "workload"},
}

// TestTierImports checks sim/doc.go's rules on the imports of every
// non-test Go file under sim.
func TestTierImports(t *testing.T) {
	fset := token.NewFileSet()
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			return nil // doc.go of package sim
		}
		seen[pkg] = true
		tier, ok := tiers[pkg]
		if !ok {
			t.Errorf("%s: package sim/%s has no tier; add it to sim/doc.go and this test", path, pkg)
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			ip := strings.Trim(imp.Path.Value, `"`)
			dep, ours := strings.CutPrefix(ip, module+"sim/")
			if !ours || dep == pkg {
				continue
			}
			depTier, ok := tiers[dep]
			if !ok {
				t.Errorf("%s imports sim/%s, which has no tier", path, dep)
				continue
			}
			if !slices.Contains(allowed[tier], depTier) && !slices.Contains(allowedPackage[pkg], dep) {
				t.Errorf("%s (%s) imports sim/%s (%s): sim/doc.go's rules forbid it", path, tier, dep, depTier)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range tiers {
		if !seen[pkg] {
			if _, err := os.Stat(pkg); err != nil {
				t.Errorf("tiers names sim/%s, which does not exist", pkg)
			}
		}
	}
}
