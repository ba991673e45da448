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
	// An interrupted command exits 128 plus the signal's number, as a
	// shell reports a process killed by it: 130 for SIGINT (Ctrl-C), 143
	// for SIGTERM (timeout, kubectl delete).
	exitInterrupt = 128 + int(syscall.SIGINT)
	exitTerm      = 128 + int(syscall.SIGTERM)
)

// errSignal is what every command returns, wrapped, when Ctrl-C or
// SIGTERM stopped it: a partial report, runs stopped, a wait for input or
// a reader given up.
var errSignal = errors.New("interrupted")

// signalCause is the context's cause when a signal cancelled it.
type signalCause struct{ sig os.Signal }

func (c signalCause) Error() string { return c.sig.String() + " signal received" }

func main() {
	// Ctrl-C or SIGTERM stops a run cleanly: the partial report is still
	// written (atomically), marked partial, and the exit code says it was
	// interrupted. A second signal kills at once.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		s := <-sigs
		signal.Stop(sigs)
		cancel(signalCause{s})
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
		if errors.Is(err, errSignal) {
			return interruptedCode(ctx)
		}
		return exitError
	}
	return exitOK
}

// interruptedCode is the exit code of a command stopped by ctx: 143 when
// SIGTERM stopped it, else 130 (Ctrl-C, or a caller's cancellation).
func interruptedCode(ctx context.Context) int {
	var c signalCause
	if errors.As(context.Cause(ctx), &c) && c.sig == syscall.SIGTERM {
		return exitTerm
	}
	return exitInterrupt
}
