// Package scenarios embeds the scenarios that ship with the simulator, so
// that `sim run NAME` works from any folder. Each file starts with a comment
// header saying what it shows.
package scenarios

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/scenario"
)

// FS holds every embedded scenario and the manifests they include.
//
//go:embed *.yaml hybrid ca web gpu traces stateful sweeps automode provreq
var FS embed.FS

// Default is the scenario `make run` runs.
const Default = "hybrid-naive"

// Names lists the embedded scenarios (file names without .yaml), sorted.
func Names() []string { return yamlNames(".") }

// File returns the path inside FS of the scenario name ("x" or "x.yaml"),
// and whether it exists.
func File(name string) (string, bool) { return yamlFile(".", name) }

// Load loads the embedded scenario name ("x" or "x.yaml") from FS.
func Load(name string, overrides ...string) (*scenario.Scenario, error) {
	file, ok := File(name)
	if !ok {
		return nil, fmt.Errorf("no embedded scenario %q", name)
	}
	return scenario.LoadFS(FS, file, overrides...)
}

// Sweeps lists the embedded sweeps (sweeps/NAME.yaml), sorted.
func Sweeps() []string { return yamlNames("sweeps") }

// Sweep returns the path inside FS of the embedded sweep name ("x" or
// "x.yaml"), and whether it exists.
func Sweep(name string) (string, bool) { return yamlFile("sweeps", name) }

// yamlNames lists the .yaml files of folder dir of FS by name without
// .yaml, sorted.
func yamlNames(dir string) []string {
	entries, err := fs.ReadDir(FS, dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && path.Ext(e.Name()) == ".yaml" {
			names = append(names, strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	sort.Strings(names)
	return names
}

// yamlFile returns the path inside FS of file name ("x" or "x.yaml") of
// folder dir, and whether it exists.
func yamlFile(dir, name string) (string, bool) {
	name = strings.TrimSuffix(name, ".yaml") + ".yaml"
	if strings.Contains(name, "/") {
		return "", false
	}
	p := path.Join(dir, name)
	_, err := fs.Stat(FS, p)
	return p, err == nil
}
