package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/simulation"
)

// An internal error writes a crash report with what a bug report needs,
// says where, and keeps the error; other errors pass through untouched.
func TestCrashReport(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	scen := filepath.Join(dir, "s.yaml")
	require.NoError(t, os.WriteFile(scen, []byte("kind: Scenario\n"), 0o644))
	ie := &simulation.InternalError{At: 90e9, Seed: 7, Panic: "index out of range [1] with length 1", Stack: "goroutine 1 [running]:\nscheduler.(*fitIndex).unset(...)", Events: 1234,
		Recent: []string{"t=1m29s handler=3 (*scheduler.Scheduler) kind=1 obj=5 arg=0"}}
	var stderr bytes.Buffer
	err := crashReport(ie, scen+"+hybrid-naive", &stderr)
	require.True(t, errors.Is(err, ie))
	m := regexp.MustCompile(`crash report written to (\S+):`).FindStringSubmatch(stderr.String())
	require.NotNil(t, m, stderr.String())
	require.Equal(t, dir, filepath.Dir(m[1]))
	require.Contains(t, err.Error(), m[1])
	data, rerr := os.ReadFile(m[1])
	require.NoError(t, rerr)
	text := string(data)
	for _, want := range []string{"version: ", "command: ", "seed: 7", "simulated time: 1m30s", "events dispatched: 1234",
		"panic: index out of range [1] with length 1", "scheduler.(*fitIndex).unset", "t=1m29s handler=3 (*scheduler.Scheduler)",
		scen + " sha256:", "(15 bytes)", "hybrid-naive (embedded)"} {
		require.Contains(t, text, want)
	}
	other := errors.New("scenario.yaml:3: bad field")
	require.Equal(t, other, crashReport(other, scen, &stderr))
}
