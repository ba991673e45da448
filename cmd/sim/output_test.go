package main

import (
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
	require.NoError(t, writeAtomic(report, []byte("{}")))
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
