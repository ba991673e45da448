package scheduler

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/cluster"
)

// Tests in the style of upstream's volumebinding, volumezone and
// nodevolumelimits plugin tests: a table of classes, volumes, claims,
// nodes and a pod, and the filter's verdict (the nodes the pod may use,
// or the fit error).

// volNode adds a Ready node in a zone (label and Node.Zone, as every
// node of a run has both).
func (h *harness) volNode(name, zone string) cluster.NodeID {
	var alloc cluster.Resources
	alloc[cluster.CPU], alloc[cluster.Memory], alloc[cluster.Pods] = 8000, 16384<<20, 110
	return h.cl.AddNode(cluster.Node{Name: name, Zone: h.cl.Syms.Intern(zone),
		Labels: cluster.CompileLabels(h.cl.Syms, zoned(zone, nil)), Allocatable: alloc, State: cluster.NodeReady})
}

func claimVolume(claim string) corev1.Volume {
	return corev1.Volume{Name: claim, VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}
}

func (h *harness) syms(zones ...string) []cluster.Sym {
	var out []cluster.Sym
	for _, z := range zones {
		out = append(out, h.cl.Syms.Intern(z))
	}
	slices.Sort(out)
	return out
}

// feasibleNodes returns the nodes the static filters and NodeVolumeLimits
// let the pod use, by running every filter on every node.
func (h *harness) feasibleNodes(p cluster.PodID) []string {
	fw := h.s.fws["default-scheduler"]
	cs := CycleState{Pod: p, Spec: h.cl.Pods[p].Spec, Namespace: h.cl.Pods[p].Namespace}
	fw.preFilter(&cs)
	var out []string
	for _, nid := range h.s.nodes {
		if fi, _ := h.s.firstRejection(fw, &cs, nid, everyFilter); fi < 0 {
			out = append(out, h.cl.Nodes[nid].Name)
		}
	}
	slices.Sort(out)
	return out
}

func TestVolumeFilters(t *testing.T) {
	gp3 := func(mode cluster.BindingMode, zones ...string) func(h *harness) cluster.StorageClass {
		return func(h *harness) cluster.StorageClass {
			c := cluster.StorageClass{Name: "gp3", Provisioner: "ebs.csi.aws.com", Zonal: true, Attach: true, Mode: mode}
			if zones != nil {
				c.Zones = h.syms(zones...)
			}
			return c
		}
	}
	efs := func(h *harness) cluster.StorageClass {
		return cluster.StorageClass{Name: "efs", Provisioner: "efs.csi.aws.com", Mode: cluster.Immediate}
	}
	type pv struct {
		name, zone, claim string
		byLabel           bool
	}
	type pvc struct{ name, class, volume string }
	for _, tc := range []struct {
		name    string
		class   func(h *harness) cluster.StorageClass
		pvs     []pv
		pvcs    []pvc
		podVols []string // claims the pod names
		limit   int32    // NodeVolumeLimits' limit (0: default)
		attach  []string // claims of pods already bound on node a1, in zone a
		want    []string // feasible nodes
		message string   // the fit error when none is
	}{
		{name: "no volumes", want: []string{"a1", "b1", "c1"}},
		{name: "bound volume pins its zone", pvs: []pv{{name: "pv-a", zone: "us-east-1a", claim: "data"}},
			pvcs: []pvc{{name: "data"}}, podVols: []string{"data"}, want: []string{"a1"}},
		{name: "volume node affinity conflict everywhere", pvs: []pv{{name: "pv-d", zone: "us-east-1d", claim: "data"}},
			pvcs: []pvc{{name: "data"}}, podVols: []string{"data"},
			message: "0/3 nodes are available: 3 node(s) had volume node affinity conflict."},
		{name: "two volumes in different zones", pvs: []pv{{name: "pv-a", zone: "us-east-1a", claim: "x"}, {name: "pv-b", zone: "us-east-1b", claim: "y"}},
			pvcs: []pvc{{name: "x"}, {name: "y"}}, podVols: []string{"x", "y"},
			message: "0/3 nodes are available: 3 node(s) had volume node affinity conflict."},
		{name: "zone label (VolumeZone)", pvs: []pv{{name: "pv-b", zone: "us-east-1b", claim: "data", byLabel: true}},
			pvcs: []pvc{{name: "data"}}, podVols: []string{"data"}, want: []string{"b1"}},
		{name: "zone label nowhere", pvs: []pv{{name: "pv-d", zone: "us-east-1d", claim: "data", byLabel: true}},
			pvcs: []pvc{{name: "data"}}, podVols: []string{"data"},
			message: "0/3 nodes are available: 3 node(s) had no available volume zone."},
		{name: "volumeName binds the named volume", pvs: []pv{{name: "pv-c", zone: "us-east-1c"}},
			pvcs: []pvc{{name: "data", volume: "pv-c"}}, podVols: []string{"data"}, want: []string{"c1"}},
		{name: "unbound WaitForFirstConsumer claim, any zone", class: gp3(cluster.WaitForFirstConsumer),
			pvcs: []pvc{{name: "data", class: "gp3"}}, podVols: []string{"data"}, want: []string{"a1", "b1", "c1"}},
		{name: "unbound WaitForFirstConsumer claim, allowedTopologies", class: gp3(cluster.WaitForFirstConsumer, "us-east-1b", "us-east-1c"),
			pvcs: []pvc{{name: "data", class: "gp3"}}, podVols: []string{"data"}, want: []string{"b1", "c1"}},
		{name: "class cannot provision in any zone", class: gp3(cluster.WaitForFirstConsumer, "us-east-1d"),
			pvcs: []pvc{{name: "data", class: "gp3"}}, podVols: []string{"data"},
			message: "0/3 nodes are available: 3 node(s) didn't find available persistent volumes to bind."},
		{name: "Immediate claim bound at creation in an allowed zone", class: gp3(cluster.Immediate, "us-east-1c"),
			pvcs: []pvc{{name: "data", class: "gp3"}}, podVols: []string{"data"}, want: []string{"c1"}},
		{name: "claim without class nor volume", pvcs: []pvc{{name: "data"}}, podVols: []string{"data"},
			message: "0/3 nodes are available: 3 pod has unbound immediate PersistentVolumeClaims."},
		{name: "EFS is not zonal", class: efs, pvcs: []pvc{{name: "shared", class: "efs"}}, podVols: []string{"shared"},
			want: []string{"a1", "b1", "c1"}},
		{name: "attach limit reached", class: gp3(cluster.WaitForFirstConsumer), limit: 2,
			pvcs:   []pvc{{name: "x", class: "gp3"}, {name: "y", class: "gp3"}, {name: "data", class: "gp3"}},
			attach: []string{"x", "y"}, podVols: []string{"data"}, want: []string{"b1", "c1"}},
		{name: "a volume already attached does not count twice", class: gp3(cluster.WaitForFirstConsumer), limit: 2,
			pvcs:   []pvc{{name: "x", class: "gp3"}, {name: "y", class: "gp3"}},
			attach: []string{"x", "y"}, podVols: []string{"x"}, want: []string{"a1"}},
		{name: "attach limit everywhere", class: gp3(cluster.WaitForFirstConsumer, "us-east-1a"), limit: 2,
			pvcs:   []pvc{{name: "x", class: "gp3"}, {name: "y", class: "gp3"}, {name: "data", class: "gp3"}},
			attach: []string{"x", "y"}, podVols: []string{"data"},
			message: "0/3 nodes are available: 1 node(s) exceed max volume count, 2 node(s) didn't find available persistent volumes to bind."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, 1, Config{})
			if tc.limit > 0 {
				h.cl.SetAttachLimit(func(string) int32 { return tc.limit })
			}
			st := &cluster.Storage{Default: -1, Zones: h.syms("us-east-1a", "us-east-1b", "us-east-1c")}
			if tc.class != nil {
				st.Classes = []cluster.StorageClass{tc.class(h)}
			}
			ns := h.cl.Syms.Intern("default")
			for _, v := range tc.pvs {
				st.Volumes = append(st.Volumes, cluster.VolumeInput{Name: v.name, Zones: h.syms(v.zone), ByLabel: v.byLabel,
					Attach: true, ClaimNamespace: ns, ClaimName: v.claim})
			}
			for _, c := range tc.pvcs {
				st.Claims = append(st.Claims, cluster.ClaimInput{Namespace: ns, Name: c.name, Class: c.class, NoClass: c.class == "", VolumeName: c.volume})
			}
			h.cl.SetStorage(st)
			h.volNode("a1", "us-east-1a")
			h.volNode("b1", "us-east-1b")
			h.volNode("c1", "us-east-1c")
			for i, c := range tc.attach {
				spec := podSpec("100m", "100Mi")
				spec.Volumes = []corev1.Volume{claimVolume(c)}
				holder := h.pod("holder-"+string(rune('0'+i)), spec)
				h.cl.BindVolumes(holder, 0) // as the scheduler's PreBind does
				h.bindTo(holder, "a1")
			}
			spec := podSpec("100m", "100Mi")
			for _, c := range tc.podVols {
				spec.Volumes = append(spec.Volumes, claimVolume(c))
			}
			p := h.pod("p", spec)
			require.Equal(t, tc.want, h.feasibleNodes(p))
			h.eng.Run(time.Second)
			if tc.want == nil {
				require.Equal(t, cluster.Pending, h.cl.Pods[p].Phase)
				require.Equal(t, tc.message, h.s.LastFailure(p))
				return
			}
			require.Contains(t, tc.want, h.nodeOf(p))
		})
	}
}

// TestWaitForFirstConsumerBindsInTheChosenZone: the claim's volume is
// provisioned in the zone of the node the scheduler picks; from then on a
// second pod of the same claim can only go there, and the two pods are
// no longer of one scheduling class.
func TestWaitForFirstConsumerBindsInTheChosenZone(t *testing.T) {
	h := newHarness(t, 3, Config{})
	ns := h.cl.Syms.Intern("default")
	h.cl.SetStorage(&cluster.Storage{Default: 0, Classes: []cluster.StorageClass{{Name: "gp3", Zonal: true, Attach: true,
		Mode: cluster.WaitForFirstConsumer}}, Claims: []cluster.ClaimInput{{Namespace: ns, Name: "data"}}})
	h.volNode("a1", "us-east-1a")
	h.volNode("b1", "us-east-1b")
	spec := podSpec("100m", "100Mi")
	spec.Volumes = []corev1.Volume{claimVolume("data")}
	cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Spec: &spec,
		Priority: func(string) (int32, bool, bool) { return 0, false, true }})
	require.NoError(t, err)
	first := h.stsPod("first", cs)
	cid := h.cl.ClaimsOf(first)[0]
	require.Nil(t, h.cl.VolumeOf(cid), "WaitForFirstConsumer: unbound until scheduled")
	h.eng.Run(time.Second)
	zone := h.cl.Nodes[h.cl.Pods[first].Node].Zone
	require.Equal(t, []cluster.Sym{zone}, h.cl.VolumeOf(cid).Zones)
	second := h.stsPod("second", cs)
	require.Equal(t, []string{h.nodeOf(first)}, h.feasibleNodes(second))
	require.Same(t, h.cl.Pods[first].Spec, h.cl.Pods[second].Spec, "pods whose claims sit in one zone share a spec variant")
	require.NotNil(t, h.cl.Pods[first].Spec.Volume)
}

// stsPod creates pod NAME of a StatefulSet template with a
// volumeClaimTemplate "data" (claim data-NAME), as the StatefulSet
// controller would, with the template spec shared by every ordinal.
func (h *harness) stsPod(name string, tmpl *cluster.PodSpec) cluster.PodID {
	return h.cl.CreatePod(cluster.Pod{Name: name, Namespace: h.cl.Syms.Intern("default"), Spec: tmpl, Workload: -1})
}

// TestStatefulSetClaimsPinEachOrdinal: each ordinal gets its own claim,
// provisioned where its pod first lands; the claim outlives the pod, and
// the ordinal's next pod reuses it and may only return to that zone. Two
// ordinals of one template whose volumes sit in different zones are not
// one scheduling class: the failure of one is not reused for the other.
func TestStatefulSetClaimsPinEachOrdinal(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.cl.SetStorage(&cluster.Storage{Default: 0, Classes: []cluster.StorageClass{{Name: "gp3", Zonal: true, Attach: true,
		Mode: cluster.WaitForFirstConsumer}}})
	h.volNode("a1", "us-east-1a")
	h.volNode("b1", "us-east-1b")
	spec := podSpec("5", "100Mi") // one pod per node
	cs, _, err := cluster.CompilePodSpec(h.cl.Syms, h.cl.Resources, cluster.PodSpecInput{Namespace: "default", Spec: &spec,
		Priority: func(string) (int32, bool, bool) { return 0, false, true }})
	require.NoError(t, err)
	cs.Claims = []cluster.ClaimRef{{Name: "data", Template: true}}
	web0, web1 := h.stsPod("web-0", cs), h.stsPod("web-1", cs)
	h.eng.Run(time.Second)
	require.ElementsMatch(t, []string{"a1", "b1"}, []string{h.nodeOf(web0), h.nodeOf(web1)})
	require.Equal(t, "default/data-web-1", h.cl.ClaimName(h.cl.ClaimsOf(web1)[0]))
	require.NotSame(t, h.cl.Pods[web0].Spec, h.cl.Pods[web1].Spec, "volumes in different zones: different classes")
	require.Same(t, cs, h.cl.TemplateSpec(h.cl.Pods[web1].Spec))

	// web-1's node goes; its replacement keeps the claim and its zone.
	gone := h.cl.Pods[web1].Node
	other := h.cl.Nodes[h.cl.Pods[web0].Node].Zone
	claim := h.cl.ClaimsOf(web1)[0]
	h.cl.RemoveNode(gone)
	h.volNode("x2", h.cl.Syms.Name(other)) // room, but in web-0's zone
	again := h.stsPod("web-1", cs)
	require.Equal(t, claim, h.cl.ClaimsOf(again)[0], "the claim is kept and reused")
	h.eng.Run(2 * time.Second)
	require.Equal(t, cluster.Pending, h.cl.Pods[again].Phase)
	require.Equal(t, "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had volume node affinity conflict.", h.s.LastFailure(again))

	// A new node in its zone takes it.
	h.volNode("b2", h.cl.Syms.Name(h.cl.Nodes[gone].Zone))
	h.eng.Run(20 * time.Second)
	require.Equal(t, "b2", h.nodeOf(again))
}

// TestEphemeralVolumeGoesWithItsPod: a generic ephemeral volume's claim
// (<pod>-<volume>) is created with its pod, provisioned where the pod
// lands, and deleted with it: the next pod of that name gets a new claim
// and is not pinned to the old zone.
func TestEphemeralVolumeGoesWithItsPod(t *testing.T) {
	h := newHarness(t, 1, Config{})
	h.cl.SetStorage(&cluster.Storage{Default: -1, Classes: []cluster.StorageClass{{Name: "gp3", Zonal: true, Attach: true,
		Mode: cluster.WaitForFirstConsumer}}})
	h.volNode("a1", "us-east-1a")
	gp3 := "gp3"
	spec := podSpec("100m", "100Mi")
	spec.Volumes = []corev1.Volume{{Name: "scratch", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
		VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: corev1.PersistentVolumeClaimSpec{StorageClassName: &gp3}}}}}}
	p := h.pod("job", spec)
	h.eng.Run(time.Second)
	require.Equal(t, "a1", h.nodeOf(p))
	old := h.cl.ClaimsOf(p)[0]
	require.Equal(t, "default/job-scratch", h.cl.ClaimName(old))
	require.Equal(t, h.syms("us-east-1a"), h.cl.VolumeOf(old).Zones)
	h.cl.DeletePod(p, cluster.CauseEvicted)
	h.volNode("b1", "us-east-1b")
	h.cl.SetCordon(0, true)
	q := h.pod("job", spec)
	require.NotEqual(t, old, h.cl.ClaimsOf(q)[0], "a new claim")
	h.eng.Run(2 * time.Second)
	require.Equal(t, "b1", h.nodeOf(q), "not pinned to the old claim's zone")
}
