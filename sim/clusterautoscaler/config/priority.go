package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/internal/suggest"
	"github.com/clustersim/clustersim/sim/manifest"
)

// The priority expander's ConfigMap (cluster-autoscaler/expander/priority/
// priority.go): in the Cluster Autoscaler's namespace, named
// PriorityConfigMapName, with a YAML map of priority -> regexes under
// data[PriorityConfigMapKey].
const (
	PriorityConfigMapName = "cluster-autoscaler-priority-expander"
	PriorityConfigMapKey  = "priorities"
)

// PriorityRule is one priority with the regexes that select node groups
// (matched against the ASG name, unanchored, as upstream's
// FindStringIndex).
type PriorityRule struct {
	Priority int
	Regexes  []*regexp.Regexp
	// Lines are the source lines of the regexes, for messages.
	Lines []int
}

// Priorities is the compiled priority expander configuration, rules sorted
// by priority, highest first.
type Priorities struct {
	Rules []PriorityRule
	// File and Line locate the configuration.
	File string
	Line int
}

// Empty reports whether no priorities are configured.
func (p *Priorities) Empty() bool { return p == nil || len(p.Rules) == 0 }

// Of returns the highest priority whose regexes match name; ok is false
// when none does.
func (p *Priorities) Of(name string) (prio int, ok bool) {
	if p == nil {
		return 0, false
	}
	for _, r := range p.Rules { // highest first
		for _, re := range r.Regexes {
			if re.FindStringIndex(name) != nil {
				return r.Priority, true
			}
		}
	}
	return 0, false
}

// ParsePriorityConfigMap compiles the priority expander's ConfigMap. It
// must be named cluster-autoscaler-priority-expander and hold
// data.priorities; a priority that is not a whole number or a regex that
// does not compile is an error at its line.
func ParsePriorityConfigMap(d *manifest.Document) (Priorities, error) {
	var cm corev1.ConfigMap
	if err := d.Decode(&cm); err != nil {
		return Priorities{}, err
	}
	if cm.Name != PriorityConfigMapName {
		return Priorities{}, manifest.Errors{d.Errorf("metadata.name", "the priority expander reads only the ConfigMap named "+PriorityConfigMapName,
			"ConfigMap %q is not the priority expander's", cm.Name)}.Err()
	}
	text, ok := cm.Data[PriorityConfigMapKey]
	if !ok {
		hint := "put the YAML map of priority -> regexes under data.priorities"
		if suggest.Closest(PriorityConfigMapKey, slices.Collect(maps.Keys(cm.Data)), 3) != "" {
			hint = fmt.Sprintf("did you mean %q?", PriorityConfigMapKey)
		}
		return Priorities{}, manifest.Errors{d.Errorf("data", hint, "no data.%s: the priority expander ignores this ConfigMap", PriorityConfigMapKey)}.Err()
	}
	base, exact := valueLine(d, "data", PriorityConfigMapKey)
	return parsePrioritiesText(d, "data.priorities", text, base, exact)
}

// valueLine finds the line where the text of a string value starts: the
// next line for block scalars (| and >), the key's line otherwise. exact
// is false when inner lines cannot be mapped (quoted multi-line strings).
func valueLine(d *manifest.Document, parent, key string) (line int, exact bool) {
	line = d.LineOf(parent + "." + key)
	n := d.Node
	for n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range []string{parent, key} {
		n = manifest.MappingValue(n, k)
		if n == nil {
			return line, false
		}
	}
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		return n.Line + 1, n.Style&yaml.LiteralStyle != 0
	case !strings.Contains(n.Value, "\n"):
		return n.Line, true
	}
	return n.Line, false
}

// parsePrioritiesText parses the YAML text of data.priorities. base is the
// document line of the text's first line; with exact false every error is
// reported at base.
func parsePrioritiesText(d *manifest.Document, path, text string, base int, exact bool) (Priorities, error) {
	out := Priorities{File: d.File, Line: base}
	lineOf := func(inner int) int {
		if !exact || inner <= 0 {
			return base
		}
		return base + inner - 1
	}
	var errs manifest.Errors
	fail := func(inner int, hint, format string, a ...any) {
		errs = append(errs, &manifest.Error{File: d.File, Line: lineOf(inner), Path: path, Msg: fmt.Sprintf(format, a...), Hint: hint})
	}
	if strings.TrimSpace(text) == "" {
		fail(0, "write priority: [regexes], e.g. 10: [\".*spot.*\"]", "the priority configuration is empty")
		return out, errs.Err()
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		line, msg := 0, err.Error()
		if _, rest, ok := strings.Cut(msg, "line "); ok {
			if n, after, ok := strings.Cut(rest, ":"); ok {
				if v, err := strconv.Atoi(n); err == nil {
					line, msg = v, strings.TrimSpace(after)
				}
			}
		}
		fail(line, "", "cannot parse the priorities as YAML: %s", strings.TrimPrefix(msg, "yaml: "))
		return out, errs.Err()
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		fail(root.Line, "write priority: [regexes], e.g. 10: [\".*spot.*\"]", "the priorities must be a map of priority to a list of regexes")
		return out, errs.Err()
	}
	byPrio := map[int]*PriorityRule{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		prio, err := strconv.Atoi(k.Value)
		if err != nil {
			fail(k.Line, "priorities are whole numbers; higher wins", "priority %q is not a whole number", k.Value)
			continue
		}
		if byPrio[prio] != nil {
			fail(k.Line, "merge the lists", "priority %d is given twice", prio)
			continue
		}
		r := &PriorityRule{Priority: prio}
		var items []*yaml.Node
		switch v.Kind {
		case yaml.SequenceNode:
			items = v.Content
		default:
			fail(v.Line, fmt.Sprintf("write %d: [\"regex\", ...]", prio), "priority %d must have a list of regexes", prio)
			continue
		}
		for _, it := range items {
			if it.Kind != yaml.ScalarNode {
				fail(it.Line, "", "priority %d: each regex must be a string", prio)
				continue
			}
			re, err := regexp.Compile(it.Value)
			if err != nil {
				fail(it.Line, "use Go (RE2) regular expression syntax, e.g. .*spot.*", "priority %d: invalid regex %q: %v", prio, it.Value, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
				continue
			}
			r.Regexes = append(r.Regexes, re)
			r.Lines = append(r.Lines, lineOf(it.Line))
		}
		byPrio[prio] = r
		out.Rules = append(out.Rules, *r)
	}
	sort.Slice(out.Rules, func(i, j int) bool { return out.Rules[i].Priority > out.Rules[j].Priority })
	return out, errs.Err()
}

// compileSpecPriorities compiles the map form of SettingsSpec.priorities:
// priority (as a string key) -> regexes.
func compileSpecPriorities(d *manifest.Document, path string, m map[string][]string) (Priorities, error) {
	out := Priorities{Line: d.LineOf(path)}
	if d != nil {
		out.File = d.File
	}
	var errs manifest.Errors
	for _, k := range slices.Sorted(maps.Keys(m)) {
		kp := keyPath(path, k)
		prio, err := strconv.Atoi(strings.TrimSpace(k))
		if err != nil {
			errs = append(errs, errorAt(d, kp, "priorities are whole numbers; higher wins", "priority %q is not a whole number", k))
			continue
		}
		r := PriorityRule{Priority: prio}
		for i, s := range m[k] {
			ip := fmt.Sprintf("%s[%d]", kp, i)
			re, err := regexp.Compile(s)
			if err != nil {
				errs = append(errs, errorAt(d, ip, "use Go (RE2) regular expression syntax, e.g. .*spot.*", "invalid regex %q: %v", s, strings.TrimPrefix(err.Error(), "error parsing regexp: ")))
				continue
			}
			r.Regexes = append(r.Regexes, re)
			r.Lines = append(r.Lines, d.LineOf(ip))
		}
		out.Rules = append(out.Rules, r)
	}
	sort.SliceStable(out.Rules, func(i, j int) bool { return out.Rules[i].Priority > out.Rules[j].Priority })
	for i := 1; i < len(out.Rules); i++ {
		if out.Rules[i].Priority == out.Rules[i-1].Priority {
			errs = append(errs, errorAt(d, path, "merge the lists", "priority %d is given twice", out.Rules[i].Priority))
		}
	}
	return out, errs.Err()
}
