package simulation

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"

	comp "github.com/clustersim/clustersim/sim/component"
	"github.com/clustersim/clustersim/sim/component/componenttest"
	"github.com/clustersim/clustersim/sim/scenario"
)

// A component is one package plus one line in parts: the census
// (componenttest) reads its own kind and spec.census, is built where the
// line puts it, and adds its report section; the house knows nothing
// else of it.
func TestAddingAComponent(t *testing.T) {
	if _, ok := comp.Lookup(componenttest.Name); !ok {
		comp.Register(componenttest.Census)
	}
	saved := parts
	t.Cleanup(func() { parts = saved })
	at := slices.IndexFunc(parts, func(p part) bool { return p.name == "workload controllers" })
	parts = slices.Insert(slices.Clone(parts), at, component(componenttest.Name)) // the one line

	const scenarioYAML = `apiVersion: clustersim.dev/v1alpha1
kind: Scenario
metadata: {name: census}
spec:
  duration: 1h
  census: {label: web pods}
  staticNodes: [{name: base, instanceType: m5.large, count: 2}]
---
apiVersion: test.clustersim.dev/v1
kind: Census
metadata: {name: every-10m}
spec: {every: 10m}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
`
	fsys := fstest.MapFS{"s.yaml": {Data: []byte(scenarioYAML)}}
	sc, err := scenario.LoadFS(fsys, "s.yaml")
	require.NoError(t, err)
	s, err := Start(sc, Options{})
	require.NoError(t, err)
	var names []string
	for _, p := range s.built {
		names = append(names, p.name)
	}
	require.Contains(t, names, componenttest.Name, "built where its line is")
	require.NotContains(t, names, "EC2 market", "the census launches nothing: no market")
	rep, err := Run(sc, Options{})
	require.NoError(t, err)
	var got *componenttest.Stats
	for _, m := range rep.Models {
		if m.Key == "census" {
			st := m.Figures.(componenttest.Stats)
			got = &st
		}
	}
	require.NotNil(t, got, "the census adds its report section")
	require.Equal(t, componenttest.Stats{Label: "web pods", Samples: 6, MaxRunning: 3}, *got)

	// A mistake in its document is reported at its line, like any other.
	_, err = scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(replaceOnce(scenarioYAML, "every: 10m", "every: soon"))}}, "s.yaml")
	require.ErrorContains(t, err, `s.yaml:12: spec.every: "soon" is not a positive duration`)
	// A group a letter off reaches it too, and it names the served version.
	_, err = scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(replaceOnce(scenarioYAML, "test.clustersim.dev/v1", "test.clustersim.de/v1"))}}, "s.yaml")
	require.ErrorContains(t, err, `s.yaml:9: apiVersion: "test.clustersim.de/v1" is not a served version of Census; use apiVersion: test.clustersim.dev/v1`)
	// And its settings field is checked strictly too.
	_, err = scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(replaceOnce(scenarioYAML, "label: web pods", "lable: web pods"))}}, "s.yaml")
	require.ErrorContains(t, err, `spec.census.lable`)

	// Without its document the census does not run, and says so.
	sc, err = scenario.LoadFS(fstest.MapFS{"s.yaml": {Data: []byte(scenarioYAML[:indexOf(scenarioYAML, "---")])}}, "s.yaml")
	require.NoError(t, err)
	_, runs := sc.Components.Get(componenttest.Name)
	require.False(t, runs)
	require.Contains(t, warningCodes(sc), "census.not-running")
}

func replaceOnce(s, old, new string) string { return strings.Replace(s, old, new, 1) }

func indexOf(s, sub string) int { return strings.Index(s, sub) }

func warningCodes(sc *scenario.Scenario) []string {
	var out []string
	for _, w := range sc.Warnings {
		out = append(out, w.Code)
	}
	return out
}
