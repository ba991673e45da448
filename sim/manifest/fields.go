package manifest

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/clustersim/clustersim/sim/internal/suggest"
)

// field is one JSON-visible field of a struct, as encoding/json sees it.
type field struct {
	name   string
	typ    reflect.Type
	quoted bool // `json:",string"`
	index  []int
	tagged bool
}

// structInfo lists the JSON field names of a struct type.
type structInfo struct {
	byName map[string]*field
	names  []string // sorted, for suggestions
}

var structCache sync.Map // reflect.Type -> *structInfo

// fieldsOf returns the JSON fields of struct type t following encoding/json's
// rules: json tag names, untagged exported names, fields of embedded structs
// (with or without `json:",inline"`) promoted, "-" skipped, and among equal
// names the shallowest (then the tagged) one wins, ambiguous ones vanish.
// Matching is exact and case-sensitive, like the Kubernetes API server's
// strict decoding (encoding/json itself would also accept "Replicas").
func fieldsOf(t reflect.Type) *structInfo {
	if v, ok := structCache.Load(t); ok {
		return v.(*structInfo)
	}
	type queued struct {
		typ   reflect.Type
		index []int
	}
	var all []field
	current, next := []queued{}, []queued{{typ: t}}
	visited := map[reflect.Type]bool{}
	for len(next) > 0 {
		current, next = next, nil
		count := map[reflect.Type]int{}
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := 0; i < q.typ.NumField(); i++ {
				sf := q.typ.Field(i)
				if sf.Anonymous {
					ft := sf.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if !sf.IsExported() && ft.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				index := append(append([]int(nil), q.index...), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					quoted := false
					for _, o := range strings.Split(opts, ",") {
						if o == "string" {
							switch ft.Kind() {
							case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
								reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
								reflect.Float32, reflect.Float64, reflect.String:
								quoted = true
							}
						}
					}
					f := field{name: name, typ: sf.Type, quoted: quoted, index: index, tagged: name != ""}
					if f.name == "" {
						f.name = sf.Name
					}
					all = append(all, f)
					continue
				}
				count[ft]++
				if count[ft] == 1 {
					next = append(next, queued{typ: ft, index: index})
				}
			}
		}
	}
	// Dominant field per name: shortest index, then tagged; ties vanish.
	sort.SliceStable(all, func(i, j int) bool {
		if all[i].name != all[j].name {
			return all[i].name < all[j].name
		}
		if len(all[i].index) != len(all[j].index) {
			return len(all[i].index) < len(all[j].index)
		}
		return all[i].tagged && !all[j].tagged
	})
	info := &structInfo{byName: map[string]*field{}}
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		group := all[i:j]
		dominant := true
		if len(group) > 1 && len(group[1].index) == len(group[0].index) && group[1].tagged == group[0].tagged {
			dominant = false
		}
		if dominant {
			f := group[0]
			info.byName[f.name] = &f
			info.names = append(info.names, f.name)
		}
		i = j
	}
	v, _ := structCache.LoadOrStore(t, info)
	return v.(*structInfo)
}

// suggestField returns the known field closest to name, if it is close enough
// to be a likely typo: same letters in another case, or a small edit distance
// relative to the length (1 below 5 letters, 2 below 10, else 3). A tie goes
// to the field declared first.
func suggestField(name string, names []string) string {
	maxEdits := 1
	switch l := len(name); {
	case l >= 10:
		maxEdits = 3
	case l >= 5:
		maxEdits = 2
	}
	return suggest.Closest(name, names, maxEdits)
}

// findDeeper looks for a field called name up to maxHops struct levels below
// struct type t (through struct and pointer fields only) and returns the
// relative path of the shallowest match, e.g. "template.spec.containers" for
// "containers" under a DeploymentSpec. This catches the most common manifest
// mistake: a correct field at the wrong indentation.
func findDeeper(t reflect.Type, name string, maxHops int) string {
	type item struct {
		typ  reflect.Type
		path string
	}
	level := []item{{typ: t}}
	seen := map[reflect.Type]bool{t: true}
	for hop := 0; hop < maxHops && len(level) > 0; hop++ {
		var next []item
		for _, it := range level {
			info := fieldsOf(it.typ)
			if hop > 0 {
				if _, ok := info.byName[name]; ok {
					return joinKey(it.path, name)
				}
			}
			for _, fn := range info.names {
				ft := info.byName[fn].typ
				for ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() != reflect.Struct || seen[ft] || isOpaque(ft) {
					continue
				}
				seen[ft] = true
				next = append(next, item{typ: ft, path: joinKey(it.path, fn)})
			}
		}
		level = next
	}
	return ""
}

// listFields renders up to max field names for a hint, or "" if there are
// more (a list of 40 PodSpec fields helps nobody).
func listFields(names []string, max int) string {
	if len(names) == 0 || len(names) > max {
		return ""
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
