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

// A provisioned volume is named pvc-<claim number>, unless a manifest's
// volume (one of a dumped state, imported) has that name: names stay
// unique, so a second dump re-imports.
func TestProvisionedNamesAvoidManifestVolumes(t *testing.T) {
	c := New(fixedClock{}, NewSymbols(), NewResourceNames())
	zone := c.Syms.Intern("us-east-1a")
	ns := c.Syms.Intern("default")
	c.SetStorage(&Storage{Default: -1, Zones: []Sym{zone},
		Classes: []StorageClass{{Name: "gp3", Zonal: true, Attach: true}},
		Volumes: []VolumeInput{{Name: "pvc-1", Zones: []Sym{zone}, Attach: true}},
		Claims:  []ClaimInput{{Namespace: ns, Name: "old", VolumeName: "pvc-1"}, {Namespace: ns, Name: "new", Class: "gp3"}}})
	names := map[string]bool{}
	for _, v := range c.Volumes() {
		require.False(t, names[v.Name], "two volumes named %s", v.Name)
		names[v.Name] = true
	}
	require.Len(t, c.Volumes(), 2)
	require.Equal(t, "pvc-1-1", c.Volumes()[1].Name)
	require.Equal(t, "gp3", c.Volumes()[1].ClassName)
}
