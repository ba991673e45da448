package catalog

import (
	"cmp"
	"slices"
	"strings"

	"github.com/clustersim/clustersim/sim/internal/suggest"
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
		d := suggest.Distance(q, it.Name)
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

func commonPrefixLen(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
