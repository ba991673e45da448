package scenario

import (
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/kubelet"
)

// nodeFailureSpec is one of spec.nodeFailures: nodes whose agents report
// an unhealthy condition (a bad AMI, a GPU fault), scripted (count or
// share of the matching nodes at a time) or at a rate per node-hour over
// a window.
type nodeFailureSpec struct {
	// At is when the failure happens (scripted) or the rate starts.
	At string `json:"at"`
	// For is how long a rate holds (default: to the end); not for a
	// scripted failure.
	For string `json:"for,omitempty"`
	// Condition is Type=Status: Ready=False, Ready=Unknown,
	// AcceleratedHardwareReady=False, StorageReady=False,
	// NetworkingReady=False, KernelReady=False, ContainerRuntimeReady=False.
	Condition string `json:"condition"`
	// One of Count, Share or RatePerNodeHour.
	Count           *int     `json:"count,omitempty"`
	Share           *float64 `json:"share,omitempty"`
	RatePerNodeHour *float64 `json:"ratePerNodeHour,omitempty"`
	// RecoverAfter clears the condition that long after it was set
	// (default: it lasts until the node is gone).
	RecoverAfter string `json:"recoverAfter,omitempty"`
	// Selectors; all empty: every Ready node.
	NodePools     []string `json:"nodePools,omitempty"`
	NodeGroups    []string `json:"nodeGroups,omitempty"`
	InstanceTypes []string `json:"instanceTypes,omitempty"`
	Zones         []string `json:"zones,omitempty"`
}

// compileNodeFailures turns spec.nodeFailures into the kubelet's failures.
func (l *loader) compileNodeFailures() {
	d := l.scenarioDoc
	for i, f := range l.doc.Spec.NodeFailures {
		path := fmt.Sprintf("spec.nodeFailures[%d]", i)
		out := kubelet.NodeFailure{
			At:            l.dur(path+".at", f.At, 0),
			For:           l.dur(path+".for", f.For, 0),
			RecoverAfter:  l.dur(path+".recoverAfter", f.RecoverAfter, 0),
			InstanceTypes: f.InstanceTypes,
			Zones:         f.Zones,
		}
		if f.At == "" {
			l.fail(d.Errorf(path+".at", "give the time of the failure, e.g. at: 2h", "missing at"))
		}
		c, ok := cluster.ParseNodeCondition(f.Condition)
		if !ok {
			l.fail(d.Errorf(path+".condition", "use one of "+strings.Join(cluster.NodeConditionNames(), ", "), "unknown condition %q", f.Condition))
		}
		out.Condition = c
		given := 0
		if f.Count != nil {
			given++
			out.Count = *f.Count
			if *f.Count < 1 {
				l.fail(d.Errorf(path+".count", "give the number of nodes that fail, e.g. count: 2", "count %d fails no node", *f.Count))
			}
		}
		if f.Share != nil {
			given++
			out.Share = *f.Share
			if !(*f.Share > 0 && *f.Share <= 1) {
				l.fail(d.Errorf(path+".share", "give a share of the matching nodes in (0, 1], e.g. share: 0.25", "share %v is not in (0, 1]", *f.Share))
			}
		}
		if f.RatePerNodeHour != nil {
			given++
			out.RatePerNodeHour = *f.RatePerNodeHour
			if !(*f.RatePerNodeHour > 0 && *f.RatePerNodeHour <= 60) {
				l.fail(d.Errorf(path+".ratePerNodeHour", "give failures per node-hour, e.g. 0.001 (one node in a thousand an hour)", "rate %v is not in (0, 60]", *f.RatePerNodeHour))
			}
		} else if f.For != "" {
			l.fail(d.Errorf(path+".for", "a scripted failure happens at once: give recoverAfter for how long it lasts, or ratePerNodeHour for failures over a window", "for is the window of a ratePerNodeHour"))
		}
		if given != 1 {
			l.fail(d.Errorf(path, "give one of count, share or ratePerNodeHour", "the failure needs exactly one of count, share or ratePerNodeHour (%d given)", given))
		}
		for j, z := range f.Zones {
			if !l.hasZone(z) {
				l.fail(d.Errorf(fmt.Sprintf("%s.zones[%d]", path, j), "use one of spec.zones: "+strings.Join(l.out.Zones, ", "), "zone %q is not in the scenario", z))
			}
		}
		for j, t := range f.InstanceTypes {
			if _, ok := l.cat.Lookup(t); !ok {
				l.fail(d.Errorf(fmt.Sprintf("%s.instanceTypes[%d]", path, j), "", "unknown instance type %q", t))
			}
		}
		add := func(list []string, field string, o int) {
			for j, n := range list {
				out.Owners = append(out.Owners, kubelet.FailureOwner{Owner: cluster.RegisterOwner(joinOwners[o].owner), Name: n})
				l.joinRefs = append(l.joinRefs, joinRef{path: fmt.Sprintf("%s.%s[%d]", path, field, j), owner: joinOwners[o].owner, name: n})
			}
		}
		add(f.NodePools, "nodePools", 0)
		add(f.NodeGroups, "nodeGroups", 1)
		l.out.NodeFailures = append(l.out.NodeFailures, out)
	}
}
