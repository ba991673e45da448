package manifest

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// This file holds the helpers that look at yaml.Node trees: alias resolution,
// mapping entries with "<<" merge keys, the expansion budget, and field paths.

// expander resolves aliases and merge keys under a budget. YAML aliases let a
// tiny file describe an exponentially large tree ("billion laughs"); yaml.v3
// only guards against that when decoding into Go values, not when it hands us
// the node tree, so every node we visit is charged against the budget.
type expander struct {
	budget    int  // remaining units; see nodeCost
	exhausted bool // budget ran out; callers stop and report once
}

// nodeCost approximates the bytes a node turns into when converted to JSON.
func nodeCost(n *yaml.Node) int { return 16 + len(n.Value) }

// charge takes cost from the budget; false means the budget is exhausted.
func (x *expander) charge(cost int) bool {
	if x.exhausted {
		return false
	}
	x.budget -= cost
	if x.budget < 0 {
		x.exhausted = true
		return false
	}
	return true
}

// treeCost is the cost of the tree as written, without following aliases. A
// document may expand (through aliases) to at most a bounded multiple of
// that, see expansionLimit.
func treeCost(n *yaml.Node) int {
	total := 0
	stack := []*yaml.Node{n}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if n == nil {
			continue
		}
		total += nodeCost(n)
		if n.Kind != yaml.AliasNode {
			stack = append(stack, n.Content...)
		}
	}
	return total
}

// expansionLimit is the budget for walking a document whose tree costs cost:
// the tree itself plus generous room for legitimate anchors and merges.
func expansionLimit(cost int) int {
	return cost + max(2*cost, 4<<20)
}

// resolve follows aliases to the node they stand for. It returns nil for a
// dangling alias (yaml.v3 rejects those while parsing, but a Document may be
// built by hand).
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && n.Kind == yaml.AliasNode; i++ {
		if i > MaxDepth {
			return nil
		}
		n = n.Alias
	}
	return n
}

// MappingValue returns the value under key in mapping n as written, or nil
// when n is not a mapping or has no such key. It follows neither aliases nor
// merge keys: callers that look into a document's tree before decoding
// (for line numbers, or for obsolete fields) use it.
func MappingValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// Lookup follows mapping keys from n, starting inside a document node,
// through aliases (merge keys are not followed); nil when a key is missing
// or a step is not a mapping. The node returned is resolved too (with no
// keys, n itself resolved). For
// reading a document's tree as data (a controller's env and args), not for
// positions: an alias's value has its anchor's line.
func Lookup(n *yaml.Node, keys ...string) *yaml.Node {
	n = resolve(n)
	if n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = resolve(n.Content[0])
	}
	for _, k := range keys {
		n = resolve(MappingValue(n, k))
	}
	return n
}

// Scalar is n's value when it is (or aliases) a scalar, else "".
func Scalar(n *yaml.Node) string {
	if n = resolve(n); n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// Scalars reads a sequence of scalars (through aliases). No node or null
// is an empty list; ok is false for anything else.
func Scalars(n *yaml.Node) (values []string, ok bool) {
	n = resolve(n)
	if n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null") {
		return nil, true
	}
	if n.Kind != yaml.SequenceNode {
		return nil, false
	}
	out := make([]string, 0, len(n.Content))
	for _, e := range n.Content {
		if e = resolve(e); e == nil || e.Kind != yaml.ScalarNode {
			return nil, false
		}
		out = append(out, e.Value)
	}
	return out, true
}

// isMergeKey reports whether k is the YAML merge key "<<" (unquoted).
func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge"
}

// entry is one key: value pair of a mapping, after merge keys are applied.
type entry struct {
	name string     // the key as text
	key  *yaml.Node // the key node (its line is the line we report)
	val  *yaml.Node // the value; may be an alias
}

// problemFunc receives problems found in a mapping: the key concerned ("" for
// the mapping itself), the line, a message and a hint.
type problemFunc func(key string, line int, msg, hint string)

// entries returns the effective entries of mapping m in order: its own keys,
// then keys merged in with "<<" that m does not define itself (earlier merge
// sources win over later ones, as in the YAML merge key spec). Duplicate own
// keys, non-text keys and malformed merges go to report (if not nil); only
// the first of duplicate keys is kept.
func (x *expander) entries(m *yaml.Node, depth int, report problemFunc) []entry {
	if report == nil {
		report = func(string, int, string, string) {}
	}
	if depth > MaxDepth {
		report("", m.Line, depthMsg, depthHint)
		return nil
	}
	if !x.charge(16) {
		return nil
	}
	out := make([]entry, 0, len(m.Content)/2)
	var seen map[string]int // name -> line, built lazily for bigger mappings
	lookup := func(name string) (int, bool) {
		if seen != nil {
			line, ok := seen[name]
			return line, ok
		}
		for _, e := range out {
			if e.name == name {
				return e.key.Line, true
			}
		}
		return 0, false
	}
	remember := func(e entry) {
		out = append(out, e)
		if seen == nil && len(out) > 16 {
			seen = make(map[string]int, len(m.Content)/2)
			for _, e := range out {
				seen[e.name] = e.key.Line
			}
		} else if seen != nil {
			seen[e.name] = e.key.Line
		}
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := resolve(m.Content[i]), m.Content[i+1]
		if k == nil {
			continue
		}
		if k.Kind != yaml.ScalarNode {
			hint := "check the indentation, or quote the key"
			if helmBraces(m) {
				hint = helmHint
			}
			report("", k.Line, "a key must be plain text, not a "+kindName(k), hint)
			continue
		}
		if isMergeKey(k) {
			merges = append(merges, m.Content[i+1])
			continue
		}
		if first, dup := lookup(k.Value); dup {
			report(k.Value, k.Line, "duplicate key "+strconv.Quote(k.Value)+" (first defined on line "+strconv.Itoa(first)+")",
				"remove one of them: only one value can be kept, the other would be silently lost")
			continue
		}
		remember(entry{name: k.Value, key: k, val: v})
	}
	// Problems inside merge sources are reported where the source is
	// defined; only runaway nesting (a source that merges itself) is
	// reported here.
	nested := func(key string, line int, msg, hint string) {
		if msg == depthMsg {
			report(key, line, msg, hint)
		}
	}
	for _, src := range merges {
		line := src.Line
		src = resolve(src)
		var maps []*yaml.Node
		switch {
		case src == nil:
		case src.Kind == yaml.MappingNode:
			maps = []*yaml.Node{src}
		case src.Kind == yaml.SequenceNode:
			for _, item := range src.Content {
				if it := resolve(item); it != nil && it.Kind == yaml.MappingNode {
					maps = append(maps, it)
				} else {
					maps = nil
					break
				}
			}
		}
		if maps == nil {
			report("<<", line, "a merge key (<<) needs a mapping or a list of mappings", "write <<: *anchor where &anchor names a mapping")
			continue
		}
		for _, mm := range maps {
			for _, e := range x.entries(mm, depth+1, nested) {
				if !x.charge(16) {
					return out
				}
				if _, dup := lookup(e.name); !dup {
					remember(e)
				}
			}
		}
	}
	return out
}

// kindName describes a node's kind for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	case yaml.AliasNode:
		return "alias"
	case yaml.DocumentNode:
		return "document"
	}
	return "value"
}

const (
	depthMsg  = "nested more than 100 levels deep"
	depthHint = "real Kubernetes objects nest far less; check for runaway indentation or an anchor that includes itself"
)

// Field paths: struct fields and simple map keys are joined with dots, list
// items are [N], and map keys that are not simple identifiers (such as the
// label key app.kubernetes.io/name) are quoted: metadata.labels["app.kubernetes.io/name"].

// joinKey appends a mapping key to a path.
func joinKey(path, key string) string {
	if !simpleKey(key) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// joinIndex appends a list index to a path.
func joinIndex(path string, i int) string {
	return path + "[" + strconv.Itoa(i) + "]"
}

func simpleKey(key string) bool {
	if key == "" {
		return false
	}
	for i, r := range key {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r == '_', r == '$':
		case (r >= '0' && r <= '9') || r == '-':
			if i == 0 {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// pathSeg is one step of a parsed field path: a key, or an index when isIndex.
type pathSeg struct {
	key     string
	index   int
	isIndex bool
}

// parsePath parses a path written by joinKey/joinIndex. It also accepts the
// Kubernetes style [key] for map keys. ok is false for malformed paths.
func parsePath(path string) (segs []pathSeg, ok bool) {
	i := 0
	for i < len(path) {
		switch path[i] {
		case '.':
			if i == 0 || i+1 >= len(path) {
				return nil, false
			}
			i++
			continue
		case '[':
			end := -1
			if i+1 < len(path) && path[i+1] == '"' {
				// Quoted key: find the closing quote, skipping escapes.
				for j := i + 2; j < len(path); j++ {
					if path[j] == '\\' {
						j++
						continue
					}
					if path[j] == '"' {
						end = j + 1
						break
					}
				}
				if end < 0 || end >= len(path) || path[end] != ']' {
					return nil, false
				}
				key, err := strconv.Unquote(path[i+1 : end])
				if err != nil {
					return nil, false
				}
				segs = append(segs, pathSeg{key: key})
				i = end + 1
				continue
			}
			end = strings.IndexByte(path[i:], ']')
			if end < 0 {
				return nil, false
			}
			inner := path[i+1 : i+end]
			if n, err := strconv.Atoi(inner); err == nil && n >= 0 {
				segs = append(segs, pathSeg{index: n, isIndex: true})
			} else {
				segs = append(segs, pathSeg{key: inner})
			}
			i += end + 1
			continue
		}
		j := i
		for j < len(path) && path[j] != '.' && path[j] != '[' {
			j++
		}
		segs = append(segs, pathSeg{key: path[i:j]})
		i = j
	}
	return segs, true
}
