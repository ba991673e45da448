package manifest

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/require"
	yaml "go.yaml.in/yaml/v3"
)

// errorsOf asserts that err is an Errors, as every error from this package is.
func errorsOf(t *testing.T, err error) Errors {
	t.Helper()
	require.Error(t, err)
	var es Errors
	require.True(t, errors.As(err, &es), "want Errors, got %T: %v", err, err)
	require.NotEmpty(t, es)
	return es
}

// docSummary is what the read tests compare: enough to see order and lines.
type docSummary struct {
	File, Ref, APIVersion string
	Line                  int
}

func summarize(docs []*Document) []docSummary {
	out := make([]docSummary, len(docs))
	for i, d := range docs {
		out[i] = docSummary{File: d.File, Ref: d.Ref(), APIVersion: d.APIVersion, Line: d.Line}
	}
	return out
}

func TestReadBytes(t *testing.T) {
	tests := []struct {
		name string
		file string
		in   string
		want []docSummary
	}{
		{
			name: "multi-document YAML with comments and empty documents",
			file: "app.yaml",
			in: `# leading comment
---
---
# a document with only a comment
---
apiVersion: v1
kind: Namespace
metadata:
  name: shop
---

---   # comment after the separator
apiVersion: apps/v1   # trailing comment
kind: Deployment
metadata:
  namespace: shop
  name: web
--- null
---
~
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg, namespace: shop}
...
`,
			want: []docSummary{
				{File: "app.yaml", Ref: "Namespace/shop", APIVersion: "v1", Line: 6},
				{File: "app.yaml", Ref: "Deployment/shop/web", APIVersion: "apps/v1", Line: 13},
				{File: "app.yaml", Ref: "ConfigMap/shop/cfg", APIVersion: "v1", Line: 22},
			},
		},
		{
			name: "empty file",
			file: "empty.yaml",
			in:   "",
			want: []docSummary{},
		},
		{
			name: "only comments",
			file: "c.yaml",
			in:   "# nothing here\n\n# at all\n",
			want: []docSummary{},
		},
		{
			name: "JSON object, tab-indented, with escapes YAML would reject",
			file: "pod.json",
			in:   "{\n\t\"apiVersion\": \"v1\",\n\t\"kind\": \"Pod\",\n\t\"metadata\": {\"name\": \"a-b\", \"namespace\": \"ns\", \"annotations\": {\"url\": \"a\\/b\"}}\n}\n",
			want: []docSummary{{File: "pod.json", Ref: "Pod/ns/a-b", APIVersion: "v1", Line: 2}},
		},
		{
			name: "JSON by content, whatever the extension",
			file: "pod.txt",
			in:   "\xEF\xBB\xBF  {\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"p\"}}",
			want: []docSummary{{File: "pod.txt", Ref: "Pod/p", APIVersion: "v1", Line: 1}},
		},
		{
			name: "JSON v1 List expands into its items, each with its own line",
			file: "list.json",
			in: `{
  "apiVersion": "v1",
  "kind": "List",
  "metadata": {"resourceVersion": ""},
  "items": [
    {
      "apiVersion": "v1",
      "kind": "Service",
      "metadata": {"name": "a"}
    },
    {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "b", "namespace": "x"}}
  ]
}`,
			want: []docSummary{
				{File: "list.json", Ref: "Service/a", APIVersion: "v1", Line: 7},
				{File: "list.json", Ref: "Deployment/x/b", APIVersion: "apps/v1", Line: 11},
			},
		},
		{
			name: "several concatenated JSON objects",
			file: "stream.json",
			in:   "{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"a\"}}\n{\"apiVersion\": \"v1\", \"kind\": \"Pod\", \"metadata\": {\"name\": \"b\"}}\n",
			want: []docSummary{
				{File: "stream.json", Ref: "Pod/a", APIVersion: "v1", Line: 1},
				{File: "stream.json", Ref: "Pod/b", APIVersion: "v1", Line: 2},
			},
		},
		{
			name: "YAML List, and a typed list whose items inherit apiVersion and kind",
			file: "lists.yaml",
			in: `apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
- apiVersion: v1
  kind: Service
  metadata:
    name: s
---
apiVersion: apps/v1
kind: DeploymentList
items:
- metadata:
    name: d
    namespace: n
---
apiVersion: v1
kind: List
items: []
`,
			want: []docSummary{
				{File: "lists.yaml", Ref: "Pod/p", APIVersion: "v1", Line: 4},
				{File: "lists.yaml", Ref: "Service/s", APIVersion: "v1", Line: 8},
				{File: "lists.yaml", Ref: "Deployment/n/d", APIVersion: "apps/v1", Line: 16},
			},
		},
		{
			name: "YAML flow mapping that is not JSON",
			file: "flow.yaml",
			in:   "{apiVersion: v1, kind: Pod, metadata: {name: p}}\n",
			want: []docSummary{{File: "flow.yaml", Ref: "Pod/p", APIVersion: "v1", Line: 1}},
		},
		{
			name: "anchors and merge keys",
			file: "anchors.yaml",
			in: `apiVersion: v1
kind: Pod
metadata: &meta
  name: p
  namespace: ns
---
apiVersion: v1
kind: Pod
metadata:
  <<: {name: q, namespace: other}
  namespace: mine
`,
			want: []docSummary{
				{File: "anchors.yaml", Ref: "Pod/ns/p", APIVersion: "v1", Line: 1},
				{File: "anchors.yaml", Ref: "Pod/mine/q", APIVersion: "v1", Line: 7},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := ReadBytes(tt.file, []byte(tt.in))
			require.NoError(t, err)
			require.Equal(t, tt.want, summarize(docs))
			for _, d := range docs {
				require.Equal(t, yaml.MappingNode, d.Node.Kind)
			}
		})
	}
}

func TestReadBytesKeepsItemFields(t *testing.T) {
	// Typed list items get apiVersion and kind, and keep everything else.
	docs, err := ReadBytes("l.yaml", []byte("apiVersion: apps/v1\nkind: DeploymentList\nitems:\n- metadata: {name: d}\n  spec: {replicas: 2}\n"))
	require.NoError(t, err)
	require.Len(t, docs, 1)
	var obj map[string]any
	require.NoError(t, docs[0].Decode(&obj))
	require.Equal(t, map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": "d"},
		"spec":     map[string]any{"replicas": float64(2)},
	}, obj)
}

// writeTree creates files (name -> content) under a new temp folder.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return root
}

func pod(name string) string {
	return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: " + name + "\n"
}

// tree is a folder with manifests in several places, and files that must be
// skipped.
var tree = map[string]string{
	"b.yaml":           pod("b"),
	"a.json":           `{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}`,
	"a/z.yml":          pod("az"),
	"c/d/e.YAML":       pod("cde"),
	"c/d/notes.md":     "not a manifest",
	"c/script.sh":      "echo hi",
	".hidden.yaml":     pod("hidden"),
	".git/config.yaml": pod("git"),
	"c/.cache/x.yaml":  pod("cache"),
	"multi.yaml":       pod("m1") + "---\n" + pod("m2"),
}

func TestReadPath(t *testing.T) {
	root := writeTree(t, tree)
	docs, err := ReadPath(root)
	require.NoError(t, err)
	var refs, files []string
	for _, d := range docs {
		refs = append(refs, d.Ref())
		rel, err := filepath.Rel(root, d.File)
		require.NoError(t, err)
		files = append(files, filepath.ToSlash(rel))
	}
	// Lexical order of slash-separated paths: "a.json" < "a/z.yml" because '.' < '/'.
	require.Equal(t, []string{"Pod/a", "Pod/az", "Pod/b", "Pod/cde", "Pod/m1", "Pod/m2"}, refs)
	require.Equal(t, []string{"a.json", "a/z.yml", "b.yaml", "c/d/e.YAML", "multi.yaml", "multi.yaml"}, files)

	// A single file through ReadPath, with any extension.
	docs, err = ReadPath(filepath.Join(root, "c", "script.sh"))
	require.Nil(t, docs)
	es := errorsOf(t, err)
	require.Equal(t, filepath.Join(root, "c", "script.sh"), es[0].File)
	require.Equal(t, 1, es[0].Line)

	docs, err = ReadFile(filepath.Join(root, "multi.yaml"))
	require.NoError(t, err)
	require.Len(t, docs, 2)
	require.Equal(t, 6, docs[1].Line) // after 4 lines and the ---
}

// TestFiles: Files lists the files ReadPath reads, in its order (sim
// import reads a folder through it); a file is itself.
func TestFiles(t *testing.T) {
	root := writeTree(t, tree)
	files, err := Files(root)
	require.NoError(t, err)
	docs, err := ReadPath(root)
	require.NoError(t, err)
	var read []string
	for _, d := range docs {
		if len(read) == 0 || read[len(read)-1] != d.File {
			read = append(read, d.File)
		}
	}
	require.Equal(t, read, files)
	require.Len(t, files, 5)

	one := filepath.Join(root, "c", "script.sh")
	files, err = Files(one)
	require.NoError(t, err)
	require.Equal(t, []string{one}, files, "a file, whatever its extension")

	empty := writeTree(t, map[string]string{".hidden/x.yaml": pod("x")})
	_, err = Files(empty)
	require.EqualError(t, err, empty+": no .yaml, .yml or .json files in this folder; check the path; hidden files and folders (names starting with a dot) are skipped")
}

func TestReadFS(t *testing.T) {
	fsys := fstest.MapFS{}
	for name, content := range tree {
		fsys["scenarios/"+name] = &fstest.MapFile{Data: []byte(content)}
	}
	docs, err := ReadFS(fsys, "scenarios")
	require.NoError(t, err)
	var got []string
	for _, d := range docs {
		got = append(got, d.File+" "+d.Ref())
	}
	require.Equal(t, []string{
		"scenarios/a.json Pod/a",
		"scenarios/a/z.yml Pod/az",
		"scenarios/b.yaml Pod/b",
		"scenarios/c/d/e.YAML Pod/cde",
		"scenarios/multi.yaml Pod/m1",
		"scenarios/multi.yaml Pod/m2",
	}, got)

	docs, err = ReadFS(fsys, "scenarios/b.yaml")
	require.NoError(t, err)
	require.Len(t, docs, 1)

	_, err = ReadFS(fsys, "scenarios/nope.yaml")
	require.EqualError(t, err, "scenarios/nope.yaml: no such file or folder; check the path; a relative path is relative to the file that references it (or to the current folder on the command line)")
}

func TestReadFileErrors(t *testing.T) {
	root := writeTree(t, map[string]string{"empty/.keep.yaml": pod("x"), "dir/x.yaml": pod("x")})

	_, err := ReadFile(filepath.Join(root, "missing.yaml"))
	es := errorsOf(t, err)
	require.Equal(t, &Error{
		File: filepath.Join(root, "missing.yaml"),
		Msg:  "no such file or folder",
		Hint: "check the path; a relative path is relative to the file that references it (or to the current folder on the command line)",
	}, es[0])

	_, err = ReadPath(filepath.Join(root, "missing"))
	require.Equal(t, "no such file or folder", errorsOf(t, err)[0].Msg)

	_, err = ReadPath(filepath.Join(root, "empty"))
	require.EqualError(t, err, filepath.Join(root, "empty")+": no .yaml, .yml or .json files in this folder; check the path; hidden files and folders (names starting with a dot) are skipped")

	_, err = ReadFile(filepath.Join(root, "dir"))
	require.Equal(t, "is a folder, not a file", errorsOf(t, err)[0].Msg)
}

func TestReadPathCollectsErrorsOfAllFiles(t *testing.T) {
	root := writeTree(t, map[string]string{
		"1.yaml": "apiVersion: v1\nkind: Pod\nmetadata: {name: ok}\n",
		"2.yaml": "kind: Pod\n",
		"3.yaml": "a: [\n",
		"4.yaml": "apiVersion: v1\n",
	})
	docs, err := ReadPath(root)
	require.Len(t, docs, 1)
	es := errorsOf(t, err)
	require.Len(t, es, 3)
	for i, want := range []string{"2.yaml", "3.yaml", "4.yaml"} {
		require.Equal(t, filepath.Join(root, want), es[i].File)
	}
}

func TestReadLimits(t *testing.T) {
	t.Run("huge file", func(t *testing.T) {
		data := make([]byte, MaxFileSize+1)
		docs, err := ReadBytes("huge.yaml", data)
		require.Nil(t, docs)
		require.EqualError(t, err, "huge.yaml: file is too large (67108865 bytes; the limit is 64 MiB); split it into several files")
	})
	t.Run("huge file on disk", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "huge.yaml")
		f, err := os.Create(p)
		require.NoError(t, err)
		require.NoError(t, f.Truncate(MaxFileSize+10)) // sparse: no 64 MiB written
		require.NoError(t, f.Close())
		_, err = ReadFile(p)
		require.Equal(t, "file is too large (67108874 bytes; the limit is 64 MiB)", errorsOf(t, err)[0].Msg)
	})
	t.Run("deep YAML nesting", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: Pod\nspec:\n")
		for i := 0; i < 150; i++ {
			b.WriteString(strings.Repeat(" ", i+1) + "a:\n")
		}
		_, err := ReadBytes("deep.yaml", []byte(b.String()))
		es := errorsOf(t, err)
		require.Len(t, es, 1)
		require.Equal(t, depthMsg, es[0].Msg)
		require.Equal(t, 102, es[0].Line) // the key whose value is the 101st level
		require.True(t, strings.HasPrefix(es[0].Path, "spec.a.a.a."), es[0].Path)
	})
	t.Run("deep flow nesting", func(t *testing.T) {
		in := "apiVersion: v1\nkind: Pod\nspec: " + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + "\n"
		_, err := ReadBytes("deep.yaml", []byte(in))
		require.Equal(t, depthMsg, errorsOf(t, err)[0].Msg)
	})
	t.Run("deep JSON nesting", func(t *testing.T) {
		in := `{"apiVersion": "v1", "kind": "Pod", "spec":` + "\n" + strings.Repeat(`{"a":`, 1_000_000)
		_, err := ReadBytes("deep.json", []byte(in))
		es := errorsOf(t, err)
		require.Equal(t, &Error{File: "deep.json", Line: 2, Msg: depthMsg, Hint: depthHint}, es[0])
	})
	t.Run("anchor that contains itself", func(t *testing.T) {
		_, err := ReadBytes("cycle.yaml", []byte("apiVersion: v1\nkind: Pod\nspec: &a {x: *a}\n"))
		require.Equal(t, depthMsg, errorsOf(t, err)[0].Msg)
		_, err = ReadBytes("cycle.yaml", []byte("apiVersion: v1\nkind: Pod\nspec: &a {x: 1, <<: *a}\n"))
		require.Equal(t, depthMsg, errorsOf(t, err)[0].Msg)
	})
	t.Run("billion laughs", func(t *testing.T) {
		in := `apiVersion: v1
kind: ConfigMap
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
`
		_, err := ReadBytes("lol.yaml", []byte(in))
		require.EqualError(t, err, "lol.yaml:1: the document expands to too much data through aliases (*name) or merge keys (<<); aliases are limited so that a small file cannot exhaust memory; write the repeated parts out, or use fewer aliases")
	})
	t.Run("merge key fan-out", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("apiVersion: v1\nkind: ConfigMap\nm0: &m0 {k: v}\n")
		for i := 1; i < 90; i++ {
			b.WriteString("m" + strconv.Itoa(i) + ": &m" + strconv.Itoa(i) + " {<<: [*m" + strconv.Itoa(i-1) + ", *m" + strconv.Itoa(i-1) + "]}\n")
		}
		_, err := ReadBytes("merge.yaml", []byte(b.String()))
		require.Contains(t, errorsOf(t, err)[0].Msg, "too much data")
	})
	t.Run("many broken documents", func(t *testing.T) {
		in := strings.Repeat("a: 1\n---\n", 1000)
		_, err := ReadBytes("many.yaml", []byte(in))
		es := errorsOf(t, err)
		require.Len(t, es, MaxErrors+1)
		require.Equal(t, "950 more errors not shown; fix the errors above and run again", es[MaxErrors].Error())
	})
}

func TestMappingValue(t *testing.T) {
	var doc yaml.Node
	require.NoError(t, yaml.Unmarshal([]byte("a: {b: 1}\nc: &x [2]\nd: *x\n"), &doc))
	root := doc.Content[0]
	require.Equal(t, "1", MappingValue(MappingValue(root, "a"), "b").Value)
	require.Equal(t, yaml.SequenceNode, MappingValue(root, "c").Kind)
	require.Equal(t, yaml.AliasNode, MappingValue(root, "d").Kind, "aliases are not followed")
	require.Nil(t, MappingValue(root, "z"))
	require.Nil(t, MappingValue(&doc, "a"), "a document node is not a mapping")
	require.Nil(t, MappingValue(nil, "a"))
}

func TestCanonical(t *testing.T) {
	a, err := ReadBytes("a.yaml", []byte("apiVersion: v1\nkind: ConfigMap\n# a comment\nmetadata: {name: x, labels: {b: '2', a: '1'}}\ndata:\n  k: v\n"))
	require.NoError(t, err)
	b, err := ReadBytes("b.json", []byte(`{"kind": "ConfigMap", "metadata": {"labels": {"a": "1", "b": "2"}, "name": "x"}, "apiVersion": "v1", "data": {"k": "v"}}`))
	require.NoError(t, err)
	c, err := ReadBytes("c.yaml", []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, labels: {b: '2', a: '1'}}\ndata:\n  k: w\n"))
	require.NoError(t, err)
	ca, err := Canonical(a[0])
	require.NoError(t, err)
	cb, err := Canonical(b[0])
	require.NoError(t, err)
	cc, err := Canonical(c[0])
	require.NoError(t, err)
	require.Equal(t, ca, cb, "the same object written differently")
	require.NotEqual(t, ca, cc)
}
