package config

import (
	"sort"
	"strings"

	"github.com/clustersim/clustersim/sim/manifest"
)

// suggest returns the candidate closest to name when it is close enough to
// be a likely typo (edit distance at most a quarter of the length, at least
// 1, at most 3), or "".
func suggest(name string, candidates []string) string {
	best, bestDist := "", 1<<30
	lname := strings.ToLower(name)
	for _, c := range candidates {
		d := manifest.EditDistance(lname, strings.ToLower(c))
		if d < bestDist || (d == bestDist && c < best) {
			best, bestDist = c, d
		}
	}
	limit := min(max(len(name)/4, 1), 3)
	if best == "" || bestDist > limit {
		return ""
	}
	return best
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
