package importer

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/kubeexport"
)

// BenchmarkImportScale imports a generated export of 5,000 nodes and
// 150,000 pods (3,000 Deployments of 50), as -o yaml (over a gigabyte)
// and as -o json; the target is under 60 s and 2 GiB each. It writes the
// exports to a temporary directory first, so it is skipped under -short.
// IMPORT_BENCH_DIV=10 divides the sizes, for a quick look.
func BenchmarkImportScale(b *testing.B) {
	if testing.Short() {
		b.Skip("writes a gigabyte export; run without -short")
	}
	div := 1
	if s := os.Getenv("IMPORT_BENCH_DIV"); s != "" {
		div, _ = strconv.Atoi(s)
		div = max(div, 1)
	}
	c := kubeexport.Cluster{Nodes: 5000 / div, Deployments: 3000 / div, Replicas: 50}
	cat, err := catalog.Default()
	if err != nil {
		b.Fatal(err)
	}
	for _, asJSON := range []bool{false, true} {
		c.JSON = asJSON
		name := map[bool]string{false: "yaml", true: "json"}[asJSON]
		b.Run(fmt.Sprintf("%s/nodes=%d/pods=%d", name, c.Nodes, c.Deployments*c.Replicas), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "cluster."+name)
			f, err := os.Create(path)
			if err != nil {
				b.Fatal(err)
			}
			w := bufio.NewWriterSize(f, 4<<20)
			if err := c.Write(w); err != nil {
				b.Fatal(err)
			}
			if err := w.Flush(); err != nil {
				b.Fatal(err)
			}
			size, _ := f.Seek(0, io.SeekCurrent)
			f.Close()
			b.SetBytes(size)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				in, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				im := New(Options{}, cat)
				if err := im.Add(path, in); err != nil {
					b.Fatal(err)
				}
				in.Close()
				if err := im.Write(io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(size)/(1<<20), "MiB-export")
			if hwm := peakRSS(); hwm > 0 {
				b.ReportMetric(float64(hwm)/(1<<20), "MiB-peak-RSS")
			}
		})
	}
}

// peakRSS is the process's peak resident memory (Linux; 0 elsewhere).
func peakRSS() int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}
