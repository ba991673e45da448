package report

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
)

// figures is a model's Stats as a test gives them.
type figures struct {
	Launches int            `json:"launches"`
	ByReason map[string]int `json:"byReason"`
}

type model struct {
	key string
	n   int
}

func (m *model) ReportSection() (string, any) {
	return m.key, figures{Launches: m.n, ByReason: map[string]int{"b": m.n, "a": 1}}
}

// build makes the report of an empty run.
func build(in Inputs) *Report {
	cl := cluster.New(engine.New(1), cluster.NewSymbols(), cluster.NewResourceNames())
	return NewCollector(cl, time.Minute, 0).Build(in)
}

// topKeys lists a JSON object's keys in order.
func topKeys(t *testing.T, data []byte) []string {
	dec := json.NewDecoder(bytes.NewReader(data))
	_, err := dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, k.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

func fieldKeys(v any) []string {
	var keys []string
	t := reflect.TypeOf(v)
	for i := range t.NumField() {
		name, opts, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if opts != "omitempty" {
			keys = append(keys, name)
		}
	}
	return keys
}

// The models' sections sit between Summary's keys and Details', in the
// order the run gave the models, each as of the build: what the report's
// karpenter and clusterAutoscaler keys always were.
func TestModelSectionsSitBetweenSummaryAndDetails(t *testing.T) {
	kp, ca := &model{key: "karpenter", n: 3}, &model{key: "clusterAutoscaler", n: 5}
	r := build(Inputs{Scenario: "s", Models: []Section{kp, ca}})
	kp.n = 99 // after the build: the report keeps what it was given
	data, err := r.JSON()
	require.NoError(t, err)
	want := append(append(fieldKeys(Summary{}), "karpenter", "clusterAutoscaler"), fieldKeys(Details{})...)
	require.Equal(t, want, topKeys(t, data))
	got, ok := r.Figures("karpenter")
	require.True(t, ok)
	require.Equal(t, 3, got.(figures).Launches)
	_, ok = r.Figures("absent")
	require.False(t, ok)
	require.Contains(t, string(data), "\"karpenter\": {\n    \"launches\": 3,\n    \"byReason\": {\n      \"a\": 1,\n      \"b\": 3\n    }\n  },\n  \"clusterAutoscaler\": {")

	none := build(Inputs{Scenario: "s"})
	data, err = none.JSON()
	require.NoError(t, err)
	require.Equal(t, append(fieldKeys(Summary{}), fieldKeys(Details{})...), topKeys(t, data), "no model, no section")
}

// A report read back from its JSON (sim run --baseline) keeps the models'
// sections, raw and in order, and writes the same bytes again.
func TestReportReadBackKeepsSections(t *testing.T) {
	r := build(Inputs{Scenario: "s", Models: []Section{&model{key: "zeta", n: 1}, &model{key: "alpha", n: 2}}})
	r.UnschedulablePods = []UnschedulablePod{{Pod: "ns/p", Message: "0/1 nodes", Reasons: map[string]int{"x": 1}}}
	data, err := r.JSON()
	require.NoError(t, err)
	var back Report
	require.NoError(t, json.Unmarshal(data, &back))
	require.Equal(t, []string{"zeta", "alpha"}, []string{back.Models[0].Key, back.Models[1].Key})
	raw, ok := back.Figures("alpha")
	require.True(t, ok)
	require.JSONEq(t, `{"launches": 2, "byReason": {"a": 1, "b": 2}}`, string(raw.(json.RawMessage)))
	require.Equal(t, r.Scenario, back.Scenario)
	require.Equal(t, r.UnschedulablePods, back.UnschedulablePods)
	again, err := back.JSON()
	require.NoError(t, err)
	require.Equal(t, string(data), string(again))
}
