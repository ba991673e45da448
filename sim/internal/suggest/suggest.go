// Package suggest finds the likely intended name behind a typo, for the
// "did you mean" hints of input errors. It uses only the standard library so
// that every input package (manifest, catalog, scenario, the autoscalers'
// configuration) can share it.
package suggest

import "strings"

// Closest returns the candidate nearest to name by Distance, ignoring case,
// when it is at most maxEdits edits away; otherwise "". Ties go to the
// earlier candidate, so the caller's order decides them (sort the
// candidates for an alphabetical choice).
func Closest(name string, candidates []string, maxEdits int) string {
	best, bestDist := "", maxEdits+1
	lname := strings.ToLower(name)
	for _, c := range candidates {
		if d := Distance(lname, strings.ToLower(c)); d < bestDist {
			best, bestDist = c, d
		}
	}
	return best
}

// Distance is the Damerau-Levenshtein (optimal string alignment) distance
// between a and b, so a swapped pair of letters counts as one edit. Inputs
// are short names; very long ones are not compared (a large distance unless
// equal).
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 1 << 20
	}
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
