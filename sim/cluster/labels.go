package cluster

import (
	"maps"
	"slices"
	"sort"
)

// Label is one key=value pair.
type Label struct{ Key, Value Sym }

// Labels is a set of labels sorted by key, one value per key. Nodes carry
// a dozen or two, so a scan over int32 pairs beats a map.
type Labels []Label

// CompileLabels interns a label map into a sorted Labels.
func CompileLabels(syms *Symbols, m map[string]string) Labels {
	if len(m) == 0 {
		return nil
	}
	// Intern in key order: symbol numbers must not depend on map order.
	out := make(Labels, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, Label{syms.Intern(k), syms.Intern(m[k])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out
}

// Get returns the value of key.
func (ls Labels) Get(key Sym) (Sym, bool) {
	for _, l := range ls {
		if l.Key == key {
			return l.Value, true
		}
	}
	return NoSym, false
}

// Has reports whether key is present.
func (ls Labels) Has(key Sym) bool {
	_, ok := ls.Get(key)
	return ok
}

// With returns a copy with key set to value (replacing any old value).
func (ls Labels) With(key, value Sym) Labels {
	out := make(Labels, 0, len(ls)+1)
	done := false
	for _, l := range ls {
		if l.Key == key {
			out = append(out, Label{key, value})
			done = true
			continue
		}
		out = append(out, l)
	}
	if !done {
		out = append(out, Label{key, value})
		sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	}
	return out
}

// Without returns a copy without the given keys.
func (ls Labels) Without(keys ...Sym) Labels {
	out := make(Labels, 0, len(ls))
	for _, l := range ls {
		if !slices.Contains(keys, l.Key) {
			out = append(out, l)
		}
	}
	return out
}

// Map renders the labels back to strings (for reports and messages).
func (ls Labels) Map(syms *Symbols) map[string]string {
	m := make(map[string]string, len(ls))
	for _, l := range ls {
		m[syms.Name(l.Key)] = syms.Name(l.Value)
	}
	return m
}
