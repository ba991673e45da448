package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The timeline as OpenMetrics text (sim run --metrics), under the names
// and labels the real components export, so that dashboards built on them
// show a simulated run once it is backfilled (promtool tsdb
// create-blocks-from openmetrics). docs/report.md lists every family with
// its upstream source; TestOpenMetricsNamesMatchTheDocs holds the two
// together.

// DefaultMetricsStart is the time the first sample is stamped with unless
// the caller gives another: fixed, so the same run gives the same bytes.
var DefaultMetricsStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// series is one labelled series of a family: a value per sample.
type series struct {
	labels [][2]string
	// value is the sample i; NaN: the series has no sample then (a node's
	// series exists only while the node does).
	value func(i int) float64
}

type family struct {
	name, typ, help, unit string
	series                []series
}

// WriteOpenMetrics writes the timeline's samples as OpenMetrics 1.0 text,
// every sample stamped start + its time, families one after the other and
// each series' samples in time order, ending with # EOF. Karpenter's
// families are written when the run has NodePools, the Cluster
// Autoscaler's when it has node groups.
func (r *Report) WriteOpenMetrics(w io.Writer, start time.Time) error {
	tl := r.Timeline
	if tl == nil {
		return fmt.Errorf("the report has no timeline")
	}
	_, karpenter := r.Figures("karpenter")
	_, ca := r.Figures("clusterAutoscaler")
	bw := bufio.NewWriterSize(w, 1<<16)
	for _, f := range metricFamilies(tl, karpenter, ca) {
		if len(f.series) == 0 {
			continue // no NodePool limits, say: no family
		}
		writeFamily(bw, f, tl.T, start)
	}
	bw.WriteString("# EOF\n")
	return bw.Flush()
}

func ints(xs []int32) func(int) float64 { return func(i int) float64 { return float64(xs[i]) } }

func floats(xs []float64) func(int) float64 { return func(i int) float64 { return xs[i] } }

// cumulative counts the events that match up to each sample time.
func cumulative(tl *Timeline, match func(e TimelineEvent) bool) func(int) float64 {
	sums := make([]float64, len(tl.T))
	j, n := 0, 0
	for i, t := range tl.T {
		for j < len(tl.Events) && tl.Events[j].T <= t {
			if match(tl.Events[j]) {
				n += tl.Events[j].Count
			}
			j++
		}
		sums[i] = float64(n)
	}
	return floats(sums)
}

// eventKeys are the distinct values key gives the matching events, sorted.
func eventKeys(tl *Timeline, match func(e TimelineEvent) bool, key func(e TimelineEvent) string) []string {
	var keys []string
	for _, e := range tl.Events {
		if match(e) && !slices.Contains(keys, key(e)) {
			keys = append(keys, key(e))
		}
	}
	slices.Sort(keys)
	return keys
}

// Karpenter's disruption reasons as its metrics spell them (upstream:
// lower-case reasons; the AWS provider's interruption controller uses
// spot_interrupted).
var karpenterReasons = map[string]string{"empty": "empty", "underutilized": "underutilized", "drifted": "drifted",
	"expired": "expired", "interrupted": "spot_interrupted", "overprovisioned": "overprovisioned",
	"capacityBlockExpiring": "capacity_block_expiring", "unhealthy": "unhealthy"}

// cloudProviderError is Karpenter's error label of a failed Create:
// InsufficientCapacityError when every offering had no capacity.
func cloudProviderError(e TimelineEvent) string {
	if strings.Contains(e.Message, "insufficient capacity") {
		return "InsufficientCapacityError"
	}
	return ""
}

func metricFamilies(tl *Timeline, karpenter, ca bool) []family {
	pending := make([]float64, len(tl.T))
	for i := range tl.T {
		pending[i] = float64(tl.PendingPods[i] + tl.StartingPods[i])
	}
	nodes := make([]float64, len(tl.T))
	for i := range tl.T {
		nodes[i] = float64(tl.SpotNodes[i] + tl.OnDemandNodes[i] + tl.ReservedNodes[i])
	}
	fams := []family{
		{name: "kube_pod_status_phase", typ: "gauge", help: "The pods current phase (clustersim: the number of pods in each phase).", series: []series{
			{[][2]string{{"phase", "Pending"}}, floats(pending)},
			{[][2]string{{"phase", "Running"}}, ints(tl.RunningPods)},
		}},
		{name: "clustersim_pods_stranded", typ: "gauge", help: "Unbound pods that have waited longer than the scenario's strandedAfter.", series: []series{
			{nil, ints(tl.StrandedPods)},
		}},
		{name: "clustersim_nodes", typ: "gauge", help: "Live nodes by capacity type.", series: []series{
			{[][2]string{{"capacity_type", "on-demand"}}, ints(tl.OnDemandNodes)},
			{[][2]string{{"capacity_type", "reserved"}}, ints(tl.ReservedNodes)},
			{[][2]string{{"capacity_type", "spot"}}, ints(tl.SpotNodes)},
		}},
		{name: "clustersim_cost_usd_per_hour", typ: "gauge", help: "Price per hour of the live nodes, each at its launch price.", series: []series{
			{nil, floats(tl.CostUSDPerHour)},
		}},
		{name: "clustersim_cost", typ: "counter", unit: "usd", help: "Cost of the nodes since the start.", series: []series{
			{nil, floats(tl.CostUSD)},
		}},
		{name: "clustersim_on_demand_equivalent_usd_per_hour", typ: "gauge", help: "The live nodes priced on demand: the all-on-demand counterfactual.", series: []series{
			{nil, floats(tl.OnDemandEquivalentUSDPerHour)},
		}},
		{name: "clustersim_on_demand_equivalent", typ: "counter", unit: "usd", help: "The nodes priced on demand since the start.", series: []series{
			{nil, floats(tl.OnDemandEquivalentUSD)},
		}},
	}
	if karpenter {
		created := family{name: "karpenter_nodeclaims_created", typ: "counter",
			help: "Number of nodeclaims created in total by Karpenter. Labeled by reason the nodeclaim was created, the owning nodepool, and if min values was relaxed for this nodeclaim."}
		alloc := family{name: "karpenter_nodes_allocatable", typ: "gauge",
			help: "Node allocatable are the resources allocatable by nodes (clustersim: summed over the nodepool's nodes)."}
		for _, p := range tl.Pools {
			if p.Owner != "karpenter" {
				continue
			}
			created.series = append(created.series, series{[][2]string{{"min_values_relaxed", "false"}, {"nodepool", p.Name}, {"reason", "provisioning"}}, ints(p.Launched)})
			if tl.Objects != nil {
				continue // per node below
			}
			cpu, mem := p.AllocatableCPU, p.AllocatableMemory
			if len(cpu) != len(tl.T) { // a timeline read back from JSON has none
				cpu, mem = make([]float64, len(tl.T)), make([]float64, len(tl.T))
			}
			alloc.series = append(alloc.series,
				series{[][2]string{{"nodepool", p.Name}, {"resource_type", "cpu"}}, floats(cpu)},
				series{[][2]string{{"nodepool", p.Name}, {"resource_type", "memory"}}, floats(mem)})
		}
		disrupted := family{name: "karpenter_nodeclaims_disrupted", typ: "counter",
			help: "Number of nodeclaims disrupted in total by Karpenter. Labeled by reason the nodeclaim was disrupted and the owning nodepool."}
		isDisruption := func(e TimelineEvent) bool { return e.Kind == "nodeDeletion" && e.Owner == "karpenter" }
		for _, k := range eventKeys(tl, isDisruption, func(e TimelineEvent) string { return e.Pool + "\x00" + e.Cause }) {
			pool, cause, _ := strings.Cut(k, "\x00")
			reason := karpenterReasons[cause]
			if reason == "" {
				reason = cause
			}
			disrupted.series = append(disrupted.series, series{[][2]string{{"nodepool", pool}, {"reason", reason}},
				cumulative(tl, func(e TimelineEvent) bool { return isDisruption(e) && e.Pool == pool && e.Cause == cause })})
		}
		errs := family{name: "karpenter_cloudprovider_errors", typ: "counter", help: "Total number of errors returned from CloudProvider calls."}
		isFailure := func(e TimelineEvent) bool { return e.Kind == "launchFailed" && e.Owner == "karpenter" }
		for _, code := range eventKeys(tl, isFailure, cloudProviderError) {
			errs.series = append(errs.series, series{[][2]string{{"controller", "nodeclaim.lifecycle"}, {"error", code}, {"method", "Create"}, {"provider", "aws"}},
				cumulative(tl, func(e TimelineEvent) bool { return isFailure(e) && cloudProviderError(e) == code })})
		}
		state := family{name: "karpenter_pods_state", typ: "gauge",
			help: "Pod state is the current state of pods (clustersim: the number of pods in each state).", series: []series{
				{[][2]string{{"phase", "Pending"}, {"scheduled", "false"}}, ints(tl.PendingPods)},
				{[][2]string{{"phase", "Pending"}, {"scheduled", "true"}}, ints(tl.StartingPods)},
				{[][2]string{{"phase", "Running"}, {"scheduled", "true"}}, ints(tl.RunningPods)},
			}}
		if tl.Objects != nil {
			// allocatable and pods_state per node, below
			fams = append(fams, created, disrupted, errs)
		} else {
			fams = append(fams, created, alloc, disrupted, errs, state)
		}
	}
	if tl.Objects != nil {
		fams = append(fams, objectFamilies(tl, karpenter)...)
	}
	if ca {
		up := make([]float64, len(tl.T))
		for _, p := range tl.Pools {
			if p.Owner == "cluster-autoscaler" {
				for i := range up {
					up[i] += float64(p.Launched[i])
				}
			}
		}
		fams = append(fams,
			family{name: "cluster_autoscaler_unschedulable_pods_count", typ: "gauge", help: "Number of unschedulable pods in the cluster.", series: []series{
				{[][2]string{{"type", "unschedulable"}}, ints(tl.PendingPods)},
			}},
			family{name: "cluster_autoscaler_nodes_count", typ: "gauge", help: "Number of nodes in cluster.", series: []series{
				{[][2]string{{"state", "ready"}}, floats(nodes)},
			}},
			family{name: "cluster_autoscaler_scaled_up_nodes", typ: "counter", help: "Number of nodes added by CA.", series: []series{
				{nil, floats(up)},
			}},
			family{name: "cluster_autoscaler_failed_scale_ups", typ: "counter", help: "Number of times scale-up operation has failed.", series: []series{
				{[][2]string{{"reason", "cloudProviderError"}},
					cumulative(tl, func(e TimelineEvent) bool { return e.Kind == "launchFailed" && e.Owner == "cluster-autoscaler" })},
			}})
	}
	return fams
}

// writeFamily writes a family's metadata, then each series' samples.
func writeFamily(w *bufio.Writer, f family, ts []float64, start time.Time) {
	name := f.name
	if f.unit != "" {
		name += "_" + f.unit
	}
	fmt.Fprintf(w, "# TYPE %s %s\n", name, f.typ)
	if f.unit != "" {
		fmt.Fprintf(w, "# UNIT %s %s\n", name, f.unit)
	}
	fmt.Fprintf(w, "# HELP %s %s\n", name, escapeHelp(f.help))
	sample := name
	if f.typ == "counter" {
		sample += "_total"
	}
	base := float64(start.UnixMilli()) / 1000
	for _, s := range f.series {
		var lb strings.Builder
		if len(s.labels) > 0 {
			lb.WriteByte('{')
			for i, l := range s.labels {
				if i > 0 {
					lb.WriteByte(',')
				}
				lb.WriteString(l[0])
				lb.WriteString(`="`)
				lb.WriteString(escapeLabel(l[1]))
				lb.WriteByte('"')
			}
			lb.WriteByte('}')
		}
		labels := lb.String()
		for i, t := range ts {
			v := s.value(i)
			if math.IsNaN(v) {
				continue
			}
			w.WriteString(sample)
			w.WriteString(labels)
			w.WriteByte(' ')
			w.WriteString(formatValue(v))
			w.WriteByte(' ')
			w.WriteString(strconv.FormatFloat(math.Round((base+t)*1000)/1000, 'f', -1, 64))
			w.WriteByte('\n')
		}
	}
}

func formatValue(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }

var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

func escapeHelp(s string) string { return helpEscaper.Replace(s) }
