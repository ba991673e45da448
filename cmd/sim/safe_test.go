package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// What a terminal acts on is escaped, what it shows is not, a sequence
// cut between two writes too.
func TestSafeWriter(t *testing.T) {
	var buf bytes.Buffer
	w := newSafeWriter(&buf)
	for _, p := range []string{"ok \x1b]0;title\a\r\n", "tab\there é │ \x7f", "\xc2", "\x9b2J \x9b \u202eevil\u2069\n", "end\xc2"} {
		n, err := w.Write([]byte(p))
		require.NoError(t, err)
		require.Equal(t, len(p), n)
	}
	require.NoError(t, w.Flush())
	require.Equal(t, `ok \x1b]0;title\x07\x0d`+"\n"+"tab\there é │ "+`\u007f\u009b2J \x9b \u202eevil\u2069`+"\nend"+`\xc2`, buf.String())
	require.Equal(t, "plain\n", string(escapeTerminal([]byte("plain\n"), nil)))
}

// rawControls are the bytes a terminal acts on (but newline and tab) and
// the C1 controls.
var rawControls = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f]|\u009b|\u009d")

// run, lint and explain show a hostile file name (the loader refuses
// hostile object names, not the files' names) escaped, in their tables,
// warnings and errors; --report files too.
func TestTerminalOutputEscaped(t *testing.T) {
	dir := t.TempDir()
	hostile := filepath.Join(dir, "s\x1b]0;pwned\a\x1b[2J\u009b1A.yaml")
	require.NoError(t, os.WriteFile(hostile, []byte(`apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: s}
spec:
  duration: 10m
  region: us-east-1
  staticNodes:
    - {name: core, instanceType: m5.large, count: 1, capacityType: on-demand}
  workloads:
    - ref: Deployment/default/web
---
apiVersion: v1
kind: Secret
metadata: {name: db}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 9
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: "1"}}}]
`), 0o644))
	shown := `s\x1b]0;pwned\x07\x1b[2J\u009b1A.yaml`
	report := filepath.Join(dir, "r.txt")
	for _, args := range [][]string{
		{"run", hostile},
		{"run", hostile, "-o", "json"},
		{"run", hostile, "--report", report},
		{"lint", hostile},
		{"lint", hostile, "-o", "wide"},
		{"run", hostile + "\x1b[A.missing"},
	} {
		stdout, stderr, _ := sim(t, args...)
		require.NotRegexp(t, rawControls, stdout, "%q", args)
		require.NotRegexp(t, rawControls, stderr, "%q", args)
		if args[len(args)-2] != "--report" {
			require.Contains(t, stdout+stderr, shown, "%q: the file is named, escaped", args)
		}
	}
	for _, pod := range []string{"web-9", "web\x1b[2J"} {
		stdout, stderr, _ := sim(t, "explain", hostile, "--pod", pod)
		require.NotRegexp(t, rawControls, stdout+stderr, pod)
		require.NotEmpty(t, stdout+stderr)
	}
	data, err := os.ReadFile(report)
	require.NoError(t, err)
	require.NotRegexp(t, rawControls, string(data))
	require.Contains(t, string(data), shown)
}

// A sweep point named like a formula reaches a spreadsheet as text.
func TestCSVNeutralisesFormulas(t *testing.T) {
	src, err := os.ReadFile("testdata/explain/slow-join.yaml")
	require.NoError(t, err)
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("=HYPERLINK(1).yaml", src, 0o644))
	out, stderr, code := sim(t, "sweep", "=HYPERLINK(1).yaml", "--runs", "1", "-o", "csv")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(out, "\n")
	require.True(t, strings.HasPrefix(lines[1], "'=HYPERLINK(1).yaml,"), lines[1])
	require.NotContains(t, out, ",'-", "numbers, negative ones too, are left as they are")
}
