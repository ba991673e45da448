package experiment

import (
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/clustersim/clustersim/sim/clusterautoscaler"
	"github.com/clustersim/clustersim/sim/internal/suggest"
	"github.com/clustersim/clustersim/sim/karpenter"
	"github.com/clustersim/clustersim/sim/report"
)

// Every metric path a report can have, read from the report's types
// rather than from one run: a field left out of a run's JSON (omitempty,
// a model the scenario does not run) is still a metric, whose value is 0
// in that run. Maps give a prefix (any key under it).
var schema = sync.OnceValue(func() metricSchema {
	s := metricSchema{paths: map[string]bool{}}
	s.add("", reflect.TypeFor[report.Summary]())
	s.add("", reflect.TypeFor[report.Details]())
	s.add(karpenter.ReportKey, reflect.TypeFor[karpenter.Stats]())
	s.add(clusterautoscaler.ReportKey, reflect.TypeFor[clusterautoscaler.Stats]())
	delete(s.paths, "schemaVersion") // not metrics: see walk
	delete(s.paths, "seed")
	for p := range s.paths {
		s.sorted = append(s.sorted, p)
	}
	sort.Strings(s.sorted)
	sort.Strings(s.prefixes)
	return s
})

type metricSchema struct {
	paths    map[string]bool
	prefixes []string // maps: "PREFIX." then any key
	sorted   []string
}

func (s *metricSchema) add(path string, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" {
				continue
			}
			if f.Anonymous && name == "" {
				s.add(path, f.Type)
				continue
			}
			if name == "" {
				name = f.Name
			}
			if path != "" {
				name = path + "." + name
			}
			s.add(name, f.Type)
		}
	case reflect.Map:
		if k := t.Elem().Kind(); path != "" && (isNumber(k) || k == reflect.Struct || k == reflect.Pointer) {
			s.prefixes = append(s.prefixes, path+".")
		}
	case reflect.Slice, reflect.Array:
		// Arrays are not metrics (walk skips them).
	default:
		if path != "" && isNumber(t.Kind()) {
			s.paths[path] = true
		}
	}
}

func isNumber(k reflect.Kind) bool {
	return k >= reflect.Int && k <= reflect.Float64
}

// known reports whether path is a metric some report can have.
func (s metricSchema) known(path string) bool {
	if s.paths[path] {
		return true
	}
	for _, p := range s.prefixes {
		if strings.HasPrefix(path, p) && len(path) > len(p) {
			return true
		}
	}
	return false
}

// KnownMetric reports whether path names a metric of the report's schema
// and, when it does not, a hint naming the nearest ones ("did you mean
// pods.stranded?"), so a --fail-if typo fails before any run.
func KnownMetric(path string) (ok bool, hint string) {
	s := schema()
	if s.known(path) {
		return true, ""
	}
	if near := nearest(path, s.sorted, 3); len(near) > 0 {
		return false, "did you mean " + strings.Join(near, " or ") + "?"
	}
	if h := suggestPath(path, s.sorted); h != "" {
		return false, h
	}
	if section, _, ok := strings.Cut(path, "."); ok {
		var under []string
		for _, p := range s.sorted {
			if strings.HasPrefix(p, section+".") {
				under = append(under, p)
			}
		}
		if len(under) > 0 {
			return false, fmt.Sprintf("%s has %s (sim run -o csv lists every metric of a run)", section, clipList(under, 12))
		}
	}
	return false, "sim run -o csv lists every metric of a run"
}

// clipList joins names, the first max of them and how many more.
func clipList(names []string, max int) string {
	if len(names) <= max {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:max], ", "), len(names)-max)
}

// nearest is every candidate at the least edit distance from name, when
// that is at most maxEdits (pods.pendingSeconds.p90 is as near p50, p95
// and p99: all three are named).
func nearest(name string, candidates []string, maxEdits int) []string {
	var out []string
	best := maxEdits + 1
	lname := strings.ToLower(name)
	for _, c := range candidates {
		switch d := suggest.Distance(lname, strings.ToLower(c)); {
		case d < best:
			best, out = d, []string{c}
		case d == best:
			out = append(out, c)
		}
	}
	if len(out) > 5 {
		out = out[:5]
	}
	return out
}
