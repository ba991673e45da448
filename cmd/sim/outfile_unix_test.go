//go:build unix

package main

import (
	"context"
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
