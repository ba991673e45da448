package scenario

import "github.com/clustersim/clustersim/sim/internal/suggest"

// Closest is the name among names that name is likely a typo of (at most
// three edits away, ignoring case), or "": the did-you-mean of a scenario
// name on the command line.
func Closest(name string, names []string) string {
	return suggest.Closest(name, names, 3)
}
