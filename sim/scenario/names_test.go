package scenario

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Names the API server refuses are refused at their line and field, shown
// Go-quoted; those it accepts load.
func TestNames(t *testing.T) {
	const head = "apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: s}\nspec: {duration: 10m}\n---\n"
	cases := []struct {
		doc, err string // err "": loads
	}{
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web.v2, namespace: shop}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: x}]}}}\n", ""},
		{"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: \"web\\e[2J\"}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: x}]}}}\n",
			`s.yaml:8: metadata.name: Deployment name "web\x1b[2J" is not a DNS-1123 subdomain; rename it`},
		{"apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db.0}\nspec: {selector: {matchLabels: {a: b}}, template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: x}]}}}\n",
			`s.yaml:8: metadata.name: StatefulSet name "db.0" is not a DNS-1123 label: must not contain dots`},
		{"apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: Shop}\nspec: {containers: [{name: c, image: x}]}\n",
			`s.yaml:8: metadata.namespace: namespace "Shop" is not a DNS-1123 label`},
		{"apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: " + strings.Repeat("a", 53) + "}\nspec: {schedule: \"* * * * *\", jobTemplate: {spec: {template: {spec: {restartPolicy: Never, containers: [{name: c, image: x}]}}}}}\n",
			`s.yaml:8: metadata.name: CronJob name "` + strings.Repeat("a", 53) + `" is 53 characters long, more than 52`},
		{"apiVersion: v1\nkind: Node\nmetadata: {name: \"" + strings.Repeat("n", 300) + "\"}\n",
			`s.yaml:8: metadata.name: Node name "` + strings.Repeat("n", 100) + `"... (300 bytes) is not a DNS-1123 subdomain: must be no more than 253 characters`},
		// A kind not read is skipped, but the API server would still refuse
		// it: its name is checked too (sim/manifest checks every kind).
		{"apiVersion: v1\nkind: Secret\nmetadata: {name: \"NOT\\e]0;read\\a\"}\n", `s.yaml:8: metadata.name: Secret name "NOT\x1b]0;read\a" is not a DNS-1123 subdomain`},
	}
	for _, c := range cases {
		_, err := LoadManifests("s.yaml", []byte(head+c.doc), nil)
		if c.err == "" {
			require.NoError(t, err, c.doc)
			continue
		}
		require.ErrorContains(t, err, c.err)
		require.NotContains(t, err.Error(), "\x1b", "the escape is quoted, not printed")
	}

	_, err := LoadManifests("s.yaml", []byte("apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: \"s\\u202e\"}\nspec: {duration: 10m}\n"), nil)
	require.ErrorContains(t, err, `s.yaml:3: metadata.name: the scenario's name "s\u202e" holds control characters`)
	_, err = LoadManifests("s.yaml", []byte("apiVersion: clustersim.dev/v1alpha1\nkind: Scenario\nmetadata: {name: My cluster (prod)}\nspec: {duration: 10m}\n"), nil)
	require.NoError(t, err, "a scenario's name is free text")
}
