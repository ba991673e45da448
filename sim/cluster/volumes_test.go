package cluster

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestImmediateZoneSpreadsStatefulSetClaims: the provisioner shifts the
// sorted zones by the hash of the StatefulSet's name plus the ordinal, so
// a StatefulSet's Immediate claims go round the zones, every claim of one
// ordinal (data-web-1, logs-web-1) in the same zone, and allowedTopologies
// restricts the choice.
func TestImmediateZoneSpreadsStatefulSetClaims(t *testing.T) {
	syms := NewSymbols()
	zones := []Sym{syms.Intern("us-east-1c"), syms.Intern("us-east-1a"), syms.Intern("us-east-1b")}
	name := func(claim string, allowed []Sym) string { return syms.Name(ImmediateZone(syms, claim, allowed, zones)) }
	seen := map[string]bool{}
	for _, c := range []string{"data-web-0", "data-web-1", "data-web-2"} {
		seen[name(c, nil)] = true
	}
	require.Len(t, seen, 3, "three ordinals, three zones")
	require.Equal(t, name("data-web-0", nil), name("data-web-3", nil), "round the zones")
	require.Equal(t, name("data-web-1", nil), name("logs-web-1", nil), "one ordinal's claims share a zone")
	only := []Sym{syms.Intern("us-east-1b")}
	require.Equal(t, "us-east-1b", name("data-web-0", only))
	require.Equal(t, NoSym, ImmediateZone(syms, "x", nil, nil))
}
