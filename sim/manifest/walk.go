package manifest

import (
	"bytes"
	"encoding"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Decode works in two steps. First a strict walk over the yaml.Node tree,
// guided by the Go type, checks every key and value (this is where line
// numbers and field paths are known) and writes the document out as JSON.
// Then encoding/json decodes that JSON into the Go value, so types with
// custom UnmarshalJSON (Quantity, IntOrString, metav1.Time, RawExtension,
// apiextensions JSON) behave exactly as they do in Kubernetes.

var (
	quantityType      = reflect.TypeFor[resource.Quantity]()
	intOrStringType   = reflect.TypeFor[intstr.IntOrString]()
	timeType          = reflect.TypeFor[metav1.Time]()
	microTimeType     = reflect.TypeFor[metav1.MicroTime]()
	durationType      = reflect.TypeFor[metav1.Duration]()
	jsonNumberType    = reflect.TypeFor[json.Number]()
	resourceNameType  = reflect.TypeFor[corev1.ResourceName]()
	jsonUnmarshaler   = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerTy = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// isOpaque reports whether t decodes itself from JSON (UnmarshalJSON). Such
// values are converted to JSON as they are and then validated by their own
// UnmarshalJSON; we cannot know their fields.
func isOpaque(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(jsonUnmarshaler)
}

func isTextUnmarshaler(t reflect.Type) bool {
	return t.Implements(textUnmarshalerTy) || reflect.PointerTo(t).Implements(textUnmarshalerTy)
}

// walker does one strict walk over a document. With discard set it only
// checks structure (nesting, duplicate keys, merges, aliases) and writes
// nothing; ReadBytes uses that on every document.
type walker struct {
	expander
	file      string
	discard   bool
	out       []byte
	errs      errList
	tooDeep   bool       // depth error already reported
	ancestors []ancestor // structs on the current path, for misplaced-field hints
}

type ancestor struct {
	typ  reflect.Type
	path string
}

// walkMode is what a walk does: check the structure only, or also decode.
type walkMode bool

const (
	checkOnly      walkMode = true
	checkAndDecode walkMode = false
)

func newWalker(file string, cost int, mode walkMode) *walker {
	return &walker{file: file, discard: mode == checkOnly, expander: expander{budget: expansionLimit(cost)}}
}

// finish reports an exhausted budget, once, at the document.
func (w *walker) finish(line int) {
	if w.exhausted {
		w.errs.add(&Error{File: w.file, Line: line,
			Msg:  "the document expands to too much data through aliases (*name) or merge keys (<<)",
			Hint: "aliases are limited so that a small file cannot exhaust memory; write the repeated parts out, or use fewer aliases"})
	}
}

func (w *walker) fail(path string, line int, msg, hint string) {
	w.errs.add(&Error{File: w.file, Line: line, Path: path, Msg: msg, Hint: hint})
}

func (w *walker) deep(path string, line int) {
	if !w.tooDeep {
		w.tooDeep = true
		// A path 100 levels deep is unreadable; its start locates it.
		if len(path) > 60 {
			path = strings.ToValidUTF8(path[:60], "") + "..."
		}
		w.fail(path, line, depthMsg, depthHint)
	}
}

// reporter turns mapping problems into errors under path.
func (w *walker) reporter(path string) problemFunc {
	return func(key string, line int, msg, hint string) {
		if msg == depthMsg {
			w.deep(path, line)
			return
		}
		p := path
		if key != "" {
			p = joinKey(path, key)
		}
		w.fail(p, line, msg, hint)
	}
}

func (w *walker) raw(s string) {
	if !w.discard {
		w.out = append(w.out, s...)
	}
}

func (w *walker) str(s string) {
	if !w.discard {
		w.out = appendJSONString(w.out, s)
	}
}

func (w *walker) null() { w.raw("null") }

// value walks node n, to be decoded into type t (nil: anything), at path.
// line is the line to report for n: its key's line for a mapping entry.
func (w *walker) value(n *yaml.Node, t reflect.Type, path string, line int, depth int) {
	if w.exhausted {
		w.null()
		return
	}
	r := resolve(n)
	if r == nil {
		w.fail(path, line, "an alias (*name) refers to nothing", "define the anchor (&name) before the alias, in the same document")
		w.null()
		return
	}
	n = r
	if !w.charge(nodeCost(n)) {
		w.null()
		return
	}
	if (n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode) && depth > MaxDepth {
		w.deep(path, line)
		w.null()
		return
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			w.null()
			return
		}
		w.value(n.Content[0], t, path, line, depth)
		return
	}
	if t == nil {
		w.any(n, path, line, depth)
		return
	}
	if isNull(n) {
		// null leaves the field at its zero value, as in Kubernetes.
		w.null()
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == quantityType:
		w.quantity(n, path, line)
		return
	case t == jsonNumberType:
		w.number(n, path, line)
		return
	case isOpaque(t):
		w.opaque(n, t, path, line, depth)
		return
	case isTextUnmarshaler(t):
		w.text(n, t, path, line)
		return
	}
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() != 0 {
			w.internal(path, line, t)
			return
		}
		w.any(n, path, line, depth)
	case reflect.Struct:
		w.object(n, t, path, line, depth)
	case reflect.Map:
		w.mapping(n, t, path, line, depth)
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Uint8 {
			w.bytes(n, path, line)
			return
		}
		w.list(n, t, path, line, depth)
	case reflect.Array:
		w.list(n, t, path, line, depth)
	case reflect.String:
		w.stringValue(n, path, line)
	case reflect.Bool:
		w.boolValue(n, path, line)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		w.intValue(n, t, path, line)
	case reflect.Float32, reflect.Float64:
		w.floatValue(n, t, path, line)
	default:
		w.internal(path, line, t)
	}
}

func (w *walker) internal(path string, line int, t reflect.Type) {
	w.fail(path, line, fmt.Sprintf("internal error: cannot decode into Go type %s", t), "this is a bug in clustersim; please report it")
	w.null()
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe shows a node the way a user would recognize it in their file.
func describe(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		v := n.Value
		if utf8.RuneCountInString(v) > 40 {
			v = string([]rune(v)[:40]) + "..."
		}
		switch n.ShortTag() {
		case "!!str":
			return strconv.Quote(v)
		case "!!null":
			return "null"
		}
		if strings.ContainsAny(v, "\n\r\t\"") {
			return strconv.Quote(v)
		}
		return v
	}
	return "a " + kindName(n)
}

// mismatch reports a value of the wrong type: "cannot use X as WHAT (want WANT)".
func (w *walker) mismatch(n *yaml.Node, path string, line int, what, want, hint string) {
	if w.errs.full() {
		w.errs.more++
		w.null()
		return
	}
	msg := "cannot use " + describe(n) + " as " + what
	if want != "" {
		msg += " (want " + want + ")"
	}
	w.fail(path, line, msg, hint)
	w.null()
}

const (
	wantMapping = "key: value fields"
	wantList    = `items starting with "- "`
)

func (w *walker) object(n *yaml.Node, t reflect.Type, path string, line int, depth int) {
	if n.Kind != yaml.MappingNode {
		w.mismatch(n, path, line, "a mapping", wantMapping, shapeHint(n))
		return
	}
	info := fieldsOf(t)
	w.ancestors = append(w.ancestors, ancestor{typ: t, path: path})
	defer func() { w.ancestors = w.ancestors[:len(w.ancestors)-1] }()
	w.raw("{")
	first := true
	for _, e := range w.entries(n, depth, w.reporter(path)) {
		p := joinKey(path, e.name)
		f := info.byName[e.name]
		if f == nil {
			w.unknown(e, t, info, path, p)
			continue
		}
		w.member(&first, e.name)
		if f.quoted {
			w.quotedField(e.val, f.typ, p, e.key.Line, depth+1)
			continue
		}
		w.value(e.val, f.typ, p, e.key.Line, depth+1)
	}
	w.raw("}")
}

// member writes an object member's key: a comma before all but the first,
// the quoted name and a colon.
func (w *walker) member(first *bool, name string) {
	if !*first {
		w.raw(",")
	}
	*first = false
	w.str(name)
	w.raw(":")
}

// shapeHint explains the usual cause of a scalar where a mapping or list was
// expected.
func shapeHint(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode {
		return "check the indentation: the fields of this value go on the following lines, indented further"
	}
	return ""
}

// unknown reports a key that is not a field, with the most helpful hint we
// can find: a close spelling, the same field further down (indented too
// little), the list of valid fields when it is short, or the same field
// further up (indented too much).
func (w *walker) unknown(e entry, t reflect.Type, info *structInfo, parent, p string) {
	if w.errs.full() {
		w.errs.more++
		return
	}
	msg := fmt.Sprintf("unknown field %q", e.name)
	hint := ""
	if s := suggestField(e.name, info.names); s != "" {
		hint = fmt.Sprintf("did you mean %q?", s)
	} else if rel := findDeeper(t, e.name, 4); rel != "" {
		hint = fmt.Sprintf("%q belongs under %s; check the indentation", e.name, joinPathTo(parent, rel, e.name))
	} else if list := listFields(info.names, 12); list != "" {
		hint = "valid fields here: " + list
	} else if anc, ok := w.ancestorWith(e.name); ok {
		where := anc
		if where == "" {
			where = "the top level of the document"
		}
		hint = fmt.Sprintf("%q belongs under %s; check the indentation", e.name, where)
	}
	w.fail(p, e.key.Line, msg, hint)
}

// joinPathTo returns the path of the struct holding name, given the path of
// the current struct and the relative path of the field found below it.
func joinPathTo(parent, rel, name string) string {
	holder := strings.TrimSuffix(rel, "."+name)
	if holder == rel { // cannot happen: rel ends with the name
		holder = ""
	}
	switch {
	case parent == "":
		return holder
	case holder == "":
		return parent
	}
	return parent + "." + holder
}

// ancestorWith finds the nearest enclosing struct (not the current one) that
// has a field called name, and returns its path.
func (w *walker) ancestorWith(name string) (string, bool) {
	for i := len(w.ancestors) - 2; i >= 0; i-- {
		if _, ok := fieldsOf(w.ancestors[i].typ).byName[name]; ok {
			return w.ancestors[i].path, true
		}
	}
	return "", false
}

func (w *walker) mapping(n *yaml.Node, t reflect.Type, path string, line int, depth int) {
	if n.Kind != yaml.MappingNode {
		w.mismatch(n, path, line, "a mapping", wantMapping, shapeHint(n))
		return
	}
	kt := t.Key()
	w.raw("{")
	first := true
	for _, e := range w.entries(n, depth, w.reporter(path)) {
		p := joinKey(path, e.name)
		if !w.mapKey(e, kt, p) {
			continue
		}
		if kt == resourceNameType && !w.resourceName(e, p) {
			continue
		}
		w.member(&first, e.name)
		w.value(e.val, t.Elem(), p, e.key.Line, depth+1)
	}
	w.raw("}")
}

// mapKey checks that a key can be decoded into the map's key type (as
// encoding/json would: text for string keys, digits for integer keys).
func (w *walker) mapKey(e entry, kt reflect.Type, p string) bool {
	if isTextUnmarshaler(kt) {
		v := reflect.New(kt)
		if err := v.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(e.name)); err != nil {
			w.fail(p, e.key.Line, fmt.Sprintf("invalid key %q: %v", e.name, err), "")
			return false
		}
		return true
	}
	switch kt.Kind() {
	case reflect.String:
		return true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v, err := strconv.ParseInt(e.name, 10, 64)
		if err != nil || reflect.Zero(kt).OverflowInt(v) {
			w.fail(p, e.key.Line, fmt.Sprintf("invalid key %q (want a whole number)", e.name), "")
			return false
		}
		return true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		v, err := strconv.ParseUint(e.name, 10, 64)
		if err != nil || reflect.Zero(kt).OverflowUint(v) {
			w.fail(p, e.key.Line, fmt.Sprintf("invalid key %q (want a non-negative whole number)", e.name), "")
			return false
		}
		return true
	}
	w.fail(p, e.key.Line, fmt.Sprintf("internal error: cannot decode map keys into Go type %s", kt), "this is a bug in clustersim; please report it")
	return false
}

// standardResources are the resource names Kubernetes accepts without a
// domain prefix (k8s.io/kubernetes/pkg/apis/core/helper.IsStandardResourceName),
// plus the prefixes of families of them.
var (
	standardResources = map[string]bool{
		"cpu": true, "memory": true, "ephemeral-storage": true, "storage": true,
		"requests.cpu": true, "requests.memory": true, "requests.ephemeral-storage": true, "requests.storage": true,
		"limits.cpu": true, "limits.memory": true, "limits.ephemeral-storage": true,
		"pods": true, "services": true, "replicationcontrollers": true, "resourcequotas": true,
		"secrets": true, "configmaps": true, "persistentvolumeclaims": true,
		"services.nodeports": true, "services.loadbalancers": true,
	}
	standardResourcePrefixes = []string{"hugepages-", "requests.hugepages-", "limits.hugepages-", "attachable-volumes-"}
)

// resourceName checks a key of a ResourceList. Kubernetes rejects unknown
// names without a domain, and for a simulator a misspelt "memroy" request
// would otherwise silently become a request for a resource no node has.
func (w *walker) resourceName(e entry, p string) bool {
	if strings.Contains(e.name, "/") || standardResources[e.name] {
		return true
	}
	for _, prefix := range standardResourcePrefixes {
		if strings.HasPrefix(e.name, prefix) {
			return true
		}
	}
	if w.errs.full() {
		w.errs.more++
		return false
	}
	names := slices.Sorted(maps.Keys(standardResources))
	hint := "extended resources need a domain prefix, e.g. nvidia.com/gpu"
	if strings.EqualFold(e.name, "gpu") {
		hint = "GPUs are extended resources named with their vendor's domain, e.g. nvidia.com/gpu"
	} else if s := suggestField(e.name, names); s != "" {
		hint = fmt.Sprintf("did you mean %q?", s)
	}
	w.fail(p, e.key.Line, fmt.Sprintf("unknown resource name %q", e.name), hint)
	return false
}

func (w *walker) list(n *yaml.Node, t reflect.Type, path string, line int, depth int) {
	if n.Kind != yaml.SequenceNode {
		hint := ""
		if n.Kind == yaml.MappingNode {
			hint = `start each item with "- "`
		} else if n.Kind == yaml.ScalarNode {
			hint = `write it as a list: put "- " before each item on its own line, or use [a, b]`
		}
		w.mismatch(n, path, line, "a list", wantList, hint)
		return
	}
	if t.Kind() == reflect.Array && len(n.Content) > t.Len() {
		w.fail(path, line, fmt.Sprintf("too many items: %d (at most %d)", len(n.Content), t.Len()), "")
		w.null()
		return
	}
	w.raw("[")
	for i, item := range n.Content {
		if i > 0 {
			w.raw(",")
		}
		w.value(item, t.Elem(), joinIndex(path, i), itemLine(item), depth+1)
	}
	w.raw("]")
}

// itemLine is the line of a list item: where the item (or the alias
// standing for it) is written.
func itemLine(item *yaml.Node) int { return item.Line }

// textual reports whether a scalar is text (as opposed to a number, boolean
// or null) for the purpose of string fields. Timestamps such as 2024-05-01
// and custom tags are text: the user wrote characters, not a number.
func textual(n *yaml.Node) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	switch n.ShortTag() {
	case "!!int", "!!float", "!!bool", "!!null":
		return false
	}
	return true
}

func (w *walker) stringValue(n *yaml.Node, path string, line int) {
	if n.Kind != yaml.ScalarNode {
		w.mismatch(n, path, line, "a string", "", shapeHint(n))
		return
	}
	if !textual(n) {
		w.mismatch(n, path, line, "a string", "", fmt.Sprintf("put it in quotes: %s", strconv.Quote(n.Value)))
		return
	}
	w.str(n.Value)
}

func (w *walker) boolValue(n *yaml.Node, path string, line int) {
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		switch strings.ToLower(n.Value) {
		case "true":
			w.raw("true")
			return
		case "false":
			w.raw("false")
			return
		}
	}
	hint := ""
	if n.Kind == yaml.ScalarNode {
		switch strings.ToLower(n.Value) {
		case "true", "false":
			hint = "remove the quotes"
		case "yes", "no", "on", "off", "y", "n":
			hint = "write true or false (YAML 1.2 reads yes/no/on/off as text)"
		}
	}
	w.mismatch(n, path, line, "a boolean", "true or false", hint)
}

// intBits describes the range of an integer type for messages.
func intBits(t reflect.Type) (what, want string) {
	switch t.Kind() {
	case reflect.Int8, reflect.Int16, reflect.Int32:
		bits := t.Bits()
		lo, hi := -(int64(1) << (bits - 1)), int64(1)<<(bits-1)-1
		return fmt.Sprintf("a %d-bit integer", bits), fmt.Sprintf("a whole number from %d to %d", lo, hi)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer", "a whole number, 0 or more"
	}
	return "an integer", "a whole number, e.g. 3"
}

func (w *walker) intValue(n *yaml.Node, t reflect.Type, path string, line int) {
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		hint := ""
		if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
			if _, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64); err == nil {
				hint = "remove the quotes"
			}
		}
		w.mismatch(n, path, line, "an integer", "a whole number, e.g. 3", hint)
		return
	}
	zero := reflect.Zero(t)
	var i int64
	if err := n.Decode(&i); err == nil {
		switch t.Kind() {
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			if !zero.OverflowInt(i) {
				w.raw(strconv.FormatInt(i, 10))
				return
			}
		default:
			if i >= 0 && !zero.OverflowUint(uint64(i)) {
				w.raw(strconv.FormatInt(i, 10))
				return
			}
		}
	} else {
		var u uint64
		if err := n.Decode(&u); err == nil {
			switch t.Kind() {
			case reflect.Uint, reflect.Uint64, reflect.Uintptr:
				if !zero.OverflowUint(u) {
					w.raw(strconv.FormatUint(u, 10))
					return
				}
			}
		}
	}
	what, want := intBits(t)
	w.mismatch(n, path, line, what, want, "")
}

func (w *walker) floatValue(n *yaml.Node, t reflect.Type, path string, line int) {
	if n.Kind == yaml.ScalarNode {
		if tag := n.ShortTag(); tag == "!!int" || tag == "!!float" {
			var f float64
			if err := n.Decode(&f); err == nil {
				if math.IsInf(f, 0) || math.IsNaN(f) {
					w.mismatch(n, path, line, "a number", "a finite number; JSON has no infinity or NaN", "")
					return
				}
				if t.Kind() == reflect.Float32 && math.Abs(f) > math.MaxFloat32 {
					w.mismatch(n, path, line, "a 32-bit number", "a smaller number", "")
					return
				}
				w.raw(strconv.FormatFloat(f, 'g', -1, 64))
				return
			}
		}
	}
	hint := ""
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		if _, err := strconv.ParseFloat(strings.TrimSpace(n.Value), 64); err == nil {
			hint = "remove the quotes"
		}
	}
	w.mismatch(n, path, line, "a number", "e.g. 0.5", hint)
}

// quotedField handles `json:",string"` fields: the value is written as usual
// in YAML (3 or "3") and goes to encoding/json as a JSON string.
func (w *walker) quotedField(n *yaml.Node, t reflect.Type, path string, line int, depth int) {
	r := resolve(n)
	if r != nil && r.Kind == yaml.ScalarNode && r.ShortTag() == "!!str" && t.Kind() != reflect.String {
		plain := *r
		plain.Tag, plain.Style = "", 0
		r = &plain
	}
	if r == nil || isNull(r) {
		w.value(n, t, path, line, depth)
		return
	}
	sub := &walker{file: w.file, expander: w.expander}
	sub.value(r, t, path, line, depth)
	w.expander = sub.expander
	w.errs.addAll(sub.errs.list)
	w.str(string(sub.out))
}

func (w *walker) quantity(n *yaml.Node, path string, line int) {
	if n.Kind == yaml.ScalarNode {
		s := strings.TrimSpace(n.Value)
		if _, err := resource.ParseQuantity(s); err == nil && n.ShortTag() != "!!bool" {
			w.str(s)
			return
		}
	}
	w.mismatch(n, path, line, "a quantity", "",
		`write a number with an optional unit, e.g. "500m" (half a CPU), "2", "1.5", "1Gi", "512Mi" (units are case-sensitive)`)
}

func (w *walker) number(n *yaml.Node, path string, line int) {
	if n.Kind == yaml.ScalarNode {
		if tag := n.ShortTag(); tag == "!!int" || tag == "!!float" || tag == "!!str" {
			if verbatimNumber(n.Value) {
				w.raw(n.Value)
				return
			}
		}
	}
	w.mismatch(n, path, line, "a number", "e.g. 0.5", "")
}

func isJSONNumber(s string) bool {
	return s != "" && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))
}

// verbatimNumber reports whether s can go into JSON as written: valid JSON
// number syntax (YAML also allows 0x1F, 1_000, .5) within float64 range.
func verbatimNumber(s string) bool {
	if !isJSONNumber(s) || !json.Valid([]byte(s)) {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// text handles types that decode themselves from a string (UnmarshalText).
func (w *walker) text(n *yaml.Node, t reflect.Type, path string, line int) {
	name := typeName(t)
	if !textual(n) {
		w.mismatch(n, path, line, name, "text", "")
		return
	}
	v := reflect.New(t)
	if err := v.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(n.Value)); err != nil {
		w.mismatch(n, path, line, name, err.Error(), "")
		return
	}
	w.str(n.Value)
}

// typeName is a user-facing name for a Go type: "a Duration".
func typeName(t reflect.Type) string {
	name := t.Name()
	if name == "" {
		name = t.String()
	}
	return "a " + name
}

// opaqueWant describes well-known self-decoding types for messages.
func opaqueWant(t reflect.Type) (what, want, hint string) {
	switch t {
	case intOrStringType:
		return "an integer or string", `a whole number like 8080, or text like "http" or "25%"`, ""
	case timeType, microTimeType:
		return "a time", `RFC 3339 text, e.g. "2024-05-01T12:00:00Z"`, ""
	case durationType:
		return "a duration", `text like "30s", "5m" or "1h30m"`, ""
	}
	return typeName(t), "", ""
}

// opaque converts n to JSON as it is and lets t's UnmarshalJSON judge it, so
// that the error still gets a path and line.
func (w *walker) opaque(n *yaml.Node, t reflect.Type, path string, line int, depth int) {
	start, before := len(w.out), w.errs.len()
	w.any(n, path, line, depth)
	if w.discard || w.errs.len() != before || w.exhausted {
		return
	}
	v := reflect.New(t)
	if err := json.Unmarshal(w.out[start:], v.Interface()); err != nil {
		what, want, hint := opaqueWant(t)
		if want == "" {
			want = strings.TrimPrefix(err.Error(), "json: ")
		}
		w.out = w.out[:start]
		w.mismatch(n, path, line, what, want, hint)
	}
}

// any converts a node to JSON without a Go type to check against: for
// interface{} fields and self-decoding types. Keys are still checked for
// duplicates, and values must be representable in JSON.
func (w *walker) any(n *yaml.Node, path string, line int, depth int) {
	switch n.Kind {
	case yaml.MappingNode:
		w.raw("{")
		first := true
		for _, e := range w.entries(n, depth, w.reporter(path)) {
			if !first {
				w.raw(",")
			}
			first = false
			w.str(e.name)
			w.raw(":")
			w.value(e.val, nil, joinKey(path, e.name), e.key.Line, depth+1)
		}
		w.raw("}")
	case yaml.SequenceNode:
		w.raw("[")
		for i, item := range n.Content {
			if i > 0 {
				w.raw(",")
			}
			w.value(item, nil, joinIndex(path, i), itemLine(item), depth+1)
		}
		w.raw("]")
	case yaml.ScalarNode:
		if w.discard {
			return
		}
		w.anyScalar(n, path, line)
	default:
		w.fail(path, line, "unexpected YAML node", "")
		w.null()
	}
}

func (w *walker) anyScalar(n *yaml.Node, path string, line int) {
	switch n.ShortTag() {
	case "!!null":
		w.null()
	case "!!bool":
		w.boolValue(n, path, line)
	case "!!int":
		if verbatimNumber(n.Value) {
			w.raw(n.Value)
			return
		}
		var i int64
		if err := n.Decode(&i); err == nil {
			w.raw(strconv.FormatInt(i, 10))
			return
		}
		var u uint64
		if err := n.Decode(&u); err == nil {
			w.raw(strconv.FormatUint(u, 10))
			return
		}
		w.mismatch(n, path, line, "a number", "a smaller whole number", "")
	case "!!float":
		if verbatimNumber(n.Value) {
			w.raw(n.Value)
			return
		}
		w.floatValue(n, reflect.TypeFor[float64](), path, line)
	default:
		w.str(n.Value)
	}
}

func (w *walker) bytes(n *yaml.Node, path string, line int) {
	if !textual(n) {
		w.mismatch(n, path, line, "base64 data", "base64-encoded text", "")
		return
	}
	s := n.Value
	if n.ShortTag() == "!!binary" {
		s = strings.Join(strings.Fields(s), "")
	}
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		w.mismatch(n, path, line, "base64 data", "base64-encoded text",
			"encode the value with base64 (for a Secret, plain text goes under stringData instead)")
		return
	}
	w.str(s)
}

// appendJSONString appends s as a JSON string (without HTML escaping).
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// recoverPanics turns a panic in this package into an error, so a bug here
// costs the user one confusing message rather than the whole simulation.
// The fuzz test turns it off to see the panics.
var recoverPanics = true

func guard(err *error, file string) {
	if !recoverPanics {
		return
	}
	if r := recover(); r != nil {
		*err = Errors{&Error{File: file, Msg: fmt.Sprintf("internal error: %v", r), Hint: "this is a bug in clustersim; please report it with the input file"}}
	}
}

// Decode decodes the document strictly into out, a non-nil pointer to a
// k8s.io/api type such as *appsv1.Deployment or to one of our own structs
// with json tags. Fields already set in *out and absent from the document
// keep their values, so defaults can be filled in before decoding.
//
// Strict means that nothing the user wrote is silently ignored:
//   - every key must be a field (json tags, embedded structs such as
//     TypeMeta/ObjectMeta, map keys); an unknown field is an error with its
//     path and line and, when a field is spelled alike or belongs at another
//     indentation, a hint;
//   - every value must fit its field: no text where a number is expected, no
//     mapping where a list is expected, no "yes" for a boolean, no number for
//     a string (quote it), integers within range;
//   - resource quantities must parse ("2 cores" does not), as must
//     IntOrString, times and durations;
//   - resource names (keys of requests, limits, capacity, quota) must be
//     standard ones such as cpu and memory, or carry a domain such as
//     nvidia.com/gpu, as Kubernetes requires;
//   - duplicate keys are errors (YAML would otherwise keep only one).
//
// All errors found are returned together as Errors.
func (d *Document) Decode(out any) (err error) {
	defer guard(&err, d.File)
	rv := reflect.ValueOf(out)
	if out == nil || rv.Kind() != reflect.Pointer || rv.IsNil() {
		return Errors{&Error{File: d.File, Line: d.Line, Msg: fmt.Sprintf("internal error: Decode needs a non-nil pointer, got %T", out)}}
	}
	if d.Node == nil {
		return Errors{&Error{File: d.File, Line: d.Line, Msg: "the document is empty"}}
	}
	cost := d.cost
	if cost == 0 { // built by hand rather than read
		cost = treeCost(d.Node)
	}
	w := newWalker(d.File, cost, checkAndDecode)
	w.value(d.Node, rv.Type().Elem(), "", d.Line, 1)
	w.finish(d.Line)
	if err := w.errs.err(); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(w.out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		// The walk should have caught everything; this is a safety net.
		return Errors{&Error{File: d.File, Line: d.Line, Msg: "cannot decode: " + strings.TrimPrefix(err.Error(), "json: ")}}
	}
	return nil
}
