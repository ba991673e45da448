package karpenter

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
	tkInstanceType = iota
	tkArch
	tkOS
	tkRegion
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
	ctOnDemand = 0
	ctSpot     = 1
	numCT      = 2
)

func ctOf(i int) cluster.CapacityType {
	if i == ctSpot {
		return cluster.Spot
	}
	return cluster.OnDemand
}

// offerings is what Karpenter knows of EC2's offerings (KA instance-type,
// pricing and offering providers): the instance types of the region, their
// offerings per zone and capacity type with prices, and the
// insufficient-capacity cache of offerings that recently failed.
type offerings struct {
	schedEnv
	region   string
	zones    []string
	zoneSyms []cluster.Sym
	ctSyms   [numCT]cluster.Sym

	types      []*itype
	typeByName map[string]*itype
	// typeKeyNames and typeKey are the instance-type label keys, by index
	// (tk*, then the catalogue's keys); itype.lab holds a value per key.
	typeKeyNames []string
	typeKey      []cluster.Sym
	typeKeyOf    []int8 // Sym -> index in typeKey, -1 for other keys
	off          offers
	// availBuf is availMasks' answer, kept while the time and the table's
	// version stay the same.
	availBuf     []uint64
	availOK      bool
	availAt      engine.Time
	availVersion uint64
	// deferICE: a batch is launching; capacity errors wait in iceQueue
	// until it is done (flushICE).
	deferICE bool
	iceQueue []cloud.Offering
}

// newOfferings builds the instance-type table of the catalogue and prices
// every offering.
func newOfferings(e schedEnv, region string, zones []string, zoneSyms []cluster.Sym, ctSyms [numCT]cluster.Sym) *offerings {
	o := &offerings{schedEnv: e, region: region, zones: append([]string(nil), zones...), zoneSyms: zoneSyms, ctSyms: ctSyms,
		typeByName: map[string]*itype{}}
	o.buildTypes()
	for _, t := range o.types {
		o.typeByName[t.name] = t
	}
	o.refreshPrices()
	return o
}

// itype is one instance type as Karpenter sees it.
type itype struct {
	idx  int32
	name string
	cat  *catalog.InstanceType
	// lab is the type's value of each type key (offerings.typeKey), NoSym
	// where it has no such label.
	lab []cluster.Sym
	// exotic types (GPUs and other accelerators, metal) are launched only
	// when nothing else fits (KA instance filter ExoticInstanceTypeFilter).
	exotic bool
}

// offers holds the offering table: instance type x zone x capacity type.
// Offering o = (type*zones + zone)*2 + capacity type.
type offers struct {
	nZones int
	// price in USD/hour; negative when the offering does not exist.
	price []float64
	// unavailableUntil is the insufficient-capacity cache (KA pkg/cache
	// UnavailableOfferings): the offering is skipped until then.
	unavailableUntil []engine.Time
	priceAt          engine.Time
	priced           bool
	// version changes with every price refresh and cache entry.
	version uint64
}

func (o *offers) index(t int32, zone, ct int) int {
	return (int(t)*o.nZones+zone)*numCT + ct
}

func (o *offers) available(i int, now engine.Time) bool {
	return o.price[i] >= 0 && o.unavailableUntil[i] <= now
}

// buildTypes derives the instance-type table from the catalogue: each
// type's labels as symbols, in one table built once.
func (o *offerings) buildTypes() {
	syms := o.cl.Syms
	o.typeKeyNames = typeKeyNames(o.cat)
	o.typeKey = make([]cluster.Sym, len(o.typeKeyNames))
	for i, k := range o.typeKeyNames {
		o.typeKey[i] = syms.Intern(k)
	}
	catTypes := o.cat.Types()
	nk := len(o.typeKey)
	labs := make([]cluster.Sym, len(catTypes)*nk)
	region := syms.Intern(o.region)
	for _, it := range catTypes {
		t := &itype{idx: int32(len(o.types)), name: it.Name, cat: it}
		t.lab, labs = labs[:nk:nk], labs[nk:]
		t.lab[tkInstanceType] = syms.Intern(it.Name)
		t.lab[tkArch] = syms.Intern(it.Arch)
		t.lab[tkOS] = syms.Intern("linux")
		t.lab[tkRegion] = region
		for _, l := range it.Labels {
			if i := slices.Index(o.typeKeyNames[numFixedTypeKeys:], l.Key); i >= 0 {
				t.lab[numFixedTypeKeys+i] = syms.Intern(l.Value)
			}
		}
		t.exotic = strings.Contains(it.Size, "metal")
		for _, r := range exoticResources {
			t.exotic = t.exotic || it.ExtendedCount(r) > 0
		}
		o.types = append(o.types, t)
	}
	n := len(o.types) * len(o.zones) * numCT
	o.off = offers{nZones: len(o.zones), price: make([]float64, n), unavailableUntil: make([]engine.Time, n)}
	o.typeKeyOf = make([]int8, syms.Len())
	for i := range o.typeKeyOf {
		o.typeKeyOf[i] = -1
	}
	for i, key := range o.typeKey {
		o.typeKeyOf[key] = int8(i)
	}
}

// refreshPrices asks the cloud for every offering's price, at most once
// per PriceRefreshInterval (Karpenter's pricing controller). An offering
// the cloud has no price for does not exist.
func (o *offerings) refreshPrices() {
	now := o.eng.Now()
	if o.off.priced && now-o.off.priceAt < o.settings.PriceRefreshInterval {
		return
	}
	o.off.priced, o.off.priceAt = true, now
	o.off.version++
	for _, t := range o.types {
		for z, zone := range o.zones {
			for ct := 0; ct < numCT; ct++ {
				p, ok := o.cloud.Price(cloud.Offering{InstanceType: t.name, Zone: zone, CapacityType: ctOf(ct)})
				if !ok || math.IsNaN(p) || p < 0 {
					p = -1
				}
				o.off.price[o.off.index(t.idx, z, ct)] = p
			}
		}
	}
}

// availMask returns, per instance type, the bits (zone*2 + capacity type)
// of its available offerings now.
func (o *offerings) availMasks() []uint64 {
	now := o.eng.Now()
	if o.availOK && o.availAt == now && o.availVersion == o.off.version {
		return o.availBuf
	}
	o.availOK, o.availAt, o.availVersion = true, now, o.off.version
	if cap(o.availBuf) < len(o.types) {
		o.availBuf = make([]uint64, len(o.types))
	}
	masks := o.availBuf[:len(o.types)]
	for _, t := range o.types {
		masks[t.idx] = o.availMask(t, now)
	}
	return masks
}

// availMask is the bits of type t's offerings available at now.
func (o *offerings) availMask(t *itype, now engine.Time) uint64 {
	var m uint64
	base := o.off.index(t.idx, 0, 0)
	for b := 0; b < o.off.nZones*numCT; b++ {
		if o.off.available(base+b, now) {
			m |= 1 << uint(b)
		}
	}
	return m
}

// markUnavailable caches an offering as unavailable for the TTL (deferred
// while a batch launches).
func (o *offerings) markUnavailable(of cloud.Offering) {
	if o.deferICE {
		o.iceQueue = append(o.iceQueue, of)
		return
	}
	t, ok := o.typeByName[of.InstanceType]
	if !ok {
		return
	}
	z := o.zoneIndex(of.Zone)
	if z < 0 {
		return
	}
	ct := ctOnDemand
	switch of.CapacityType {
	case cluster.Spot:
		ct = ctSpot
	case cluster.Reserved:
		return
	}
	o.off.unavailableUntil[o.off.index(t.idx, z, ct)] = o.eng.Now() + o.settings.UnavailableOfferingsTTL
	o.off.version++
}

func (o *offerings) flushICE() {
	o.deferICE = false
	for _, of := range o.iceQueue {
		o.markUnavailable(of)
	}
	o.iceQueue = o.iceQueue[:0]
}

func (o *offerings) zoneIndex(zone string) int {
	for i, z := range o.zones {
		if z == zone {
			return i
		}
	}
	return -1
}

// typeCompatible reports whether the type's labels meet every requirement
// on a type key in s.
func (o *offerings) typeCompatible(t *itype, s reqSet) bool {
	for i := range s {
		r := &s[i]
		tk, ok := o.typeKeyIndex(r.key)
		if !ok {
			continue
		}
		if !labelMeets(o.cl.Syms, t.lab[tk], r) {
			return false
		}
	}
	return true
}

func (o *offerings) typeKeyIndex(key cluster.Sym) (int, bool) {
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
func (o *offerings) typeChecks(base, reqs reqSet, buf []typeCheck) []typeCheck {
	buf = buf[:0]
	for i := range reqs {
		r := &reqs[i]
		tk, ok := o.typeKeyIndex(r.key)
		if !ok {
			continue
		}
		if b := base.get(r.key); b != nil && sameRq(b, r) {
			continue
		}
		buf = append(buf, typeCheck{tk: tk, r: r})
	}
	return buf
}

type typeCheck struct {
	tk int
	r  *rq
}

func sameRq(a, b *rq) bool {
	if a.comp != b.comp || a.hasGt != b.hasGt || a.hasLt != b.hasLt || a.gt != b.gt || a.lt != b.lt || len(a.vals) != len(b.vals) {
		return false
	}
	for i := range a.vals {
		if a.vals[i] != b.vals[i] {
			return false
		}
	}
	return true
}

// typeMeets reports whether t meets the checks.
func (o *offerings) typeMeets(t *itype, checks []typeCheck) bool {
	for _, c := range checks {
		if !labelMeets(o.cl.Syms, t.lab[c.tk], c.r) {
			return false
		}
	}
	return true
}

// labelMeets reports whether a type's label value v (NoSym: the type has
// no such label) meets r. A missing label is upstream's DoesNotExist
// requirement, which only NotIn and DoesNotExist intersect (KC
// Requirements.Intersects).
func labelMeets(syms *cluster.Symbols, v cluster.Sym, r *rq) bool {
	if v == cluster.NoSym {
		return r.negative()
	}
	return r.has(syms, v)
}

// offerMask is the bits (zone*2 + capacity type) that requirements s
// allow. Reserved is never allowed (no reserved offerings).
func (o *offerings) offerMask(s reqSet) uint64 {
	zr := s.get(o.cl.KeyZone)
	cr := s.get(o.cl.KeyCapacityType)
	var m uint64
	for z, zs := range o.zoneSyms {
		if zr != nil && !zr.has(o.cl.Syms, zs) {
			continue
		}
		for ct := 0; ct < numCT; ct++ {
			if cr != nil && !cr.has(o.cl.Syms, o.ctSyms[ct]) {
				continue
			}
			m |= 1 << uint(z*numCT+ct)
		}
	}
	return m
}

// ctBits selects the bits of one capacity type.
func (o *offerings) ctBits(ct int) uint64 {
	var m uint64
	for z := range o.zones {
		m |= 1 << uint(z*numCT+ct)
	}
	return m
}

// cheapest returns the cheapest available offering price of type t within
// mask, +Inf if none.
func (o *offerings) cheapest(t *itype, mask uint64) float64 {
	best := math.Inf(1)
	now := o.eng.Now()
	base := o.off.index(t.idx, 0, 0)
	for b := 0; b < o.off.nZones*numCT; b++ {
		if mask&(1<<uint(b)) == 0 || !o.off.available(base+b, now) {
			continue
		}
		if p := o.off.price[base+b]; p < best {
			best = p
		}
	}
	return best
}

// worstLaunchPrice is the most expensive available offering within mask
// of the capacity type a launch would use (reserved, then spot, then
// on-demand): KC Offerings.WorstLaunchPrice.
func (o *offerings) worstLaunchPrice(t *itype, mask uint64) float64 {
	now := o.eng.Now()
	base := o.off.index(t.idx, 0, 0)
	for _, ct := range []int{ctSpot, ctOnDemand} {
		worst, found := 0.0, false
		for z := 0; z < o.off.nZones; z++ {
			b := z*numCT + ct
			if mask&(1<<uint(b)) == 0 || !o.off.available(base+b, now) {
				continue
			}
			found = true
			worst = max(worst, o.off.price[base+b])
		}
		if found {
			return worst
		}
	}
	return math.Inf(1)
}

// poolType is an instance type as a NodePool would launch it: capacity and
// allocatable under the pool's node class.
type poolType struct {
	t        *itype
	capacity cluster.Resources
	alloc    cluster.Resources
	// daemon is the overhead of the daemonsets that would run on it.
	daemon cluster.Resources
}

// nodeResources computes capacity and allocatable of a type under a node
// class (KA pkg/providers/instancetype/types.go: capacity minus
// kube-reserved, system-reserved and the eviction threshold).
func (o *offerings) nodeResources(it *catalog.InstanceType, nc *apis.NodeClass) (capacity, alloc cluster.Resources) {
	kl := &nc.Kubelet
	opts := catalog.KubeletOptions{RootVolumeGiB: nc.RootVolumeGiB, VMMemoryOverheadPercent: o.settings.VMMemoryOverheadPercent, MaxPods: kl.MaxPods,
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
		if slot, ok := o.cl.Resources.Lookup(corev1.ResourceName(e.Name)); ok {
			capacity[slot] = e.Count
			alloc[slot] = e.Count
		}
	}
	return capacity, alloc
}

// nodePrice is what a node of Karpenter's costs now: its offering's
// price, or the price it launched at when the offering is no longer sold.
func (o *offerings) nodePrice(kn *schedNode) float64 {
	z := o.zoneIndex(kn.offering.Zone)
	ct := ctOnDemand
	if kn.offering.CapacityType == cluster.Spot {
		ct = ctSpot
	}
	if z >= 0 {
		if p := o.off.price[o.off.index(kn.it.idx, z, ct)]; p >= 0 {
			return p
		}
	}
	return o.cl.Nodes[kn.id].PriceUSDPerHour
}
