package schedfidelity

import (
	"time"

	"golang.org/x/sys/unix"
)

// cpuNow is the process's CPU time. The two schedulers are timed in CPU
// time rather than wall time: the machine may be shared, and a wall clock
// then counts other processes' turns. Upstream's worker goroutines and
// the garbage collector count too, as they are part of its cost.
func cpuNow() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		return 0
	}
	return time.Duration(ts.Nano())
}
