// Command sim runs cluster-autoscaling scenarios: `sim run SCENARIO`.
//
// This package only parses flags and configuration and calls the
// simulator; cobra and viper live here and nowhere else.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// Exit codes, documented in the README.
const (
	exitOK    = 0
	exitError = 1
	exitGate  = 2 // a --fail-if gate failed
)

func main() {
	// Ctrl-C or SIGTERM stops a run cleanly: the partial report is still
	// written (atomically), marked partial. A second signal kills at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run executes the command line and returns the exit code.
// Everything it prints goes through a safeWriter: a name, a file name or
// a message with terminal escapes is shown escaped, never acted on.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	out, errw := newSafeWriter(stdout), newSafeWriter(stderr)
	defer func() {
		out.Flush()  //nolint:errcheck // what is left of a cut sequence, at exit
		errw.Flush() //nolint:errcheck
	}()
	root := newRootCmd(out, errw)
	root.SetArgs(args)
	if err := root.ExecuteContext(ctx); err != nil {
		if errors.Is(err, errGate) {
			fmt.Fprintln(errw, err)
			return exitGate
		}
		fmt.Fprintln(errw, "error:", err)
		return exitError
	}
	return exitOK
}
