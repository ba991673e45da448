package sweep

import (
	"fmt"
	"regexp"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/clustersim/clustersim/sim/manifest"
	"github.com/clustersim/clustersim/sim/scenario"
)

// Kind is the kind of the sweep document (apiVersion scenario.APIVersion).
const Kind = "Sweep"

// DefaultRuns is a sweep's runs per point when neither the document nor
// --runs gives them (sim compare's default).
const DefaultRuns = 10

// document is the Sweep document as users write it.
type document struct {
	APIVersion string            `json:"apiVersion"`
	Kind       string            `json:"kind"`
	Metadata   metav1.ObjectMeta `json:"metadata"`
	Spec       struct {
		// Scenarios are the base scenarios: files relative to the sweep
		// file, or embedded scenarios' names.
		Scenarios []string `json:"scenarios"`
		// Runs per point (default 10); Seed is the root seed (default:
		// the first scenario's seed).
		Runs *int    `json:"runs,omitempty"`
		Seed *uint64 `json:"seed,omitempty"`
		Axes []axis  `json:"axes,omitempty"`
	} `json:"spec"`
}

type axis struct {
	Name   string  `json:"name"`
	Values []value `json:"values"`
}

// value is one value of an axis: override files and parameter settings.
type value struct {
	Name             string   `json:"name"`
	Overrides        []string `json:"overrides,omitempty"`
	ScaleWorkloads   *float64 `json:"scaleWorkloads,omitempty"`
	HazardMultiplier *float64 `json:"hazardMultiplier,omitempty"`
	FallbackAfter    string   `json:"fallbackAfter,omitempty"`
}

// Resolver resolves a path written in the sweep file: a base scenario
// (file or embedded name) when scenario is true, else an override file. It
// returns the path to load and whether it exists.
type Resolver func(rel string, scenario bool) (string, bool)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][-A-Za-z0-9_.]*$`)

// IsSweep says whether docs hold a Sweep document.
func IsSweep(docs []*manifest.Document) bool {
	for _, d := range docs {
		if d.Kind == Kind {
			return true
		}
	}
	return false
}

// Decode reads the Sweep document of a file (docs) into a definition:
// every base scenario times every combination of the axes' values, the
// last axis varying fastest. Seed is 0 when the document gives none (the
// caller takes the first scenario's). Every problem is reported with its
// file, line and field.
func Decode(docs []*manifest.Document, resolve Resolver) (s *Sweep, seedSet bool, err error) {
	var d *manifest.Document
	for _, x := range docs {
		if x.Kind != Kind {
			return nil, false, x.Errorf("kind", "a sweep file holds one Sweep document; put scenarios and overrides in files of their own", "a %s document next to the Sweep", x.Kind)
		}
		if d != nil {
			return nil, false, x.Errorf("", "keep one Sweep per file", "a second Sweep document (the first is at line %d)", d.Line)
		}
		d = x
	}
	if d == nil {
		return nil, false, fmt.Errorf("no kind: Sweep document")
	}
	if d.APIVersion != scenario.APIVersion {
		return nil, false, d.Errorf("apiVersion", "use apiVersion: "+scenario.APIVersion, "%q is not a Sweep version this simulator reads", d.APIVersion)
	}
	var doc document
	if err := d.Decode(&doc); err != nil {
		return nil, false, err
	}
	var errs manifest.Errors
	fail := func(path, hint, format string, args ...any) {
		errs = append(errs, d.Errorf(path, hint, format, args...))
	}
	spec := &doc.Spec
	s = &Sweep{Name: doc.Metadata.Name, Runs: DefaultRuns}
	if spec.Runs != nil {
		s.Runs = *spec.Runs
		if s.Runs < 1 || s.Runs > 100000 {
			fail("spec.runs", "use 1 to 100000 (10 or more for useful intervals)", "%d runs per point", s.Runs)
		}
	}
	if spec.Seed != nil {
		s.RootSeed, seedSet = *spec.Seed, true
	}
	if len(spec.Scenarios) == 0 {
		fail("spec.scenarios", "name one or more base scenarios: files relative to this file, or embedded scenarios (sim scenarios)", "no base scenario")
	}
	var bases []string
	for i, b := range spec.Scenarios {
		p, ok := resolve(b, true)
		if !ok {
			fail(fmt.Sprintf("spec.scenarios[%d]", i), "give a scenario file (relative to this file) or the name of an embedded scenario (sim scenarios lists them)", "%s: no such file or embedded scenario", b)
		}
		bases = append(bases, p)
	}
	if len(spec.Scenarios) > 1 {
		s.Axes = append(s.Axes, "scenario")
	}
	axes := make([][]value, len(spec.Axes))
	seen := map[string]bool{"scenario": len(spec.Scenarios) > 1}
	for i, a := range spec.Axes {
		path := fmt.Sprintf("spec.axes[%d]", i)
		switch {
		case !nameRE.MatchString(a.Name):
			fail(path+".name", "name the axis with letters, digits, '-', '_' or '.', e.g. spotShare", "axis name %q", a.Name)
		case seen[a.Name]:
			fail(path+".name", "give each axis its own name", "a second axis named %q", a.Name)
		}
		seen[a.Name] = true
		s.Axes = append(s.Axes, a.Name)
		if len(a.Values) == 0 {
			fail(path+".values", "give the axis one or more values, e.g. - {name: 2x, scaleWorkloads: 2}", "no values")
		}
		names := map[string]bool{}
		for j := range a.Values {
			v := &a.Values[j]
			vp := fmt.Sprintf("%s.values[%d]", path, j)
			switch {
			case !nameRE.MatchString(v.Name):
				fail(vp+".name", "name each value with letters, digits, '-', '_' or '.', e.g. 2x or wide", "value name %q", v.Name)
			case names[v.Name]:
				fail(vp+".name", "give each value of an axis its own name", "a second value named %q", v.Name)
			}
			names[v.Name] = true
			for k, o := range v.Overrides {
				p, ok := resolve(o, false)
				if !ok {
					fail(fmt.Sprintf("%s.overrides[%d]", vp, k), "override files are relative to the sweep file", "%s: no such file (looked for %s)", o, p)
				}
				v.Overrides[k] = p
			}
			if f := v.ScaleWorkloads; f != nil && !(*f > 0 && *f <= scenario.MaxWorkloadScale) {
				fail(vp+".scaleWorkloads", fmt.Sprintf("use a number above 0 and at most %d, e.g. 2 or 0.5", scenario.MaxWorkloadScale), "scale factor %v", *f)
			}
			if f := v.HazardMultiplier; f != nil && !(*f >= 0 && *f <= scenario.MaxWorkloadScale) {
				fail(vp+".hazardMultiplier", fmt.Sprintf("use a number from 0 to %d, e.g. 2 for twice the reclaims", scenario.MaxWorkloadScale), "hazard multiplier %v", *f)
			}
			if v.FallbackAfter != "" {
				if t, err := scenario.ParseDuration(v.FallbackAfter); err != nil || t <= 0 {
					fail(vp+".fallbackAfter", "write a positive duration such as 2m or 10m", "fallback timeout %q", v.FallbackAfter)
				}
			}
		}
		axes[i] = a.Values
	}
	if err := errs.Err(); err != nil {
		return nil, false, err
	}
	n := len(bases)
	for _, vs := range axes {
		n *= len(vs)
		if n > MaxPoints {
			return nil, false, d.Errorf("spec.axes", "split the grid into several sweeps", "more than %d points", MaxPoints)
		}
	}
	// The grid: bases x axis 0 x axis 1 ..., the last varying fastest.
	idx := make([]int, len(axes))
	for bi, base := range bases {
		for {
			p := Point{Base: base, Scale: 1, Hazard: 1}
			var label []string
			if len(bases) > 1 {
				label = append(label, spec.Scenarios[bi])
				p.Values = append(p.Values, spec.Scenarios[bi])
			}
			for ai, vs := range axes {
				v := vs[idx[ai]]
				label = append(label, spec.Axes[ai].Name+"="+v.Name)
				p.Values = append(p.Values, v.Name)
				p.Overrides = append(p.Overrides, v.Overrides...)
				if v.ScaleWorkloads != nil {
					p.Scale *= *v.ScaleWorkloads
				}
				if v.HazardMultiplier != nil {
					p.Hazard *= *v.HazardMultiplier
				}
				if v.FallbackAfter != "" {
					p.FallbackAfter, _ = scenario.ParseDuration(v.FallbackAfter)
				}
			}
			p.Name = strings.Join(label, " ")
			if p.Name == "" {
				p.Name = spec.Scenarios[bi]
			}
			s.Points = append(s.Points, p)
			// Next combination.
			k := len(axes) - 1
			for ; k >= 0; k-- {
				idx[k]++
				if idx[k] < len(axes[k]) {
					break
				}
				idx[k] = 0
			}
			if k < 0 {
				break
			}
		}
	}
	if err := s.Validate(); err != nil {
		return nil, false, d.Errorf("spec.axes", "", "%v", err)
	}
	return s, seedSet, nil
}
