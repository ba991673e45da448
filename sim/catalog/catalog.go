package catalog

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
)

// Architecture values of [InstanceType.Arch] (Kubernetes kubernetes.io/arch).
const (
	ArchAMD64 = "amd64"
	ArchARM64 = "arm64"
)

// PriceBaseRegion is the only region with on-demand prices in the embedded
// data; its prices stand in for other regions (see [Catalog.OnDemandPrice]).
const PriceBaseRegion = "us-east-1"

// MaxSpotBand is the highest Spot Advisor interruption band (">20%").
const MaxSpotBand = 4

// InstanceType is one EC2 instance type. Values are read-only: they are
// shared by everything that uses the same [Catalog].
type InstanceType struct {
	Name       string // instance type name, e.g. "m5.large"
	Family     string // text before the first ".", e.g. "m5", "u7i-12tb", "p6-b200"
	Category   string // leading letters of Family, e.g. "m", "inf", "hpc"
	Generation int    // first run of digits in Family, e.g. 5 (wrong for u-<N>tb1: see package doc)
	Size       string // text after the first ".", e.g. "large", "metal-24xl"
	VCPU       int    // default vCPUs (count)
	MemoryMiB  int64  // nominal instance memory in MiB (not kubelet capacity)
	// GPU is the NVIDIA GPU count (nvidia.com/gpu, [GPUResourceName]);
	// AMD GPUs, Neuron devices and Habana Gaudis are in Extended only.
	GPU  int
	Arch string // ArchAMD64 ("amd64") or ArchARM64 ("arm64")
	// MaxPodsENI is ENIs*(IPv4 per ENI - 1) + 2 for the default network
	// card, in pods, uncapped (up to 737 in this data).
	MaxPodsENI int
	// OnDemandUSDPerHour is the us-east-1 Linux shared-tenancy on-demand
	// list price in USD per hour (Karpenter pricing data, 2026-07-20).
	OnDemandUSDPerHour float64

	// Labels are the well-known labels Karpenter puts on every node of the
	// type (karpenter.k8s.aws/instance-*, kubernetes.io/arch and os; not
	// node.kubernetes.io/instance-type, which is Name), sorted by key. A key
	// the type lacks (no GPU: no instance-gpu-*) is left out. From the
	// instance-label table; derived for the 7 types it lacks (see the
	// package doc).
	Labels []Label
	// Extended are the type's extended resources with a count above 0,
	// sorted by name (nvidia.com/gpu, amd.com/gpu, aws.amazon.com/neuron,
	// aws.amazon.com/neuroncore, vpc.amazonaws.com/efa,
	// vpc.amazonaws.com/pod-eni; habana.ai/gaudi on dl1.24xlarge).
	Extended []ExtendedResource
	// LocalNVMeGB is the NVMe instance-store size in GB (the
	// instance-local-nvme label; 0: none or not NVMe).
	LocalNVMeGB int64
	// Reference is Karpenter's reference allocatable for the type; nil for
	// the types the reference lacks.
	Reference *ReferenceAllocatable
	// EBS is the type's EBS attachment limit from the EBS CSI driver's
	// table (the driver's default, 27 shared, for a type it lacks); the
	// volumes a node can attach is [InstanceType.EBSVolumeLimit].
	EBS EBSAttachments
}

// SpotAdvice is one AWS Spot Instance Advisor entry (Linux, regional).
type SpotAdvice struct {
	SavingsPct int    // savings versus on-demand, percent 0..100 (0 often means "unknown")
	Band       int    // interruption-frequency band 0..MaxSpotBand, ordinal
	BandLabel  string // band label: "<5%", "5-10%", "10-15%", "15-20%" or ">20%"
}

// Catalog holds the instance types, prices and spot advice. It is immutable
// and safe for concurrent use.
type Catalog struct {
	types    []*InstanceType          // sorted by Name
	byName   map[string]*InstanceType // Name -> type
	onDemand map[string]map[string]float64
	spot     map[string]map[string]SpotAdvice
	regions  []string // spot advisor regions, sorted
	// labelKeys are every label key of any type, sorted.
	labelKeys []string
	// unpriced are the reference's types without an on-demand price: not
	// offered (sorted).
	unpriced []string
}

var (
	defaultOnce sync.Once
	defaultCat  *Catalog
	defaultErr  error
)

// Default returns the catalog built from the embedded data. The data is
// parsed once per process; each call returns an independent copy of the
// instance types, so callers cannot affect each other.
func Default() (*Catalog, error) {
	defaultOnce.Do(func() {
		defaultCat, defaultErr = LoadWithLabels(bytes.NewReader(instanceTypesCSV), bytes.NewReader(onDemandPricesCSV),
			bytes.NewReader(spotAdvisorCSV), bytes.NewReader(instanceLabelsCSV))
		if defaultErr != nil {
			defaultErr = fmt.Errorf("catalog: embedded data: %w", defaultErr)
		}
	})
	if defaultErr != nil {
		return nil, defaultErr
	}
	return defaultCat.clone(), nil
}

// Load builds a catalog from the three CSV tables (formats as in
// data/PROVENANCE.md), without the instance-label table: every type gets
// the labels derived from its own columns. It returns an error, never
// panics, on malformed input, and also when an instance type's
// od_price_us_east_1 disagrees with the us-east-1 row of the on-demand
// table. A type missing from the on-demand table gets its
// od_price_us_east_1 as the us-east-1 price.
func Load(instanceTypes, onDemandPrices, spotAdvisor io.Reader) (*Catalog, error) {
	return LoadWithLabels(instanceTypes, onDemandPrices, spotAdvisor, nil)
}

// LoadWithLabels is [Load] plus the instance-label table
// (ec2-instance-labels.csv; nil: none). A type in both tables takes its
// labels, extended resources and NVMe size from the label table; its shape
// must agree (vcpu, memory, arch). A type only in the label table is added
// when the on-demand table prices it (its shape from its labels, max pods
// from allocatable/pods); one without a price is left out
// ([Catalog.Unpriced]).
func LoadWithLabels(instanceTypes, onDemandPrices, spotAdvisor, labels io.Reader) (*Catalog, error) {
	types, err := ParseInstanceTypes(instanceTypes)
	if err != nil {
		return nil, err
	}
	od, err := ParseOnDemandPrices(onDemandPrices)
	if err != nil {
		return nil, err
	}
	spot, err := ParseSpotAdvisor(spotAdvisor)
	if err != nil {
		return nil, err
	}
	base := od[PriceBaseRegion]
	if base == nil {
		base = map[string]float64{}
		od[PriceBaseRegion] = base
	}
	c := &Catalog{
		types:    types,
		byName:   make(map[string]*InstanceType, len(types)),
		onDemand: od,
		spot:     spot,
		regions:  slices.Sorted(maps.Keys(spot)),
	}
	for _, it := range types {
		c.byName[it.Name] = it
		if p, ok := base[it.Name]; !ok {
			base[it.Name] = it.OnDemandUSDPerHour
		} else if p != it.OnDemandUSDPerHour {
			return nil, fmt.Errorf("%s: od_price_us_east_1 %v in instance types but %v in on-demand prices", it.Name, it.OnDemandUSDPerHour, p)
		}
	}
	var rows []labelRow
	if labels != nil {
		if rows, c.labelKeys, err = parseLabels(labels); err != nil {
			return nil, err
		}
	}
	inTable := map[string]bool{}
	for i := range rows {
		row := &rows[i]
		inTable[row.name] = true
		if it, ok := c.byName[row.name]; ok {
			if int64(it.VCPU) != row.vcpu || it.MemoryMiB != row.memMiB || it.Arch != row.arch {
				return nil, fmt.Errorf("instance labels: %s: cpu/memory/arch %d/%d/%s, but %d/%d/%s in instance types",
					row.name, row.vcpu, row.memMiB, row.arch, it.VCPU, it.MemoryMiB, it.Arch)
			}
			it.applyLabels(row)
			continue
		}
		price, ok := base[row.name]
		if !ok {
			c.unpriced = append(c.unpriced, row.name)
			continue
		}
		family, category, generation, size, ok := splitName(row.name)
		if !ok {
			return nil, fmt.Errorf("instance labels: instance_type %q is not <family>.<size>", row.name)
		}
		it := &InstanceType{Name: row.name, Family: family, Category: category, Generation: generation, Size: size,
			VCPU: int(row.vcpu), MemoryMiB: row.memMiB, Arch: row.arch, MaxPodsENI: int(row.pods), OnDemandUSDPerHour: price}
		it.applyLabels(row)
		c.types = append(c.types, it)
		c.byName[it.Name] = it
	}
	keys := map[string]bool{}
	for _, k := range c.labelKeys {
		keys[k] = true
	}
	for _, it := range c.types {
		if !inTable[it.Name] {
			it.deriveLabels()
			for _, l := range it.Labels {
				if !keys[l.Key] {
					keys[l.Key] = true
					c.labelKeys = append(c.labelKeys, l.Key)
				}
			}
		}
	}
	ebs, err := embeddedEBSAttachments()
	if err != nil {
		return nil, err
	}
	applyEBS(c.types, ebs)
	slices.Sort(c.labelKeys)
	slices.SortFunc(c.types, func(a, b *InstanceType) int { return strings.Compare(a.Name, b.Name) })
	return c, nil
}

// LabelKeys returns every label key any instance type has, sorted (the
// keys of [InstanceType.Labels]; node.kubernetes.io/instance-type is not
// among them).
func (c *Catalog) LabelKeys() []string {
	return slices.Clone(c.labelKeys)
}

// Unpriced returns the instance types of Karpenter's reference that have
// no on-demand price in the data, sorted: they are not in [Catalog.Types]
// and never offered.
func (c *Catalog) Unpriced() []string {
	return slices.Clone(c.unpriced)
}

// clone copies the instance types; the price and advice maps are never
// modified after Load, so they are shared.
func (c *Catalog) clone() *Catalog {
	n := *c
	n.types = make([]*InstanceType, len(c.types))
	n.byName = make(map[string]*InstanceType, len(c.types))
	for i, it := range c.types {
		cp := *it
		n.types[i] = &cp
		n.byName[cp.Name] = &cp
	}
	n.regions = slices.Clone(c.regions)
	n.labelKeys = slices.Clone(c.labelKeys)
	n.unpriced = slices.Clone(c.unpriced)
	return &n
}

// Types returns all instance types sorted by name, in a new slice.
func (c *Catalog) Types() []*InstanceType {
	return slices.Clone(c.types)
}

// Lookup returns the instance type with this exact name (e.g. "m5.large").
func (c *Catalog) Lookup(name string) (*InstanceType, bool) {
	it, ok := c.byName[name]
	return it, ok
}

// Regions returns the regions with Spot Advisor data, sorted
// (the 33 regions of the embedded Spot Advisor data; [Zones] names their
// zones).
func (c *Catalog) Regions() []string {
	return slices.Clone(c.regions)
}

// PriceRegions returns the regions with exact on-demand prices, sorted
// (only us-east-1 in the embedded data).
func (c *Catalog) PriceRegions() []string {
	return slices.Sorted(maps.Keys(c.onDemand))
}

// OnDemandPrice returns the Linux on-demand list price of typ in region, in
// USD per hour. exact is true when the data has a price for that region;
// otherwise (every region but us-east-1 in the embedded data) the us-east-1
// price stands in and exact is false: real prices elsewhere can differ.
// ok is false when no price is known at all, or region is empty. typ may be a
// priced type that is not in [Catalog.Types] (the price table has 15 more: old types such as cr1, g2, p2).
func (c *Catalog) OnDemandPrice(region, typ string) (usdPerHour float64, exact bool, ok bool) {
	if region == "" {
		return 0, false, false
	}
	if p, ok := c.onDemand[region][typ]; ok {
		return p, true, true
	}
	if p, ok := c.onDemand[PriceBaseRegion][typ]; ok {
		return p, false, true
	}
	return 0, false, false
}

// SpotAdvice returns the Spot Advisor entry of typ in region. ok is false
// when the advisor has no row for it (newer families, or a region outside
// [Catalog.Regions]).
func (c *Catalog) SpotAdvice(region, typ string) (SpotAdvice, bool) {
	a, ok := c.spot[region][typ]
	return a, ok
}

// SpotPriceEstimate estimates the spot price of typ in region in USD per
// hour as on-demand * (1 - SavingsPct/100), using [Catalog.OnDemandPrice]
// (so the us-east-1 on-demand price outside us-east-1). It is a coarse
// approximation (see the package doc); with SavingsPct 0 it equals the
// on-demand price. ok is false when there is no advisor row or no on-demand
// price: the caller decides what that means (e.g. no spot offering, or an
// assumed discount).
func (c *Catalog) SpotPriceEstimate(region, typ string) (usdPerHour float64, ok bool) {
	a, ok := c.SpotAdvice(region, typ)
	if !ok {
		return 0, false
	}
	od, _, ok := c.OnDemandPrice(region, typ)
	if !ok {
		return 0, false
	}
	return od * (1 - float64(a.SavingsPct)/100), true
}
