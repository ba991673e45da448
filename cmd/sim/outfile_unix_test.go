//go:build unix

package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

func mkfifo(p string) error { return unix.Mkfifo(p, 0o600) }

// lockable says whether dir's file system has flock (the cleaner of stale
// temporary files needs it).
func lockable(t *testing.T, dir string) bool {
	f, err := os.Create(filepath.Join(dir, ".lock-probe"))
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(f.Name())
	defer f.Close()
	return unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB) == nil
}

// A FIFO is written through when a reader opens it; without one, the wait
// ends with the first signal (the command's context).
func TestOutputFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "report.fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	read := make(chan string)
	go func() {
		data, err := os.ReadFile(fifo)
		if err != nil {
			read <- "error: " + err.Error()
			return
		}
		read <- string(data)
	}()
	_, stderr, code := sim(t, "run", "static-burst", "-o", "json", "--report", fifo)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, <-read, `"schemaVersion"`)
	fi, err := os.Lstat(fifo)
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&os.ModeNamedPipe, "the FIFO is still a FIFO")

	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	start := time.Now()
	err = writeAtomic(ctx, fifo, []byte("x"))
	require.ErrorIs(t, err, errSignal)
	require.ErrorContains(t, err, "while waiting for a reader of the FIFO")
	require.Less(t, time.Since(start), 5*time.Second)
}

// A run killed with SIGKILL leaves its temporary file; the next output in
// that folder removes it once it is stale (our pattern, an hour old, its
// writer's lock gone), never a file another run is writing or anyone
// else's.
func TestStaleTemporaryFiles(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Hour)
	touch := func(name string, mtime time.Time) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o600))
		require.NoError(t, os.Chtimes(p, mtime, mtime))
		return p
	}
	stale := touch(".e.jsonl.clustersim-4242-123456.tmp", old)
	fresh := touch(".e.jsonl.clustersim-4243-123457.tmp", time.Now())
	other := touch(".e.jsonl.tmp-99", old)
	mine := touch("notes.clustersim-1-2.tmp", old)
	// A concurrent writer, quiet for two hours: it holds its lock.
	busy, err := createAtomic(context.Background(), filepath.Join(dir, "busy.json"))
	require.NoError(t, err)
	defer busy.Abort()
	require.NoError(t, os.Chtimes(busy.Name(), old, old))

	require.NoError(t, writeAtomic(context.Background(), filepath.Join(dir, "r.json"), []byte("{}")))
	for _, p := range []string{fresh, other, mine, busy.Name()} {
		require.FileExists(t, p)
	}
	if lockable(t, dir) {
		require.NoFileExists(t, stale, "the stale temporary file is removed")
	}
	require.NoError(t, busy.Commit())
	require.FileExists(t, filepath.Join(dir, "busy.json"))
}

// Every read of a user file is bounded (/dev/zero ends with an error, not
// out of memory); a scenario may not include a FIFO or a device (it would
// hang the load or never end); and a wait for input on the command line (a
// FIFO, a pipe that stays open) ends with the first signal.
func TestBoundedAndInterruptibleInputs(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"run", "static-burst", "--config", "/dev/zero"},
		{"run", "static-burst", "--baseline", "/dev/zero", "--fail-if", "cost.totalUSD>baseline"},
		{"sweep", "/dev/zero"},
	} {
		_, stderr, code := sim(t, args...)
		require.Equal(t, 1, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, "/dev/zero: too large (more than the 64 MiB a file may hold)", args)
	}

	fifo := filepath.Join(dir, "m.yaml")
	require.NoError(t, mkfifo(fifo))
	scenario := func(name, spec string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec:\n  duration: 1h\n  staticNodes: [{name: n, instanceType: m5.large, count: 1}]\n"+spec), 0o644))
		return p
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "folder"), 0o755))
	require.NoError(t, mkfifo(filepath.Join(dir, "folder", "x.yaml")))
	for _, c := range []struct{ spec, want string }{
		{"  include: [m.yaml]\n", "spec.include[0]: m.yaml is a FIFO; include regular files and folders only"},
		{"  include: [/dev/zero]\n", "spec.include[0]: /dev/zero is a device; include regular files and folders only"},
		{"  include: [folder]\n", "folder/x.yaml: is a FIFO, not a regular file; a folder's manifests must be regular files"},
		{"  market: {model: replay, replay: m.yaml}\n", "spec.market.replay: cannot read m.yaml: a FIFO, not a regular file"},
	} {
		_, stderr, code := sim(t, "run", scenario("s.yaml", c.spec))
		require.Equal(t, 1, code, stderr)
		require.Contains(t, stderr, c.want)
	}

	// The scenario itself on a FIFO no one writes to: the first signal
	// ends the wait, with the exit code of an interrupted command.
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	var out, errb bytes.Buffer
	start := time.Now()
	code := run(ctx, []string{"run", fifo}, &out, &errb)
	require.Equal(t, exitInterrupt, code, errb.String())
	require.Contains(t, errb.String(), "error: interrupted while reading the input")
	require.Less(t, time.Since(start), 5*time.Second)
	release(t, fifo)

	// sweep merge - on a pipe that stays open.
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel = context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	root := newRootCmd(&out, &errb)
	root.SetIn(pr)
	root.SetArgs([]string{"sweep", "merge", "-"})
	err := root.ExecuteContext(ctx)
	require.ErrorIs(t, err, errSignal)
}

// release opens a FIFO's other end, so that a reader abandoned on it ends.
func release(t *testing.T, fifo string) {
	f, err := os.OpenFile(fifo, os.O_WRONLY|unix.O_NONBLOCK, 0)
	if err == nil {
		f.Close()
	}
}
