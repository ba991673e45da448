package scenario

import (
	"unicode"

	"github.com/clustersim/clustersim/sim/manifest"
)

// The names and namespaces of Kubernetes objects are checked as the API
// server checks them by sim/manifest, for every kind, when a file is read.

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

// quote is manifest.Quote: a name Go-quoted and cut at 100 bytes.
func quote(s string) string { return manifest.Quote(s) }

// specific is manifest.Specific.
func specific(errs []string) string { return manifest.Specific(errs) }
