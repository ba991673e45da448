// Package explain tells one pod's story (sim explain): it runs a scenario,
// follows the pod through the timeline (created, unschedulable, bound,
// running, deleted), and asks each component what it had to do with the
// pod: which nodes the autoscalers launched for it and what became of
// them and why a disruption took them, why none came (what each capacity source can do for the pod, what
// the autoscalers said, the launches that failed), what its volumes and
// its StatefulSet's ordering held back.
//
// The questions to one component sit behind small functions of that
// component's name (components.go), so that a component contract can
// answer them later; the rest only reads the trace and the cluster state.
//
// Pod returns the story as a value; Story.Write renders it as text, the
// same bytes for the command line and a web page. The package prints
// nothing and touches no file: cmd/sim loads the scenario and writes the
// story.
package explain

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/trace"
)

// Options say how to run the scenario the story is told from.
type Options struct {
	// Seed, when set, overrides the scenario's seed.
	Seed *uint64
	// Context, when set and cancelled, stops the run early; Pod then
	// returns ErrStopped.
	Context context.Context
}

// ErrStopped is Pod's error when Options.Context stopped the run before
// its end.
var ErrStopped = errors.New("the run was stopped before its end, so the pod's story would be cut short")

// Story is one pod's story in one run.
type Story struct {
	Pod      string // namespace/name
	Workload string // the owner's reference, Kind/namespace/name
	Scenario string
	Seed     uint64
	// Timeline is the pod's entries of the trace, in order, each told in
	// words.
	Timeline []Moment
	// Volumes explains a wait its volumes caused ("" if none did): the
	// claims that pin it to a zone and what each capacity source can do
	// there. Text, lines ending in a newline.
	Volumes string
	// NotRecreated explains a lost StatefulSet replica that was not
	// created again by the end ("" if that is not its story).
	NotRecreated string
	// ProvisionedFor has one line per node an autoscaler launched for the
	// pod: by whom, what, where, when, and what became of it.
	ProvisionedFor []string
	// NothingCame explains, when no node was launched for the pod and it
	// waited, why none came. Text, lines ending in a newline.
	NothingCame string
}

// Moment is one line of a story's timeline.
type Moment struct {
	T    float64 // seconds of virtual time
	Kind string  // the trace entry's kind (podCreated, podBound, ...)
	Text string
}

// Pod runs sc and tells the story of the pod named want: NAME or
// NAMESPACE/NAME, as the report lists it. It fails when no pod or more
// than one pod of the run has that name, when the run fails, and with
// ErrStopped when opts.Context stopped it.
func Pod(sc *scenario.Scenario, opts Options, want string) (*Story, error) {
	if want == "" {
		return nil, fmt.Errorf("no pod given: give the pod's name as the report lists it (unschedulablePods[].pod)")
	}
	if opts.Context != nil && opts.Context.Err() != nil {
		// Stopped before the run began (a short run checks its context
		// only every few thousand events, and might end unchecked).
		return nil, ErrStopped
	}
	seed := sc.Seed
	if opts.Seed != nil {
		seed = *opts.Seed
	}
	var entries []trace.Entry
	var names []string
	var launchedFor []string
	var phases map[string]string
	matches := func(pod string) bool {
		return pod == want || strings.HasSuffix(pod, "/"+want)
	}
	simOpts := simulation.Options{
		Seed:    &seed,
		Context: opts.Context,
		Trace:   func(e trace.Entry) { entries = append(entries, e) },
		Inspect: func(cl *cluster.Cluster) {
			phases = endPhases(cl, sc.Workloads)
			for i := range cl.Pods {
				p := &cl.Pods[i]
				full := cl.Syms.Name(p.Namespace) + "/" + p.Name
				names = append(names, full)
				if !matches(full) {
					continue
				}
				for _, n := range cl.LaunchedFor(cluster.PodID(i)) {
					node := &cl.Nodes[n]
					launchedFor = append(launchedFor, fmt.Sprintf("%s launched %s (%s, %s, %s) for it at %s",
						node.Owner, node.Name, node.InstanceType, cl.Syms.Name(node.Zone), node.CapacityType, fmtTime(node.Launched.Seconds()))+
						joinNote(sc, node, entries)+goneNote(node, entries))
				}
			}
		},
	}
	rep, err := simulation.Run(sc, simOpts)
	if err != nil {
		return nil, err
	}
	if rep.Partial {
		return nil, ErrStopped
	}
	var found []trace.Entry
	pods := map[string]bool{}
	for _, e := range entries {
		if e.Pod != "" && matches(e.Pod) {
			found = append(found, e)
			pods[e.Pod] = true
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no pod %q in this run (seed %d); pods are named like %s", want, seed, strings.Join(sample(names, 5), ", "))
	}
	if len(pods) > 1 {
		list := slices.Sorted(maps.Keys(pods))
		return nil, fmt.Errorf("%q matches %d pods (%s): give NAMESPACE/NAME", want, len(list), strings.Join(list, ", "))
	}
	s := &Story{Pod: found[0].Pod, Workload: found[0].Workload, Scenario: sc.Name, Seed: seed, ProvisionedFor: launchedFor}
	var created, bound float64
	for _, e := range found {
		line := ""
		switch e.Kind {
		case "podCreated":
			created = e.T
			line = "created"
		case "podUnschedulable":
			line = "unschedulable: " + e.Message
		case "podBound":
			bound = e.T
			line = fmt.Sprintf("bound to %s (%s, %s, %s, %s %s) after waiting %s", e.Node, e.InstanceType, e.Zone, e.CapacityType, e.Owner, e.OwnerName, fmtTime(e.T-created))
		case "podStarted":
			line = "running"
			// The kubelet starts a pod PodStartDelay after binding unless
			// it has to wait for an address of its node's subnet.
			if wait := e.T - bound - kubeletStartDelay(sc).Seconds(); len(sc.Subnets) > 0 && wait > 1e-3 {
				line = fmt.Sprintf("running, after %s ContainerCreating: no free address in its node's subnet (spec.network) until then", fmtTime(wait))
			}
		case "podTerminating":
			line = "told to stop on " + e.Node
		case "podFinished":
			line = "finished: " + e.Cause
		case "podDeleted":
			line = "deleted: " + e.Cause + spotCause(entries, e) + disruptedNote(entries, e) + jobFailedNote(rep.Controllers.FailedJobs, e)
		case "volumeProvisioned":
			line = "volume provisioned for " + strings.TrimPrefix(e.Message, "claim ") + zoneIn(e.Zone)
		case "volumeAttached":
			line = e.Message
		case "karpenterNoLaunch":
			line = karpenterNoLaunch(e)
		case "caNoScaleUp":
			line = caNoScaleUp(e)
		default:
			line = e.Kind
		}
		s.Timeline = append(s.Timeline, Moment{T: e.T, Kind: e.Kind, Text: line})
	}
	var b strings.Builder
	whyVolumes(&b, sc, found)
	s.Volumes = b.String()
	b.Reset()
	whyNotRecreated(&b, sc, found, phases)
	s.NotRecreated = b.String()
	if len(launchedFor) == 0 && waited(found) {
		b.Reset()
		whyNothingCame(&b, sc, found, entries)
		s.NothingCame = b.String()
	}
	return s, nil
}

// String is the story as text, what Write writes.
func (s *Story) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Pod %s (%s), scenario %s, seed %d\n\n", s.Pod, s.Workload, s.Scenario, s.Seed)
	for _, m := range s.Timeline {
		fmt.Fprintf(&b, "  %9s  %s\n", fmtTime(m.T), m.Text)
	}
	b.WriteString(s.Volumes)
	b.WriteString(s.NotRecreated)
	if len(s.ProvisionedFor) > 0 {
		b.WriteString("\nProvisioned for it:\n")
		for _, l := range s.ProvisionedFor {
			fmt.Fprintf(&b, "  - %s\n", l)
		}
	} else {
		b.WriteString("\nNo autoscaler launched a node for it.\n")
		b.WriteString(s.NothingCame)
	}
	return b.String()
}

// Write writes the story as text to w.
func (s *Story) Write(w io.Writer) error {
	_, err := io.WriteString(w, s.String())
	return err
}

// fmtTime formats seconds of virtual time: 12.5s, 3m07s, 1h02m03s.
func fmtTime(s float64) string {
	switch {
	case s < 60:
		return fmt.Sprintf("%.1fs", s)
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%dh%02dm%02ds", int(s)/3600, (int(s)%3600)/60, int(s)%60)
}

func sample(s []string, n int) []string {
	if len(s) > n {
		return s[:n]
	}
	return s
}

// spotCause names what a spot signal had to do with a pod's deletion: a
// drain ahead of the reclaim (EKS, aws-node-termination-handler,
// Karpenter's interruption handling) after the node's notice or
// recommendation, or a reclaim that took the pod with its node.
func spotCause(entries []trace.Entry, del trace.Entry) string {
	if del.Node == "" {
		return ""
	}
	var signal *trace.Entry
	reclaimed := false
	for i := range entries {
		e := &entries[i]
		if e.T > del.T {
			break
		}
		if e.Node != del.Node {
			continue
		}
		switch e.Kind {
		case "interruptionNotice", "rebalanceRecommendation":
			signal = e
		case "instanceReclaimed":
			reclaimed = e.T == del.T
		}
	}
	what := func(e *trace.Entry) string {
		if e.Kind == "interruptionNotice" {
			return "spot interruption notice"
		}
		return "rebalance recommendation"
	}
	switch {
	case del.Cause == "evicted" && signal != nil:
		return fmt.Sprintf(" (a drain ahead of the reclaim: %s got a %s at %s)", del.Node, what(signal), fmtTime(signal.T))
	case del.Cause == "nodeGone" && reclaimed && signal != nil:
		return fmt.Sprintf(" (its spot instance was reclaimed with the pod still on it; the %s came at %s and nothing drained the node)", what(signal), fmtTime(signal.T))
	case del.Cause == "nodeGone" && reclaimed:
		return " (its spot instance was reclaimed with the pod still on it)"
	}
	return ""
}

// jobFailedNote says why the Job of a pod deleted as it failed did: the
// failed Job of the pod's workload, at that instant, whose name starts the
// pod's (the longest such, as Job names may be prefixes of one another).
// A pod the failed Job deleted says so; a pod lost at that moment (the
// loss that made it fail, or one with it) says the Job failed then.
func jobFailedNote(failed []report.FailedJob, del trace.Entry) string {
	var best *report.FailedJob
	for i := range failed {
		f := &failed[i]
		if f.Workload == del.Workload && math.Abs(f.AtSeconds-del.T) < 1e-3 && strings.HasPrefix(del.Pod, f.Job+"-") &&
			(best == nil || len(f.Job) > len(best.Job)) {
			best = f
		}
	}
	if best == nil {
		return ""
	}
	if del.Cause != cluster.CauseJobFailed.String() {
		return fmt.Sprintf(" (then its Job %s failed: %s)", best.Job, best.Reason)
	}
	return fmt.Sprintf(" (Job %s failed at %s: %s)", best.Job, fmtTime(best.AtSeconds), best.Reason)
}
