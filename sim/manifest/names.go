package manifest

import (
	"fmt"
	"strings"

	yaml "go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Object names are checked here, once for every kind read or skipped, as
// the API server checks them (the validation of each kind in kubernetes
// pkg/apis/*/validation, through k8s.io/apimachinery/pkg/util/validation):
// metadata.namespace is a DNS-1123 label; metadata.name a DNS-1123 label
// for a Namespace (ValidateNamespaceName) and a StatefulSet (its pods'
// hostnames are NAME-N), a path segment (no "/" or "%", not "." or "..")
// for the RBAC kinds, and a DNS-1123 subdomain for every other kind,
// custom resources included; a CronJob's name has at most 52 characters.
// A name the cluster would refuse is refused here, at its line, rather
// than printed by run, lint and explain (a name with terminal escapes
// could rewrite what they show). An unsubstituted placeholder such as
// ${namespace} or {{ .Values.name }} breaks these rules: the error says the
// file looks like an unrendered template and to render it first.

// labelNamed are the kinds whose names are DNS-1123 labels (at most 63
// characters, no dots).
var labelNamed = map[string]bool{"Namespace": true, "StatefulSet": true}

// maxCronJobName: the CronJob controller appends an 11-character suffix
// to name its Jobs, which are labels of their pods (ValidateCronJob).
const maxCronJobName = 52

const (
	subdomainHint = "rename it as the API server requires: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters"
	labelHint     = "rename it as the API server requires: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters"
	segmentHint   = "rename it as the API server requires: no '/' or '%', and not '.' or '..'"
)

// apiObject reports whether a document is an object the API server would
// store, whose names it validates: not the simulator's own documents
// (clustersim.dev), eksctl's ClusterConfig (eksctl's own rules, checked
// where it is compiled), kustomize's files, or a List (its items are
// checked).
func apiObject(apiVersion, kind string) bool {
	group, _, _ := strings.Cut(apiVersion, "/")
	switch {
	case strings.HasSuffix(kind, "List"):
		return false
	case group == "clustersim.dev" || strings.HasSuffix(group, ".clustersim.dev"):
		return false
	case group == "eksctl.io" || group == "kustomize.config.k8s.io":
		return false
	}
	return true
}

// checkNames validates metadata.name and metadata.namespace, written at
// nameLine and nsLine.
func checkNames(d *Document, nameLine, nsLine int, el *errList) bool {
	if !apiObject(d.APIVersion, d.Kind) {
		return true
	}
	ok := true
	if d.Name != "" {
		group, _, _ := strings.Cut(d.APIVersion, "/")
		check, rule, hint := validation.IsDNS1123Subdomain, "a DNS-1123 subdomain", subdomainHint
		switch {
		case labelNamed[d.Kind] && !strings.Contains(group, "."):
			check, rule, hint = validation.IsDNS1123Label, "a DNS-1123 label", labelHint
		case group == "rbac.authorization.k8s.io":
			check, rule, hint = pathSegmentProblems, "a valid path segment", segmentHint
		}
		switch errs := check(d.Name); {
		case len(errs) > 0:
			el.add(nameError(d, nameLine, "metadata.name", placeholderHint(d.Name, hint), "%s name %s is not %s%s", d.Kind, Quote(d.Name), rule, Specific(errs)))
			ok = false
		case d.Kind == "CronJob" && len(d.Name) > maxCronJobName:
			el.add(nameError(d, nameLine, "metadata.name", "shorten it: the CronJob controller appends 11 characters to name its Jobs",
				"CronJob name %s is %d characters long, more than %d", Quote(d.Name), len(d.Name), maxCronJobName))
			ok = false
		}
	}
	if d.Namespace != "" {
		if errs := validation.IsDNS1123Label(d.Namespace); len(errs) > 0 {
			el.add(nameError(d, nsLine, "metadata.namespace", placeholderHint(d.Namespace, labelHint), "namespace %s is not a DNS-1123 label%s", Quote(d.Namespace), Specific(errs)))
			ok = false
		}
	}
	return ok
}

func nameError(d *Document, line int, path, hint, format string, args ...any) *Error {
	return &Error{File: d.File, Line: line, Path: path, Hint: hint, Msg: fmt.Sprintf(format, args...)}
}

// pathSegmentProblems is ValidatePathSegmentName's rule: the name goes in
// a URL path.
func pathSegmentProblems(name string) []string {
	switch {
	case name == "." || name == "..":
		return []string{`may not be "." or ".."`}
	case strings.ContainsAny(name, "/%"):
		return []string{`may not contain "/" or "%"`}
	}
	return nil
}

// Specific is what of apimachinery's messages says more than the rule
// (too long, a dot in a label), as ": ..."; the message that quotes the
// rule's regular expression is left to the hint.
func Specific(errs []string) string {
	var keep []string
	for _, e := range errs {
		if !strings.Contains(e, "regex used for validation") {
			keep = append(keep, e)
		}
	}
	if len(keep) == 0 {
		return ""
	}
	return ": " + strings.Join(keep, "; ")
}

// Quote is a name in a message: Go-quoted, so that a control character
// shows as an escape, and cut at 100 bytes (a 20 MB name is not echoed).
func Quote(s string) string {
	const max = 100
	if len(s) > max {
		return fmt.Sprintf("%q... (%d bytes)", s[:max], len(s))
	}
	return fmt.Sprintf("%q", s)
}

// placeholderHint is hint, or, when value holds a template placeholder,
// the hint to render the file first.
func placeholderHint(value, hint string) string {
	if p := placeholder(value); p != "" {
		return "the file looks like an unrendered template (" + p + " is a placeholder): " + renderIt
	}
	return hint
}

// placeholder returns the template placeholder in s (${x}, $(x), {{ x }},
// <% x %>), or "".
func placeholder(s string) string {
	for _, p := range [][2]string{{"${", "}"}, {"$(", ")"}, {"{{", "}}"}, {"<%", "%>"}} {
		if i := strings.Index(s, p[0]); i >= 0 {
			if j := strings.Index(s[i:], p[1]); j > 0 {
				return s[i : i+j+len(p[1])]
			}
			return s[i:]
		}
	}
	return ""
}

// renderIt is the fix for an unrendered template.
const renderIt = "render it first (helm template, envsubst, kustomize build or terraform's templatefile) and simulate the output"

// helmHint is the hint for a value YAML read as {{ ... }}, a mapping
// inside a flow mapping: an unquoted Helm placeholder.
const helmHint = "the file looks like an unrendered Helm template ({{ ... }} is a placeholder): " + renderIt

// helmBraces reports whether a value is what YAML makes of an unquoted
// {{ .Values.x }}: a flow mapping whose key is itself a mapping.
func helmBraces(v *yaml.Node) bool {
	if v.Kind != yaml.MappingNode || v.Style&yaml.FlowStyle == 0 || len(v.Content) == 0 {
		return false
	}
	k := resolve(v.Content[0])
	return k != nil && k.Kind == yaml.MappingNode
}
