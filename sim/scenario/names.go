package scenario

import (
	"fmt"
	"strings"
	"unicode"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/clustersim/clustersim/sim/manifest"
)

// Names are checked as the API server checks them (the validation of each
// kind in kubernetes pkg/apis/*/validation, through
// k8s.io/apimachinery/pkg/util/validation): a name the cluster would
// refuse is refused here too, at its line, rather than printed by run,
// lint and explain (a name with terminal escapes could rewrite what they
// show).

// labelNamed are the kinds whose names are DNS-1123 labels (at most 63
// characters, no dots): a Namespace (ValidateNamespaceName), a
// StatefulSet (its pods' hostnames are NAME-N). Every other kind read is
// a DNS-1123 subdomain (at most 253 characters, dots allowed).
var labelNamed = map[string]bool{"Namespace": true, "StatefulSet": true}

// maxCronJobName: the CronJob controller appends an 11-character suffix
// to name its Jobs, which are labels of their pods (ValidateCronJob).
const maxCronJobName = 52

const (
	subdomainHint = "rename it as the API server requires: lower-case letters, digits, '-' and '.', starting and ending with a letter or digit, at most 253 characters"
	labelHint     = "rename it as the API server requires: lower-case letters, digits and '-', starting and ending with a letter or digit, at most 63 characters"
)

// nameErrors checks the name and namespace of a Kubernetes object the
// loader reads.
func nameErrors(d *manifest.Document) []*manifest.Error {
	var out []*manifest.Error
	if d.Name != "" {
		check, rule, hint := validation.IsDNS1123Subdomain, "a DNS-1123 subdomain", subdomainHint
		if labelNamed[d.Kind] {
			check, rule, hint = validation.IsDNS1123Label, "a DNS-1123 label", labelHint
		}
		if errs := check(d.Name); len(errs) > 0 {
			out = append(out, d.Errorf("metadata.name", hint, "%s name %s is not %s%s", d.Kind, quote(d.Name), rule, specific(errs)))
		} else if d.Kind == "CronJob" && len(d.Name) > maxCronJobName {
			out = append(out, d.Errorf("metadata.name", "shorten it: the CronJob controller appends 11 characters to name its Jobs",
				"CronJob name %s is %d characters long, more than %d", quote(d.Name), len(d.Name), maxCronJobName))
		}
	}
	if d.Namespace != "" {
		if errs := validation.IsDNS1123Label(d.Namespace); len(errs) > 0 {
			out = append(out, d.Errorf("metadata.namespace", labelHint, "namespace %s is not a DNS-1123 label%s", quote(d.Namespace), specific(errs)))
		}
	}
	return out
}

// specific is what of apimachinery's messages says more than the rule
// (too long, a dot in a label), as ": ..."; the message that quotes the
// rule's regular expression is left to the hint.
func specific(errs []string) string {
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

// printable reports a text that holds no control or format characters
// (escape sequences, bidirectional overrides): the names of our own
// documents (a Scenario's), which are free text otherwise.
func printable(s string) bool {
	for _, r := range s {
		if !unicode.IsPrint(r) || unicode.Is(unicode.Cf, r) {
			return false
		}
	}
	return true
}

// quote is a name in a message: Go-quoted, so that a control character
// shows as an escape, and cut at 100 bytes (a 20 MB name is not echoed).
func quote(s string) string {
	const max = 100
	if len(s) > max {
		return fmt.Sprintf("%q... (%d bytes)", s[:max], len(s))
	}
	return fmt.Sprintf("%q", s)
}
