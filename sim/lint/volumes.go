package lint

import (
	"fmt"
	"slices"
	"strings"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/workload"
)

// Volumes that pin pods to zones (KindVolumeZone). A pod whose EBS volume
// lives in one zone runs only there: a bound PersistentVolume's zone, the
// zone an Immediate claim is provisioned in (known before the run), or,
// for WaitForFirstConsumer claims and StatefulSet templates, the zone the
// pod first lands in (any zone its capacity spans, within the class's
// allowedTopologies). For each such zone, the workload's pod is judged
// again with its volume pinned there: the Cluster Autoscaler scales up
// only a group whose template node is in that zone, Karpenter only a
// NodePool that allows it. A zone the pod may be pinned to that no
// capacity source would add a node in is a finding.

// volumeZones returns the zones the workload's volumes pin its pods to:
// fixed (bound volumes and Immediate claims: every pod uses them) or
// possible (claims provisioned where a pod first lands), and the classes
// involved (for the message). zonal is false for a workload without
// zonal volumes.
//
// restricted is the zones where every unbound WaitForFirstConsumer (or
// template) claim whose class has allowedTopologies can be provisioned:
// VolumeBinding rejects nodes elsewhere ("node(s) didn't find available
// persistent volumes to bind"); unset when no class restricts.
func (c *checker) volumeZones(spec *cluster.PodSpec, ns string) (fixed, possible []cluster.Sym, fixedSet bool, classes []string, zonal bool, restricted cluster.ZoneSet) {
	st := c.sc.Storage
	if st == nil {
		return
	}
	nsSym, _ := c.syms.Lookup(ns)
	className := func(name string, noClass bool) *cluster.StorageClass {
		i := st.Default
		switch {
		case noClass:
			i = -1
		case name != "":
			i = st.ClassIndex(name)
		}
		if i < 0 {
			return nil
		}
		return &st.Classes[i]
	}
	fix := func(zones []cluster.Sym) {
		if !fixedSet {
			fixed, fixedSet = slices.Clone(zones), true
			return
		}
		fixed = slices.DeleteFunc(fixed, func(z cluster.Sym) bool { return !slices.Contains(zones, z) })
	}
	addClass := func(cls *cluster.StorageClass, claim string) {
		if cls == nil || !cls.Zonal {
			return
		}
		zonal = true
		if !slices.Contains(classes, cls.Name) {
			classes = append(classes, cls.Name)
		}
		if cls.Mode == cluster.Immediate && claim != "" {
			if z := cluster.ImmediateZone(c.syms, claim, cls.Zones, st.Zones); z != cluster.NoSym {
				fix([]cluster.Sym{z})
			}
			return
		}
		zones := cls.Zones
		if zones == nil {
			zones = st.Zones
		} else if !restricted.Set {
			restricted = cluster.ZoneSet{Set: true, Zones: slices.Clone(zones)}
		} else {
			restricted.Zones = slices.DeleteFunc(restricted.Zones, func(z cluster.Sym) bool { return !slices.Contains(zones, z) })
		}
		for _, z := range zones {
			if !slices.Contains(possible, z) {
				possible = append(possible, z)
			}
		}
	}
	for _, ref := range spec.Claims {
		if ref.Template || ref.Ephemeral {
			addClass(className(ref.Class, ref.NoClass), "")
			continue
		}
		for _, in := range st.Claims {
			if in.Namespace != nsSym || in.Name != ref.Name {
				continue
			}
			if v := c.boundVolume(in); v != nil {
				if v.Zones != nil {
					zonal = true
					fix(v.Zones)
				}
				break
			}
			addClass(className(in.Class, in.NoClass), in.Name)
		}
	}
	slices.Sort(possible)
	return
}

// boundVolume returns the PersistentVolume a manifest's claim binds to.
func (c *checker) boundVolume(in cluster.ClaimInput) *cluster.VolumeInput {
	st := c.sc.Storage
	for i := range st.Volumes {
		v := &st.Volumes[i]
		if (in.VolumeName != "" && v.Name == in.VolumeName) || (in.VolumeName == "" && v.ClaimName == in.Name && v.ClaimNamespace == in.Namespace) {
			return v
		}
	}
	return nil
}

// pinned is the workload's spec with its volumes in one zone.
func pinned(spec *cluster.PodSpec, zone cluster.Sym) *cluster.PodSpec {
	s := *spec
	s.Claims = nil
	s.Volume = &cluster.VolumePin{Bound: cluster.ZoneSet{Set: true, Zones: []cluster.Sym{zone}}}
	return &s
}

// matrixSpec is the spec a row's cells judge: the workload's as written,
// or, when its volumes are already in known zones (a bound
// PersistentVolume, an Immediate claim), pinned to them, and when a
// WaitForFirstConsumer class has allowedTopologies, kept to those zones,
// as the scheduler and the autoscalers see its pods. Otherwise volumes
// provisioned where a pod first lands pin nothing yet (the volume-zone
// finding judges each zone).
func (c *checker) matrixSpec(r *row) *cluster.PodSpec {
	if c.sc.Storage == nil || len(r.spec.Claims) == 0 {
		return r.spec
	}
	fixed, _, fixedSet, _, _, restricted := c.volumeZones(r.spec, c.sc.Workloads[r.w].Namespace)
	if !fixedSet && !restricted.Set {
		return r.spec
	}
	s := *r.spec
	s.Claims = nil
	s.Volume = &cluster.VolumePin{Unbound: restricted}
	if fixedSet {
		s.Volume.Bound = cluster.ZoneSet{Set: true, Zones: fixed}
	}
	return &s
}

// sourceZones are the zones a source adds or has nodes in.
func (c *checker) sourceZones(s *source) []cluster.Sym {
	var out []cluster.Sym
	add := func(z cluster.Sym) {
		if z != cluster.NoSym && !slices.Contains(out, z) {
			out = append(out, z)
		}
	}
	if s.lint != nil {
		for _, z := range s.lint.Zones {
			add(c.syms.Intern(z))
		}
		return out
	}
	for i := range s.nodes {
		add(s.nodes[i].Zone)
	}
	return out
}

// checkVolumeZones reports the zones the row's volumes may pin its pods
// to where no capacity source would add a node for them. It says whether
// it reported an error (volumes already in zones no source reaches).
func (c *checker) checkVolumeZones(r *row) bool {
	wl := &c.sc.Workloads[r.w]
	fixed, possible, fixedSet, classes, zonal, _ := c.volumeZones(r.spec, wl.Namespace)
	if !zonal {
		return false
	}
	zones := possible
	if fixedSet {
		zones = fixed
	} else {
		// A pod's volume is provisioned where it first lands: only the
		// zones its capacity spans matter.
		landable := map[cluster.Sym]bool{}
		for i, s := range c.sources {
			cl := r.cells[i]
			switch {
			case s.lint != nil && s.lint.AnyZone:
				// Judged per zone below: a pool lands it where it allows.
				for _, z := range possible {
					landable[z] = true
				}
			case cl.CanLand || cl.Provisions:
				for _, z := range c.sourceZones(s) {
					landable[z] = true
				}
			}
		}
		zones = slices.DeleteFunc(slices.Clone(possible), func(z cluster.Sym) bool { return !landable[z] })
	}
	var lost []string
	var whys []string
	for _, z := range zones {
		spec := pinned(r.spec, z)
		reached := false
		var zw []string
		for _, s := range c.sources {
			cl := c.judge(spec, s)
			if cl.Provisions || (s.static() && cl.CanLand) {
				reached = true
				break
			}
			if c.templateZone(s) != "" && c.judge(r.spec, s).Provisions {
				zw = append(zw, fmt.Sprintf("%s's template node is in %s", s.ID, c.templateZone(s)))
			}
		}
		if !reached {
			lost = append(lost, c.syms.Name(z))
			for _, w := range zw {
				if !slices.Contains(whys, w) {
					whys = append(whys, w)
				}
			}
		}
	}
	if len(lost) == 0 {
		return false
	}
	what := "volume (StorageClass " + strings.Join(classes, ", ") + ")"
	if len(classes) == 0 {
		what = "bound PersistentVolume"
	}
	because := ""
	if len(whys) > 0 {
		because = " (" + strings.Join(whys, "; ") + ")"
	}
	sev, msg := Warning, ""
	if fixedSet {
		sev = Error
		msg = fmt.Sprintf("its pods' %s is in %s, and no capacity source would add a node there for them%s: they can run only on nodes already there",
			what, strings.Join(lost, ", "), because)
	} else {
		msg = fmt.Sprintf("each pod's %s lives in the zone the pod first lands in; a pod whose volume is in %s can come back only there, and no capacity source would add a node there for it%s",
			what, strings.Join(lost, " or "), because)
		if w := &c.sc.Workloads[r.w]; w.Kind == workload.StatefulSet && w.OrderedReady {
			msg += "; while it waits, the StatefulSet (podManagementPolicy OrderedReady) creates none of its missing higher ordinals"
		}
	}
	fix := "give each zone its own node group (one eksctl managed node group per availability zone) and run the Cluster Autoscaler with --balance-similar-node-groups, or let a Karpenter NodePool that allows every zone provision these pods"
	c.add(c.workloadFinding(r.w, sev, KindVolumeZone, msg, fix, nil))
	return sev == Error
}

// landsUnpinned says whether some source could host the row's pods were
// their volumes not already in a zone.
func (c *checker) landsUnpinned(r *row) bool {
	for _, s := range c.sources {
		if c.judge(r.spec, s).CanLand {
			return true
		}
	}
	return false
}

// templateZone names the zone of the node a source simulates scale-ups
// with (a node group's template), or "" for a source without one.
func (c *checker) templateZone(s *source) string {
	if s.lint == nil {
		return ""
	}
	return s.lint.TemplateZone
}

// ZoneCells judges a workload's pods (Kind/namespace/name) with their
// volumes pinned to zone against every capacity source, as the
// volume-zone finding does: what sim explain shows for a pod its volume
// holds in one zone. nil when the workload is not in the scenario.
func ZoneCells(sc *scenario.Scenario, workload, zone string) []Cell {
	c := &checker{sc: sc, syms: sc.Syms.Clone(), byW: map[int]*row{}, fbRow: map[int]*row{}}
	c.buildSources()
	c.buildRows()
	for _, r := range c.rows {
		if r.variant != "" || c.sc.Workloads[r.w].Ref() != workload {
			continue
		}
		spec := pinned(r.spec, c.syms.Intern(zone))
		var out []Cell
		for _, s := range c.sources {
			cl := c.judge(spec, s)
			if cl.CanLand && !cl.Provisions && !s.static() && cl.Reason == "" {
				// Its nodes there take the pods, but it adds none for them.
				cl.Reason = "adds no node there for these pods"
				if c.templateZone(s) != "" {
					cl.Reason = "adds no node there for these pods (its template node is in " + c.templateZone(s) + ")"
				}
			}
			out = append(out, cl.Cell)
		}
		return out
	}
	return nil
}
