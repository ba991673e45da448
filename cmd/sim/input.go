package main

import (
	"context"
	"fmt"

	"github.com/clustersim/clustersim/sim/manifest"
)

// awaitInput runs read, which only reads the command's inputs (it writes
// nothing, so nothing is left half done when it is abandoned), and waits
// for it or for ctx: a scenario on a FIFO no one writes to, or `sweep merge
// -` on a pipe that stays open, would otherwise block the first Ctrl-C or
// SIGTERM, which only cancels ctx. The abandoned read ends with the
// process.
func awaitInput[T any](ctx context.Context, read func() (T, error)) (T, error) {
	if ctx == nil || ctx.Done() == nil {
		return read()
	}
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		v, err := read()
		done <- result{v, err}
	}()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		select {
		case r := <-done:
			return r.v, r.err
		default:
		}
		var zero T
		return zero, fmt.Errorf("%w while reading the input (a FIFO or pipe that no one writes to or closes?)", errSignal)
	}
}

// readInput reads a file the command line names (--config, --baseline, a
// Sweep document), bounded as the scenario loader bounds a file
// (manifest.MaxFileSize), waiting as awaitInput waits.
func readInput(ctx context.Context, path string) ([]byte, error) {
	return awaitInput(ctx, func() ([]byte, error) { return manifest.ReadFileLimited(path) })
}
