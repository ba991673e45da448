package main

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/simulation"
	"github.com/clustersim/clustersim/sim/trace"
)

func newExplainCmd(v *viper.Viper, stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain SCENARIO --pod NAME",
		Short: "Tell one pod's story: why it waited, who tried to provision for it, where it landed",
		Example: `  sim explain static-burst --pod render-7
  sim explain hybrid-naive --pod batch/render-12 --seed 3`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return explain(v, cmd, args[0], stdout)
		},
	}
	cmd.Flags().String("pod", "", "the pod: NAME or NAMESPACE/NAME (required)")
	cmd.Flags().Uint64("seed", 0, "override the scenario's seed")
	return cmd
}

func explain(v *viper.Viper, cmd *cobra.Command, arg string, stdout io.Writer) error {
	want := v.GetString("pod")
	if want == "" {
		return fmt.Errorf("--pod is required: give the pod's name as the report lists it (unschedulablePods[].pod)")
	}
	sc, err := loadScenario(cmd.Context(), arg)
	if err != nil {
		return err
	}
	seed := sc.Seed
	if s := seedOf(v, cmd); s != nil {
		seed = *s
	}
	var entries []trace.Entry
	var names []string
	var launchedFor []string
	var phases map[string]string
	matches := func(pod string) bool {
		return pod == want || strings.HasSuffix(pod, "/"+want)
	}
	opts := simulation.Options{
		Seed:    &seed,
		Context: cmd.Context(),
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
						joinNote(sc, node, entries))
				}
			}
		},
	}
	rep, err := simulation.Run(sc, opts)
	if err != nil {
		return err
	}
	if rep.Partial {
		return fmt.Errorf("%w: the run was stopped before its end, so the pod's story would be cut short", errSignal)
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
		return fmt.Errorf("no pod %q in this run (seed %d); pods are named like %s", want, seed, strings.Join(sample(names, 5), ", "))
	}
	if len(pods) > 1 {
		list := slices.Sorted(maps.Keys(pods))
		return fmt.Errorf("%q matches %d pods (%s): give NAMESPACE/NAME", want, len(list), strings.Join(list, ", "))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Pod %s (%s), scenario %s, seed %d\n\n", found[0].Pod, found[0].Workload, sc.Name, seed)
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
			if wait := e.T - bound - sc.PodStartDelay.Seconds(); len(sc.Subnets) > 0 && wait > 1e-3 {
				line = fmt.Sprintf("running, after %s ContainerCreating: no free address in its node's subnet (spec.network) until then", fmtTime(wait))
			}
		case "podTerminating":
			line = "told to stop on " + e.Node
		case "podFinished":
			line = "finished: " + e.Cause
		case "podDeleted":
			line = "deleted: " + e.Cause + spotCause(entries, e)
		case "volumeProvisioned":
			line = "volume provisioned for " + strings.TrimPrefix(e.Message, "claim ") + zoneIn(e.Zone)
		case "volumeAttached":
			line = e.Message
		case "karpenterNoLaunch":
			line = "Karpenter: " + e.Message
		case "caNoScaleUp":
			line = "Cluster Autoscaler: " + e.Message
		default:
			line = e.Kind
		}
		fmt.Fprintf(&b, "  %9s  %s\n", fmtTime(e.T), line)
	}
	whyVolumes(&b, sc, found)
	whyNotRecreated(&b, sc, found, phases)
	if len(launchedFor) > 0 {
		b.WriteString("\nProvisioned for it:\n")
		for _, l := range launchedFor {
			fmt.Fprintf(&b, "  - %s\n", l)
		}
	} else {
		b.WriteString("\nNo autoscaler launched a node for it.\n")
		if waited(found) {
			whyNothingCame(&b, sc, found, entries)
		}
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

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
