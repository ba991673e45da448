package cluster

import "strconv"

// Sym is an interned string: label keys and values, taint keys and values,
// zones. Comparing two Syms is comparing two strings of the same Symbols.
// Sym 0 is the empty string.
type Sym int32

// NoSym is the empty string; it is also the zero value.
const NoSym Sym = 0

// Symbols interns strings. Not safe for concurrent writes: one per cluster.
type Symbols struct {
	ids   map[string]Sym
	names []string
	// ints caches the decimal integer value of a symbol for Gt/Lt matching;
	// intOK says whether the symbol parses as one.
	ints  []int64
	intOK []bool
}

// NewSymbols returns a table holding only the empty string.
func NewSymbols() *Symbols {
	s := &Symbols{ids: map[string]Sym{"": NoSym}}
	s.names = append(s.names, "")
	s.ints = append(s.ints, 0)
	s.intOK = append(s.intOK, false)
	return s
}

// Intern returns the symbol of name, adding it if new.
func (s *Symbols) Intern(name string) Sym {
	if id, ok := s.ids[name]; ok {
		return id
	}
	id := Sym(len(s.names))
	s.ids[name] = id
	s.names = append(s.names, name)
	v, err := strconv.ParseInt(name, 10, 64)
	s.ints = append(s.ints, v)
	s.intOK = append(s.intOK, err == nil)
	return id
}

// Lookup returns the symbol of name without adding it.
func (s *Symbols) Lookup(name string) (Sym, bool) {
	id, ok := s.ids[name]
	return id, ok
}

// Name returns the string of a symbol.
func (s *Symbols) Name(id Sym) string { return s.names[id] }

// Int returns the symbol's value as a decimal int64, as Kubernetes parses
// label values for the Gt and Lt operators (strconv.ParseInt base 10).
func (s *Symbols) Int(id Sym) (int64, bool) { return s.ints[id], s.intOK[id] }

// Len is the number of symbols, the empty string included.
func (s *Symbols) Len() int { return len(s.names) }

// Clone returns an independent copy, so that parallel runs of one loaded
// scenario can each intern their own node names.
func (s *Symbols) Clone() *Symbols {
	c := &Symbols{ids: make(map[string]Sym, len(s.ids))}
	for k, v := range s.ids {
		c.ids[k] = v
	}
	c.names = append([]string(nil), s.names...)
	c.ints = append([]int64(nil), s.ints...)
	c.intOK = append([]bool(nil), s.intOK...)
	return c
}
