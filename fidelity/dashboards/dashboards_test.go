package dashboards

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/textparse"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/util/teststorage"
	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/cluster"
	_ "github.com/clustersim/clustersim/sim/component/builtin"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

var start = time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)

// truth is the cluster at one time, read from a run stepped there: what the
// dashboards' queries must return for the metrics file of the same run.
type truth struct {
	at                  time.Duration
	karpenterNodes      int // Ready (registered) Karpenter nodes
	karpenterSpot       int
	allNodes            int                // Ready nodes, any owner
	poolCPU             map[string]float64 // allocatable cores of a pool's Ready nodes
	pending, running    int                // pods, as karpenter_pods_state's phase
	karpenterRegistered int                // Karpenter nodes that ever became Ready up to at
}

func load(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	file, ok := scenarios.File(name)
	require.True(t, ok, name)
	sc, err := scenario.LoadFS(scenarios.FS, file)
	require.NoError(t, err)
	return sc
}

func observe(t *testing.T, sc *scenario.Scenario, at []time.Duration) []truth {
	t.Helper()
	s, err := simulation.Start(sc, simulation.Options{})
	require.NoError(t, err)
	registered := map[cluster.NodeID]bool{}
	var out []truth
	for _, a := range at {
		require.NoError(t, s.RunUntil(engine.Time(a)))
		cl := s.Cluster()
		tr := truth{at: a, poolCPU: map[string]float64{}}
		for i := range cl.Nodes {
			n := &cl.Nodes[i]
			karp := n.Owner.String() == "karpenter"
			if karp && (n.State == cluster.NodeReady || (n.State == cluster.NodeGone && n.Ready > 0)) {
				registered[cluster.NodeID(i)] = true
			}
			if n.State != cluster.NodeReady {
				continue
			}
			tr.allNodes++
			if karp {
				tr.karpenterNodes++
				if n.CapacityType == cluster.Spot {
					tr.karpenterSpot++
				}
				tr.poolCPU[n.OwnerName] += float64(n.Allocatable[cluster.CPU]) / 1000
			}
		}
		for i := range cl.Pods {
			switch cl.Pods[i].Phase {
			case cluster.Pending, cluster.Bound:
				tr.pending++
			case cluster.Running:
				tr.running++
			}
		}
		tr.karpenterRegistered = len(registered)
		out = append(out, tr)
	}
	return out
}

// backfill reads the metrics file with Prometheus' OpenMetrics parser into
// a TSDB, as promtool tsdb create-blocks-from openmetrics does.
func backfill(t *testing.T, data []byte) *teststorage.TestStorage {
	t.Helper()
	st := teststorage.New(t)
	p, err := textparse.New(data, "application/openmetrics-text; version=1.0.0", labels.NewSymbolTable(), textparse.ParserOptions{})
	require.NoError(t, err)
	app := st.Appender(context.Background())
	samples := 0
	for {
		e, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if e != textparse.EntrySeries {
			continue
		}
		_, ts, v := p.Series()
		require.NotNil(t, ts, "every sample is stamped")
		var l labels.Labels
		p.Labels(&l)
		_, err = app.Append(0, l, *ts, v)
		require.NoError(t, err, l.String())
		samples++
	}
	require.NoError(t, app.Commit())
	require.Positive(t, samples)
	return st
}

// dashboardQueries are the PromQL expressions of the dashboard's panels,
// with its template variables set as a user who selects "All" would.
func dashboardQueries(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var d struct {
		Panels []panel `json:"panels"`
	}
	require.NoError(t, json.Unmarshal(data, &d))
	vars := strings.NewReplacer(`"$nodepool"`, `".*"`, `"$arch"`, `".*"`, `"$zone"`, `".*"`, `"$capacity_type"`, `".*"`,
		`"$instance_type"`, `".*"`, "$__rate_interval", "5m", "$distribution_filter", "capacity_type")
	comment := regexp.MustCompile(`(?m)\s*#.*$`)
	out := map[string]string{}
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			walk(p.Panels)
			for i, tg := range p.Targets {
				out[p.Title+"#"+string(rune('A'+i))] = comment.ReplaceAllString(vars.Replace(tg.Expr), "")
			}
		}
	}
	walk(d.Panels)
	return out
}

type panel struct {
	Title   string  `json:"title"`
	Panels  []panel `json:"panels"`
	Targets []struct {
		Expr string `json:"expr"`
	} `json:"targets"`
}

// Karpenter's published capacity dashboard, on the file sim run --metrics
// writes for the default scenario (Karpenter spot for batch, the Cluster
// Autoscaler's on-demand group for core, a spot cascade), backfilled and
// queried with Prometheus' own engine: every panel's query runs, and the
// ones on nodes, pools and pods return what the cluster was at that time
// (read from the same run stepped there), not a sum per pool.
func TestKarpenterCapacityDashboard(t *testing.T) {
	sc := load(t, "hybrid-naive")
	rep, err := simulation.Run(sc, simulation.Options{KeepObjects: true})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, rep.WriteOpenMetrics(&buf, start))
	st := backfill(t, buf.Bytes())

	interval := time.Duration(rep.Timeline.IntervalSeconds * float64(time.Second))
	// Backfilled series carry no staleness markers: a node's series would
	// linger for the lookback after the node went. One sample interval of
	// lookback reads each sample as its own time's.
	eng := promql.NewEngine(promql.EngineOpts{MaxSamples: 50_000_000, Timeout: time.Minute, LookbackDelta: interval})
	query := func(q string, at time.Duration) promql.Vector {
		t.Helper()
		qry, err := eng.NewInstantQuery(context.Background(), st, nil, q, start.Add(at))
		require.NoError(t, err, q)
		res := qry.Exec(context.Background())
		require.NoError(t, res.Err, q)
		v, err := res.Vector()
		if err != nil { // a scalar
			s, serr := res.Scalar()
			require.NoError(t, serr, q)
			return promql.Vector{{F: s.V}}
		}
		return v
	}
	one := func(q string, at time.Duration) float64 {
		t.Helper()
		v := query(q, at)
		require.Len(t, v, 1, "%s at %s: %v", q, at, v)
		return v[0].F
	}

	at := []time.Duration{20 * time.Minute, 45 * time.Minute, 90 * time.Minute, 150 * time.Minute}
	truths := observe(t, sc, at)
	queries := dashboardQueries(t, "testdata/karpenter-capacity-dashboard.json")
	// Panels on what the simulator does not model: Karpenter's disruption
	// candidates and decisions, and node-exporter's clock. Every other
	// panel must return data at some time.
	notModelled := map[string]bool{
		`Nodes Eligible for Disruptions by "reason"#A`:            true,
		`Disruption Actions performed by "type" and "decision"#A`: true,
		`Disruption Actions performed by "type" and "decision"#B`: true,
		"Node Summary#D": true,
		// hybrid-naive's burst-spot sets no limits: no usage/limit ratio
		// (TestNodePoolLimitPanel checks them on a pool that has one).
		"Nodepool Summary#A": true,
		"Nodepool Summary#C": true,
	}
	for name, q := range queries {
		seen := false
		for _, a := range at {
			if len(query(q, a)) > 0 {
				seen = true
			}
		}
		if notModelled[name] {
			require.False(t, seen, "%s returns data now: take it off the not-modelled list", name)
			continue
		}
		require.True(t, seen, "dashboard panel %s: no data (%s)", name, q)
	}

	for _, tr := range truths {
		require.Positive(t, tr.karpenterNodes, "the check needs Karpenter nodes at %s", tr.at)
		// Nodepool Summary: nodes per pool, cpu per pool.
		require.Equal(t, float64(tr.karpenterNodes), one(`sum(count by (nodepool)(karpenter_nodes_allocatable{nodepool!="N/A",resource_type="cpu"}))`, tr.at), "nodes at %s", tr.at)
		for pool, cpu := range tr.poolCPU {
			require.InDelta(t, cpu, one(`sum by (nodepool)(karpenter_nodes_allocatable{nodepool="`+pool+`",resource_type="cpu"})`, tr.at), 1e-9, "%s cpu at %s", pool, tr.at)
		}
		// Spot Node Percentage.
		spot := one(queries["Spot Node Percentage#A"], tr.at)
		require.InDelta(t, float64(tr.karpenterSpot)/float64(tr.karpenterNodes), spot, 1e-9, "spot share at %s", tr.at)
		// Pod Phase.
		phases := map[string]float64{}
		for _, s := range query(queries["Pod Phase#A"], tr.at) {
			phases[s.Metric.Get("phase")] = s.F
		}
		require.Equal(t, float64(tr.pending), phases["Pending"], "pending pods at %s", tr.at)
		require.Equal(t, float64(tr.running), phases["Running"], "running pods at %s", tr.at)
		// Nodes Created by nodepool (the counter's value).
		require.Equal(t, float64(tr.karpenterRegistered), one(`sum(`+queries["Nodes Created by nodepool#B"]+`)`, tr.at), "nodes created by %s", tr.at)
		// kube-state-metrics: one kube_node_info per node.
		require.Equal(t, float64(tr.allNodes), one(`count(kube_node_info)`, tr.at), "kube_node_info at %s", tr.at)
	}
}

// The Nodepool Summary's usage / limit on karpenter-mixed, whose NodePool
// sets limits.cpu 400: karpenter_nodepools_limit is the limit, and usage is
// the capacity of the pool's nodes (launching ones too, as the NodePool's
// status.resources), so at least their allocatable and never past the limit.
func TestNodePoolLimitPanel(t *testing.T) {
	sc := load(t, "karpenter-mixed")
	rep, err := simulation.Run(sc, simulation.Options{KeepObjects: true})
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, rep.WriteOpenMetrics(&buf, start))
	st := backfill(t, buf.Bytes())
	interval := time.Duration(rep.Timeline.IntervalSeconds * float64(time.Second))
	eng := promql.NewEngine(promql.EngineOpts{MaxSamples: 50_000_000, Timeout: time.Minute, LookbackDelta: interval})
	queries := dashboardQueries(t, "testdata/karpenter-capacity-dashboard.json")
	at := []time.Duration{30 * time.Minute, 90 * time.Minute}
	truths := observe(t, sc, at)
	for _, tr := range truths {
		eval := func(q string) promql.Vector {
			qry, err := eng.NewInstantQuery(context.Background(), st, nil, q, start.Add(tr.at))
			require.NoError(t, err, q)
			res := qry.Exec(context.Background())
			require.NoError(t, res.Err, q)
			v, err := res.Vector()
			require.NoError(t, err, q)
			return v
		}
		limit := eval(`karpenter_nodepools_limit{resource_type="cpu"}`)
		require.Len(t, limit, 1)
		require.Equal(t, 400.0, limit[0].F)
		pool := limit[0].Metric.Get("nodepool")
		ratio := eval(queries["Nodepool Summary#A"])
		require.Len(t, ratio, 1, "at %s", tr.at)
		require.GreaterOrEqual(t, ratio[0].F*400, tr.poolCPU[pool]-1e-9, "usage is at least the Ready nodes' allocatable at %s", tr.at)
		require.Positive(t, ratio[0].F, "at %s", tr.at)
		require.LessOrEqual(t, ratio[0].F, 1.0, "a pool never launches past its limit")
		require.False(t, math.IsNaN(ratio[0].F))
	}
}
