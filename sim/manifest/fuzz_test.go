package manifest

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

// FuzzReadBytes checks that no input makes the reader or the decoder panic
// (the panic guard is off here so that panics surface), and that every error
// is an Errors of *Error, as documented.
func FuzzReadBytes(f *testing.F) {
	seeds := []string{
		"",
		"---\n",
		pod("a"),
		deployHead + "  replicas: 3\n  template:\n    spec:\n      containers:\n        - name: a\n          resources: {requests: {cpu: 2 cores}}\n",
		"apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n",
		`{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a\/b"}}`,
		`[{"a": 1}]`,
		"a: &a [*a]\n",
		"apiVersion: v1\nkind: Pod\nspec: &a {x: 1, <<: *a}\n",
		"apiVersion: v1\nkind: Pod\nmetadata:\n\tname: x\n",
		"apiVersion: v1\nkind: Pod\nmetadata: {name: [}\n",
		"apiVersion: apps/v1\nkind: DeploymentList\nitems:\n- metadata: {name: d}\n",
		"apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - &c {name: a}\n  - <<: [*c, {image: b}]\n",
	}
	entries, _ := os.ReadDir(filepath.Join("testdata", "objects"))
	for _, e := range entries {
		if data, err := os.ReadFile(filepath.Join("testdata", "objects", e.Name())); err == nil {
			seeds = append(seeds, string(data))
		}
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		recoverPanics = false
		defer func() { recoverPanics = true }()
		// Differential: valid JSON we accept decodes exactly as with encoding/json.
		if json.Valid(data) {
			docs, err := ReadBytes("fuzz.json", data)
			if err == nil && len(docs) == 1 && !strings.HasSuffix(docs[0].Kind, "List") {
				var got, want any
				if err := docs[0].Decode(&got); err == nil && json.Unmarshal(data, &want) == nil && !reflect.DeepEqual(got, want) {
					t.Fatalf("JSON decoded differently:\n got %#v\nwant %#v", got, want)
				}
			}
		}
		for _, name := range []string{"fuzz.yaml", "fuzz.json"} {
			docs, err := ReadBytes(name, data)
			checkErr(t, err)
			for _, d := range docs {
				if d.Node == nil {
					t.Fatal("document without a node")
				}
				_ = d.Ref()
				for _, p := range []string{"", "metadata.name", "spec.containers[0].image", `metadata.labels["a.b"]`} {
					if l := d.LineOf(p); l < 0 {
						t.Fatalf("negative line %d", l)
					}
				}
				checkErr(t, d.Decode(&appsv1.Deployment{}))
				checkErr(t, d.Decode(&corev1.Pod{}))
				checkErr(t, d.Decode(&ownDoc{}))
				var m map[string]any
				checkErr(t, d.Decode(&m))
			}
		}
	})
}

func checkErr(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	var es Errors
	if !errors.As(err, &es) {
		var e *Error
		if !errors.As(err, &e) {
			t.Fatalf("error is %T, not Errors or *Error: %v", err, err)
		}
		return
	}
	if len(es) == 0 {
		t.Fatal("empty Errors returned as an error")
	}
	for _, e := range es {
		if e == nil || e.Msg == "" {
			t.Fatalf("empty error in %v", es)
		}
		if e.Line < 0 {
			t.Fatalf("negative line in %v", e)
		}
	}
}
