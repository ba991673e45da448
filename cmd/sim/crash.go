package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/simulation"
)

// crashReport turns a run's internal error (a model's panic) into a crash
// report: a file with what a bug report needs (the version, the command
// line, the scenario and a hash of its files, the seed, the simulated
// time, the panic and its stack and, with --check, the last events), in
// the OS's temporary directory under a name no one can guess (no
// symlink planted there can redirect it). It returns err with the
// report's path added; any other error is returned as it is.
func crashReport(err error, arg string, stderr io.Writer) error {
	var ie *simulation.InternalError
	if !errors.As(err, &ie) {
		return err
	}
	f, ferr := os.CreateTemp("", "clustersim-crash-*.txt")
	if ferr != nil {
		return fmt.Errorf("%w (no crash report: %v)", err, ferr)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "clustersim crash report\n\nversion: %s\ncommand: %s\nscenario: %s\n", buildVersion(), strings.Join(os.Args, " "), arg)
	for _, file := range scenarioFiles(arg) {
		fmt.Fprintf(&b, "  %s\n", file)
	}
	fmt.Fprintf(&b, "seed: %d\nsimulated time: %s\nevents dispatched: %d\n\npanic: %s\n\n%s\n", ie.Seed, ie.At, ie.Events, ie.Panic, ie.Stack)
	if len(ie.Recent) > 0 {
		b.WriteString("last events, oldest first:\n")
		for _, e := range ie.Recent {
			b.WriteString("  " + e + "\n")
		}
	} else {
		b.WriteString("last events: run again with --check to name them\n")
	}
	_, werr := f.WriteString(b.String())
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		os.Remove(f.Name())
		return fmt.Errorf("%w (no crash report: %v)", err, werr)
	}
	fmt.Fprintf(stderr, "crash report written to %s: please attach it, and the scenario, to the report\n", f.Name())
	return fmt.Errorf("%w (crash report: %s)", err, f.Name())
}

// scenarioFiles describes the files of a SCENARIO[+OVERRIDE...] argument
// by path and the SHA-256 of their content (an embedded scenario by its
// name), so a report says which input crashed without carrying it.
func scenarioFiles(arg string) []string {
	var out []string
	for _, part := range strings.Split(arg, "+") {
		if _, ok := scenarios.File(part); ok {
			if _, err := os.Stat(part); err != nil {
				out = append(out, part+" (embedded)")
				continue
			}
		}
		out = append(out, fileDigest(part))
	}
	return out
}

// fileDigest is "path sha256:... (N bytes)" of a regular file, streamed
// (a huge input costs no memory), or why not.
func fileDigest(path string) string {
	st, err := os.Stat(path)
	switch {
	case err != nil:
		return path + " (unreadable: " + err.Error() + ")"
	case !st.Mode().IsRegular():
		return path + " (not a regular file)"
	}
	f, err := os.Open(path)
	if err != nil {
		return path + " (unreadable: " + err.Error() + ")"
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return path + " (unreadable: " + err.Error() + ")"
	}
	return fmt.Sprintf("%s sha256:%s (%d bytes)", path, hex.EncodeToString(h.Sum(nil)), n)
}
