package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// Outputs are readable like files the shell creates (0644), keep the mode
// of a file they replace, and a run that fails on the way leaves no
// temporary file behind.
func TestOutputFiles(t *testing.T) {
	dir := t.TempDir()
	report := filepath.Join(dir, "r.json")
	_, stderr, code := sim(t, "run", "static-burst", "-o", "json", "--report", report, "--events", filepath.Join(dir, "ev.jsonl"))
	require.Equal(t, 0, code, stderr)
	for _, name := range []string{"r.json", "ev.jsonl"} {
		fi, err := os.Stat(filepath.Join(dir, name))
		require.NoError(t, err)
		require.Equal(t, os.FileMode(0o644), fi.Mode().Perm(), name)
	}

	require.NoError(t, os.Chmod(report, 0o600))
	require.NoError(t, writeAtomic(context.Background(), report, []byte("{}")))
	fi, err := os.Stat(report)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the replaced file's mode is kept")

	failed := t.TempDir()
	_, _, code = sim(t, "run", "static-burst", "--events", filepath.Join(failed, "ev.jsonl"), "--cpuprofile", filepath.Join(failed, "no", "such", "dir", "cpu.prof"))
	require.Equal(t, 1, code)
	entries, err := os.ReadDir(failed)
	require.NoError(t, err)
	require.Empty(t, entries, "nothing is left behind")
}

// An output replaces only a regular file (or nothing): through a symbolic
// link it replaces the file the link points to and the link stays; a
// device or a FIFO is written through, never replaced by a file; a folder
// is refused.
func TestOutputKinds(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()

	target := filepath.Join(dir, "real.json")
	require.NoError(t, os.WriteFile(target, []byte("old"), 0o600))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("real.json", link))
	require.NoError(t, writeAtomic(ctx, link, []byte("new")))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&os.ModeSymlink, "the link stays a link")
	got, err := os.ReadFile(target)
	require.NoError(t, err)
	require.Equal(t, "new", string(got))
	fi, err = os.Stat(target)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the target keeps its mode")

	dangling := filepath.Join(dir, "dangling.json")
	require.NoError(t, os.Symlink("sub/made.json", dangling))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	require.NoError(t, writeAtomic(ctx, dangling, []byte("x")))
	got, err = os.ReadFile(filepath.Join(dir, "sub", "made.json"))
	require.NoError(t, err, "a dangling link's target is created, as a shell's > does")
	require.Equal(t, "x", string(got))

	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	require.ErrorContains(t, writeAtomic(ctx, loop, []byte("x")), "symbolic links to follow")

	require.ErrorContains(t, writeAtomic(ctx, dir, []byte("x")), "is a folder: give the name of a file to write")

	// Devices are written through (as root, renaming over /dev/null made
	// it a regular file).
	_, stderr, code := sim(t, "run", "static-burst", "-o", "json", "--report", "/dev/null", "--html", "/dev/null", "--events", "/dev/null")
	require.Equal(t, 0, code, stderr)
	fi, err = os.Stat("/dev/null")
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&os.ModeCharDevice, "/dev/null is still a device")
	if _, err := os.Stat("/dev/full"); err == nil {
		_, stderr, code = sim(t, "run", "static-burst", "--report", "/dev/full")
		require.Equal(t, 1, code)
		require.Contains(t, stderr, "--report /dev/full: write /dev/full: no space left on device")
	}
}
