package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/scenario"
)

// Bytes a run holds per pod and per node, measured on the embedded
// scenarios and the scale runs (pod record, shared spec, scheduler,
// controller and report bookkeeping), rounded up.
const (
	bytesPerPod  = 1 << 10
	bytesPerNode = 16 << 10
	bytesPerRun  = 32 << 20 // engine, catalogue, market tables
)

// checkMemory refuses a scenario whose estimate exceeds the limit, before
// anything runs: an estimate and a clear error beat an out-of-memory kill.
func checkMemory(limit string, sc *scenario.Scenario, parallel int) error {
	max, err := memoryLimit(limit)
	if err != nil || max == 0 {
		return err // max 0: cannot tell, no limit
	}
	need := int64(parallel) * runMemory(sc)
	if need > max {
		return fmt.Errorf("%s would need about %s of memory (%d pods over the run, %d parallel runs), more than the %s allowed; "+
			"shorten the duration, lower arrival rates or replicas, run fewer seeds at once (--workers), or raise --memory-limit",
			sc.Name, gib(need), sc.EstimatedPods, parallel, gib(max))
	}
	return nil
}

// memoryLimit reads --memory-limit (a Kubernetes quantity such as 8Gi or
// 500M, or the same with a B: 8GiB, 500MB), in bytes; unset, three
// quarters of the machine's memory (0 when unknown).
func memoryLimit(limit string) (int64, error) {
	if limit == "" {
		if total := physicalMemory(); total > 0 {
			return total / 4 * 3, nil
		}
		return 0, nil
	}
	s := strings.TrimSpace(limit)
	if n := len(s); n >= 2 && s[n-1] == 'B' && strings.ContainsRune("ikKMGTPE", rune(s[n-2])) {
		s = s[:n-1] // 8GiB is 8Gi, 500MB 500M
	}
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return 0, fmt.Errorf("--memory-limit %q: write a size such as 8Gi, 8GiB or 500M", limit)
	}
	if q.Sign() <= 0 || q.Value() < 1<<20 {
		return 0, fmt.Errorf("--memory-limit %q: the limit must be at least 1Mi; write a size such as 8Gi", limit)
	}
	return q.Value(), nil
}

// Pods created past which a run is checked for churn, and how many times
// its load-time estimate they must be for a warning.
const (
	churnWarnPods = 200_000
	churnFactor   = 4
)

// errMemoryLimit is wrapped by the error of a run stopped by
// --memory-limit while running.
var errMemoryLimit = errors.New("--memory-limit")

// runWatch holds the memory limit (bytes; 0: none) while a run goes: the
// estimate before it cannot foresee pods recreated as fast as they go, so
// the live heap is looked at as often as the run looks for Ctrl-C, and a
// run whose live heap passes the limit stops with an error. It also warns,
// once, when the run creates many times the pods estimated at load. Every
// run of a process shares the limit, as checkMemory counts them.
func runWatch(limit int64, sc *scenario.Scenario, stderr io.Writer) func(now engine.Time, pods int) error {
	var warned atomic.Bool
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	return func(now engine.Time, pods int) error {
		if pods > churnWarnPods && int64(pods) > churnFactor*max(sc.EstimatedPods, 1) && warned.CompareAndSwap(false, true) {
			fmt.Fprintf(stderr, "warning: %s: by %s the run has created %d pods, over %d times the %d estimated at load: pods are recreated as fast as they go "+
				"(evicted at once by a NoExecute taint tolerated for 0s, preempted, or failing); check the workloads' tolerations and the timeline (--events)\n",
				sc.Name, roundDuration(time.Duration(now)), pods, churnFactor, sc.EstimatedPods)
		}
		if limit <= 0 {
			return nil
		}
		s := slices.Clone(sample)
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return nil
		}
		if live := int64(s[0].Value.Uint64()); live > limit {
			return fmt.Errorf("%s stopped at %s of %s: its live memory reached %s, more than the %s %w allows (%d pods created so far, %d estimated at load); "+
				"shorten the duration, lower arrival rates or replicas, fix what recreates pods, or raise --memory-limit",
				sc.Name, roundDuration(time.Duration(now)), sc.Duration, gib(live), gib(limit), errMemoryLimit, pods, sc.EstimatedPods)
		}
		return nil
	}
}

// holdMemory sets the Go runtime's soft memory limit to limit (bytes; 0
// leaves it) for a run, so that garbage is collected before the live heap
// is judged against it; the returned func restores the previous limit.
func holdMemory(limit int64) func() {
	if limit <= 0 {
		return func() {}
	}
	prev := debug.SetMemoryLimit(limit)
	return func() { debug.SetMemoryLimit(prev) }
}

// runMemory estimates the bytes one run of the scenario holds.
func runMemory(sc *scenario.Scenario) int64 {
	return bytesPerRun + sc.EstimatedPods*bytesPerPod + int64(len(sc.Nodes)+1000)*bytesPerNode
}

func gib(b int64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%d MiB", (b+1<<20-1)>>20)
	}
	return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
}

// peakRSS is the process's peak resident memory (VmHWM), 0 if unknown.
func peakRSS() int64 {
	return procField("/proc/self/status", "VmHWM:")
}

// physicalMemory reads MemTotal from /proc/meminfo; 0 if unknown.
func physicalMemory() int64 { return procField("/proc/meminfo", "MemTotal:") }

// procField reads a "Name: N kB" line of a /proc file, in bytes.
func procField(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == name {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
