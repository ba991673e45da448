package cluster

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/engine"
)

// Volumes: StorageClasses, PersistentVolumeClaims and PersistentVolumes,
// as far as they decide where a pod may run.
//
// A pod spec names its claims (ClaimRef: a persistentVolumeClaim volume,
// a StatefulSet volumeClaimTemplate, a generic ephemeral volume). Every
// replica of a template shares its PodSpec, but a StatefulSet's claims are
// per ordinal and may sit in different zones; so the cluster gives each
// pod with claims a variant of its template's spec that carries the pod's
// VolumePin (the zones its bound volumes allow, the topology its unbound
// claims' classes allow, how many EBS volumes it attaches). Variants are
// shared by every pod with the same template and the same pin: pods whose
// volumes sit in one zone stay one scheduling class, pods whose volumes sit
// in different zones do not. Pods without claims keep their template's spec
// and cost nothing here.
//
// Claims are created with their pod (templates and ephemeral volumes) or
// from the manifests, and bound:
//   - Immediate classes provision at once, in the zone the CSI
//     external-provisioner and the EBS driver would pick: the class's
//     allowedTopologies (else the scenario's zones) sorted, shifted by an
//     FNV-32 hash of the claim name's StatefulSet part plus its ordinal
//     (external-provisioner topology.go, getPVCNameHashAndIndexOffset), the
//     first of which the driver takes;
//   - WaitForFirstConsumer classes provision when the scheduler binds the
//     claim's first pod, in that node's zone (BindVolumes).
//
// A volume of a class that attaches to nodes (EBS) counts against the
// node's attach limit while a pod using it is on the node; a pod whose
// volume is still attached to another node waits, bound, before it can
// start (the attach/detach controller's Multi-Attach error) until the
// volume is free. A volume comes free when the last pod using it leaves
// its node: at once when the pod was deleted gracefully (the kubelet
// unmounts, the controller detaches); when the node went away with the pod
// on it (CauseNodeGone), no kubelet unmounted it and the controller, which
// still has it mounted there, force-detaches it ForceDetachAfter (6 min)
// later (VolumeHeld, ForceDetach; EC2 detached the disk with the instance,
// but the controller will not attach it elsewhere before).
//
// Simplifications: provisioning, attaching and detaching take no time;
// claims are never deleted (a StatefulSet's are retained, as with the
// default persistentVolumeClaimRetentionPolicy) except those of ephemeral
// volumes, which go with their pod; access modes are not checked (a
// ReadWriteOnce volume is attached to one node at a time, which is what
// EBS allows); volume capacity is not matched against claims; a claim
// with no class binds only to the PersistentVolume that names it.

// BindingMode is a StorageClass's volumeBindingMode.
type BindingMode uint8

// Binding modes.
const (
	Immediate BindingMode = iota
	WaitForFirstConsumer
)

func (m BindingMode) String() string {
	if m == WaitForFirstConsumer {
		return "WaitForFirstConsumer"
	}
	return "Immediate"
}

// StorageClass is a compiled StorageClass.
type StorageClass struct {
	Name        string
	Provisioner string
	// Zonal: its volumes live in one zone (EBS); EFS, FSx, NFS and
	// unknown provisioners are not zonal.
	Zonal bool
	// Attach: its volumes attach to a node and count against the node's
	// attach limit (EBS).
	Attach bool
	Mode   BindingMode
	// Zones are allowedTopologies' zone values, sorted; nil: any zone.
	Zones []Sym
}

// VolumeInput is a PersistentVolume manifest.
type VolumeInput struct {
	Name  string
	Class string
	// Zones its node affinity allows (sorted); nil: any node.
	Zones []Sym
	// ByLabel: the zone comes from its topology.kubernetes.io/zone label,
	// not node affinity (the VolumeZone plugin's check).
	ByLabel bool
	Attach  bool
	// ClaimNamespace and ClaimName are its claimRef ("" for none).
	ClaimNamespace Sym
	ClaimName      string
}

// ClaimInput is a PersistentVolumeClaim manifest.
type ClaimInput struct {
	Namespace Sym
	Name      string
	// Class is the storage class name; "" with NoClass false means the
	// default class.
	Class   string
	NoClass bool // storageClassName: "" (static binding only)
	// VolumeName is spec.volumeName: the claim binds only to that volume.
	VolumeName string
}

// ClaimRef is one claim a pod spec uses.
type ClaimRef struct {
	// Name is the claim's name; for a template it is the template's name
	// (the claim is NAME-<pod name>), for an ephemeral volume the volume's
	// (the claim is <pod name>-NAME).
	Name      string
	Template  bool
	Ephemeral bool
	// Class and NoClass, for templates and ephemeral volumes: as in
	// ClaimInput.
	Class   string
	NoClass bool
}

// Storage is the scenario's storage objects, compiled. It is read-only:
// runs of one scenario share it.
type Storage struct {
	Classes []StorageClass
	// Default indexes the default class (-1: none).
	Default int
	Volumes []VolumeInput
	Claims  []ClaimInput
	// Zones are the scenario's zones: Immediate binding without
	// allowedTopologies picks one of them.
	Zones []Sym
}

// ClassIndex returns the index of a class by name, -1 if none.
func (s *Storage) ClassIndex(name string) int {
	for i := range s.Classes {
		if s.Classes[i].Name == name {
			return i
		}
	}
	return -1
}

// ClaimID indexes claims; VolumeID volumes.
type (
	ClaimID  int32
	VolumeID int32
)

// NoVolume marks an unbound claim; NoClaim a volume no claim holds.
const (
	NoVolume VolumeID = -1
	NoClaim  ClaimID  = -1
)

// Claim is one PersistentVolumeClaim of the run.
type Claim struct {
	Namespace Sym
	Name      string
	Class     int // -1: none
	Volume    VolumeID
	// Want is spec.volumeName ("" for none).
	Want      string
	Ephemeral bool
	Gone      bool // an ephemeral claim deleted with its pod
	Created   engine.Time
	users     []PodID // live pods using it
}

// Volume is one PersistentVolume of the run.
type Volume struct {
	Name string
	// ClassName is its storageClassName ("" for none).
	ClassName string
	Zones     []Sym // nil: any zone
	ByLabel   bool
	Attach    bool
	Claim     ClaimID
	// Node the volume is attached to (NoNode), and how many pods there
	// use it.
	Node NodeID
	pods int32
	// waiting are bound pods elsewhere that wait for it to detach.
	waiting []PodID
	// Provisioned when it was created by a class (false: a manifest's).
	Provisioned bool
	// held: still attached to Node, which its last pod left without an
	// unmount, until ForceDetach.
	held bool
}

// ZoneSet is a set of zones a node's zone must be in; unset allows all.
type ZoneSet struct {
	Set   bool
	Zones []Sym // sorted
}

// Allows reports whether the set allows a node of this zone.
func (z ZoneSet) Allows(zone Sym) bool {
	if !z.Set {
		return true
	}
	_, ok := slices.BinarySearch(z.Zones, zone)
	return ok
}

func (z ZoneSet) and(zones []Sym) ZoneSet {
	if !z.Set {
		return ZoneSet{Set: true, Zones: zones}
	}
	var out []Sym
	for _, s := range z.Zones {
		if _, ok := slices.BinarySearch(zones, s); ok {
			out = append(out, s)
		}
	}
	return ZoneSet{Set: true, Zones: out}
}

// VolumePin is what a pod's claims demand of a node. It is set on the
// pod's spec variant (PodSpec.Volume).
type VolumePin struct {
	// Bound: zones its bound volumes' node affinity allows (VolumeBinding:
	// "node(s) had volume node affinity conflict").
	Bound ZoneSet
	// Label: zones its bound volumes' zone labels allow (VolumeZone:
	// "node(s) had no available volume zone").
	Label ZoneSet
	// Unbound: zones its unbound WaitForFirstConsumer claims' classes can
	// provision in (VolumeBinding: "node(s) didn't find available
	// persistent volumes to bind").
	Unbound ZoneSet
	// Unbindable: an unbound claim no node can help (an Immediate claim
	// that found no volume, a claim without class whose volume does not
	// exist).
	Unbindable bool
	// Attach counts the pod's volumes that attach to its node (EBS).
	Attach int32
}

func (p *VolumePin) zero() bool {
	return !p.Bound.Set && !p.Label.Set && !p.Unbound.Set && !p.Unbindable && p.Attach == 0
}

func (p *VolumePin) key() string {
	return fmt.Sprintf("%v|%v|%v|%v|%d", p.Bound, p.Label, p.Unbound, p.Unbindable, p.Attach)
}

// VolumeCheck is the verdict of a pod's volumes on a node.
type VolumeCheck uint8

// Volume verdicts, in the order the scheduler's filters give them.
const (
	VolumesFit     VolumeCheck = iota
	VolumeUnbound              // VolumeBinding PreFilter: an unbound claim nothing can bind
	VolumeConflict             // VolumeBinding: a bound volume's node affinity
	VolumeNoBind               // VolumeBinding: an unbound claim's class cannot provision here
	VolumeZone                 // VolumeZone: a bound volume's zone label
)

// Check runs the pin against a node's zone.
func (p *VolumePin) Check(zone Sym) VolumeCheck {
	switch {
	case p.Unbindable:
		return VolumeUnbound
	case !p.Bound.Allows(zone):
		return VolumeConflict
	case !p.Unbound.Allows(zone):
		return VolumeNoBind
	case !p.Label.Allows(zone):
		return VolumeZone
	}
	return VolumesFit
}

// SetAttachLimit sets how many EBS volumes a node of an instance type can
// attach (the scheduler's NodeVolumeLimits and Karpenter's existing-node
// check read it through AttachLimit). Unset: catalog.DefaultEBSVolumeLimit.
func (c *Cluster) SetAttachLimit(f func(instanceType string) int32) { c.attachLimit = f }

// AttachLimit returns how many EBS volumes the node can attach.
func (c *Cluster) AttachLimit(n *Node) int32 {
	if c.attachLimit == nil {
		return int32(catalog.DefaultEBSVolumeLimit())
	}
	return c.attachLimit(n.InstanceType)
}

// volumes is the run's storage state; nil in a cluster without storage.
type volumes struct {
	st        *Storage
	claims    []Claim
	claimIdx  map[string]ClaimID // namespace/name
	vols      []Volume
	volIdx    map[string]VolumeID
	podClaims map[PodID][]ClaimID
	variants  map[*PodSpec]map[string]*PodSpec
	// base maps a variant to its template's spec.
	base map[*PodSpec]*PodSpec
	// attached counts, by NodeID, the attach-limited volumes attached.
	attached []int32
	stats    VolumeStats
}

// VolumeStats counts what the storage model did, for the report.
type VolumeStats struct {
	ClaimsCreated      int
	VolumesProvisioned int
	// AttachWaits counts pods that waited, bound, for a volume to detach
	// from another node; AttachWaited sums those waits.
	AttachWaits  int
	AttachWaited engine.Time
	// ForceDetaches counts volumes the attach/detach controller
	// force-detached after ForceDetachAfter.
	ForceDetaches int
}

// ForceDetachAfter is the attach/detach controller's
// maxWaitForUnmountDuration (kube-controller-manager, not configurable):
// a volume that is attached to an unhealthy node and no longer wanted
// there, but that the node never reported unmounted, is force-detached
// this long after the detach was first wanted (the pod's deletion), unless
// --disable-force-detach-on-timeout is set (default false).
const ForceDetachAfter = engine.Time(6 * time.Minute)

func claimKey(ns Sym, name string, syms *Symbols) string {
	return syms.Name(ns) + "/" + name
}

// SetStorage installs the scenario's storage objects: the manifests'
// claims are created and bound (to the volume they or their volume's
// claimRef name, else by their class). Call once, before any pod.
func (c *Cluster) SetStorage(st *Storage) {
	if st == nil {
		return
	}
	v := &volumes{st: st, claimIdx: map[string]ClaimID{}, volIdx: map[string]VolumeID{},
		podClaims: map[PodID][]ClaimID{}, variants: map[*PodSpec]map[string]*PodSpec{}, base: map[*PodSpec]*PodSpec{}}
	c.vol = v
	for _, in := range st.Volumes {
		v.volIdx[in.Name] = VolumeID(len(v.vols))
		v.vols = append(v.vols, Volume{Name: in.Name, ClassName: in.Class, Zones: in.Zones, ByLabel: in.ByLabel, Attach: in.Attach,
			Claim: NoClaim, Node: NoNode})
	}
	for _, in := range st.Claims {
		cls := -1
		switch {
		case in.NoClass:
		case in.Class != "":
			cls = st.ClassIndex(in.Class)
		default:
			cls = st.Default
		}
		c.newClaim(in.Namespace, in.Name, cls, in.VolumeName, false, NoPod)
	}
}

// Claims returns every claim of the run so far (nil without storage),
// indexed by ClaimID; Gone ones included.
func (c *Cluster) Claims() []Claim {
	if c.vol == nil {
		return nil
	}
	return c.vol.claims
}

// Volumes returns every volume of the run so far, indexed by VolumeID.
func (c *Cluster) Volumes() []Volume {
	if c.vol == nil {
		return nil
	}
	return c.vol.vols
}

// DefaultStorageClass indexes the default class in StorageClasses (-1:
// none).
func (c *Cluster) DefaultStorageClass() int {
	if c.vol == nil {
		return -1
	}
	return c.vol.st.Default
}

// HasStorage reports whether the cluster models volumes.
func (c *Cluster) HasStorage() bool { return c.vol != nil }

// StorageClasses returns the scenario's classes (nil without storage).
func (c *Cluster) StorageClasses() []StorageClass {
	if c.vol == nil {
		return nil
	}
	return c.vol.st.Classes
}

// VolumeStats returns the storage counters so far.
func (c *Cluster) VolumeStats() VolumeStats {
	if c.vol == nil {
		return VolumeStats{}
	}
	return c.vol.stats
}

// newClaim creates a claim and binds it if it can be bound now.
func (c *Cluster) newClaim(ns Sym, name string, class int, want string, ephemeral bool, pod PodID) ClaimID {
	v := c.vol
	id := ClaimID(len(v.claims))
	v.claims = append(v.claims, Claim{Namespace: ns, Name: name, Class: class, Volume: NoVolume, Want: want,
		Ephemeral: ephemeral, Created: c.Now()})
	v.claimIdx[claimKey(ns, name, c.Syms)] = id
	v.stats.ClaimsCreated++
	c.bindStatic(id)
	if cl := &v.claims[id]; cl.Volume == NoVolume && class >= 0 && v.st.Classes[class].Mode == Immediate {
		c.provision(id, NoSym, pod, NoNode)
	}
	return id
}

// bindStatic binds a claim to the manifest volume it names, or that names
// it.
func (c *Cluster) bindStatic(id ClaimID) {
	v := c.vol
	cl := &v.claims[id]
	if cl.Want != "" {
		if vid, ok := v.volIdx[cl.Want]; ok && v.vols[vid].Claim == NoClaim {
			c.bindTo(id, vid)
		}
		return
	}
	for i, in := range v.st.Volumes {
		if in.ClaimName == cl.Name && in.ClaimNamespace == cl.Namespace && v.vols[i].Claim == NoClaim {
			c.bindTo(id, VolumeID(i))
			return
		}
	}
}

func (c *Cluster) bindTo(id ClaimID, vid VolumeID) {
	c.vol.claims[id].Volume = vid
	c.vol.vols[vid].Claim = id
}

// provision creates the claim's volume through its class: in zone when
// given (WaitForFirstConsumer: the chosen node's zone), else where the
// provisioner would for Immediate binding.
func (c *Cluster) provision(id ClaimID, zone Sym, pod PodID, node NodeID) {
	v := c.vol
	cl := &v.claims[id]
	cls := &v.st.Classes[cl.Class]
	// Named after the claim's number, unless a manifest's volume (one of
	// a dumped state, imported) has that name.
	name := "pvc-" + strconv.Itoa(int(id))
	for k := 1; ; k++ {
		if _, taken := v.volIdx[name]; !taken {
			break
		}
		name = "pvc-" + strconv.Itoa(int(id)) + "-" + strconv.Itoa(k)
	}
	vol := Volume{Name: name, ClassName: cls.Name, Attach: cls.Attach, Claim: id, Node: NoNode, Provisioned: true}
	if cls.Zonal {
		if zone == NoSym {
			zone = ImmediateZone(c.Syms, cl.Name, cls.Zones, v.st.Zones)
			if zone == NoSym {
				return // nowhere to provision: the claim stays unbound
			}
		}
		vol.Zones = []Sym{zone}
	}
	vid := VolumeID(len(v.vols))
	v.vols = append(v.vols, vol)
	v.volIdx[name] = vid
	v.stats.VolumesProvisioned++
	c.bindTo(id, vid)
	c.notify(Change{Kind: ClaimBound, Pod: pod, Node: node, Claim: id})
}

// ImmediateZone is the zone an Immediate claim's volume is provisioned in:
// the allowed zones (else the scenario's) sorted by name, shifted by the
// FNV-32 hash of the claim name's StatefulSet part plus its ordinal, as
// the CSI external-provisioner orders its preferred topologies; the EBS
// driver takes the first. NoSym when there is no zone.
func ImmediateZone(syms *Symbols, claim string, allowed, scenario []Sym) Sym {
	zones := allowed
	if len(zones) == 0 {
		zones = scenario
	}
	if len(zones) == 0 {
		return NoSym
	}
	sorted := slices.Clone(zones)
	slices.SortFunc(sorted, func(a, b Sym) int { return strings.Compare(syms.Name(a), syms.Name(b)) })
	sorted = slices.Compact(sorted)
	hash, index := claimNameHash(claim)
	return sorted[(hash+index)%uint32(len(sorted))]
}

// claimNameHash hashes a claim name the way the provisioner spreads a
// StatefulSet's volumes: NAME-STS-N hashes STS and adds N.
func claimNameHash(name string) (hash, index uint32) {
	s := name
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		if n, err := strconv.ParseUint(name[i+1:], 10, 32); err == nil {
			index = uint32(n)
			s = name[:i]
			if j := strings.LastIndexByte(s, '-'); j >= 0 {
				s = s[j+1:]
			}
		}
	}
	h := fnv.New32()
	h.Write([]byte(s))
	return h.Sum32(), index
}

// claimsFor finds or creates the claims of a new pod, in spec order.
func (c *Cluster) claimsFor(pid PodID) []ClaimID {
	v := c.vol
	p := &c.Pods[pid]
	out := make([]ClaimID, 0, len(p.Spec.Claims))
	for _, ref := range p.Spec.Claims {
		name := ref.Name
		switch {
		case ref.Template:
			name = ref.Name + "-" + p.Name
		case ref.Ephemeral:
			name = p.Name + "-" + ref.Name
		}
		id, ok := v.claimIdx[claimKey(p.Namespace, name, c.Syms)]
		if ok && v.claims[id].Gone {
			ok = false
		}
		if !ok {
			cls := -1
			switch {
			case ref.NoClass:
			case ref.Class != "":
				cls = v.st.ClassIndex(ref.Class)
			default:
				cls = v.st.Default
			}
			if !ref.Template && !ref.Ephemeral {
				// A claim the manifests do not define: it does not exist,
				// and the pod cannot schedule (the loader refuses it).
				id = c.newClaim(p.Namespace, name, -1, "", false, NoPod)
			} else {
				id = c.newClaim(p.Namespace, name, cls, "", ref.Ephemeral, pid)
			}
		}
		out = append(out, id)
	}
	return out
}

// pinOf computes what a pod's claims demand of a node.
func (v *volumes) pinOf(claims []ClaimID) VolumePin {
	var pin VolumePin
	for _, id := range claims {
		cl := &v.claims[id]
		if cl.Volume != NoVolume {
			vol := &v.vols[cl.Volume]
			if vol.Attach {
				pin.Attach++
			}
			if vol.Zones != nil {
				if vol.ByLabel {
					pin.Label = pin.Label.and(vol.Zones)
				} else {
					pin.Bound = pin.Bound.and(vol.Zones)
				}
			}
			continue
		}
		if cl.Class < 0 || cl.Want != "" {
			pin.Unbindable = true
			continue
		}
		cls := &v.st.Classes[cl.Class]
		if cls.Mode == Immediate {
			pin.Unbindable = true
			continue
		}
		if cls.Attach {
			pin.Attach++
		}
		if cls.Zonal && cls.Zones != nil {
			pin.Unbound = pin.Unbound.and(cls.Zones)
		}
	}
	return pin
}

// variant returns the spec a pod of template base with this pin uses.
func (v *volumes) variant(base *PodSpec, pin VolumePin) *PodSpec {
	if pin.zero() {
		return base
	}
	k := pin.key()
	m := v.variants[base]
	if m == nil {
		m = map[string]*PodSpec{}
		v.variants[base] = m
	}
	if s, ok := m[k]; ok {
		return s
	}
	s := *base
	p := pin
	s.Volume = &p
	m[k] = &s
	v.base[&s] = base
	return &s
}

// repin gives a pod the spec variant its claims' state calls for.
func (c *Cluster) repin(id PodID) {
	v := c.vol
	p := &c.Pods[id]
	base := p.Spec
	if b, ok := v.base[base]; ok {
		base = b
	}
	p.Spec = v.variant(base, v.pinOf(v.podClaims[id]))
}

// podCreated records a new pod's claims (creating them) and pins it.
func (c *Cluster) podCreated(id PodID) {
	if c.vol == nil {
		c.SetStorage(&Storage{Default: -1})
	}
	v := c.vol
	claims := c.claimsFor(id)
	v.podClaims[id] = claims
	for _, cid := range claims {
		v.claims[cid].users = append(v.claims[cid].users, id)
	}
	c.repin(id)
}

// TemplateSpec returns the template spec a pod's spec variant was made
// from (spec itself when it is no variant).
func (c *Cluster) TemplateSpec(spec *PodSpec) *PodSpec {
	if c.vol != nil {
		if b, ok := c.vol.base[spec]; ok {
			return b
		}
	}
	return spec
}

// BindVolumes provisions the pod's unbound WaitForFirstConsumer claims in
// the zone of the node the scheduler chose, as the scheduler's
// VolumeBinding PreBind has them provisioned before it binds the pod, and
// re-pins every pending pod that uses them.
func (c *Cluster) BindVolumes(id PodID, node NodeID) {
	c.changing("BindVolumes")
	v := c.vol
	if v == nil || c.Pods[id].Spec.Volume == nil {
		return
	}
	var changed []ClaimID
	for _, cid := range v.podClaims[id] {
		cl := &v.claims[cid]
		if cl.Volume != NoVolume || cl.Class < 0 || v.st.Classes[cl.Class].Mode != WaitForFirstConsumer {
			continue
		}
		c.provision(cid, c.Nodes[node].Zone, id, node)
		changed = append(changed, cid)
	}
	for _, cid := range changed {
		for _, u := range v.claims[cid].users {
			// Pods on a node keep the spec their node's PodRefs hold; a
			// claim is bound before any pod using it is (every bind comes
			// through here), so they are pending.
			if c.Pods[u].Phase == Pending {
				c.repin(u)
			}
		}
	}
}

// ClaimsOf returns the claims of a pod (nil for a pod without any).
func (c *Cluster) ClaimsOf(id PodID) []ClaimID {
	if c.vol == nil {
		return nil
	}
	return c.vol.podClaims[id]
}

// Claim returns a claim.
func (c *Cluster) Claim(id ClaimID) *Claim { return &c.vol.claims[id] }

// VolumeOf returns a claim's volume, or nil while it is unbound.
func (c *Cluster) VolumeOf(id ClaimID) *Volume {
	cl := &c.vol.claims[id]
	if cl.Volume == NoVolume {
		return nil
	}
	return &c.vol.vols[cl.Volume]
}

// ClaimClass returns a claim's class, or nil.
func (c *Cluster) ClaimClass(id ClaimID) *StorageClass {
	cl := &c.vol.claims[id]
	if cl.Class < 0 {
		return nil
	}
	return &c.vol.st.Classes[cl.Class]
}

// AttachedVolumes returns how many attach-limited volumes are attached to
// a node.
func (c *Cluster) AttachedVolumes(id NodeID) int32 {
	if c.vol == nil || int(id) >= len(c.vol.attached) {
		return 0
	}
	return c.vol.attached[id]
}

// NewAttachments returns how many of a pod's attach-limited volumes are
// not attached to the node yet: what the node's attach limit must still
// hold.
func (c *Cluster) NewAttachments(id PodID, node NodeID) int32 {
	p := &c.Pods[id]
	if p.Spec.Volume == nil || p.Spec.Volume.Attach == 0 {
		return 0
	}
	n := p.Spec.Volume.Attach
	for _, cid := range c.vol.podClaims[id] {
		if vol := c.VolumeOf(cid); vol != nil && vol.Attach && vol.Node == node {
			n--
		}
	}
	return n
}

// VolumesAttached reports whether every attach-limited volume of a bound
// pod is attached to its node; a pod waits to start until they are.
func (c *Cluster) VolumesAttached(id PodID) bool {
	p := &c.Pods[id]
	if c.vol == nil || p.Spec.Volume == nil || p.Spec.Volume.Attach == 0 {
		return true
	}
	for _, cid := range c.vol.podClaims[id] {
		if vol := c.VolumeOf(cid); vol != nil && vol.Attach && vol.Node != p.Node {
			return false
		}
	}
	return true
}

// attachPod attaches a bound pod's volumes to its node; a volume attached
// to another node makes the pod wait for it.
func (c *Cluster) attachPod(id PodID) {
	v := c.vol
	node := c.Pods[id].Node
	for _, cid := range v.podClaims[id] {
		cl := &v.claims[cid]
		if cl.Volume == NoVolume {
			continue
		}
		vol := &v.vols[cl.Volume]
		switch {
		case !vol.Attach:
		case vol.Node == node:
			vol.pods++
		case vol.Node == NoNode:
			c.attach(cl.Volume, node)
			vol.pods = 1
		default:
			vol.waiting = append(vol.waiting, id)
		}
	}
}

func (c *Cluster) attach(vid VolumeID, node NodeID) {
	v := c.vol
	for int(node) >= len(v.attached) {
		v.attached = append(v.attached, 0)
	}
	v.attached[node]++
	v.vols[vid].Node = node
}

// detachPod releases a pod's volumes as it leaves its node (node is where
// it was). A volume no pod there uses any more detaches; the first pod
// waiting for it elsewhere gets it.
func (c *Cluster) detachPod(id PodID, node NodeID) {
	v := c.vol
	for _, cid := range v.podClaims[id] {
		cl := &v.claims[cid]
		if cl.Volume == NoVolume {
			continue
		}
		vid := cl.Volume
		vol := &v.vols[vid]
		if !vol.Attach {
			continue
		}
		if i := slices.Index(vol.waiting, id); i >= 0 {
			vol.waiting = slices.Delete(vol.waiting, i, i+1)
			continue
		}
		if vol.Node != node {
			continue
		}
		if vol.pods--; vol.pods > 0 {
			continue
		}
		v.attached[node]--
		if c.Pods[id].Cause == CauseNodeGone {
			// No kubelet unmounted it: the node went away with the pod on
			// it. EC2 detaches the disk with the instance, but the
			// attach/detach controller still has it mounted on the node
			// (its last volumesInUse) and refuses to attach it elsewhere
			// (Multi-Attach) until its force detach.
			vol.held = true
			c.notify(Change{Kind: VolumeHeld, Pod: id, Node: node, Claim: cid})
			continue
		}
		vol.Node = NoNode
		c.handOver(vid)
	}
}

// handOver attaches a free volume to the node of the first pod waiting
// for it. Every pod waiting for it on that node has it then, not only the
// first: each stops waiting, counts as using it there and is told.
func (c *Cluster) handOver(vid VolumeID) {
	vol := &c.vol.vols[vid]
	if len(vol.waiting) == 0 {
		return
	}
	node := c.Pods[vol.waiting[0]].Node
	c.attach(vid, node)
	var got []PodID
	keep := vol.waiting[:0]
	for _, p := range vol.waiting {
		if c.Pods[p].Node != node {
			keep = append(keep, p)
			continue
		}
		vol.pods++ // once per use, as attachPod counts
		if !slices.Contains(got, p) {
			got = append(got, p)
		}
	}
	vol.waiting = keep
	for _, p := range got {
		c.notify(Change{Kind: VolumeAttached, Pod: p, Node: node})
	}
}

// ForceDetach releases a claim's volume held on the node its pod left
// without an unmount (VolumeHeld): the attach/detach controller's force
// detach after ForceDetachAfter. The first pod waiting for it gets it.
func (c *Cluster) ForceDetach(cid ClaimID) {
	c.changing("ForceDetach")
	v := c.vol
	vid := v.claims[cid].Volume
	if vid == NoVolume || !v.vols[vid].held {
		return
	}
	vol := &v.vols[vid]
	node := vol.Node
	vol.held, vol.Node = false, NoNode
	v.stats.ForceDetaches++
	c.notify(Change{Kind: VolumeForceDetached, Pod: NoPod, Node: node, Claim: cid})
	c.handOver(vid)
}

// Held reports whether a volume is held on a node its pod left without
// an unmount, waiting for its force detach.
func (v *Volume) Held() bool { return v.held }

// NoteAttachWait records that a pod waited from since until now for a
// volume to detach (the kubelet calls it as the pod starts).
func (c *Cluster) NoteAttachWait(since engine.Time) {
	c.vol.stats.AttachWaits++
	c.vol.stats.AttachWaited += c.Now() - since
}

// podEnded forgets a pod's claim uses; an ephemeral claim goes with it.
func (c *Cluster) podEnded(id PodID) {
	v := c.vol
	for _, cid := range v.podClaims[id] {
		cl := &v.claims[cid]
		if i := slices.Index(cl.users, id); i >= 0 {
			cl.users = slices.Delete(cl.users, i, i+1)
		}
		if cl.Ephemeral && len(cl.users) == 0 {
			cl.Gone = true
		}
	}
}

// ClaimName returns "namespace/name" of a claim.
func (c *Cluster) ClaimName(id ClaimID) string {
	cl := &c.vol.claims[id]
	return claimKey(cl.Namespace, cl.Name, c.Syms)
}

// ZoneNames renders a sorted zone list.
func ZoneNames(syms *Symbols, zones []Sym) string {
	names := make([]string, len(zones))
	for i, z := range zones {
		names[i] = syms.Name(z)
	}
	return strings.Join(names, ", ")
}

// The scheduler's messages for volume failures (k8s volumebinding,
// volumezone and nodevolumelimits plugins).
const (
	MsgVolumeUnbound  = "pod has unbound immediate PersistentVolumeClaims"
	MsgVolumeConflict = "node(s) had volume node affinity conflict"
	MsgVolumeNoBind   = "node(s) didn't find available persistent volumes to bind"
	MsgVolumeZone     = "node(s) had no available volume zone"
	MsgVolumeLimit    = "node(s) exceed max volume count"
)

// Message is the scheduler's message for a volume verdict ("" for fit).
func (v VolumeCheck) Message() string {
	switch v {
	case VolumeUnbound:
		return MsgVolumeUnbound
	case VolumeConflict:
		return MsgVolumeConflict
	case VolumeNoBind:
		return MsgVolumeNoBind
	case VolumeZone:
		return MsgVolumeZone
	}
	return ""
}

// Zones returns the zones every set of the pin allows (set false: the pin
// does not restrict the zone): the requirement an autoscaler adds for the
// pod's volumes.
func (p *VolumePin) Zones() (zones []Sym, set bool) {
	var z ZoneSet
	for _, s := range []ZoneSet{p.Bound, p.Label, p.Unbound} {
		if s.Set {
			z = z.and(s.Zones)
		}
	}
	return z.Zones, z.Set
}
