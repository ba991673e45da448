package scheduling

import (
	"math"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/clustersim/clustersim/sim/catalog"
	"github.com/clustersim/clustersim/sim/cloud"
	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/karpenter/apis"
)

// Instance-type label keys (KA pkg/providers/instancetype/types.go
// computeRequirements): four fixed ones, then every label key of the
// catalogue (karpenter.k8s.aws/instance-*), in offerings.typeKey. A type
// without a value for a key (no GPUs: no instance-gpu-*) does not have the
// label: as upstream's DoesNotExist requirement on it, it meets only NotIn
// and DoesNotExist requirements on that key.
const (
	TkInstanceType = iota
	TkArch
	TkOS
	TkRegion
	numFixedTypeKeys
)

var fixedTypeKeyNames = [numFixedTypeKeys]string{apis.LabelInstanceType, apis.LabelArch, apis.LabelOS, apis.LabelRegion}

// typeKeyNames returns the fixed instance-type label keys, then the
// catalogue's label keys but arch and os, sorted.
func typeKeyNames(cat *catalog.Catalog) []string {
	out := append([]string(nil), fixedTypeKeyNames[:]...)
	for _, k := range cat.LabelKeys() {
		if k != apis.LabelArch && k != apis.LabelOS {
			out = append(out, k)
		}
	}
	return out
}

// exoticResources are the accelerators that make an instance type exotic
// (KA's instance-type filter: GPUs, Neuron devices, Gaudis).
var exoticResources = []string{catalog.ResourceNVIDIAGPU, catalog.ResourceAMDGPU, catalog.ResourceNeuron, catalog.ResourceHabanaGaudi}

// Capacity types with offerings. Reserved offerings (capacity
// reservations) are not modelled.
const (
	CtOnDemand = 0
	CtSpot     = 1
	NumCT      = 2
)

func CtOf(i int) cluster.CapacityType {
	if i == CtSpot {
		return cluster.Spot
	}
	return cluster.OnDemand
}

// offerings is what Karpenter knows of EC2's offerings (KA instance-type,
// pricing and offering providers): the instance types of the region, their
// offerings per zone and capacity type with prices, and the
// insufficient-capacity cache of offerings that recently failed.
type Offerings struct {
	Env
	region   string
	Zones    []string
	zoneSyms []cluster.Sym
	CtSyms   [NumCT]cluster.Sym

	Types      []*InstanceType
	TypeByName map[string]*InstanceType
	// typeKeyNames and typeKey are the instance-type label keys, by index
	// (tk*, then the catalogue's keys); itype.lab holds a value per key.
	TypeKeyNames []string
	TypeKey      []cluster.Sym
	typeKeyOf    []int8 // Sym -> index in typeKey, -1 for other keys
	Off          offers
	// availBuf is availMasks' answer, kept while the time and the table's
	// version stay the same.
	AvailBuf     []uint64
	AvailOK      bool
	AvailAt      engine.Time
	AvailVersion uint64
	// deferICE: a batch is launching; capacity errors wait in iceQueue
	// until it is done (flushICE).
	DeferICE bool
	iceQueue []cloud.Offering
}

// newOfferings builds the instance-type table of the catalogue and prices
// every offering.
func NewOfferings(e Env, region string, zones []string, zoneSyms []cluster.Sym, ctSyms [NumCT]cluster.Sym) *Offerings {
	o := &Offerings{Env: e, region: region, Zones: append([]string(nil), zones...), zoneSyms: zoneSyms, CtSyms: ctSyms,
		TypeByName: map[string]*InstanceType{}}
	o.buildTypes()
	for _, t := range o.Types {
		o.TypeByName[t.Name] = t
	}
	o.RefreshPrices()
	return o
}

// itype is one instance type as Karpenter sees it.
type InstanceType struct {
	Idx  int32
	Name string
	Cat  *catalog.InstanceType
	// lab is the type's value of each type key (offerings.typeKey), NoSym
	// where it has no such label.
	Lab []cluster.Sym
	// exotic types (GPUs and other accelerators, metal) are launched only
	// when nothing else fits (KA instance filter ExoticInstanceTypeFilter).
	Exotic bool
}

// offers holds the offering table: instance type x zone x capacity type.
// Offering o = (type*zones + zone)*2 + capacity type.
type offers struct {
	NZones int
	// price in USD/hour; negative when the offering does not exist.
	Price []float64
	// unavailableUntil is the insufficient-capacity cache (KA pkg/cache
	// UnavailableOfferings): the offering is skipped until then.
	UnavailableUntil []engine.Time
	priceAt          engine.Time
	priced           bool
	// version changes with every price refresh and cache entry.
	Version uint64
}

func (o *offers) Index(t int32, zone, ct int) int {
	return (int(t)*o.NZones+zone)*NumCT + ct
}

func (o *offers) Available(i int, now engine.Time) bool {
	return o.Price[i] >= 0 && o.UnavailableUntil[i] <= now
}

// buildTypes derives the instance-type table from the catalogue: each
// type's labels as symbols, in one table built once.
func (o *Offerings) buildTypes() {
	syms := o.Cl.Syms
	o.TypeKeyNames = typeKeyNames(o.Cat)
	o.TypeKey = make([]cluster.Sym, len(o.TypeKeyNames))
	for i, k := range o.TypeKeyNames {
		o.TypeKey[i] = syms.Intern(k)
	}
	catTypes := o.Cat.Types()
	nk := len(o.TypeKey)
	labs := make([]cluster.Sym, len(catTypes)*nk)
	region := syms.Intern(o.region)
	for _, it := range catTypes {
		t := &InstanceType{Idx: int32(len(o.Types)), Name: it.Name, Cat: it}
		t.Lab, labs = labs[:nk:nk], labs[nk:]
		t.Lab[TkInstanceType] = syms.Intern(it.Name)
		t.Lab[TkArch] = syms.Intern(it.Arch)
		t.Lab[TkOS] = syms.Intern("linux")
		t.Lab[TkRegion] = region
		for _, l := range it.Labels {
			if i := slices.Index(o.TypeKeyNames[numFixedTypeKeys:], l.Key); i >= 0 {
				t.Lab[numFixedTypeKeys+i] = syms.Intern(l.Value)
			}
		}
		t.Exotic = strings.Contains(it.Size, "metal")
		for _, r := range exoticResources {
			t.Exotic = t.Exotic || it.ExtendedCount(r) > 0
		}
		o.Types = append(o.Types, t)
	}
	n := len(o.Types) * len(o.Zones) * NumCT
	o.Off = offers{NZones: len(o.Zones), Price: make([]float64, n), UnavailableUntil: make([]engine.Time, n)}
	o.typeKeyOf = make([]int8, syms.Len())
	for i := range o.typeKeyOf {
		o.typeKeyOf[i] = -1
	}
	for i, key := range o.TypeKey {
		o.typeKeyOf[key] = int8(i)
	}
}

// refreshPrices asks the cloud for every offering's price, at most once
// per PriceRefreshInterval (Karpenter's pricing controller). An offering
// the cloud has no price for does not exist.
func (o *Offerings) RefreshPrices() {
	now := o.Eng.Now()
	if o.Off.priced && now-o.Off.priceAt < o.Settings.PriceRefreshInterval {
		return
	}
	o.Off.priced, o.Off.priceAt = true, now
	o.Off.Version++
	for _, t := range o.Types {
		for z, zone := range o.Zones {
			for ct := 0; ct < NumCT; ct++ {
				p, ok := o.Cloud.Price(cloud.Offering{InstanceType: t.Name, Zone: zone, CapacityType: CtOf(ct)})
				if !ok || math.IsNaN(p) || p < 0 {
					p = -1
				}
				o.Off.Price[o.Off.Index(t.Idx, z, ct)] = p
			}
		}
	}
}

// availMask returns, per instance type, the bits (zone*2 + capacity type)
// of its available offerings now.
func (o *Offerings) AvailMasks() []uint64 {
	now := o.Eng.Now()
	if o.AvailOK && o.AvailAt == now && o.AvailVersion == o.Off.Version {
		return o.AvailBuf
	}
	o.AvailOK, o.AvailAt, o.AvailVersion = true, now, o.Off.Version
	if cap(o.AvailBuf) < len(o.Types) {
		o.AvailBuf = make([]uint64, len(o.Types))
	}
	masks := o.AvailBuf[:len(o.Types)]
	for _, t := range o.Types {
		masks[t.Idx] = o.AvailMask(t, now)
	}
	return masks
}

// availMask is the bits of type t's offerings available at now.
func (o *Offerings) AvailMask(t *InstanceType, now engine.Time) uint64 {
	var m uint64
	base := o.Off.Index(t.Idx, 0, 0)
	for b := 0; b < o.Off.NZones*NumCT; b++ {
		if o.Off.Available(base+b, now) {
			m |= 1 << uint(b)
		}
	}
	return m
}

// markUnavailable caches an offering as unavailable for the TTL (deferred
// while a batch launches).
func (o *Offerings) MarkUnavailable(of cloud.Offering) {
	if o.DeferICE {
		o.iceQueue = append(o.iceQueue, of)
		return
	}
	t, ok := o.TypeByName[of.InstanceType]
	if !ok {
		return
	}
	z := o.zoneIndex(of.Zone)
	if z < 0 {
		return
	}
	ct := CtOnDemand
	switch of.CapacityType {
	case cluster.Spot:
		ct = CtSpot
	case cluster.Reserved:
		return
	}
	o.Off.UnavailableUntil[o.Off.Index(t.Idx, z, ct)] = o.Eng.Now() + o.Settings.UnavailableOfferingsTTL
	o.Off.Version++
}

func (o *Offerings) FlushICE() {
	o.DeferICE = false
	for _, of := range o.iceQueue {
		o.MarkUnavailable(of)
	}
	o.iceQueue = o.iceQueue[:0]
}

func (o *Offerings) zoneIndex(zone string) int {
	for i, z := range o.Zones {
		if z == zone {
			return i
		}
	}
	return -1
}

// typeCompatible reports whether the type's labels meet every requirement
// on a type key in s.
func (o *Offerings) TypeCompatible(t *InstanceType, s Requirements) bool {
	for i := range s {
		r := &s[i]
		tk, ok := o.TypeKeyIndex(r.Key)
		if !ok {
			continue
		}
		if !labelMeets(o.Cl.Syms, t.Lab[tk], r) {
			return false
		}
	}
	return true
}

func (o *Offerings) TypeKeyIndex(key cluster.Sym) (int, bool) {
	if int(key) < len(o.typeKeyOf) {
		if i := o.typeKeyOf[key]; i >= 0 {
			return int(i), true
		}
	}
	return 0, false
}

// typeChecks returns the requirements of reqs on instance-type keys that
// differ from base: the only ones a NodeClaim's remaining types must be
// re-checked against.
func (o *Offerings) typeChecks(base, reqs Requirements, buf []typeCheck) []typeCheck {
	buf = buf[:0]
	for i := range reqs {
		r := &reqs[i]
		tk, ok := o.TypeKeyIndex(r.Key)
		if !ok {
			continue
		}
		if b := base.Get(r.Key); b != nil && SameRq(b, r) {
			continue
		}
		buf = append(buf, typeCheck{tk: tk, r: r})
	}
	return buf
}

type typeCheck struct {
	tk int
	r  *Requirement
}

func SameRq(a, b *Requirement) bool {
	if a.Comp != b.Comp || a.HasGt != b.HasGt || a.HasLt != b.HasLt || a.Gt != b.Gt || a.Lt != b.Lt || len(a.Vals) != len(b.Vals) {
		return false
	}
	for i := range a.Vals {
		if a.Vals[i] != b.Vals[i] {
			return false
		}
	}
	return true
}

// typeMeets reports whether t meets the checks.
func (o *Offerings) typeMeets(t *InstanceType, checks []typeCheck) bool {
	for _, c := range checks {
		if !labelMeets(o.Cl.Syms, t.Lab[c.tk], c.r) {
			return false
		}
	}
	return true
}

// labelMeets reports whether a type's label value v (NoSym: the type has
// no such label) meets r. A missing label is upstream's DoesNotExist
// requirement, which only NotIn and DoesNotExist intersect (KC
// Requirements.Intersects).
func labelMeets(syms *cluster.Symbols, v cluster.Sym, r *Requirement) bool {
	if v == cluster.NoSym {
		return r.Negative()
	}
	return r.has(syms, v)
}

// offerMask is the bits (zone*2 + capacity type) that requirements s
// allow. Reserved is never allowed (no reserved offerings).
func (o *Offerings) OfferMask(s Requirements) uint64 {
	zr := s.Get(o.Cl.KeyZone)
	cr := s.Get(o.Cl.KeyCapacityType)
	var m uint64
	for z, zs := range o.zoneSyms {
		if zr != nil && !zr.has(o.Cl.Syms, zs) {
			continue
		}
		for ct := 0; ct < NumCT; ct++ {
			if cr != nil && !cr.has(o.Cl.Syms, o.CtSyms[ct]) {
				continue
			}
			m |= 1 << uint(z*NumCT+ct)
		}
	}
	return m
}

// ctBits selects the bits of one capacity type.
func (o *Offerings) CtBits(ct int) uint64 {
	var m uint64
	for z := range o.Zones {
		m |= 1 << uint(z*NumCT+ct)
	}
	return m
}

// cheapest returns the cheapest available offering price of type t within
// mask, +Inf if none.
func (o *Offerings) Cheapest(t *InstanceType, mask uint64) float64 {
	best := math.Inf(1)
	now := o.Eng.Now()
	base := o.Off.Index(t.Idx, 0, 0)
	for b := 0; b < o.Off.NZones*NumCT; b++ {
		if mask&(1<<uint(b)) == 0 || !o.Off.Available(base+b, now) {
			continue
		}
		if p := o.Off.Price[base+b]; p < best {
			best = p
		}
	}
	return best
}

// worstLaunchPrice is the most expensive available offering within mask
// of the capacity type a launch would use (reserved, then spot, then
// on-demand): KC Offerings.WorstLaunchPrice.
func (o *Offerings) WorstLaunchPrice(t *InstanceType, mask uint64) float64 {
	now := o.Eng.Now()
	base := o.Off.Index(t.Idx, 0, 0)
	for _, ct := range []int{CtSpot, CtOnDemand} {
		worst, found := 0.0, false
		for z := 0; z < o.Off.NZones; z++ {
			b := z*NumCT + ct
			if mask&(1<<uint(b)) == 0 || !o.Off.Available(base+b, now) {
				continue
			}
			found = true
			worst = max(worst, o.Off.Price[base+b])
		}
		if found {
			return worst
		}
	}
	return math.Inf(1)
}

// poolType is an instance type as a NodePool would launch it: capacity and
// allocatable under the pool's node class.
type PoolType struct {
	Type     *InstanceType
	Capacity cluster.Resources
	Alloc    cluster.Resources
	// daemon is the overhead of the daemonsets that would run on it.
	Daemon cluster.Resources
}

// nodeResources computes capacity and allocatable of a type under a node
// class (KA pkg/providers/instancetype/types.go: capacity minus
// kube-reserved, system-reserved and the eviction threshold).
func (o *Offerings) NodeResources(it *catalog.InstanceType, nc *apis.NodeClass) (capacity, alloc cluster.Resources) {
	kl := &nc.Kubelet
	opts := catalog.KubeletOptions{RootVolumeGiB: nc.RootVolumeGiB, VMMemoryOverheadPercent: o.Settings.VMMemoryOverheadPercent, MaxPods: kl.MaxPods,
		InstanceStoreRAID0: nc.InstanceStoreRAID0}
	c := it.Capacity(opts)
	if kl.PodsPerCore > 0 {
		c.Pods = min(c.Pods, int64(kl.PodsPerCore)*int64(it.VCPU))
	}
	kr := it.KubeReserved(opts)
	if kl.KubeReserved.SetCPU {
		kr.CPUMilli = kl.KubeReserved.CPUMilli
	}
	if kl.KubeReserved.SetMemory {
		kr.MemoryBytes = kl.KubeReserved.MemoryBytes
	}
	if kl.KubeReserved.SetEphemeral {
		kr.EphemeralBytes = kl.KubeReserved.EphemeralBytes
	}
	ev := it.EvictionThreshold(opts)
	if kl.EvictionMemoryBytes > 0 {
		ev.MemoryBytes = kl.EvictionMemoryBytes
	}
	if kl.EvictionMemoryPercent > 0 {
		ev.MemoryBytes = int64(math.Ceil(float64(c.MemoryBytes) * kl.EvictionMemoryPercent))
	}
	if kl.EvictionNodefsPercent > 0 {
		ev.EphemeralBytes = int64(math.Ceil(float64(c.EphemeralBytes) * kl.EvictionNodefsPercent))
	}
	sr := kl.SystemReserved
	capacity[cluster.CPU] = c.CPUMilli
	capacity[cluster.Memory] = c.MemoryBytes
	capacity[cluster.Ephemeral] = c.EphemeralBytes
	capacity[cluster.Pods] = c.Pods
	alloc[cluster.CPU] = max(c.CPUMilli-kr.CPUMilli-sr.CPUMilli, 0)
	alloc[cluster.Memory] = max(c.MemoryBytes-kr.MemoryBytes-sr.MemoryBytes-ev.MemoryBytes, 0)
	alloc[cluster.Ephemeral] = max(c.EphemeralBytes-kr.EphemeralBytes-sr.EphemeralBytes-ev.EphemeralBytes, 0)
	alloc[cluster.Pods] = c.Pods
	for _, e := range it.Extended {
		if slot, ok := o.Cl.Resources.Lookup(corev1.ResourceName(e.Name)); ok {
			capacity[slot] = e.Count
			alloc[slot] = e.Count
		}
	}
	return capacity, alloc
}

// nodePrice is what a node of Karpenter's costs now: its offering's
// price, or the price it launched at when the offering is no longer sold.
func (o *Offerings) NodePrice(kn *Node) float64 {
	z := o.zoneIndex(kn.Offering.Zone)
	ct := CtOnDemand
	if kn.Offering.CapacityType == cluster.Spot {
		ct = CtSpot
	}
	if z >= 0 {
		if p := o.Off.Price[o.Off.Index(kn.It.Idx, z, ct)]; p >= 0 {
			return p
		}
	}
	return o.Cl.Nodes[kn.ID].PriceUSDPerHour
}
