package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
)

// clobberScenario writes a scenario that includes a manifest file, an
// override for it, a config file and a baseline into a folder.
func clobberScenario(t *testing.T) string {
	dir := t.TempDir()
	data, err := scenarios.FS.ReadFile("static-burst.yaml")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "s.yaml"), data, 0o644))
	inc := "apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: inc}\nspec:\n  duration: 1h\n  include: [m.yaml]\n  staticNodes: [{name: n, instanceType: m5.large, count: 1}]\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "inc.yaml"), []byte(inc), 0o644))
	pc := "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.yaml"), []byte(pc), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "o.yaml"), []byte(pc), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("runs: 1\n"), 0o644))
	out, stderr, code := sim(t, "run", filepath.Join(dir, "s.yaml"), "-o", "json")
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "base.json"), []byte(out), 0o644))
	require.NoError(t, os.Symlink("s.yaml", filepath.Join(dir, "link.yaml")))
	require.NoError(t, os.Link(filepath.Join(dir, "m.yaml"), filepath.Join(dir, "hard.yaml")))
	return dir
}

// No output overwrites an input: not the scenario, an included file, an
// override, the config file, the baseline, a partial merged or an import's
// export, also through a symbolic or hard link; and no two outputs write
// one file. The input is left as it was.
func TestOutputNeverOverwritesInput(t *testing.T) {
	dir := clobberScenario(t)
	p := func(name string) string { return filepath.Join(dir, name) }
	before := map[string]string{}
	for _, n := range []string{"s.yaml", "m.yaml", "o.yaml", "config.yaml", "base.json"} {
		data, err := os.ReadFile(p(n))
		require.NoError(t, err)
		before[n] = string(data)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", p("s.yaml"), "--report", p("s.yaml")}, "--report " + p("s.yaml") + " would overwrite the scenario, " + p("s.yaml") + ": write the output to another file"},
		{[]string{"run", p("s.yaml"), "--html", p("link.yaml")}, "(" + p("link.yaml") + " is " + p("s.yaml") + ", through a link)"},
		{[]string{"run", p("inc.yaml"), "--events", p("m.yaml")}, "--events " + p("m.yaml") + " would overwrite a file of the scenario " + p("inc.yaml")},
		{[]string{"run", p("inc.yaml"), "--metrics", p("hard.yaml")}, "would overwrite a file of the scenario"},
		{[]string{"run", p("s.yaml") + "+" + p("o.yaml"), "--state-out", p("o.yaml"), "--dump-state", "1h"}, "would overwrite an override of " + p("s.yaml")},
		{[]string{"run", "static-burst+" + p("o.yaml"), "--report", p("o.yaml")}, "would overwrite an override of static-burst"},
		{[]string{"run", p("s.yaml"), "--config", p("config.yaml"), "--report", p("config.yaml")}, "would overwrite --config"},
		{[]string{"run", p("s.yaml"), "--baseline", p("base.json"), "--report", p("base.json")}, "would overwrite --baseline"},
		{[]string{"run", p("s.yaml"), "--report", p("base.json"), "--html", p("base.json")}, "are the same file: give each output a file of its own"},
		{[]string{"run", p("s.yaml"), "--report", p("new.json"), "--metrics", p("new.json")}, "are the same file"},
		{[]string{"compare", p("s.yaml"), p("inc.yaml"), "--report", p("inc.yaml")}, "would overwrite"},
		{[]string{"lint", p("inc.yaml"), "--report", p("m.yaml")}, "would overwrite a file of the scenario"},
		{[]string{"lint", "-f", p("m.yaml"), "--report", p("hard.yaml")}, "would overwrite"},
		{[]string{"sweep", p("s.yaml"), p("inc.yaml"), "--runs", "1", "--shard", "0/2", "--out", p("m.yaml")}, "--out " + p("m.yaml") + " would overwrite an input of the sweep"},
		{[]string{"sweep", "merge", p("base.json"), "--report", p("base.json")}, "would overwrite a partial merged"},
		{[]string{"import", p("m.yaml"), "-o", p("m.yaml")}, "-o " + p("m.yaml") + " would overwrite an input of the import"},
		{[]string{"import", p("m.yaml"), "-o", p("hard.yaml")}, "would overwrite an input of the import"},
	} {
		_, stderr, code := sim(t, c.args...)
		require.Equal(t, 1, code, "%v: %s", c.args, stderr)
		require.Contains(t, stderr, c.want, c.args)
	}
	for n, want := range before {
		data, err := os.ReadFile(p(n))
		require.NoError(t, err)
		require.Equal(t, want, string(data), "%s is untouched", n)
	}
	require.NoFileExists(t, p("new.json"))
	// Devices are written through, so two outputs may share /dev/null.
	_, stderr, code := sim(t, "run", p("s.yaml"), "--report", os.DevNull, "--html", os.DevNull)
	require.Equal(t, 0, code, stderr)
}
