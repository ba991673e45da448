package importer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/kubeexport"
)

func export(t *testing.T, c kubeexport.Cluster) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, c.Write(&b))
	return b.String()
}

// importErr imports files (name, content pairs) and returns the error of
// Add or Write, and whether anything was written.
func importErr(files ...string) (error, int) {
	im := New(Options{}, nil)
	for i := 0; i < len(files); i += 2 {
		if err := im.Add(files[i], strings.NewReader(files[i+1])); err != nil {
			return err, 0
		}
	}
	var out bytes.Buffer
	err := im.Write(&out)
	return err, out.Len()
}

func TestBadInput(t *testing.T) {
	c := kubeexport.Cluster{Nodes: 2, Deployments: 1, Replicas: 2}
	yamlExport := export(t, c)
	c.JSON = true
	jsonExport := export(t, c)

	for _, tc := range []struct {
		name  string
		files []string
		want  string
	}{
		{"truncated YAML List", []string{"a.yaml", yamlExport[:len(yamlExport)/2]},
			`a.yaml: the List has no "kind: List" after its items: the file was cut short (export it again)`},
		{"truncated JSON List", []string{"a.json", jsonExport[:len(jsonExport)/2]},
			"a.json:items[",
		},
		{"JSON List cut after its items", []string{"a.json", jsonExport[:len(jsonExport)-3]},
			"a.json: the file ends in the middle of an object: it was cut short (export it again)"},
		{"items in a Deployment", []string{"a.yaml", "apiVersion: apps/v1\nkind: Deployment\nitems:\n- apiVersion: v1\n  kind: Pod\n"},
			"a.yaml:1: a Deployment with items: only a List holds items"},
		{"not YAML or JSON", []string{"a.txt", "hello world\n"},
			"a.txt:1: an object without kind: not a Kubernetes object (is this a kubectl export?)"},
		{"two clusters", []string{"a.yaml", yamlExport, "b.yaml", yamlExport},
			"b.yaml:3: Node/ip-10-0-0-1.ec2.internal: a second Node of this name (the first is at a.yaml:3): are exports of two clusters mixed, or a file given twice?"},
		{"old API version", []string{"a.yaml", "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: web}\n"},
			`a.yaml:1: Deployment/web: apiVersion "extensions/v1beta1" is not read (read: apps/v1); export it with a newer kubectl or API server`},
		{"undecodable object", []string{"a.yaml", "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: [not, a, map]\nkind: List\n"},
			"a.yaml:4: Node: cannot decode"},
		{"bad indentation", []string{"a.yaml", "apiVersion: v1\nitems:\n  - apiVersion: v1\n   kind: Node\nkind: List\n"},
			"a.yaml:4: indentation 3 inside the List's items, expected 4 or more"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err, written := importErr(tc.files...)
			require.Error(t, err)
			require.Contains(t, err.Error(), tc.want)
			require.Zero(t, written, "nothing is written on error")
		})
	}
}

// TestAllProblemsAtOnce: every object problem of the files is reported,
// not only the first.
func TestAllProblemsAtOnce(t *testing.T) {
	err, _ := importErr("a.yaml", "apiVersion: v1\nitems:\n- apiVersion: apps/v1beta2\n  kind: Deployment\n  metadata: {name: a}\n- apiVersion: policy/v1beta1\n  kind: PodDisruptionBudget\n  metadata: {name: b}\nkind: List\nmetadata: {resourceVersion: \"\"}\n")
	require.Error(t, err)
	var ie *Error
	require.ErrorAs(t, err, &ie)
	require.Len(t, ie.Problems, 2)
	require.Equal(t, `a.yaml:3: Deployment/a: apiVersion "apps/v1beta2" is not read (read: apps/v1); export it with a newer kubectl or API server`, ie.Problems[0].String())
	require.Equal(t, "a.yaml:6: PodDisruptionBudget/b: apiVersion \"policy/v1beta1\" is not read (read: policy/v1); export it with a newer kubectl or API server", ie.Problems[1].String())
}

// TestSingleObjectsAndDocuments: besides a List, single objects and
// several YAML documents are read.
func TestSingleObjectsAndDocuments(t *testing.T) {
	im := New(Options{}, nil)
	require.NoError(t, im.Add("n.json", strings.NewReader(`{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"node.kubernetes.io/instance-type":"m5.large"}},"status":{"allocatable":{"cpu":"2","memory":"8Gi","pods":"29"}}}`)))
	require.NoError(t, im.Add("p.yaml", strings.NewReader("# a comment\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  nodeName: n1\n  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {k: dg==}\n")))
	var out bytes.Buffer
	require.NoError(t, im.Write(&out))
	s := out.String()
	require.Contains(t, s, "name: n1")
	require.Contains(t, s, "nodeName: n1")
	require.NotContains(t, s, "dg==")
}
