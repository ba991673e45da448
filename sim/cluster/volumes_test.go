package cluster

import (
	"fmt"
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

// Regression (found by TestClusterIndexesModel): a volume that came free
// went to the node of the first pod waiting for it, and only that pod
// stopped waiting; another pod waiting on the same node stayed listed as
// waiting, though the volume was attached to its node, and its kubelet,
// never told, did not start it until the first pod left.
func TestHandOverGivesTheVolumeToEveryWaiterOnItsNode(t *testing.T) {
	c := New(fixedClock{}, NewSymbols(), NewResourceNames())
	zone := c.Syms.Intern("us-east-1a")
	ns := c.Syms.Intern("default")
	c.SetStorage(&Storage{Default: 0, Zones: []Sym{zone},
		Classes: []StorageClass{{Name: "gp3", Zonal: true, Attach: true, Mode: WaitForFirstConsumer}},
		Claims:  []ClaimInput{{Namespace: ns, Name: "shared"}}})
	var alloc Resources
	alloc[CPU], alloc[Pods] = 4000, 10
	a := c.AddNode(Node{Name: "a", Allocatable: alloc, State: NodeReady, Zone: zone})
	b := c.AddNode(Node{Name: "b", Allocatable: alloc, State: NodeReady, Zone: zone})
	told := &attachWatcher{}
	c.Watch(told)
	spec := &PodSpec{Claims: []ClaimRef{{Name: "shared"}}}
	var pods []PodID
	for i, node := range []NodeID{a, b, b} {
		p := c.CreatePod(Pod{Name: fmt.Sprint("p", i), Namespace: ns, Spec: spec})
		c.BindVolumes(p, node)
		c.Bind(p, node)
		pods = append(pods, p)
	}
	require.True(t, c.VolumesAttached(pods[0]))
	require.False(t, c.VolumesAttached(pods[1]), "the volume is on a")
	require.NoError(t, c.CheckIndexes())

	c.DeletePod(pods[0], CauseEvicted)
	require.Equal(t, []PodID{pods[1], pods[2]}, told.pods, "both pods on b are told")
	require.NoError(t, c.CheckIndexes())
	c.DeletePod(pods[1], CauseEvicted)
	vol := c.VolumeOf(c.ClaimsOf(pods[2])[0])
	require.Equal(t, b, vol.Node, "p2 still uses it on b")
	require.Equal(t, int32(1), vol.pods)
	require.Equal(t, []PodID{pods[1], pods[2]}, told.pods, "no new attachment")
	require.NoError(t, c.CheckIndexes())
}

type attachWatcher struct{ pods []PodID }

func (w *attachWatcher) OnChange(ch Change) {
	if ch.Kind == VolumeAttached {
		w.pods = append(w.pods, ch.Pod)
	}
}
