package main

import (
	"bytes"
	"context"
	"fmt"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts a CPU profile (and arranges a heap profile) for
// finding the simulator's own bottlenecks; the returned func stops them.
// Both files are written atomically: a failed or interrupted run leaves
// any earlier profile in place.
func startProfiles(ctx context.Context, cpu, mem string) (func() error, error) {
	var cpuFile *atomicFile
	if cpu != "" {
		f, err := createAtomic(ctx, cpu)
		if err != nil {
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Abort()
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
		cpuFile = f
	}
	return func() error {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			if err := cpuFile.Commit(); err != nil {
				return fmt.Errorf("--cpuprofile: %w", err)
			}
		}
		if mem != "" {
			var buf bytes.Buffer
			runtime.GC()
			if err := pprof.WriteHeapProfile(&buf); err != nil {
				return fmt.Errorf("--memprofile: %w", err)
			}
			if err := writeAtomic(ctx, mem, buf.Bytes()); err != nil {
				return fmt.Errorf("--memprofile: %w", err)
			}
		}
		return nil
	}, nil
}
