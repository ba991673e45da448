package schedfidelity

import (
	"time"

	"golang.org/x/sys/unix"
)

// The two schedulers are timed in CPU time rather than wall time: the
// machine may be shared, and a wall clock then counts other processes'
// turns. Upstream's cycles use worker goroutines, so they are timed with
// the process's clock (its garbage collection counts too, as part of its
// cost); ours run on the calling goroutine, locked to its thread while a
// case runs (Compare), and are timed with that thread's clock, so the
// collector's background work on upstream's garbage does not count
// against ours. That background work, when it runs during one of our
// cycles, counts for neither side: the ratio errs in upstream's favour.

func clock(id int32) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(id, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}

// processCPU is the process's CPU time.
func processCPU() time.Duration { return clock(unix.CLOCK_PROCESS_CPUTIME_ID) }

// threadCPU is the calling thread's CPU time.
func threadCPU() time.Duration { return clock(unix.CLOCK_THREAD_CPUTIME_ID) }
