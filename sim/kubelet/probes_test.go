package kubelet

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestReadyAfter: the delay from a container's start to its pod's Ready
// condition, as the v1.37 kubelet's probe workers give it (probes.go).
func TestReadyAfter(t *testing.T) {
	s := time.Second
	probe := func(delay, period time.Duration, success int32) *Probe {
		return &Probe{InitialDelay: delay, Period: period, SuccessThreshold: success}
	}
	for _, tc := range []struct {
		name       string
		startDelay time.Duration
		containers []Probes
		want       time.Duration
	}{
		{"no probe", 2 * s, []Probes{{}}, 0},
		{"no container", 2 * s, nil, 0},
		// The sync at the start runs the probe: past a zero initial
		// delay it succeeds at once.
		{"readiness, no initial delay", 2 * s, []Probes{{Readiness: probe(0, 10*s, 1)}}, 0},
		// zookeeper.yaml: initialDelaySeconds 10, periodSeconds 10. The
		// run at the start is inside the initial delay; the ticker
		// restarted there fires at 10 s, int(10) >= 10.
		{"readiness 10/10", 2 * s, []Probes{{Readiness: probe(10*s, 10*s, 1)}}, 10 * s},
		{"readiness 10/10, no start delay", 0, []Probes{{Readiness: probe(10*s, 10*s, 1)}}, 10 * s},
		{"readiness 15/10", 2 * s, []Probes{{Readiness: probe(15*s, 10*s, 1)}}, 20 * s},
		{"readiness 5/30", 2 * s, []Probes{{Readiness: probe(5*s, 30*s, 1)}}, 30 * s},
		// Two more successes, one period apart.
		{"successThreshold 3", 2 * s, []Probes{{Readiness: probe(10*s, 10*s, 3)}}, 30 * s},
		{"successThreshold 3, no initial delay", 2 * s, []Probes{{Readiness: probe(0, 5*s, 3)}}, 10 * s},
		// Startup ticks at AddPod + n*10 s: 10 s is 8 s after a 2 s start.
		{"startup only", 2 * s, []Probes{{Startup: probe(0, 10*s, 1)}}, 8 * s},
		{"startup only, 2.5 s start delay", 2500 * time.Millisecond, []Probes{{Startup: probe(0, 10*s, 1)}}, 7500 * time.Millisecond},
		// A tick at the start instant finds no running container.
		{"startup, tick at the start", 10 * s, []Probes{{Startup: probe(0, 10*s, 1)}}, 10 * s},
		{"startup 30/10", 2 * s, []Probes{{Startup: probe(30*s, 10*s, 1)}}, 38 * s},
		// The startup success at 8 s syncs the pod, which runs the
		// readiness probe at once: its initial delay is past.
		{"startup then readiness", 2 * s, []Probes{{Startup: probe(0, 10*s, 1), Readiness: probe(5*s, 30*s, 1)}}, 8 * s},
		// Not past it at 8 s: ticks from 8 s, 8+10 = 18 >= 10.
		{"startup then delayed readiness", 2 * s, []Probes{{Startup: probe(0, 10*s, 1), Readiness: probe(10*s, 10*s, 1)}}, 18 * s},
		{"startup then readiness x2", 2 * s, []Probes{{Startup: probe(0, 10*s, 1), Readiness: probe(0, 10*s, 2)}}, 18 * s},
		// The pod is Ready when its last container is.
		{"two containers", 2 * s, []Probes{{Readiness: probe(10*s, 10*s, 1)}, {}, {Startup: probe(30*s, 10*s, 1)}}, 38 * s},
		// Absurd settings saturate rather than overflow.
		{"huge successThreshold", 2 * s, []Probes{{Readiness: probe(1<<31*s, 1<<31*s, 1<<31-1)}}, MaxReadyAfter},
		{"huge startup", 1 << 62, []Probes{{Startup: probe(1<<31*s, 1<<31*s, 1), Readiness: probe(1<<31*s, 1<<31*s, 1<<31-1)}}, MaxReadyAfter},
	} {
		require.Equal(t, tc.want, ReadyAfter(tc.startDelay, tc.containers), tc.name)
	}
}
