package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/kubeexport"
)

// writeExport writes a generated kubectl export to dir.
func writeExport(t *testing.T, dir string, c kubeexport.Cluster) string {
	t.Helper()
	path := filepath.Join(dir, "cluster.yaml")
	f, err := os.Create(path)
	require.NoError(t, err)
	require.NoError(t, c.Write(f))
	require.NoError(t, f.Close())
	return path
}

func TestImportCommand(t *testing.T) {
	dir := t.TempDir()
	export := writeExport(t, dir, kubeexport.Cluster{Nodes: 6, Deployments: 3, Replicas: 4, Pending: 1, Extra: true})
	out := filepath.Join(dir, "prod.yaml")
	_, stderr, code := sim(t, "import", export, "testdata/import/karpenter.yaml", "testdata/import/cluster-autoscaler.yaml", "-o", out)
	require.Equal(t, 0, code, stderr)
	// What was approximated, one line each, with file and object.
	require.Contains(t, stderr, export+":3: Node/ip-10-0-0-1.ec2.internal: 3 node(s) of NodePool default start as its NodeClaims when the scenario has that NodePool")
	require.Contains(t, stderr, "1 Secret object(s) skipped: never read (nothing secret leaves)")
	require.Contains(t, stderr, "Job/data/etl: how long its pods run is not in the export: each runs 10m")

	data, err := os.ReadFile(out)
	require.NoError(t, err)
	s := string(data)
	require.Contains(t, s, "name: prod\n", "named after the output file")
	require.Contains(t, s, "--node-group-auto-discovery=asg:tag=k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/prod", "the CA's flags are kept")
	require.Contains(t, s, "kind: NodePool")
	require.Contains(t, s, "kind: EC2NodeClass")
	for _, leak := range []string{kubeexport.Secret, "AWS_SECRET_ACCESS_KEY", "userData", "payments", "KarpenterNodeRole", "kind: NodeClaim"} {
		require.NotContains(t, s, leak)
	}
	// Karpenter's hash annotations are kept: drift compares them (hashes
	// of specs, not secrets).
	require.Contains(t, s, "karpenter.sh/nodepool-hash")

	// The imported scenario runs, and the what-ifs work on it.
	stdout, stderr, code := sim(t, "run", out, "-o", "json")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, `"initial": 6`)
	_, stderr, code = sim(t, "lint", out)
	require.NotEqual(t, 1, code, stderr)
}

func TestImportErrorWritesNothing(t *testing.T) {
	dir := t.TempDir()
	export := writeExport(t, dir, kubeexport.Cluster{Nodes: 2, Deployments: 1, Replicas: 2})
	out := filepath.Join(dir, "out.yaml")
	require.NoError(t, os.WriteFile(out, []byte("old\n"), 0o644))
	// The same export twice: two nodes of one name.
	_, stderr, code := sim(t, "import", export, export, "-o", out)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "Node/ip-10-0-0-1.ec2.internal: a second Node of this name (the first is at "+export+":3)")
	require.Contains(t, stderr, "nothing written")
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Equal(t, "old\n", string(data), "the old output is kept")
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		require.False(t, strings.Contains(e.Name(), ".tmp-"), "no temporary file left: %s", e.Name())
	}

	// A truncated file.
	full, err := os.ReadFile(export)
	require.NoError(t, err)
	cut := filepath.Join(dir, "cut.yaml")
	require.NoError(t, os.WriteFile(cut, full[:len(full)/2], 0o644))
	_, stderr, code = sim(t, "import", cut, "-o", out)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, cut+`: the List has no "kind: List" after its items: the file was cut short (export it again)`)
	data, _ = os.ReadFile(out)
	require.Equal(t, "old\n", string(data))
}

// TestImportBadInputCatalogue imports every file under
// testdata/import/bad and pins the exact error (NAME.err; -update).
func TestImportBadInputCatalogue(t *testing.T) {
	forEachBadInput(t, "testdata/import/bad/*.yaml", func(t *testing.T, f string) string {
		out := filepath.Join(t.TempDir(), "out.yaml")
		_, stderr, code := sim(t, "import", f, "-o", out)
		require.Equal(t, 1, code, "bad input is an error (exit 1)")
		_, err := os.Stat(out)
		require.True(t, os.IsNotExist(err), "nothing is written")
		return stderr
	})
}

func TestImportFlags(t *testing.T) {
	dir := t.TempDir()
	export := writeExport(t, dir, kubeexport.Cluster{Nodes: 2, Deployments: 1, Replicas: 2})
	_, stderr, code := sim(t, "import", export, "--duration", "soon")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `--duration "soon": `)
	// A duration sim run would refuse is refused before anything is
	// written: 999999h wrote a scenario that could not run.
	for _, long := range []string{"999999h", "3650d", "99999999999h"} {
		_, stderr, code = sim(t, "import", export, "--duration", long)
		require.Equal(t, 1, code, long)
		require.Contains(t, stderr, `--duration "`+long+`": longer than a year, the most a scenario runs (366d or 8784h)`)
	}
	out := filepath.Join(dir, "year.yaml")
	_, stderr, code = sim(t, "import", export, "--duration", "366d", "-o", out)
	require.Equal(t, 0, code, stderr)
	lint, _, _ := sim(t, "lint", out, "-o", "json")
	require.Contains(t, lint, `"scenario"`)
	require.NotContains(t, lint, "invalid", "the scenario written loads")
	stdout, stderr, code := sim(t, "import", export, "--duration", "7d", "--name", "prod-now", "--redact")
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stdout, "name: prod-now\n")
	require.Contains(t, stdout, "duration: 7d\n")
	require.NotContains(t, stdout, "ip-10-0-0-1")
}

// TestImportFolder: sim import DIR reads the folder's exports as sim lint -f
// and a scenario's include do (manifest.Files): its .yaml, .yml and .json
// files in the order of their paths, subfolders too, hidden files and
// other extensions skipped. The scenario is the one the same files named
// one by one in that order give, byte for byte. The exports are the
// command test's: Karpenter's objects (aws/karpenter-provider-aws
// examples/v1/al2023-custom-userdata.yaml as an API server returns them)
// and the Cluster Autoscaler's Deployment (kubernetes/autoscaler
// cluster-autoscaler/cloudprovider/aws/examples/cluster-autoscaler-autodiscover.yaml).
func TestImportFolder(t *testing.T) {
	dir := t.TempDir()
	exports := filepath.Join(dir, "exports")
	require.NoError(t, os.MkdirAll(filepath.Join(exports, "live"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(exports, ".git"), 0o755))
	writeExport(t, filepath.Join(exports, "live"), kubeexport.Cluster{Nodes: 6, Deployments: 3, Replicas: 4, Pending: 1, Extra: true})
	for _, f := range []string{"karpenter.yaml", "cluster-autoscaler.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata/import", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(exports, f), b, 0o644))
	}
	// Not exports: a hidden file, a git folder, notes. Read, each would be
	// a problem (not a Kubernetes object).
	for _, f := range []string{".draft.yaml", ".git/config.yaml", "NOTES.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(exports, f), []byte("not: an object\n"), 0o644))
	}

	fromDir := filepath.Join(dir, "from-dir.yaml")
	_, dirErr, code := sim(t, "import", exports, "-o", fromDir, "--name", "prod")
	require.Equal(t, 0, code, dirErr)
	require.Contains(t, dirErr, filepath.Join(exports, "live", "cluster.yaml")+":3: Node/ip-10-0-0-1.ec2.internal: 3 node(s) of NodePool default")

	fromFiles := filepath.Join(dir, "from-files.yaml")
	_, filesErr, code := sim(t, "import", filepath.Join(exports, "cluster-autoscaler.yaml"), filepath.Join(exports, "karpenter.yaml"),
		filepath.Join(exports, "live", "cluster.yaml"), "-o", fromFiles, "--name", "prod")
	require.Equal(t, 0, code, filesErr)
	require.Equal(t, filesErr, dirErr, "the same notices")
	a, err := os.ReadFile(fromDir)
	require.NoError(t, err)
	b, err := os.ReadFile(fromFiles)
	require.NoError(t, err)
	require.Equal(t, string(b), string(a))
	require.Contains(t, string(a), "kind: NodePool")
	require.Contains(t, string(a), "--node-group-auto-discovery=")

	// A folder without exports is an error, as for sim lint -f.
	empty := filepath.Join(dir, "empty")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	_, stderr, code := sim(t, "import", empty)
	require.NotEqual(t, 0, code)
	require.Contains(t, stderr, empty+": no .yaml, .yml or .json files in this folder")
	require.NotContains(t, stderr, "is a directory")
}
