package manifest

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
)

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		err  *Error
		want string
	}{
		{&Error{File: "a.yaml", Line: 14, Path: "spec.replicas", Msg: "bad", Hint: "fix it"}, "a.yaml:14: spec.replicas: bad; fix it"},
		{&Error{File: "a.yaml", Line: 14, Msg: "bad"}, "a.yaml:14: bad"},
		{&Error{File: "a.yaml", Path: "spec", Msg: "bad"}, "a.yaml: spec: bad"},
		{&Error{Line: 3, Msg: "bad"}, "line 3: bad"},
		{&Error{Msg: "bad", Hint: "fix it"}, "bad; fix it"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, tt.err.Error())
	}
}

func TestErrors(t *testing.T) {
	require.NoError(t, Errors(nil).Err())
	require.NoError(t, Errors{}.Err())

	es := Errors{
		{File: "b.yaml", Line: 1, Msg: "b1"},
		{File: "a.yaml", Line: 9, Msg: "a9"},
		{File: "a.yaml", Line: 2, Msg: "a2 first"},
		{File: "a.yaml", Line: 2, Msg: "a2 second"},
	}
	err := es.Err()
	require.EqualError(t, err, "a.yaml:2: a2 first\na.yaml:2: a2 second\na.yaml:9: a9\nb.yaml:1: b1")

	// errors.As finds the individual *Error.
	var e *Error
	require.True(t, errors.As(fmt.Errorf("scenario x: %w", err), &e))
	require.Equal(t, "a2 first", e.Msg)

	var many Errors
	for i := 0; i < MaxErrors+3; i++ {
		many = append(many, &Error{File: "f", Line: i + 1, Msg: "m"})
	}
	got := errorsOf(t, many.Err())
	require.Len(t, got, MaxErrors+1)
	require.Equal(t, "3 more errors not shown; fix the errors above and run again", got[MaxErrors].Error())
}

// TestReadErrors covers problems found while reading: syntax, shape of the
// document, header fields, duplicate keys. Lines are checked exactly: they
// are the point of this package.
func TestReadErrors(t *testing.T) {
	tests := []struct {
		name string
		file string
		in   string
		want string // the complete error text
	}{
		{
			name: "syntax error: unclosed flow list",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  labels: [a, b\n  name: x\n",
			want: "t.yaml:4: syntax error: did not find expected ',' or ']'; check for a missing comma, or a [ or { that is not closed",
		},
		{
			name: "syntax error: bad indentation",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n namespace: y\n",
			want: "t.yaml:5: syntax error: did not find expected key; check the indentation of this line against the lines above it",
		},
		{
			name: "syntax error: colon in a plain value",
			in:   "apiVersion: v1\nkind: Pod\nspec:\n  command: echo a: b\n",
			want: `t.yaml:4: syntax error: mapping values are not allowed in this context; put values that contain ": " in quotes, or check the indentation`,
		},
		{
			name: "syntax error: missing colon",
			in:   "apiVersion: v1\nkind Pod\nmetadata:\n  name: x\n",
			want: "t.yaml:2: syntax error: could not find expected ':'; every line of a mapping needs key: value; check for a missing colon, or quote a value that spans lines",
		},
		{
			name: "syntax error: unclosed quote",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: \"x\n",
			want: "t.yaml:4: syntax error: found unexpected end of stream; a quoted value starting here is not closed",
		},
		{
			name: "syntax error in the third document: earlier ones count lines too",
			in:   pod("a") + "---\n" + pod("b") + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: [}\n",
			want: "t.yaml:13: syntax error: did not find expected node content",
		},
		{
			name: "tab indentation",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n\tname: x\n",
			want: "t.yaml:4: syntax error: found character that cannot start any token; YAML does not allow tabs for indentation: indent with spaces",
		},
		{
			name: "tab indentation after spaces",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\n  labels:\n    a: b\n\t\tc: d\n",
			want: "t.yaml:7: syntax error: found a tab character that violates indentation; YAML does not allow tabs for indentation: indent with spaces",
		},
		{
			name: "value starting with a reserved character",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: @x\n",
			want: "t.yaml:4: syntax error: found character that cannot start any token; put values that start with a special character such as @ or ` in quotes",
		},
		{
			name: "undefined alias",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: *nope\n",
			want: "t.yaml:4: syntax error: unknown anchor 'nope' referenced; define the anchor (&name) before its alias (*name), in the same document",
		},
		{
			name: "control character",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\x01b\n",
			want: "t.yaml:4: syntax error: control characters are not allowed; the file must be UTF-8 text; remove control characters or re-save it as UTF-8",
		},
		{
			name: "not UTF-8",
			in:   "apiVersion: v1\nkind: Pod\n\nmetadata:\n  name: caf\xe9\n",
			want: "t.yaml:5: syntax error: incomplete UTF-8 octet sequence; the file must be UTF-8 text; remove control characters or re-save it as UTF-8",
		},
		{
			name: "missing kind",
			in:   "# comment\napiVersion: v1\nmetadata:\n  name: x\n",
			want: "t.yaml:2: missing kind; every Kubernetes object needs apiVersion and kind",
		},
		{
			name: "missing apiVersion and kind in the second document",
			in:   pod("a") + "---\nmetadata:\n  name: x\n",
			want: "t.yaml:6: missing apiVersion and kind; every Kubernetes object needs apiVersion and kind",
		},
		{
			name: "empty kind",
			in:   "apiVersion: v1\nkind: \"\"\n",
			want: "t.yaml:1: missing kind; every Kubernetes object needs apiVersion and kind",
		},
		{
			name: "kind is not text",
			in:   "apiVersion: v1\nkind: [Pod]\n",
			want: `t.yaml:2: kind: cannot use a list as a string; write it as text, e.g. "Deployment"`,
		},
		{
			name: "name is a number",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: 123\n",
			want: `t.yaml:4: metadata.name: cannot use 123 as a string; put it in quotes: "123"`,
		},
		{
			name: "metadata is not a mapping",
			in:   "apiVersion: v1\nkind: Pod\nmetadata: web\n",
			want: `t.yaml:3: metadata: cannot use "web" as a mapping (want key: value fields); metadata holds name:, namespace:, labels: and so on, on the following lines, indented`,
		},
		{
			name: "top-level list",
			in:   "- apiVersion: v1\n  kind: Pod\n",
			want: `t.yaml:1: expected a Kubernetes object (key: value fields), found a list; remove the leading "- ", or wrap the objects in a List: apiVersion: v1, kind: List, items: [...]`,
		},
		{
			name: "top-level JSON array",
			file: "t.json",
			in:   `[{"apiVersion": "v1", "kind": "Pod"}]`,
			want: `t.json:1: expected a Kubernetes object (key: value fields), found a list; remove the leading "- ", or wrap the objects in a List: apiVersion: v1, kind: List, items: [...]`,
		},
		{
			name: "top-level scalar",
			in:   pod("a") + "---\njust some text\n",
			want: `t.yaml:6: expected a Kubernetes object (key: value fields), found the value "just some text"; every Kubernetes object needs apiVersion and kind; check for a stray line or broken indentation`,
		},
		{
			name: "duplicate key",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  labels:\n    app: web\n    tier: x\n    app: api\n",
			want: `t.yaml:8: metadata.labels.app: duplicate key "app" (first defined on line 6); remove one of them: only one value can be kept, the other would be silently lost`,
		},
		{
			name: "duplicate top-level key",
			in:   "apiVersion: v1\nkind: Pod\nkind: Service\n",
			want: `t.yaml:3: kind: duplicate key "kind" (first defined on line 2); remove one of them: only one value can be kept, the other would be silently lost`,
		},
		{
			name: "duplicate key in JSON",
			file: "t.json",
			in:   "{\"apiVersion\": \"v1\", \"kind\": \"Pod\",\n \"metadata\": {\"name\": \"a\",\n  \"name\": \"b\"}}",
			want: `t.json:3: metadata.name: duplicate key "name" (first defined on line 2); remove one of them: only one value can be kept, the other would be silently lost`,
		},
		{
			name: "JSON syntax error",
			file: "t.json",
			in:   "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\"\n  \"metadata\": {}\n}\n",
			want: `t.json:4: invalid JSON: expected ',' or '}' after the value of "kind", found '"'`,
		},
		{
			name: "JSON trailing comma (no YAML fallback for .json)",
			file: "t.json",
			in:   "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n}\n",
			want: "t.json:4: invalid JSON: trailing comma before '}'",
		},
		{
			name: "JSON-looking .yaml file falls back to YAML",
			in:   "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\"\n  \"metadata\": {}\n}\n",
			want: "t.yaml:4: syntax error: did not find expected ',' or '}'; check for a missing comma, or a [ or { that is not closed",
		},
		{
			name: "JSON mismatched bracket",
			file: "t.json",
			in:   "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n  \"metadata\": {\"finalizers\": [\"a\", \"b\"}\n}\n",
			want: "t.json:4: invalid JSON: expected ',' or ']' after a list item, found '}'",
		},
		{
			name: "JSON unclosed",
			file: "t.json",
			in:   "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\"\n",
			want: "t.json:4: invalid JSON: expected ',' or '}' after the value of \"kind\", found end of input",
		},
		{
			name: "List item without kind",
			in:   "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n- apiVersion: v1\n  metadata: {name: x}\n",
			want: "t.yaml:6: missing kind; every Kubernetes object needs apiVersion and kind",
		},
		{
			name: "List items not a list",
			in:   "apiVersion: v1\nkind: List\nitems:\n  a: b\n",
			want: `t.yaml:3: items: cannot use a mapping as a list (want items starting with "- ")`,
		},
		{
			name: "bad merge key",
			in:   "apiVersion: v1\nkind: Pod\nmetadata:\n  <<: text\n",
			want: "t.yaml:4: metadata[\"<<\"]: a merge key (<<) needs a mapping or a list of mappings; write <<: *anchor where &anchor names a mapping",
		},
		{
			name: "several errors, sorted by line",
			in:   "kind: Pod\n---\n" + pod("ok") + "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: a\n  name: b\n",
			want: "t.yaml:1: missing apiVersion; every Kubernetes object needs apiVersion and kind\n" +
				`t.yaml:12: metadata.name: duplicate key "name" (first defined on line 11); remove one of them: only one value can be kept, the other would be silently lost`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := tt.file
			if file == "" {
				file = "t.yaml"
			}
			_, err := ReadBytes(file, []byte(tt.in))
			errorsOf(t, err)
			require.EqualError(t, err, tt.want)
		})
	}
}

const deployHead = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
`

// TestDecodeErrors covers strict decoding: every error has the file, the
// exact line, the field path and a message (and hint) a user can act on.
func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		spec string // YAML under spec:, from line 6 on
		want []*Error
	}{
		{
			name: "unknown field with did-you-mean",
			spec: "  replicass: 3\n",
			want: []*Error{{Line: 6, Path: "spec.replicass", Msg: `unknown field "replicass"`, Hint: `did you mean "replicas"?`}},
		},
		{
			name: "unknown field deep down, case typo",
			spec: `  template:
    spec:
      containers:
        - name: web
          image: nginx
        - name: sidecar
          image: envoy
          resources:
            Limits:
              cpu: 1
`,
			want: []*Error{{Line: 14, Path: "spec.template.spec.containers[1].resources.Limits", Msg: `unknown field "Limits"`, Hint: `did you mean "limits"?`}},
		},
		{
			name: "unknown field with swapped letters",
			spec: "  template:\n    spec:\n      tolerations:\n        - key: a\n          opreator: Exists\n",
			want: []*Error{{Line: 10, Path: "spec.template.spec.tolerations[0].opreator", Msg: `unknown field "opreator"`, Hint: `did you mean "operator"?`}},
		},
		{
			name: "field indented too little",
			spec: "  containers:\n    - name: web\n",
			want: []*Error{{Line: 6, Path: "spec.containers", Msg: `unknown field "containers"`, Hint: `"containers" belongs under spec.template.spec; check the indentation`}},
		},
		{
			name: "field indented too much",
			spec: "  template:\n    spec:\n      replicas: 3\n",
			want: []*Error{{Line: 8, Path: "spec.template.spec.replicas", Msg: `unknown field "replicas"`, Hint: `"replicas" belongs under spec; check the indentation`}},
		},
		{
			name: "unknown field in a small struct lists the valid ones",
			spec: "  strategy:\n    mode: Recreate\n",
			want: []*Error{{Line: 7, Path: "spec.strategy.mode", Msg: `unknown field "mode"`, Hint: `valid fields here: "rollingUpdate", "type"`}},
		},
		{
			name: "text for an integer",
			spec: "  replicas: three\n",
			want: []*Error{{Line: 6, Path: "spec.replicas", Msg: `cannot use "three" as an integer (want a whole number, e.g. 3)`}},
		},
		{
			name: "quoted integer",
			spec: "  replicas: \"3\"\n",
			want: []*Error{{Line: 6, Path: "spec.replicas", Msg: `cannot use "3" as an integer (want a whole number, e.g. 3)`, Hint: "remove the quotes"}},
		},
		{
			name: "fraction for an integer",
			spec: "  replicas: 2.5\n",
			want: []*Error{{Line: 6, Path: "spec.replicas", Msg: `cannot use 2.5 as an integer (want a whole number, e.g. 3)`}},
		},
		{
			name: "integer out of range",
			spec: "  replicas: 3000000000\n",
			want: []*Error{{Line: 6, Path: "spec.replicas", Msg: `cannot use 3000000000 as a 32-bit integer (want a whole number from -2147483648 to 2147483647)`}},
		},
		{
			name: "yes for a boolean",
			spec: "  paused: yes\n",
			want: []*Error{{Line: 6, Path: "spec.paused", Msg: `cannot use "yes" as a boolean (want true or false)`, Hint: "write true or false (YAML 1.2 reads yes/no/on/off as text)"}},
		},
		{
			name: "mapping where a list is expected",
			spec: "  template:\n    spec:\n      containers:\n        name: web\n        image: nginx\n",
			want: []*Error{{Line: 8, Path: "spec.template.spec.containers", Msg: `cannot use a mapping as a list (want items starting with "- ")`, Hint: `start each item with "- "`}},
		},
		{
			name: "text where a list is expected",
			spec: "  template:\n    spec:\n      containers:\n        - name: web\n          args: --verbose\n",
			want: []*Error{{Line: 10, Path: "spec.template.spec.containers[0].args", Msg: `cannot use "--verbose" as a list (want items starting with "- ")`, Hint: `write it as a list: put "- " before each item on its own line, or use [a, b]`}},
		},
		{
			name: "list where a mapping is expected",
			spec: "  selector:\n    matchLabels:\n      - app: web\n",
			want: []*Error{{Line: 7, Path: "spec.selector.matchLabels", Msg: `cannot use a list as a mapping (want key: value fields)`}},
		},
		{
			name: "text where a struct is expected",
			spec: "  template: web\n",
			want: []*Error{{Line: 6, Path: "spec.template", Msg: `cannot use "web" as a mapping (want key: value fields)`, Hint: "check the indentation: the fields of this value go on the following lines, indented further"}},
		},
		{
			name: "number where a string is expected",
			spec: "  template:\n    spec:\n      containers:\n        - name: web\n          env:\n            - name: PORT\n              value: 8080\n",
			want: []*Error{{Line: 12, Path: "spec.template.spec.containers[0].env[0].value", Msg: `cannot use 8080 as a string`, Hint: `put it in quotes: "8080"`}},
		},
		{
			name: "boolean label value, with a quoted key in the path",
			spec: "  template:\n    metadata:\n      labels:\n        app.kubernetes.io/managed: true\n",
			want: []*Error{{Line: 9, Path: `spec.template.metadata.labels["app.kubernetes.io/managed"]`, Msg: `cannot use true as a string`, Hint: `put it in quotes: "true"`}},
		},
		{
			name: "bad quantities",
			spec: `  template:
    spec:
      containers:
        - name: web
          resources:
            requests:
              cpu: 2 cores
              memory: 1.5.Gi
            limits:
              memory: 1gb
`,
			want: []*Error{
				{Line: 12, Path: "spec.template.spec.containers[0].resources.requests.cpu", Msg: `cannot use "2 cores" as a quantity`, Hint: quantityHint},
				{Line: 13, Path: "spec.template.spec.containers[0].resources.requests.memory", Msg: `cannot use "1.5.Gi" as a quantity`, Hint: quantityHint},
				{Line: 15, Path: "spec.template.spec.containers[0].resources.limits.memory", Msg: `cannot use "1gb" as a quantity`, Hint: quantityHint},
			},
		},
		{
			name: "bad IntOrString",
			spec: "  strategy:\n    rollingUpdate:\n      maxSurge: 1.5\n      maxUnavailable: [1]\n",
			want: []*Error{
				{Line: 8, Path: "spec.strategy.rollingUpdate.maxSurge", Msg: `cannot use 1.5 as an integer or string (want a whole number like 8080, or text like "http" or "25%")`},
				{Line: 9, Path: "spec.strategy.rollingUpdate.maxUnavailable", Msg: `cannot use a list as an integer or string (want a whole number like 8080, or text like "http" or "25%")`},
			},
		},
		{
			name: "bad time",
			spec: "  template:\n    metadata:\n      creationTimestamp: yesterday\n",
			want: []*Error{{Line: 8, Path: "spec.template.metadata.creationTimestamp", Msg: `cannot use "yesterday" as a time (want RFC 3339 text, e.g. "2024-05-01T12:00:00Z")`}},
		},
		{
			name: "all errors of a document at once",
			spec: "  replicas: many\n  paused: 1\n  minReadySeconds: 5\n  progressDeadlineSecond: 600\n",
			want: []*Error{
				{Line: 6, Path: "spec.replicas", Msg: `cannot use "many" as an integer (want a whole number, e.g. 3)`},
				{Line: 7, Path: "spec.paused", Msg: `cannot use 1 as a boolean (want true or false)`},
				{Line: 9, Path: "spec.progressDeadlineSecond", Msg: `unknown field "progressDeadlineSecond"`, Hint: `did you mean "progressDeadlineSeconds"?`},
			},
		},
		{
			name: "unknown field merged in through an anchor is reported at the anchor",
			spec: "  template:\n    spec:\n      containers:\n        - &c\n          name: a\n          imagePullPolicyy: Always\n        - <<: *c\n          name: b\n",
			want: []*Error{
				{Line: 11, Path: "spec.template.spec.containers[0].imagePullPolicyy", Msg: `unknown field "imagePullPolicyy"`, Hint: `did you mean "imagePullPolicy"?`},
				{Line: 11, Path: "spec.template.spec.containers[1].imagePullPolicyy", Msg: `unknown field "imagePullPolicyy"`, Hint: `did you mean "imagePullPolicy"?`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := ReadBytes("deploy.yaml", []byte(deployHead+tt.spec))
			require.NoError(t, err)
			require.Len(t, docs, 1)
			var d appsv1.Deployment
			err = docs[0].Decode(&d)
			es := errorsOf(t, err)
			for _, e := range tt.want {
				e.File = "deploy.yaml"
			}
			require.Equal(t, Errors(tt.want), es)
		})
	}
}

const quantityHint = `write a number with an optional unit, e.g. "500m" (half a CPU), "2", "1.5", "1Gi", "512Mi" (units are case-sensitive)`

func TestDecodeErrorStrings(t *testing.T) {
	// The exact rendering, pinned.
	docs, err := ReadBytes("deploy.yaml", []byte(deployHead+"  replicass: 3\n  template:\n    spec:\n      containers:\n        - name: web\n          resources:\n            requests:\n              cpu: 2 cores\n"))
	require.NoError(t, err)
	err = docs[0].Decode(&appsv1.Deployment{})
	require.EqualError(t, err, `deploy.yaml:6: spec.replicass: unknown field "replicass"; did you mean "replicas"?`+"\n"+
		`deploy.yaml:13: spec.template.spec.containers[0].resources.requests.cpu: cannot use "2 cores" as a quantity; `+quantityHint)

	docs, err = ReadBytes("deploy.yaml", []byte(deployHead+"  replicas: three\n"))
	require.NoError(t, err)
	err = docs[0].Decode(&appsv1.Deployment{})
	require.EqualError(t, err, `deploy.yaml:6: spec.replicas: cannot use "three" as an integer (want a whole number, e.g. 3)`)
}

func TestDecodeOtherTypes(t *testing.T) {
	tests := []struct {
		name string
		in   string
		into any
		want string
	}{
		{
			name: "base64 Secret data",
			in:   "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata:\n  password: hunter2!\n",
			into: &corev1.Secret{},
			want: "t.yaml:5: data.password: cannot use \"hunter2!\" as base64 data (want base64-encoded text); encode the value with base64 (for a Secret, plain text goes under stringData instead)",
		},
		{
			name: "negative for unsigned",
			in:   "apiVersion: test/v1\nkind: Own\ncount: -1\n",
			into: &ownDoc{},
			want: "t.yaml:3: count: cannot use -1 as a non-negative integer (want a whole number, 0 or more)",
		},
		{
			name: "bad duration",
			in:   "apiVersion: test/v1\nkind: Own\ntimeout: 30\n",
			into: &ownDoc{},
			want: `t.yaml:3: timeout: cannot use 30 as a duration (want text like "30s", "5m" or "1h30m")`,
		},
		{
			name: "infinity for a float",
			in:   "apiVersion: test/v1\nkind: Own\nratio: .inf\n",
			into: &ownDoc{},
			want: "t.yaml:3: ratio: cannot use .inf as a number (want a finite number; JSON has no infinity or NaN)",
		},
		{
			name: "text for a float",
			in:   "apiVersion: test/v1\nkind: Own\nratio: half\n",
			into: &ownDoc{},
			want: `t.yaml:3: ratio: cannot use "half" as a number (want e.g. 0.5)`,
		},
		{
			name: "integer map key",
			in:   "apiVersion: test/v1\nkind: Own\nbyPort:\n  http: a\n",
			into: &ownDoc{},
			want: `t.yaml:4: byPort.http: invalid key "http" (want a whole number)`,
		},
		{
			name: "unknown field in our own document",
			in:   "apiVersion: test/v1\nkind: Own\nnodes:\n  - name: a\n    zonee: b\n",
			into: &ownDoc{},
			want: `t.yaml:5: nodes[0].zonee: unknown field "zonee"; did you mean "zone"?`,
		},
		{
			name: "custom UnmarshalJSON rejects",
			in:   "apiVersion: test/v1\nkind: Own\nlevel: loud\n",
			into: &ownDoc{},
			want: `t.yaml:3: level: cannot use "loud" as a Level (want level must be quiet or normal)`,
		},
		{
			name: "text unmarshaler rejects",
			in:   "apiVersion: test/v1\nkind: Own\ncolor: [red]\n",
			into: &ownDoc{},
			want: `t.yaml:3: color: cannot use a list as a Color (want text)`,
		},
		{
			name: "unexported field is not a field",
			in:   "apiVersion: test/v1\nkind: Own\nignored: 1\n",
			into: &ownDoc{},
			want: `t.yaml:3: ignored: unknown field "ignored"`,
		},
		{
			name: "not a pointer",
			in:   "apiVersion: test/v1\nkind: Own\n",
			into: ownDoc{},
			want: "t.yaml:1: internal error: Decode needs a non-nil pointer, got manifest.ownDoc",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			docs, err := ReadBytes("t.yaml", []byte(tt.in))
			require.NoError(t, err)
			require.Len(t, docs, 1)
			err = docs[0].Decode(tt.into)
			errorsOf(t, err)
			require.EqualError(t, err, tt.want)
		})
	}
}

func TestLineOfAndErrorf(t *testing.T) {
	in := `# comment
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app.kubernetes.io/name: web
spec:
  template:
    spec:
      containers:
        - name: a
          image: x
        -
          name: b
      defaults: &d
        restartPolicy: Always
      merged:
        <<: *d
`
	docs, err := ReadBytes("d.yaml", []byte(in))
	require.NoError(t, err)
	d := docs[0]
	tests := []struct {
		path string
		line int
	}{
		{"", 2},
		{"kind", 3},
		{"metadata", 4},
		{"metadata.name", 5},
		{`metadata.labels["app.kubernetes.io/name"]`, 7},
		{"metadata.labels[app.kubernetes.io/name]", 7}, // Kubernetes style
		{"spec.template.spec.containers", 11},
		{"spec.template.spec.containers[0]", 12},
		{"spec.template.spec.containers[0].image", 13},
		{"spec.template.spec.containers[1]", 15}, // the item's first key (the "-" is alone on line 14)
		{"spec.template.spec.containers[1].name", 15},
		{"spec.template.spec.merged.restartPolicy", 17}, // where the merged key is written
		// Absent paths: the nearest existing ancestor.
		{"spec.template.spec.containers[0].resources.requests.cpu", 12},
		{"spec.template.spec.containers[7]", 11},
		{"spec.replicas", 8},
		{"nothing.here", 2},
		{"bad[path", 2},
	}
	for _, tt := range tests {
		require.Equal(t, tt.line, d.LineOf(tt.path), tt.path)
	}
	e := d.Errorf("spec.template.spec.containers[1].image", "set an image", "container %q has no image", "b")
	require.Equal(t, &Error{File: "d.yaml", Line: 15, Path: "spec.template.spec.containers[1].image", Msg: `container "b" has no image`, Hint: "set an image"}, e)
	require.Equal(t, `d.yaml:15: spec.template.spec.containers[1].image: container "b" has no image; set an image`, e.Error())
}

func TestPathHelpers(t *testing.T) {
	require.Equal(t, "spec", joinKey("", "spec"))
	require.Equal(t, "spec.replicas", joinKey("spec", "replicas"))
	require.Equal(t, `labels["app.kubernetes.io/name"]`, joinKey("labels", "app.kubernetes.io/name"))
	require.Equal(t, `["8080"]`, joinKey("", "8080"))
	require.Equal(t, `m[""]`, joinKey("m", ""))
	require.Equal(t, "x[3]", joinIndex("x", 3))
	for _, p := range []string{"a.b[0].c", `a["x.y"][2]["q\"z"].b`, "x-y.z_1"} {
		segs, ok := parsePath(p)
		require.True(t, ok, p)
		rebuilt := ""
		for _, s := range segs {
			if s.isIndex {
				rebuilt = joinIndex(rebuilt, s.index)
			} else {
				rebuilt = joinKey(rebuilt, s.key)
			}
		}
		require.Equal(t, p, rebuilt)
	}
	for _, p := range []string{"a[", `a["x]`, ".a", "a."} {
		_, ok := parsePath(p)
		require.False(t, ok, p)
	}
	require.True(t, strings.HasPrefix(depthMsg, "nested"))
}

func TestSuggestField(t *testing.T) {
	names := []string{"replicas", "selector", "template", "strategy", "minReadySeconds", "paused", "progressDeadlineSeconds"}
	tests := map[string]string{
		"replicass":       "replicas",
		"Replicas":        "replicas",
		"replica":         "replicas",
		"teplate":         "template",
		"minreadyseconds": "minReadySeconds",
		"pasued":          "paused",
		"image":           "",
		"x":               "",
		"specification":   "",
	}
	for in, want := range tests {
		require.Equal(t, want, suggestField(in, names), in)
	}
}

func TestAsErrorsAndAdd(t *testing.T) {
	one := &Error{File: "a.yaml", Line: 3, Msg: "bad"}
	two := &Error{File: "b.yaml", Line: 1, Msg: "worse"}
	for _, tc := range []struct {
		err  error
		want Errors
		ok   bool
	}{
		{one, Errors{one}, true},
		{Errors{one, two}, Errors{one, two}, true},
		{fmt.Errorf("loading: %w", one), Errors{one}, true},
		{errors.New("no such file"), nil, false},
	} {
		got, ok := AsErrors(tc.err)
		require.Equal(t, tc.ok, ok, "%v", tc.err)
		require.Equal(t, tc.want, got, "%v", tc.err)
	}
	es := Errors{two}.Add(one).Add(errors.New("no such file"))
	require.Equal(t, Errors{two, one, {Msg: "no such file"}}, es)
}
