package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"

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
