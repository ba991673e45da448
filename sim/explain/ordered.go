package explain

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/trace"
	"github.com/clustersim/clustersim/sim/workload"
)

// endPhases records, at the end of the run, the state of every live pod
// by namespace/name: what whyNotRecreated reads. A Running pod of an
// OrderedReady StatefulSet that is not available yet (not Ready by its
// probes, or not for minReadySeconds: workload.Spec.ReadyAfter, MinReady)
// says so.
func endPhases(cl *cluster.Cluster, ws []workload.Spec) map[string]string {
	out := map[string]string{}
	for i := range cl.Pods {
		p := &cl.Pods[i]
		if p.Phase.Terminal() {
			continue
		}
		state := p.Phase.String()
		switch {
		case p.Terminating:
			state = "Terminating"
		case p.Phase == cluster.Running && p.Workload >= 0 && int(p.Workload) < len(ws):
			w := &ws[p.Workload]
			if !orderedReady(w) {
				break
			}
			if up := cl.Now() - p.Started; up < w.ReadyAfter {
				state = fmt.Sprintf("Running but not Ready yet (its probes pass %v after its start)", w.ReadyAfter)
			} else if up < w.ReadyAfter+w.MinReady {
				state = fmt.Sprintf("Running and Ready but not yet for minReadySeconds (%v)", w.MinReady)
			}
		}
		out[cl.Syms.Name(p.Namespace)+"/"+p.Name] = state
	}
	return out
}

// whyNotRecreated explains a StatefulSet replica that was lost and not
// created again by the end of the run: with podManagementPolicy
// OrderedReady the controller creates it only once every lower ordinal is
// Running and Ready, and names the first lower ordinal that was not.
func whyNotRecreated(b *strings.Builder, sc *scenario.Scenario, found []trace.Entry, phases map[string]string) {
	last := found[len(found)-1]
	for i := len(found) - 1; i >= 0; i-- {
		if k := found[i].Kind; k == "podCreated" || k == "podDeleted" || k == "podFinished" {
			last = found[i]
			break
		}
	}
	if last.Kind != "podDeleted" || last.Cause == cluster.CauseScaleDown.String() {
		return
	}
	var w *workload.Spec
	for i := range sc.Workloads {
		if sc.Workloads[i].Ref() == last.Workload {
			w = &sc.Workloads[i]
		}
	}
	if w == nil || !orderedReady(w) {
		return
	}
	ns, name, _ := strings.Cut(last.Pod, "/")
	rest, ok := strings.CutPrefix(name, w.Name+"-")
	ord, err := strconv.Atoi(rest)
	if !ok || err != nil {
		return
	}
	for k := range ord {
		lower := fmt.Sprintf("%s/%s-%d", ns, w.Name, k)
		state, live := phases[lower]
		if live && state == cluster.Running.String() {
			continue
		}
		if !live {
			state = "missing too"
		}
		fmt.Fprintf(b, "\nNot created again by the end: %s has podManagementPolicy OrderedReady, which creates a replica only once every lower ordinal is Running and Ready, and %s was %s at the end.\n",
			last.Workload, lower, strings.ToLower(state[:1])+state[1:])
		return
	}
}
