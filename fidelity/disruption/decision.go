package disruptionfidelity

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Method names as both sides are reported: our events' spelling.
const (
	MethodNone       = "none"
	MethodEmptiness  = "emptiness"
	MethodDrift      = "drift"
	MethodMultiNode  = "multi-node consolidation"
	MethodSingleNode = "single-node consolidation"
	MethodExpiration = "expiration"
	// Upstream only (v1.15 methods our model does not have).
	MethodStaticDrift = "static drift"
	MethodRepair      = "repair"
)

// Decision is one disruption command in side-neutral terms.
type Decision struct {
	Method string
	// Reason is upstream's disruption reason (Empty, Drifted,
	// Underutilized, Expired).
	Reason string
	// Candidates are the nodes' names, sorted.
	Candidates []string
	// Replacements are the new NodeClaims, cheapest first.
	Replacements []Replacement
	// At is when it was decided, after the state's time.
	At time.Duration
}

// Replacement is a new NodeClaim of a command.
type Replacement struct {
	Pool         string
	CapacityType string // "spot", "on-demand" or "spot,on-demand"
	// Types are its instance types, cheapest first (ours lists at most
	// ten).
	Types []string
	// Cheapest is the price of its cheapest offering, USD per hour.
	Cheapest float64
}

// None is no decision within the horizon.
func (d Decision) None() bool { return d.Method == "" || d.Method == MethodNone }

func (d Decision) String() string {
	if d.None() {
		return "none"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s [%s]", d.Method, d.Reason, strings.Join(d.Candidates, " "))
	for _, r := range d.Replacements {
		n := len(r.Types)
		if n > 3 {
			n = 3
		}
		fmt.Fprintf(&b, " +%s/%s(%s.. $%.4f)", r.Pool, r.CapacityType, strings.Join(r.Types[:n], ","), r.Cheapest)
	}
	fmt.Fprintf(&b, " @%s", d.At)
	return b.String()
}

// sortedCopy returns the names sorted.
func sortedCopy(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
