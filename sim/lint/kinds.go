package lint

import (
	"fmt"
	"strconv"
	"strings"
)

// Severity of a finding.
type Severity uint8

// Severities, in increasing order.
const (
	Info Severity = iota
	Warning
	Error
)

var severityNames = [...]string{"info", "warning", "error"}

func (s Severity) String() string {
	if int(s) < len(severityNames) {
		return severityNames[s]
	}
	return "Severity(" + strconv.Itoa(int(s)) + ")"
}

// ParseSeverity reads info, warning or error.
func ParseSeverity(s string) (Severity, error) {
	for i, n := range severityNames {
		if strings.EqualFold(s, n) {
			return Severity(i), nil
		}
	}
	return 0, fmt.Errorf("unknown severity %q: use info, warning or error", s)
}

// MarshalText writes the name, so JSON has "warning".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads the name.
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// Finding is one problem (or one reassurance) with where it is and what to
// do about it.
type Finding struct {
	Severity Severity `json:"severity"`
	Kind     string   `json:"kind"`
	// Workload and Sources are what it concerns (Kind/namespace/name,
	// Source IDs), when it concerns them.
	Workload string   `json:"workload,omitempty"`
	Sources  []string `json:"sources,omitempty"`
	// File, Line and Path locate it: the manifest and the field path.
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
	Fix     string `json:"fix,omitempty"`
}

// Location is "file:line: path" with the parts known.
func (f *Finding) Location() string {
	var b strings.Builder
	if f.File != "" {
		b.WriteString(f.File)
		if f.Line > 0 {
			fmt.Fprintf(&b, ":%d", f.Line)
		}
	}
	if f.Path != "" {
		if b.Len() > 0 {
			b.WriteString(": ")
		}
		b.WriteString(f.Path)
	}
	return b.String()
}

// Finding kinds. The message templates are in findings.go.
const (
	// KindUnhostable (error): no capacity source can ever host the
	// workload: its pods are stranded by construction. A warning when its
	// resubmit fallback can run (every pod waits for the resubmission).
	// Without any capacity source, one finding names every workload.
	KindUnhostable = "unhostable"
	// KindSpotOnly (warning): only spot capacity can host the workload and
	// it has no fallback (a resubmit spec or split twin that can run on
	// on-demand): it strands when spot runs dry.
	KindSpotOnly = "spot-only-no-fallback"
	// KindSpotFallback (info): only spot capacity can host the workload,
	// and its fallback can land on on-demand capacity.
	KindSpotFallback = "spot-fallback"
	// KindRace (warning): both a Karpenter NodePool and a Cluster
	// Autoscaler node group would provision for the workload's pending
	// pods: the two autoscalers race and may both launch.
	KindRace = "autoscaler-race"
	// KindSeparated (info): Karpenter and the Cluster Autoscaler both run
	// and never provision for the same workload.
	KindSeparated = "autoscalers-separated"
	// KindOverlap (warning): a workload meant for one kind of capacity
	// (it tolerates that capacity's taint, or selects a label) can also
	// land on capacity of another kind.
	KindOverlap = "overlap"
	// KindTemplateMismatch (warning): the Cluster Autoscaler would scale a
	// group up for the workload (its template matches) but the pods
	// cannot run on the nodes the group adds.
	KindTemplateMismatch = "template-mismatch"
	// KindVolumeZone (warning; error for a bound volume): the workload's
	// pods keep zonal volumes (EBS), and in a zone where a pod's volume
	// may be no capacity source would add a node for it (a node group's
	// template node is in another zone, no NodePool allows the zone).
	KindVolumeZone = "volume-zone"
	// KindSelectsNothing (warning; error for required pod affinity): a
	// required pod (anti-)affinity term or a DoNotSchedule spread
	// constraint whose labelSelector matches no pod of the scenario, not
	// even the workload's own: anti-affinity and spread then keep nothing
	// apart, and affinity never holds. Often a label renamed in the
	// template and not in the selector.
	KindSelectsNothing = "selector-selects-nothing"
	// KindSpotFlexibility (warning): the workload can use fewer spot
	// instance types than AWS recommends (AWSMinSpotTypes).
	KindSpotFlexibility = "spot-flexibility"
	// KindSpotToSpot (warning): with the SpotToSpotConsolidation feature
	// gate on, a NodePool gives the workload fewer spot instance types
	// than spot-to-spot consolidation needs (Settings.SpotToSpotMinTypes).
	KindSpotToSpot = "spot-to-spot-flexibility"
	// KindObsolete (warning; error when the scenario does not load, or
	// for a kind that never existed in its apiVersion, such as a
	// karpenter.sh/v1beta1 Provisioner, which the API server refuses): a
	// v1alpha5/v1beta1 field or form, with its karpenter.sh/v1 equivalent.
	KindObsolete = "obsolete-setting"
	// KindStartupFailure (error): a setting the real component stops on at
	// startup, which the simulator runs anyway (the Cluster Autoscaler's
	// price expander on AWS, whose provider has no pricing model).
	KindStartupFailure = "startup-failure"
	// KindIneffective (warning): a setting the component it addresses
	// ignores (a do-not-consolidate taint, a taint tag the Cluster
	// Autoscaler skips, ...).
	KindIneffective = "ineffective-setting"
	// KindUnknownLabel (warning): a NodePool requirement on a label key no
	// instance type has and that is neither well-known nor one of the
	// pool's template labels: it narrows nothing (Karpenter accepts it as
	// a custom label and only copies it to the node), so a mistyped key
	// silently matches every instance type.
	KindUnknownLabel = "unknown-label"
	// KindNotSimulated (warning): a capacity source left out because the
	// simulator does not model what it launches (a NodePool of Windows
	// nodes): the rest of the cluster is simulated without it.
	KindNotSimulated = "not-simulated"
	// KindInput (info): any other loader warning, and the loader's notes:
	// kinds skipped (one finding per kind), identical copies read once,
	// the Cluster Autoscaler's flags read from its Deployment.
	KindInput = "input-warning"
	// KindInvalid (error): the scenario does not load.
	KindInvalid = "invalid"
)
