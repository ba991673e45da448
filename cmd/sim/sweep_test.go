package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/clustersim/clustersim/sim/scenario"
)

// TestMain lets a test run this binary as sim itself (SIM_TEST_AS_MAIN=1):
// the shards of a sweep as separate processes.
func TestMain(m *testing.M) {
	if os.Getenv("SIM_TEST_AS_MAIN") == "1" {
		os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

const grid = "testdata/sweep/grid.yaml"

// The shards of a sweep, run as N processes with JOB_COMPLETION_INDEX set
// as an Indexed Job sets it, merge to the unsharded run's bytes in every
// format; a shard cut short and rerun gives the same merge.
func TestSweepShardsAsProcessesMergeExactly(t *testing.T) {
	const n = 3
	want := map[string]string{}
	for _, f := range []string{"json", "csv", "table"} {
		out, stderr, code := sim(t, "sweep", grid, "-o", f)
		require.Equal(t, 0, code, stderr)
		want[f] = out
	}
	dir := t.TempDir()
	procs := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range n {
		cmd := exec.Command(os.Args[0], "sweep", grid, "--shards", strconv.Itoa(n))
		cmd.Env = append(os.Environ(), "SIM_TEST_AS_MAIN=1", "JOB_COMPLETION_INDEX="+strconv.Itoa(i))
		outs[i] = &bytes.Buffer{}
		cmd.Stdout, cmd.Stderr = outs[i], outs[i] // as kubectl logs shows them: both streams
		require.NoError(t, cmd.Start())
		procs[i] = cmd
	}
	var files []string
	for i, p := range procs {
		require.NoError(t, p.Wait(), outs[i].String())
		require.Contains(t, outs[i].String(), "shard "+strconv.Itoa(i)+"/3:", "the log line is in the stream")
		f := filepath.Join(dir, "part-"+strconv.Itoa(i))
		require.NoError(t, os.WriteFile(f, outs[i].Bytes(), 0o644))
		files = append(files, f)
	}
	for f, w := range want {
		got, stderr, code := sim(t, append([]string{"sweep", "merge", "-o", f}, files...)...)
		require.Equal(t, 0, code, stderr)
		require.Equal(t, w, got, f)
	}

	// --html: the merge draws the same page as the unsharded run.
	page, merged := filepath.Join(dir, "sweep.html"), filepath.Join(dir, "merged.html")
	_, stderr, code := sim(t, "sweep", grid, "--html", page)
	require.Equal(t, 0, code, stderr)
	_, stderr, code = sim(t, append([]string{"sweep", "merge", "--html", merged}, files...)...)
	require.Equal(t, 0, code, stderr)
	a, err := os.ReadFile(page)
	require.NoError(t, err)
	b, err := os.ReadFile(merged)
	require.NoError(t, err)
	require.Equal(t, string(a), string(b))
	require.Contains(t, string(a), `id="chart-sweep"`)
	require.Contains(t, string(a), "render=small load=1x")
	_, stderr, code = sim(t, "sweep", grid, "--shard", "0/2", "--html", page)
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "--html draws the whole sweep")
	_, stderr, code = sim(t, "sweep", grid, "--shard", "0/2", "--report", page)
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "a shard writes a partial result and --emit-job manifests: give --out FILE")

	// Shard 1 stopped half-way: the merge names what is missing and the
	// shard to rerun; the rerun (to a file, atomically) completes it.
	cut := filepath.Join(dir, "cut")
	require.NoError(t, os.WriteFile(cut, outs[1].Bytes()[:outs[1].Len()/2], 0o644))
	_, stderr, code = sim(t, "sweep", "merge", files[0], cut, files[2])
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "warning: "+cut+":1: the partial of shard 1/3 stops before its END line")
	require.Contains(t, stderr, "pairs are missing: \"render=full load=1x\" run 1 (seed ")
	require.Contains(t, stderr, "rerun shard(s) 1 of 3")
	rerun := filepath.Join(dir, "rerun")
	_, stderr, code = sim(t, "sweep", grid, "--shard", "1/3", "--out", rerun)
	require.Equal(t, 0, code, stderr)
	got, stderr, code := sim(t, "sweep", "merge", "-o", "json", files[0], cut, files[2], rerun)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, want["json"], got)

	// A partial of another sweep (other runs) is refused.
	other := filepath.Join(dir, "other")
	_, _, code = sim(t, "sweep", grid, "--runs", "2", "--shard", "1/3", "--out", other)
	require.Equal(t, 0, code)
	_, stderr, code = sim(t, "sweep", "merge", files[0], other)
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "is of another sweep")
}

// merge - reads a stream (kubectl logs of every shard) from stdin.
func TestSweepMergeStdin(t *testing.T) {
	want, stderr, code := sim(t, "sweep", grid, "-o", "csv", "--runs", "2")
	require.Equal(t, 0, code, stderr)
	var stream bytes.Buffer
	for i := range 2 {
		out, stderr, code := sim(t, "sweep", grid, "--runs", "2", "--shard", strconv.Itoa(i)+"/2")
		require.Equal(t, 0, code, stderr)
		stream.WriteString("some log line\n" + out)
	}
	var out bytes.Buffer
	root := newRootCmd(&out, &bytes.Buffer{})
	root.SetIn(&stream)
	root.SetArgs([]string{"sweep", "merge", "-", "-o", "csv"})
	require.NoError(t, root.ExecuteContext(context.Background()))
	require.Equal(t, want, out.String())
}

// The command-line form runs every configuration on the same seeds, as
// sim compare does; the embedded sweep runs by name.
func TestSweepCommandLineAndEmbedded(t *testing.T) {
	out, stderr, code := sim(t, "sweep", "static-burst", "static-burst+testdata/sweep/small-render.yaml", "--runs", "2", "-o", "csv")
	require.Equal(t, 0, code, stderr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 3)
	require.True(t, strings.HasPrefix(lines[0], "point,frontier,durationSeconds.mean,durationSeconds.ciLow,durationSeconds.ciHigh,pods.total.mean,"), lines[0])
	require.True(t, strings.HasPrefix(lines[2], "static-burst+testdata/sweep/small-render.yaml,true,"), lines[2])

	out, stderr, code = sim(t, "sweep", "hybrid-frontier", "--runs", "1", "-o", "csv")
	require.Equal(t, 0, code, stderr)
	lines = strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 19, "18 points")
	require.True(t, strings.HasPrefix(lines[0], "point,spotShare,types,fallback,frontier,"), lines[0])
	frontier := 0
	for _, l := range lines[1:] {
		if strings.Contains(l, ",true,") {
			frontier++
		}
	}
	require.Greater(t, frontier, 1, "a trade-off: more than one point on the frontier")
	require.Less(t, frontier, 18, "and points off it")
}

// --emit-job writes a ConfigMap with the sweep's files on disk under their
// paths relative to a common folder, and an Indexed Job whose shards run
// the same command line from the matching working folder.
func TestSweepEmitJob(t *testing.T) {
	out, stderr, code := sim(t, "sweep", grid, "--emit-job", "--image", "example.com/sim:v1", "--shards", "4", "--parallelism", "2")
	require.Equal(t, 0, code, stderr)
	docs := strings.Split(out, "\n---\n")
	require.Len(t, docs, 2)
	var cm corev1.ConfigMap
	require.NoError(t, yaml.UnmarshalStrict([]byte(docs[0]), &cm))
	var job batchv1.Job
	require.NoError(t, yaml.UnmarshalStrict([]byte(docs[1]), &job))
	var paths []string
	for _, it := range job.Spec.Template.Spec.Volumes[0].ConfigMap.Items {
		paths = append(paths, it.Path)
		require.Contains(t, cm.Data, it.Key)
	}
	require.ElementsMatch(t, []string{"cmd/sim/testdata/sweep/grid.yaml", "cmd/sim/testdata/sweep/small-render.yaml", "scenarios/static-burst.yaml"}, paths)
	c := job.Spec.Template.Spec.Containers[0]
	require.Equal(t, "/sweep/cmd/sim", c.WorkingDir)
	seed := "1"
	require.Equal(t, []string{"sweep", grid, "--runs", "3", "--seed", seed, "--shards", "4", "--workers", "1"}, c.Args)
	// Memory: the largest point's run estimate (static-burst at 3x load),
	// plus the process's own, rounded up to MiB.
	sc, err := scenario.LoadFile("../../scenarios/static-burst.yaml")
	require.NoError(t, err)
	require.NoError(t, sc.ScaleWorkloads(3))
	want := (runMemory(sc) + 64<<20 + 1<<20 - 1) >> 20 << 20
	require.Equal(t, want, c.Resources.Requests.Memory().Value())
	require.Equal(t, want, c.Resources.Limits.Memory().Value())
	require.Equal(t, int32(4), *job.Spec.Completions)
	require.Equal(t, int32(2), *job.Spec.Parallelism)
	require.True(t, strings.HasPrefix(job.Name, "sim-sweep-"))

	_, stderr, code = sim(t, "sweep", grid, "--emit-job", "--image", "x", "--shards", "4", "--job-name", "Bad_Name")
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, `--job-name "Bad_Name": use at most 52 lower-case letters`)
	_, stderr, code = sim(t, "sweep", grid, "--emit-job", "--shards", "4")
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, "--emit-job needs --image IMAGE")
	_, stderr, code = sim(t, "sweep", grid, "--shards", "4")
	require.Equal(t, exitError, code)
	require.Contains(t, stderr, `--shards 4 takes the shard's index from JOB_COMPLETION_INDEX, which is ""`)
}

// --emit-job ships only what the runs read: an included Secret, a
// ConfigMap, environment values and comments stay on the machine; a shard
// run from the ConfigMap's files fingerprints the same sweep, so its
// partial merges with one run here into the unsharded run's bytes.
func TestSweepEmitJobShipsOnlyWhatRunsRead(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	require.NoError(t, os.MkdirAll("k8s", 0o755))
	files := map[string]string{
		"base.yaml": `# staging password: xleakx01
apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: base}
spec:
  duration: 20m
  region: us-east-1
  zones: [us-east-1a]
  include: [k8s/]
  staticNodes:
    - {name: core, instanceType: m5.large, count: 2, capacityType: on-demand}
  workloads:
    - ref: Deployment/default/web
`,
		"k8s/secret.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: db}\nstringData: {password: xleakx02}\n",
		"k8s/web.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx
        env: [{name: DB_PASSWORD, value: xleakx03}]
        resources: {requests: {cpu: 500m, memory: 512Mi}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web}
data: {token: xleakx04}
`,
		"big.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 5
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: nginx, resources: {requests: {cpu: 500m, memory: 512Mi}}}]
`,
	}
	for name, data := range files {
		require.NoError(t, os.WriteFile(name, []byte(data), 0o644))
	}
	args := []string{"sweep", "base.yaml", "base.yaml+big.yaml", "--runs", "2"}
	out, stderr, code := sim(t, append(args, "--emit-job", "--image", "example.com/sim:v1", "--shards", "2")...)
	require.Equal(t, 0, code, stderr)
	require.NotRegexp(t, `xleakx[0-9]+`, out, "nothing the runs do not read is shipped")
	require.NotContains(t, out, "kind: Secret")
	docs := strings.Split(out, "\n---\n")
	var cm corev1.ConfigMap
	require.NoError(t, yaml.UnmarshalStrict([]byte(docs[0]), &cm))
	var job batchv1.Job
	require.NoError(t, yaml.UnmarshalStrict([]byte(docs[1]), &job))

	// Shard 0 runs where the Job's pod would: the ConfigMap's files.
	shipped := filepath.Join(dir, "shipped")
	for _, it := range job.Spec.Template.Spec.Volumes[0].ConfigMap.Items {
		p := filepath.Join(shipped, it.Path)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(cm.Data[it.Key]), 0o644))
	}
	c := job.Spec.Template.Spec.Containers[0]
	t.Chdir(filepath.Join(shipped, strings.TrimPrefix(c.WorkingDir, "/sweep")))
	a, stderr, code := sim(t, append(c.Args[:len(c.Args)-4:len(c.Args)-4], "--shard", "0/2")...)
	require.Equal(t, 0, code, stderr)
	t.Chdir(dir)
	b, stderr, code := sim(t, append(args, "--shard", "1/2")...)
	require.Equal(t, 0, code, stderr)
	require.NoError(t, os.WriteFile("a.partial", []byte(a), 0o644))
	require.NoError(t, os.WriteFile("b.partial", []byte(b), 0o644))
	merged, stderr, code := sim(t, "sweep", "merge", "a.partial", "b.partial", "-o", "csv")
	require.Equal(t, 0, code, stderr)
	want, stderr, code := sim(t, append(args, "-o", "csv")...)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, want, merged)
}

// A replay trace is shipped as it is: the run reads it whole.
func TestSweepEmitJobShipsTraces(t *testing.T) {
	out, stderr, code := sim(t, "sweep", "testdata/explain/depth-burst.yaml", "--emit-job", "--image", "x", "--shards", "2")
	require.Equal(t, 0, code, stderr)
	var cm corev1.ConfigMap
	require.NoError(t, yaml.UnmarshalStrict([]byte(strings.Split(out, "\n---\n")[0]), &cm))
	trace, err := os.ReadFile("testdata/explain/depth-burst.trace.csv")
	require.NoError(t, err)
	var found bool
	for _, data := range cm.Data {
		found = found || data == string(trace)
	}
	require.True(t, found, "the trace's bytes are in the ConfigMap")
}
