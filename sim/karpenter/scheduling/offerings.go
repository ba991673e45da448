package scheduling

import (
	"maps"
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
	TypeKeyInstanceType = iota
	TypeKeyArch
	TypeKeyOS
	TypeKeyRegion
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

// Capacity types with offerings. A reserved offering of a type in a zone
// exists when an EC2NodeClass selects a capacity reservation of it
// (reservations.go).
const (
	OnDemandIndex    = 0
	SpotIndex        = 1
	ReservedIndex    = 2
	NumCapacityTypes = 3
)

// CapacityTypeOf is the capacity type of a capacity-type index (OnDemandIndex,
// SpotIndex, ReservedIndex).
func CapacityTypeOf(i int) cluster.CapacityType {
	switch i {
	case SpotIndex:
		return cluster.Spot
	case ReservedIndex:
		return cluster.Reserved
	}
	return cluster.OnDemand
}

// Offerings is what Karpenter knows of EC2's offerings (KA instance-type,
// pricing and offering providers): the instance types of the region, their
// offerings per zone and capacity type with prices, and the
// insufficient-capacity cache of offerings that recently failed.
type Offerings struct {
	env
	region string
	// Zones are the zones, by index (offering bit z*NumCapacityTypes+ct).
	Zones    []string
	zoneSyms []cluster.Sym
	// CapacityTypeSyms are the capacity types' label values, by index.
	CapacityTypeSyms [NumCapacityTypes]cluster.Sym

	// types are the catalogue's instance types in catalogue order; TypeByName
	// has them by name.
	types      []*InstanceType
	TypeByName map[string]*InstanceType
	// typeKeyLabels and TypeKeys are the instance-type label keys, by index
	// (the TypeKey* constants, then the catalogue's keys); InstanceType.LabelValues holds a value per key.
	typeKeyLabels []string
	TypeKeys      []cluster.Sym
	typeKeyOf     []int8 // Sym -> index in typeKey, -1 for other keys
	// autoModeKeys maps each karpenter.k8s.aws key to the key an EKS
	// Auto Mode node carries instead (apis.AutoModeNodeLabel; NoSym: none).
	autoModeKeys map[cluster.Sym]cluster.Sym
	// autoModeTypeKeys are the eks.amazonaws.com keys typeKeyOf maps to
	// their karpenter.k8s.aws counterparts' indexes.
	autoModeTypeKeys map[cluster.Sym]bool
	// Offers is the offering table: price and availability per type, zone and
	// capacity type.
	Offers offers
	// AvailableCache is availMasks' answer, kept while the time and the table's
	// version stay the same.
	AvailableCache        []uint64
	availableCacheValid   bool
	availableCacheAt      engine.Time
	availableCacheVersion uint64
	// DeferCapacityErrors: a batch is launching; capacity errors wait in iceQueue
	// until it is done (flushICE).
	DeferCapacityErrors bool
	iceQueue            []cloud.Offering
	// Reservations are the capacity reservations EC2NodeClasses select
	// (reservations.go).
	Reservations []ReservationOffer
	reservations ReservationSource
}

// newOfferings builds the instance-type table of the catalogue and prices
// every offering.
func newOfferings(e env, region string, zones []string, zoneSyms []cluster.Sym, ctSyms [NumCapacityTypes]cluster.Sym) *Offerings {
	o := &Offerings{env: e, region: region, Zones: append([]string(nil), zones...), zoneSyms: zoneSyms, CapacityTypeSyms: ctSyms,
		TypeByName: map[string]*InstanceType{}}
	o.buildTypes()
	for _, t := range o.types {
		o.TypeByName[t.Name] = t
	}
	o.RefreshPrices()
	return o
}

// InstanceType is one instance type as Karpenter sees it.
type InstanceType struct {
	// Index is the type's position in Offerings.Types.
	Index int32
	// Name is the instance type's name (m5.large).
	Name string
	// catalogType is the catalogue's entry.
	catalogType *catalog.InstanceType
	// LabelValues is the type's value of each type key (offerings.typeKey), NoSym
	// where it has no such label.
	LabelValues []cluster.Sym
	// Exotic types (GPUs and other accelerators, metal) are launched only
	// when nothing else fits (KA instance filter ExoticInstanceTypeFilter).
	Exotic bool
}

// offers holds the offering table: instance type x zone x capacity type.
// Offering o = (type*zones + zone)*NumCapacityTypes + capacity type.
type offers struct {
	// NumZones is the number of zones (a row of the table is
	// NumZones*NumCapacityTypes offerings).
	NumZones int
	// Price in USD/hour; negative when the offering does not exist.
	Price []float64
	// UnavailableUntil is the insufficient-capacity cache (KA pkg/cache
	// UnavailableOfferings): the offering is skipped until then.
	UnavailableUntil []engine.Time
	priceAt          engine.Time
	priced           bool
	// version changes with every price refresh and cache entry.
	version uint64
}

// Index is the table position of type t's offering in zone and capacity type
// ct.
func (o *offers) Index(t int32, zone, ct int) int {
	return (int(t)*o.NumZones+zone)*NumCapacityTypes + ct
}

// Version changes with every price refresh and insufficient-capacity
// cache entry.
func (o *offers) Version() uint64 { return o.version }

// Available reports whether offering i exists and is not in the insufficient-
// capacity cache at now.
func (o *offers) Available(i int, now engine.Time) bool {
	return o.Price[i] >= 0 && o.UnavailableUntil[i] <= now
}

// buildTypes derives the instance-type table from the catalogue: each
// type's labels as symbols, in one table built once.
func (o *Offerings) buildTypes() {
	syms := o.cl.Syms
	o.typeKeyLabels = typeKeyNames(o.cat)
	o.TypeKeys = make([]cluster.Sym, len(o.typeKeyLabels))
	for i, k := range o.typeKeyLabels {
		o.TypeKeys[i] = syms.Intern(k)
	}
	catTypes := o.cat.Types()
	nk := len(o.TypeKeys)
	labs := make([]cluster.Sym, len(catTypes)*nk)
	region := syms.Intern(o.region)
	for _, it := range catTypes {
		t := &InstanceType{Index: int32(len(o.types)), Name: it.Name, catalogType: it}
		t.LabelValues, labs = labs[:nk:nk], labs[nk:]
		t.LabelValues[TypeKeyInstanceType] = syms.Intern(it.Name)
		t.LabelValues[TypeKeyArch] = syms.Intern(it.Arch)
		t.LabelValues[TypeKeyOS] = syms.Intern("linux")
		t.LabelValues[TypeKeyRegion] = region
		for _, l := range it.Labels {
			if i := slices.Index(o.typeKeyLabels[numFixedTypeKeys:], l.Key); i >= 0 {
				t.LabelValues[numFixedTypeKeys+i] = syms.Intern(l.Value)
			}
		}
		t.Exotic = strings.Contains(it.Size, "metal")
		for _, r := range exoticResources {
			t.Exotic = t.Exotic || it.ExtendedCount(r) > 0
		}
		o.types = append(o.types, t)
	}
	n := len(o.types) * len(o.Zones) * NumCapacityTypes
	o.Offers = offers{NumZones: len(o.Zones), Price: make([]float64, n), UnavailableUntil: make([]engine.Time, n)}
	o.autoModeKeys = map[cluster.Sym]cluster.Sym{}
	for _, k := range append(append([]string(nil), apis.WellKnownLabels...), o.typeKeyLabels...) {
		if ak := apis.AutoModeNodeLabel(k); ak != k {
			v := cluster.NoSym
			if ak != "" {
				v = syms.Intern(ak)
			}
			o.autoModeKeys[syms.Intern(k)] = v
		}
	}
	o.typeKeyOf = make([]int8, syms.Len())
	for i := range o.typeKeyOf {
		o.typeKeyOf[i] = -1
	}
	for i, key := range o.TypeKeys {
		o.typeKeyOf[key] = int8(i)
	}
	// An eks.amazonaws.com instance label reads its karpenter.k8s.aws
	// counterpart's values (Auto Mode's instance types have them under
	// that key; only pools of its NodeClass see them: wellKnownIn,
	// typeRequirements).
	o.autoModeTypeKeys = map[cluster.Sym]bool{}
	for _, eks := range slices.Sorted(maps.Keys(apis.AutoModeLabels)) {
		if i := slices.Index(o.typeKeyLabels, apis.AutoModeLabels[eks]); i >= 0 {
			s := syms.Intern(eks)
			o.typeKeyOf[s] = int8(i)
			o.autoModeTypeKeys[s] = true
		}
	}
}

// typeRequirements are the requirements of pool spec that narrow its
// instance types: for a pool of an EC2NodeClass, none on an
// eks.amazonaws.com instance label (self-managed Karpenter's types do
// not have them: such a requirement only labels the node).
func (o *Offerings) typeRequirements(spec *apis.NodePool, reqs Requirements) Requirements {
	if spec.NodeClass.AutoMode {
		return reqs
	}
	var out Requirements
	for i := range reqs {
		if o.autoModeTypeKeys[reqs[i].Key] {
			if out == nil {
				out = append(Requirements(nil), reqs[:i]...)
			}
			continue
		}
		if out != nil {
			out = append(out, reqs[i])
		}
	}
	if out == nil {
		return reqs
	}
	return out
}

// AutoModeKey is the key an EKS Auto Mode node carries for label key
// k: its eks.amazonaws.com counterpart for a karpenter.k8s.aws key
// (false when Auto Mode has none), else k.
func (o *Offerings) AutoModeKey(k cluster.Sym) (cluster.Sym, bool) {
	if ak, ok := o.autoModeKeys[k]; ok {
		return ak, ak != cluster.NoSym
	}
	return k, true
}

// RefreshPrices asks the cloud for every offering's price, at most once
// per PriceRefreshInterval (Karpenter's pricing controller). An offering
// the cloud has no price for does not exist.
func (o *Offerings) RefreshPrices() {
	o.SyncReservations()
	now := o.eng.Now()
	if o.Offers.priced && now-o.Offers.priceAt < o.settings.PriceRefreshInterval {
		return
	}
	o.Offers.priced, o.Offers.priceAt = true, now
	o.Offers.version++
	for _, t := range o.types {
		for z, zone := range o.Zones {
			for ct := 0; ct < NumCapacityTypes; ct++ {
				if ct == ReservedIndex {
					o.Offers.Price[o.Offers.Index(t.Index, z, ct)] = o.reservedPrice(t, z, zone)
					continue
				}
				p, ok := o.cloud.Price(cloud.Offering{InstanceType: t.Name, Zone: zone, CapacityType: CapacityTypeOf(ct)})
				if !ok || math.IsNaN(p) || p < 0 {
					p = -1
				}
				o.Offers.Price[o.Offers.Index(t.Index, z, ct)] = p
			}
		}
	}
}

// AvailableMasks returns, per instance type, the bits (zone*NumCapacityTypes + capacity type)
// of its available offerings now.
func (o *Offerings) AvailableMasks() []uint64 {
	now := o.eng.Now()
	if o.availableCacheValid && o.availableCacheAt == now && o.availableCacheVersion == o.Offers.version {
		return o.AvailableCache
	}
	o.availableCacheValid, o.availableCacheAt, o.availableCacheVersion = true, now, o.Offers.version
	if cap(o.AvailableCache) < len(o.types) {
		o.AvailableCache = make([]uint64, len(o.types))
	}
	masks := o.AvailableCache[:len(o.types)]
	for _, t := range o.types {
		masks[t.Index] = o.availableMask(t, now)
	}
	return masks
}

// availableMask is the bits of type t's offerings available at now.
func (o *Offerings) availableMask(t *InstanceType, now engine.Time) uint64 {
	var m uint64
	base := o.Offers.Index(t.Index, 0, 0)
	for b := 0; b < o.Offers.NumZones*NumCapacityTypes; b++ {
		if o.Offers.Available(base+b, now) {
			m |= 1 << uint(b)
		}
	}
	return m
}

// MarkUnavailable caches an offering as unavailable for the TTL (deferred
// while a batch launches).
func (o *Offerings) MarkUnavailable(of cloud.Offering) {
	if o.DeferCapacityErrors {
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
	ct := OnDemandIndex
	switch of.CapacityType {
	case cluster.Spot:
		ct = SpotIndex
	case cluster.Reserved:
		// A reservation that refused a launch is full: its free count
		// says so (KA's availability cache MarkUnavailable).
		o.SyncReservations()
		return
	}
	o.Offers.UnavailableUntil[o.Offers.Index(t.Index, z, ct)] = o.eng.Now() + o.settings.UnavailableOfferingsTTL
	o.Offers.version++
}

// FlushCapacityErrors ends a batch's launches: the capacity errors they met
// enter the unavailable-offerings cache.
func (o *Offerings) FlushCapacityErrors() {
	o.DeferCapacityErrors = false
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

// TypeCompatible reports whether the type's labels meet every requirement
// on a type key in s.
func (o *Offerings) TypeCompatible(t *InstanceType, s Requirements) bool {
	for i := range s {
		r := &s[i]
		tk, ok := o.TypeKeyIndex(r.Key)
		if !ok {
			continue
		}
		if !labelMeets(o.cl.Syms, t.LabelValues[tk], r) {
			return false
		}
	}
	return true
}

// TypeKeyIndex is the index of an instance-type label key in TypeKeys, false
// for other keys.
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
		if b := base.Get(r.Key); b != nil && sameRequirement(b, r) {
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

// sameRequirement reports whether two requirements are equal (key aside).
func sameRequirement(a, b *Requirement) bool {
	if a.Complement != b.Complement || a.HasGreaterThan != b.HasGreaterThan || a.HasLessThan != b.HasLessThan || a.GreaterThan != b.GreaterThan || a.LessThan != b.LessThan || len(a.Values) != len(b.Values) {
		return false
	}
	for i := range a.Values {
		if a.Values[i] != b.Values[i] {
			return false
		}
	}
	return true
}

// typeMeets reports whether t meets the checks.
func (o *Offerings) typeMeets(t *InstanceType, checks []typeCheck) bool {
	for _, c := range checks {
		if !labelMeets(o.cl.Syms, t.LabelValues[c.tk], c.r) {
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

// OfferingMask is the bits (zone*NumCapacityTypes + capacity type) that
// requirements s allow.
func (o *Offerings) OfferingMask(s Requirements) uint64 {
	zr := s.Get(o.cl.KeyZone)
	cr := s.Get(o.cl.KeyCapacityType)
	var m uint64
	for z, zs := range o.zoneSyms {
		if zr != nil && !zr.has(o.cl.Syms, zs) {
			continue
		}
		for ct := 0; ct < NumCapacityTypes; ct++ {
			if cr != nil && !cr.has(o.cl.Syms, o.CapacityTypeSyms[ct]) {
				continue
			}
			m |= 1 << uint(z*NumCapacityTypes+ct)
		}
	}
	return m
}

// CapacityTypeBits selects the bits of one capacity type.
func (o *Offerings) CapacityTypeBits(ct int) uint64 {
	var m uint64
	for z := range o.Zones {
		m |= 1 << uint(z*NumCapacityTypes+ct)
	}
	return m
}

// Cheapest returns the cheapest available offering price of type t within
// mask as pool p sees it (nil: the cloud's prices), +Inf if none.
func (o *Offerings) Cheapest(p *Pool, t *InstanceType, mask uint64) float64 {
	mask &= p.OfferBits(t)
	best := math.Inf(1)
	now := o.eng.Now()
	base := o.Offers.Index(t.Index, 0, 0)
	for b := 0; b < o.Offers.NumZones*NumCapacityTypes; b++ {
		if mask&(1<<uint(b)) == 0 || !o.Offers.Available(base+b, now) {
			continue
		}
		if v := p.Price(o, base+b); v < best {
			best = v
		}
	}
	return best
}

// WorstLaunchPrice is the most expensive available offering within mask
// of the capacity type a launch would use (reserved, then spot, then
// on-demand), as pool p sees it: KC Offerings.WorstLaunchPrice.
func (o *Offerings) WorstLaunchPrice(p *Pool, t *InstanceType, mask uint64) float64 {
	mask &= p.OfferBits(t)
	now := o.eng.Now()
	base := o.Offers.Index(t.Index, 0, 0)
	for _, ct := range launchOrder {
		worst, found := 0.0, false
		for z := 0; z < o.Offers.NumZones; z++ {
			b := z*NumCapacityTypes + ct
			if mask&(1<<uint(b)) == 0 || !o.Offers.Available(base+b, now) {
				continue
			}
			found = true
			worst = max(worst, p.Price(o, base+b))
		}
		if found {
			return worst
		}
	}
	return math.Inf(1)
}

// launchOrder is the order in which a launch picks its capacity type (KA
// getCapacityType): reserved, spot, on-demand.
var launchOrder = [...]int{ReservedIndex, SpotIndex, OnDemandIndex}

// PoolType is an instance type as a NodePool would launch it: capacity and
// allocatable under the pool's node class.
type PoolType struct {
	// Type is the instance type.
	Type *InstanceType
	// Offer is the offering bits the pool may use for the type: every
	// spot and on-demand bit, and the reserved bits of the zones where
	// its node class selects a reservation of the type.
	Offer uint64
	// Capacity and Allocatable are the node's under the pool's node class.
	Capacity    cluster.Resources
	Allocatable cluster.Resources
	// DaemonOverhead is the overhead of the daemonsets that would run on it.
	DaemonOverhead cluster.Resources
}

// nodeResources computes capacity and allocatable of a type under a node
// class (KA pkg/providers/instancetype/types.go: capacity minus
// kube-reserved, system-reserved and the eviction threshold).
func (o *Offerings) nodeResources(it *catalog.InstanceType, nc *apis.NodeClass) (capacity, alloc cluster.Resources) {
	kl := &nc.Kubelet
	opts := catalog.KubeletOptions{RootVolumeGiB: nc.RootVolumeGiB, VMMemoryOverheadPercent: o.settings.VMMemoryOverheadPercent, MaxPods: kl.MaxPods,
		InstanceStoreRAID0: nc.InstanceStoreRAID0}
	c := it.Capacity(opts)
	if nc.AutoMode && kl.MaxPods == 0 && c.Pods > apis.AutoModeMaxPods {
		// EKS caps Auto Mode nodes at 110 pods after the ENI count;
		// kube-reserved memory follows the capped count.
		opts.MaxPods = apis.AutoModeMaxPods
		c = it.Capacity(opts)
	}
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
		if slot, ok := o.cl.Resources.Lookup(corev1.ResourceName(e.Name)); ok {
			capacity[slot] = e.Count
			alloc[slot] = e.Count
		}
	}
	return capacity, alloc
}

// NodePrice is what a node of Karpenter's costs now as its pool sees it:
// its offering's price (overlaid), or the price it launched at when the
// offering is no longer sold.
func (o *Offerings) NodePrice(kn *Node) float64 {
	if p, _, ok := o.poolOfferingPrice(kn.Pool, kn.Offering); ok && p >= 0 {
		return p
	}
	return o.cl.Nodes[kn.ID].PriceUSDPerHour
}
