package manifest

import (
	"encoding/json"
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Document is one object from a file. It keeps the yaml.Node tree so that
// anything found wrong later (by Decode, or by the caller's own validation
// through Errorf) can still be reported at the right line.
type Document struct {
	File       string
	Line       int // line of the document's first key
	APIVersion string
	Kind       string
	Name       string     // metadata.name
	Namespace  string     // metadata.namespace ("" if absent)
	Node       *yaml.Node // the mapping node of the document (go.yaml.in/yaml/v3)

	cost int // treeCost(Node), computed when read; 0 means not yet known
}

// Ref returns "Kind/namespace/name", or "Kind/name" when the namespace is
// empty (cluster-scoped objects, or namespaced ones that rely on the default
// namespace). It is meant for messages, e.g. "Deployment/prod/web".
func (d *Document) Ref() string {
	if d.Namespace == "" {
		return d.Kind + "/" + d.Name
	}
	return d.Kind + "/" + d.Namespace + "/" + d.Name
}

// Errorf returns an error at the line of path within the document (the line
// of the nearest existing ancestor if path is absent, e.g. for a required
// field that is missing). Callers use it for their own semantic checks so
// those read exactly like parse errors.
func (d *Document) Errorf(path, hint, format string, args ...any) *Error {
	return &Error{
		File: d.File,
		Line: d.LineOf(path),
		Path: path,
		Msg:  fmt.Sprintf(format, args...),
		Hint: hint,
	}
}

// LineOf returns the line of path within the document: the line of the key
// for a mapping entry, the line of the item for a list index, and the
// document's line for "". If path does not exist, it returns the line of the
// nearest existing ancestor. Paths are written as in Error.Path:
// spec.containers[0].image, metadata.labels["app.kubernetes.io/name"].
func (d *Document) LineOf(path string) int {
	if d == nil || d.Node == nil {
		return 0
	}
	line := d.Line
	segs, ok := parsePath(path)
	if !ok {
		return line
	}
	x := expander{budget: 1 << 20}
	n := d.Node
	for _, s := range segs {
		n = resolve(n)
		if n == nil {
			break
		}
		var next *yaml.Node
		switch {
		case s.isIndex && n.Kind == yaml.SequenceNode:
			if s.index < len(n.Content) {
				next = n.Content[s.index]
				if r := resolve(next); r != nil && r.Line > 0 {
					line = r.Line
				} else {
					line = next.Line
				}
			}
		case !s.isIndex && n.Kind == yaml.MappingNode:
			for _, e := range x.entries(n, 0, nil) {
				if e.name == s.key {
					next = e.val
					line = e.key.Line
					break
				}
			}
		}
		if next == nil {
			break
		}
		n = next
	}
	return line
}

// Canonical returns the document's object as JSON with sorted keys, so that
// two documents holding the same object compare equal however they are
// written (YAML or JSON, key order, anchors, comments). Callers use it to
// recognise a repeated object, e.g. the same EC2NodeClass in two files.
func Canonical(d *Document) (string, error) {
	var v any
	if err := d.Decode(&v); err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// KubernetesGroup reports whether API group g is one of Kubernetes's own:
// the core group, a group without a dot (apps, batch, policy, extensions,
// autoscaling: a CustomResourceDefinition's spec.group "should be a domain
// with at least one dot", k8s.io/apiextensions-apiserver
// pkg/apis/apiextensions/validation/validation.go), or one under k8s.io or
// kubernetes.io, which custom resources may use only with the API review's
// approval (pkg/apihelpers/helpers.go IsProtectedCommunityGroup). The SIG
// projects' x-k8s.io (kwok.x-k8s.io, cluster.x-k8s.io) is not under k8s.io.
func KubernetesGroup(g string) bool {
	if !strings.Contains(g, ".") {
		return true
	}
	return g == "k8s.io" || strings.HasSuffix(g, ".k8s.io") || g == "kubernetes.io" || strings.HasSuffix(g, ".kubernetes.io")
}
