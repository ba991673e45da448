package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecodeSpecInScenario(t *testing.T) {
	d := readDoc(t, caScenario+`    args: [--expander=priority]
    priorities:
      10: [".*spot.*"]
      1: [".*"]
`)
	var doc struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Metadata   map[string]any `json:"metadata"`
		Spec       struct {
			ClusterAutoscaler *SettingsSpec `json:"clusterAutoscaler,omitempty"`
		} `json:"spec"`
	}
	require.NoError(t, d.Decode(&doc))
	s, err := doc.Spec.ClusterAutoscaler.Compile(d, "spec.clusterAutoscaler")
	require.NoError(t, err)
	require.Len(t, s.Priorities.Rules, 2)
	require.Equal(t, []int{8}, s.Priorities.Rules[0].Lines)

	d = readDoc(t, caScenario+"    argz: []\n")
	err = d.Decode(&doc)
	require.EqualError(t, err, `cm.yaml:6: spec.clusterAutoscaler.argz: unknown field "argz"; did you mean "args"?`)
}
