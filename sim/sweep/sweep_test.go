package sweep

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
)

// fakeRun makes a report from the point and the seed: fast, deterministic,
// with a metric (pods.waitedOnIPs, omitted when 0) that only some runs
// have, as real reports do.
func fakeRun(sc *scenario.Scenario, seed uint64) (*report.Report, error) {
	r := &report.Report{}
	x := float64(seed%1000) / 7
	r.Cost.TotalUSD = float64(len(sc.Name)) + x/100
	r.Pods.PendingSeconds.P99 = 100 - float64(len(sc.Name)) + x
	r.Pods.Stranded = int(seed % 3)
	if seed%2 == 0 {
		r.Pods.WaitedOnIPs = int(seed % 5)
	}
	return r, nil
}

func testSweep(points, runs int) *Sweep {
	s := &Sweep{Name: "t", Axes: []string{"a"}, Runs: runs, RootSeed: 7}
	for i := range points {
		s.Points = append(s.Points, Point{Name: fmt.Sprintf("p%d", i), Values: []string{fmt.Sprint(i)}, Base: strings.Repeat("x", i+1)})
	}
	return s
}

func testRunner(s *Sweep) *Runner {
	return &Runner{Sweep: s, Run: fakeRun, Workers: 3, Load: func(p *Point) (*scenario.Scenario, error) {
		return &scenario.Scenario{Name: p.Base}, nil
	}}
}

// unsharded runs the whole sweep and renders it.
func unsharded(t testing.TB, s *Sweep) map[string][]byte {
	var rs []Result
	require.NoError(t, testRunner(s).Do(All, func(r Result) error { rs = append(rs, r); return nil }))
	return renderAll(t, s, rs)
}

func renderAll(t testing.TB, s *Sweep, rs []Result) map[string][]byte {
	out, err := Aggregate(s, rs)
	require.NoError(t, err)
	m := map[string][]byte{}
	for _, f := range []string{"table", "json", "csv"} {
		m[f], err = out.Render(f)
		require.NoError(t, err)
	}
	return m
}

// partial runs shard sh of s as the build program would.
func partial(t testing.TB, s *Sweep, program string, sh Shard) []byte {
	var buf bytes.Buffer
	id, err := Identify(s, nil, program)
	require.NoError(t, err)
	pw, err := NewPartialWriter(&buf, s, id, sh)
	require.NoError(t, err)
	require.NoError(t, testRunner(s).Do(sh, pw.Write))
	require.NoError(t, pw.Close())
	return buf.Bytes()
}

func merge(t testing.TB, inputs ...[]byte) (*Merger, map[string][]byte, error) {
	m := NewMerger()
	for i, in := range inputs {
		if err := m.Read(bytes.NewReader(in), fmt.Sprintf("in%d", i)); err != nil {
			return m, nil, err
		}
	}
	s, rs, err := m.Results()
	if err != nil {
		return m, nil, err
	}
	return m, renderAll(t, s, rs), nil
}

// Every pair lands in exactly one shard, whatever the shard count.
func TestShardsPartitionPairs(t *testing.T) {
	for _, n := range []int{1, 2, 3, 7, 40} {
		s := testSweep(5, 4)
		seen := make([]int, s.Pairs())
		total := 0
		for i := range n {
			sh, err := NewShard(i, n)
			require.NoError(t, err)
			for k := range s.Pairs() {
				if sh.Holds(k) {
					seen[k]++
				}
			}
			total += s.Count(sh)
		}
		for k, c := range seen {
			require.Equal(t, 1, c, "pair %d with %d shards", k, n)
		}
		require.Equal(t, s.Pairs(), total, "Count with %d shards", n)
	}
	_, err := ParseShard("4/4")
	require.EqualError(t, err, "shard index 4: use 0 to 3 for 4 shards (the index counts from 0)")
	_, err = ParseShard("1")
	require.ErrorContains(t, err, "write I/N")
}

// Partials of any shard count, merged in any order, give the unsharded
// bytes in every format.
func TestMergeEqualsUnsharded(t *testing.T) {
	s := testSweep(4, 5)
	want := unsharded(t, s)
	for _, n := range []int{1, 3, 6, 25} {
		var parts [][]byte
		for i := range n {
			parts = append(parts, partial(t, s, "x", Shard{i, n}))
		}
		rand.New(rand.NewPCG(uint64(n), 1)).Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		_, got, err := merge(t, parts...)
		require.NoError(t, err)
		for f := range want {
			require.Equal(t, string(want[f]), string(got[f]), "%s with %d shards", f, n)
		}
	}
}

// A stream of logs (kubectl logs of every pod, with --prefix or without,
// other lines in between) merges as the files do.
func TestMergeLogStream(t *testing.T) {
	s := testSweep(3, 4)
	want := unsharded(t, s)
	var plain, prefixed bytes.Buffer
	for i := range 3 {
		p := partial(t, s, "x", Shard{i, 3})
		fmt.Fprintf(&plain, "starting shard %d\n%s3 of 12 runs in 1s\n", i, p)
		for j, line := range strings.SplitAfter(string(p), "\n") {
			if line == "" {
				continue
			}
			fmt.Fprintf(&prefixed, "[pod/sweep-%d-abcde/sim] %s", i, line)
			if j == 1 {
				fmt.Fprintf(&prefixed, "[pod/sweep-%d-abcde/sim] a log line of the shard\n", i)
			}
		}
	}
	_, got, err := merge(t, plain.Bytes())
	require.NoError(t, err)
	require.Equal(t, string(want["csv"]), string(got["csv"]))
	_, got, err = merge(t, prefixed.Bytes())
	require.NoError(t, err)
	require.Equal(t, string(want["json"]), string(got["json"]))
}

// A shard stopped half-way (its partial cut short) is ignored with a
// warning; the merge names what is missing and the shard to rerun; with
// the rerun it gives the unsharded bytes.
func TestMergeTruncatedShardRerun(t *testing.T) {
	s := testSweep(3, 4)
	want := unsharded(t, s)
	p0, p1 := partial(t, s, "x", Shard{0, 2}), partial(t, s, "x", Shard{1, 2})
	cut := p1[:len(p1)/2]
	m, _, err := merge(t, p0, cut)
	require.Error(t, err)
	require.Contains(t, err.Error(), "6 of the 12 (point, seed) pairs are missing: \"p0\" run 1 (seed ")
	require.Contains(t, err.Error(), "rerun shard(s) 1 of 2 (--shard I/2)")
	require.Len(t, m.Warnings, 1)
	require.Contains(t, m.Warnings[0], "in1:1: the partial of shard 1/2 stops before its END line")
	_, got, err := merge(t, p0, cut, p1)
	require.NoError(t, err)
	require.Equal(t, string(want["json"]), string(got["json"]))
}

// The same pairs from two partials are named; so are partials of another
// sweep and altered ones.
func TestMergeRefuses(t *testing.T) {
	s := testSweep(2, 3)
	p0 := partial(t, s, "x", Shard{0, 2})
	p1 := partial(t, s, "x", Shard{1, 2})
	_, _, err := merge(t, p0, p1, p0)
	require.ErrorContains(t, err, "3 pairs are given by more than one partial: \"p0\" run 0")

	other := partial(t, s, "y", Shard{1, 2})
	_, _, err = merge(t, p0, other)
	require.ErrorContains(t, err, "in1:1: the partial of shard 1/2 is of another sweep (fingerprint sha256:")
	require.ErrorContains(t, err, "; the one at in0:1 has sha256:")

	// Point names swapped in the first partial's header (whose
	// definition the merge takes), the fingerprint kept: the results would
	// be attributed to the wrong configurations.
	swapped := bytes.Replace(bytes.Replace(bytes.Replace(p0, []byte(`"name":"p0"`), []byte(`"name":"tmp"`), 1),
		[]byte(`"name":"p1"`), []byte(`"name":"p0"`), 1), []byte(`"name":"tmp"`), []byte(`"name":"p1"`), 1)
	require.NotEqual(t, p0, swapped)
	for _, in := range [][][]byte{{swapped, p1}, {p1, swapped}} {
		_, _, err = merge(t, in...)
		require.ErrorContains(t, err, "the header of the partial of shard 0/2 does not match its fingerprint sha256:")
		require.ErrorContains(t, err, "its sweep definition (points, names, runs, seed) was altered")
	}
	// So is a header of an older sim, without what the fingerprint covers.
	old := bytes.Replace(p0, []byte(`,"program":"x"`), nil, 1)
	require.NotEqual(t, p0, old)
	_, _, err = merge(t, old, p1)
	require.ErrorContains(t, err, "does not match its fingerprint")

	altered := bytes.Replace(p1, []byte(`"seed"`), []byte(`"seed" `), 1)
	_, _, err = merge(t, p0, altered)
	require.ErrorContains(t, err, "was altered")

	_, _, err = merge(t, []byte("no partial here\n"))
	require.ErrorContains(t, err, "in0: no partial result in it")
}

// The fingerprint covers the definition, every input file's bytes and the
// simulator's build.
func TestFingerprint(t *testing.T) {
	s := testSweep(2, 3)
	files := []File{{Path: "a.yaml", Data: []byte("x")}, {Path: "b.yaml", Data: []byte("y")}}
	a, err := Fingerprint(s, files, "v1")
	require.NoError(t, err)
	b, _ := Fingerprint(s, []File{files[1], files[0]}, "v1")
	require.Equal(t, a, b, "the files' order does not matter")
	c, _ := Fingerprint(s, []File{files[0], {Path: "b.yaml", Data: []byte("z")}}, "v1")
	require.NotEqual(t, a, c, "a file's bytes do")
	e, _ := Fingerprint(s, files, "v2")
	require.NotEqual(t, a, e, "the simulator's build does")
	s.Runs = 4
	d, _ := Fingerprint(s, files, "v1")
	require.NotEqual(t, a, d, "the definition does")
}

// The frontier keeps the points no other point dominates.
func TestFrontier(t *testing.T) {
	pt := func(cost, p99, stranded, actions float64) PointOutput {
		var ms []experiment.Summary
		for i, v := range []float64{cost, p99, stranded, actions} {
			ms = append(ms, experiment.Summary{Path: Objectives[i], Mean: v})
		}
		return PointOutput{Metrics: ms}
	}
	ps := []PointOutput{
		pt(1, 100, 0, 10), // cheap, slow: frontier
		pt(2, 50, 0, 10),  // dearer, faster: frontier
		pt(2, 100, 0, 10), // dominated by the first
		pt(1, 100, 0, 10), // a tie with the first: both stay
		pt(3, 50, 0, 5),   // fewer actions: frontier
		pt(3, 60, 1, 5),   // dominated by the one before
	}
	markFrontier(ps)
	var got []bool
	for _, p := range ps {
		got = append(got, p.Frontier)
	}
	require.Equal(t, []bool{true, true, false, true, true, false}, got)
}

// The runner streams: a point's results are handed over (and can be
// written) before the next point runs, so a shard never holds more than
// one point's numbers.
func TestRunnerStreams(t *testing.T) {
	s := testSweep(3, 4)
	r := testRunner(s)
	var events []string
	var mu sync.Mutex
	r.Run = func(sc *scenario.Scenario, seed uint64) (*report.Report, error) {
		mu.Lock()
		events = append(events, "run "+sc.Name)
		mu.Unlock()
		return fakeRun(sc, seed)
	}
	require.NoError(t, r.Do(All, func(res Result) error {
		events = append(events, "emit "+s.Points[res.Point].Base)
		return nil
	}))
	want := []string{}
	for _, b := range []string{"x", "xx", "xxx"} {
		want = append(want, "run "+b, "run "+b, "run "+b, "run "+b, "emit "+b, "emit "+b, "emit "+b, "emit "+b)
	}
	require.Equal(t, want, events)
}

// The runner hands results over in pair order, and a shard runs only its
// pairs.
func TestRunnerOrder(t *testing.T) {
	s := testSweep(3, 4)
	var got []int
	require.NoError(t, testRunner(s).Do(Shard{1, 3}, func(r Result) error {
		got = append(got, r.Pair(s.Runs))
		require.Equal(t, s.Seeds()[r.Run], r.Seed)
		return nil
	}))
	require.Equal(t, []int{1, 4, 7, 10}, got)
}

// Whatever the input, reading partials never panics.
func FuzzMergeRead(f *testing.F) {
	s := testSweep(2, 2)
	var buf bytes.Buffer
	id, _ := Identify(s, nil, "x")
	pw, err := NewPartialWriter(&buf, s, id, Shard{0, 2})
	require.NoError(f, err)
	require.NoError(f, testRunner(s).Do(Shard{0, 2}, pw.Write))
	require.NoError(f, pw.Close())
	f.Add(buf.Bytes())
	f.Add(buf.Bytes()[:buf.Len()/2])
	f.Add(bytes.Replace(buf.Bytes(), []byte(`"name":"p0"`), []byte(`"name":"p1"`), 1))
	f.Add([]byte(BeginMarker + `{"version":1,"sweep":{"points":[{"name":"a"}],"runs":1},"shards":1,"pairs":1}` + "\n" + `{"point":0,"run":0,"seed":0,"m":[0,1]}` + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m := NewMerger()
		if m.Read(bytes.NewReader(data), "in") == nil {
			if s, rs, err := m.Results(); err == nil {
				_, _ = Aggregate(s, rs)
			}
		}
	})
}
