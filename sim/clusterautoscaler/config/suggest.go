package config

import (
	"slices"

	"github.com/clustersim/clustersim/sim/internal/suggest"
)

// closestName returns the candidate closest to name when it is close enough
// to be a likely typo (edit distance at most a quarter of the length, at
// least 1, at most 3), or "". A tie goes to the alphabetically first.
func closestName(name string, candidates []string) string {
	return suggest.Closest(name, slices.Sorted(slices.Values(candidates)), min(max(len(name)/4, 1), 3))
}
