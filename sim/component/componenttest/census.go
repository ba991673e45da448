// Package componenttest holds a small component for tests of the
// component contract: Census, which reads kind Census
// (test.clustersim.dev/v1) and spec.census, and counts the running pods
// at a fixed interval into a report section. It shows what adding a
// component takes: this package, and one line in simulation's list.
package componenttest

import (
	"fmt"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/internal/duration"
	"github.com/clustersim/clustersim/sim/manifest"
)

// Census is the component; register it with component.Register.
var Census component.Component = census{}

// APIVersion is the one served version of kind Census.
const APIVersion = "test.clustersim.dev/v1"

// Name is its registered name.
const Name = "census"

type census struct{}

// censusDoc is a Census document.
type censusDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name"`
	} `json:"metadata"`
	Spec struct {
		// Every is the interval between counts.
		Every string `json:"every"`
	} `json:"spec"`
}

// Settings is spec.census.
type Settings struct {
	// Label names the section's count in messages.
	Label string `json:"label,omitempty"`
}

// Config is the compiled census.
type Config struct {
	Every time.Duration
	Label string
}

func (census) Name() string { return Name }

func (census) Kinds() []component.Kind {
	return []component.Kind{{Group: "test.clustersim.dev", Kind: "Census"}}
}

func (census) Settings() (string, any) { return "census", new(Settings) }

func (census) Compile(env component.Env, in component.Input) (component.Config, []component.Warning, error) {
	var errs manifest.Errors
	var warns []component.Warning
	s, _ := in.Settings.(*Settings)
	if len(in.Docs) == 0 {
		if s != nil {
			warns = append(warns, component.Warning{Code: "census.not-running", File: env.Scenario.File, Line: env.Scenario.LineOf(in.SettingsPath),
				Msg: in.SettingsPath + ": no Census document: nothing is counted"})
		}
		return nil, warns, nil
	}
	cfg := &Config{Label: "running pods"}
	if s != nil && s.Label != "" {
		cfg.Label = s.Label
	}
	for _, d := range in.Docs {
		// The loader hands over a group a letter or two off too: the
		// version is the component's to check.
		if d.APIVersion != APIVersion {
			errs = append(errs, d.Errorf("apiVersion", "use apiVersion: "+APIVersion, "%q is not a served version of Census", d.APIVersion))
			continue
		}
		var doc censusDoc
		if err := d.Decode(&doc); err != nil {
			errs = errs.Add(err)
			continue
		}
		every, err := duration.Parse(doc.Spec.Every)
		if err != nil || every <= 0 {
			errs = append(errs, d.Errorf("spec.every", "give a positive interval such as 10m", "%q is not a positive duration", doc.Spec.Every))
			continue
		}
		cfg.Every = every
	}
	return cfg, warns, errs.Err()
}

func (census) Build(deps component.Deps, cfg component.Config) (component.Model, error) {
	c := cfg.(*Config)
	if c.Every <= 0 {
		return nil, fmt.Errorf("census: no interval")
	}
	m := &Model{eng: deps.Engine, cl: deps.Cluster, cfg: *c}
	m.id = deps.Engine.Register(m)
	deps.Engine.After(c.Every, engine.Event{Handler: m.id})
	return m, nil
}

// Model counts the running pods every Config.Every.
type Model struct {
	eng   *engine.Engine
	cl    *cluster.Cluster
	cfg   Config
	id    engine.HandlerID
	stats Stats
}

// Stats are the census' figures.
type Stats struct {
	Label      string `json:"label"`
	Samples    int    `json:"samples"`
	MaxRunning int    `json:"maxRunning"`
}

// HandleEvent counts and schedules the next count.
func (m *Model) HandleEvent(engine.Event) {
	n := 0
	for i := range m.cl.Pods {
		if m.cl.Pods[i].Phase == cluster.Running {
			n++
		}
	}
	m.stats.Samples++
	m.stats.MaxRunning = max(m.stats.MaxRunning, n)
	m.eng.After(m.cfg.Every, engine.Event{Handler: m.id})
}

// ReportSection is the report's census section.
func (m *Model) ReportSection() (string, any) {
	s := m.stats
	s.Label = m.cfg.Label
	return "census", s
}
