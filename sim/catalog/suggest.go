package catalog

import (
	"cmp"
	"slices"
	"strings"
)

// maxSuggestions is how many names Suggest returns at most.
const maxSuggestions = 3

// Suggest returns up to 3 known instance-type names close to name, best
// first, for "unknown instance type" messages. Candidates are names within
// an edit distance (optimal string alignment: insertions, deletions,
// substitutions and adjacent transpositions; case-insensitive) of
// max(2, len(name)/4). They are ranked by distance, then same family as
// name first, then longer common prefix with name, then alphabetically.
// When fewer than 3 are that close, the closest types of the same family
// fill the list. The result is nil when nothing matches. It is
// deterministic.
func Suggest(c *Catalog, name string) []string {
	if c == nil {
		return nil
	}
	q := strings.ToLower(strings.TrimSpace(name))
	if q == "" {
		return nil
	}
	qFamily, _, _ := strings.Cut(q, ".")
	limit := max(2, len(q)/4)

	type cand struct {
		name       string
		dist       int
		sameFamily bool
		prefix     int // length of the common prefix with q
	}
	var near, family []cand
	for _, it := range c.types {
		d := osaDistance(q, it.Name)
		x := cand{name: it.Name, dist: d, sameFamily: it.Family == qFamily, prefix: commonPrefixLen(q, it.Name)}
		switch {
		case d <= limit:
			near = append(near, x)
		case x.sameFamily:
			family = append(family, x)
		}
	}
	order := func(a, b cand) int {
		if d := cmp.Compare(a.dist, b.dist); d != 0 {
			return d
		}
		if a.sameFamily != b.sameFamily {
			if a.sameFamily {
				return -1
			}
			return 1
		}
		if d := cmp.Compare(b.prefix, a.prefix); d != 0 {
			return d
		}
		return strings.Compare(a.name, b.name)
	}
	slices.SortFunc(near, order)
	slices.SortFunc(family, order)
	var out []string
	for _, x := range append(near, family...) {
		if len(out) == maxSuggestions {
			break
		}
		out = append(out, x.name)
	}
	return out
}

// osaDistance is the optimal string alignment distance between a and b
// (bytes; instance-type names are ASCII).
func osaDistance(a, b string) int {
	// Three rolling rows: prev2 (i-2), prev (i-1), cur (i).
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

func commonPrefixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
