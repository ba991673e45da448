package kubelet

import "time"

// Probe is the timing of a container's readiness or startup probe, API
// defaults applied (core/v1 SetDefaults_Probe: periodSeconds 10,
// successThreshold 1). The handler is not read: every probe is taken to
// succeed once it runs.
type Probe struct {
	// InitialDelay is initialDelaySeconds, Period periodSeconds.
	InitialDelay, Period time.Duration
	// SuccessThreshold is successThreshold: the consecutive successes
	// needed (1 for a startup probe).
	SuccessThreshold int32
}

// Probes are one container's readiness and startup probes (nil: none).
type Probes struct {
	Readiness, Startup *Probe
}

// ReadyAfter is how long after its containers start a pod becomes Ready:
// the latest of its containers' Ready instants, given the start delay
// (the time from the kubelet adding the pod to its containers running,
// the scenario's podStartDelay). A container with neither probe is Ready
// when it starts.
//
// The kubelet (k8s pkg/kubelet/prober, v1.37) runs one worker per probe
// from when it adds the pod (AddPod, just before it starts the
// containers); a worker probes at once, then on a ticker every
// periodSeconds. A probe does nothing while int(seconds since the
// container started) < initialDelaySeconds, and a readiness probe
// nothing until the container has started (its startup probe, if any,
// succeeded); readiness is Failure until successThreshold consecutive
// successes. While a started container is not Ready, every pod sync runs
// its readiness probe at once and restarts the ticker from there
// (prober_manager.go UpdatePodStatus, worker.go run's manualTriggerCh):
// the kubelet syncs the pod when the container starts and when its
// startup probe succeeds, so the readiness ticks count from that instant.
// The startup probe's ticks stay anchored at AddPod.
//
// Not modelled: the periodic pod resync (every 1 to 1.5 min), which runs
// the readiness probe too; the random first sleep of workers on a kubelet
// started less than a period ago; PLEG's relist latency (up to 1 s); the
// race in which the run at the start finds the container's status not yet
// written (upstream a zero initialDelaySeconds then waits a period; here
// it succeeds at the start); and failures (a probe succeeds whenever it
// runs).
//
// The result is at most MaxReadyAfter (absurd probe settings, such as a
// successThreshold of two billion, saturate there rather than overflow).
func ReadyAfter(startDelay time.Duration, containers []Probes) time.Duration {
	var ready time.Duration
	for _, c := range containers {
		ready = max(ready, containerReady(min(max(startDelay, 0), MaxReadyAfter), c))
	}
	return ready
}

// MaxReadyAfter bounds ReadyAfter: about 146 years, past any run, with
// room left to add to a time of the run.
const MaxReadyAfter = time.Duration(1 << 62)

// containerReady is when one container is Ready, from its start.
func containerReady(startDelay time.Duration, c Probes) time.Duration {
	// started: the startup probe's success, when the kubelet marks the
	// container started (at once without one).
	var started time.Duration
	if s := c.Startup; s != nil {
		// Ticks at AddPod + n*period, that is n*period - startDelay from
		// the start; the first that finds the container running and past
		// its initial delay succeeds.
		p := clamp(s.Period, time.Second)
		n := ceilDiv(startDelay+clamp(s.InitialDelay, 0), p)
		if n*p-startDelay <= 0 {
			n++ // the container must be running: after its start
		}
		started = min(n*p-startDelay, MaxReadyAfter)
	}
	r := c.Readiness
	if r == nil {
		return started
	}
	// The sync at started runs the probe and restarts the ticker: the
	// first success is the first of started + m*period past the initial
	// delay, then successThreshold-1 more periods.
	p := clamp(r.Period, time.Second)
	var m time.Duration
	if d := clamp(r.InitialDelay, 0); started < d {
		m = ceilDiv(d-started, p)
	}
	periods := m + time.Duration(max(r.SuccessThreshold, 1)) - 1
	if periods > (MaxReadyAfter-started)/p {
		return MaxReadyAfter
	}
	return started + periods*p
}

// clamp bounds a probe's duration to [lo, MaxReadyAfter/4], so that the
// sums above cannot overflow.
func clamp(d, lo time.Duration) time.Duration {
	return min(max(d, lo), MaxReadyAfter/4)
}

// ceilDiv is a/b rounded up, for a >= 0 and b > 0.
func ceilDiv(a, b time.Duration) time.Duration {
	return (a + b - 1) / b
}
