package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

// cancelOnProgress is a stderr that cancels the run (with cause, as a
// signal does) when the run draws its first progress line: an interrupt
// in the middle of the simulation (or after the first of --runs), at a
// deterministic moment.
type cancelOnProgress struct {
	bytes.Buffer
	cancel context.CancelCauseFunc
	cause  error
}

func (w *cancelOnProgress) Write(p []byte) (int, error) {
	if bytes.HasPrefix(p, []byte("\r[")) {
		w.cancel(w.cause)
	}
	return w.Buffer.Write(p)
}

// An interrupted single run writes its partial report but exits as
// interrupted (130 for SIGINT, 143 for SIGTERM), and its --fail-if gates
// are not judged on the partial report: a CI job killed by timeout fails.
func TestInterruptedRunFails(t *testing.T) {
	fakeTerminal(t, 120)
	old := progressEvery
	progressEvery = 50
	t.Cleanup(func() { progressEvery = old })
	for _, c := range []struct {
		sig  syscall.Signal
		code int
	}{{syscall.SIGINT, exitInterrupt}, {syscall.SIGTERM, exitTerm}} {
		ctx, cancel := context.WithCancelCause(context.Background())
		stderr := &cancelOnProgress{cancel: cancel, cause: signalCause{c.sig}}
		report := filepath.Join(t.TempDir(), "r.json")
		var out bytes.Buffer
		code := run(ctx, []string{"run", "hybrid-naive", "-o", "json", "--report", report, "--fail-if", "pods.stranded>100000"}, &out, stderr)
		require.Equal(t, c.code, code, stderr.String())
		require.Contains(t, stderr.String(), `error: interrupted at `)
		require.Contains(t, stderr.String(), `the report is partial (marked "partial": true); the --fail-if gates were not evaluated on a partial run`)
		require.NotContains(t, stderr.String(), "gate pass")
		data, err := os.ReadFile(report)
		require.NoError(t, err)
		require.Contains(t, string(data), `"partial": true`)
	}
	require.Equal(t, 130, exitInterrupt)
	require.Equal(t, 143, exitTerm)
}

// sim explain honours the first signal too, with the same exit code.
func TestInterruptedExplain(t *testing.T) {
	fakeTerminal(t, 120)
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(signalCause{syscall.SIGTERM})
	var out, errb bytes.Buffer
	code := run(ctx, []string{"explain", "static-burst", "--pod", "render-7"}, &out, &errb)
	require.Equal(t, exitTerm, code, errb.String())
	require.True(t, strings.HasPrefix(errb.String(), "error: interrupted"), errb.String())
}
