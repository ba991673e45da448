package catalog

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// defaultCatalog is the embedded catalogue (Default), which must load.
func defaultCatalog(t *testing.T) *Catalog {
	t.Helper()
	c, err := Default()
	require.NoError(t, err)
	return c
}

// The embedded files must be the unchanged snapshot described in
// data/PROVENANCE.md (which lists their SHA-256).
func TestEmbeddedDataMatchesProvenance(t *testing.T) {
	for name, data := range map[string][]byte{
		"ec2-instance-types.csv": instanceTypesCSV,
		"ec2-od-prices.csv":      onDemandPricesCSV,
	} {
		sum := sha256.Sum256(data)
		require.Contains(t, ProvenanceMarkdown, hex.EncodeToString(sum[:])+"  "+name, name)
	}
	// PROVENANCE.md gives no checksum for the files added on 2026-12-01
	// (the instance-label table, the 33-region Spot Advisor);
	// data/README.md does.
	readme, err := os.ReadFile("data/README.md")
	require.NoError(t, err)
	sum := sha256.Sum256(instanceLabelsCSV)
	require.Contains(t, string(readme), "`ec2-instance-labels.csv` | `/work/shared/data/ec2-instance-labels.csv` | `"+hex.EncodeToString(sum[:])+"`")
	sum = sha256.Sum256(spotAdvisorCSV)
	require.Contains(t, string(readme), "| `ec2-spot-advisor-regions.csv` | `/work/shared/data/ec2-spot-advisor-regions.csv` | `"+hex.EncodeToString(sum[:])+"` |")
	sum = sha256.Sum256(ebsAttachmentsCSV)
	require.Contains(t, string(readme), "| `ebs-attachment-limits.csv` | "+hex.EncodeToString(sum[:])+" |")
}

// Counts stated in data/PROVENANCE.md.
func TestCountsMatchProvenance(t *testing.T) {
	c := defaultCatalog(t)
	// The counts of ec2-instance-types.csv; the catalogue adds the priced
	// types of the instance-label table (TestLabelTableCounts).
	types, err := ParseInstanceTypes(strings.NewReader(string(instanceTypesCSV)))
	require.NoError(t, err)
	require.Equal(t, 1101, len(types))

	var amd, arm, gpu, over250 int
	for _, it := range types {
		switch it.Arch {
		case ArchAMD64:
			amd++
		case ArchARM64:
			arm++
		}
		if it.GPU > 0 {
			gpu++
		}
		if it.MaxPodsENI > 250 {
			over250++
		}
	}
	require.Equal(t, 759, amd)
	require.Equal(t, 342, arm)
	require.Equal(t, 61, gpu)
	require.Equal(t, 400, over250)

	od, err := ParseOnDemandPrices(strings.NewReader(string(onDemandPricesCSV)))
	require.NoError(t, err)
	require.Equal(t, []string{"us-east-1"}, c.PriceRegions())
	require.Len(t, od, 1)
	require.Len(t, od["us-east-1"], 1367)
	notInTypes := 0
	for typ := range od["us-east-1"] {
		if _, ok := c.Lookup(typ); !ok {
			notInTypes++
		}
	}
	require.Equal(t, 266-251, notInTypes) // 251 of them come from the label table

	spot, err := ParseSpotAdvisor(strings.NewReader(string(spotAdvisorCSV)))
	require.NoError(t, err)
	require.Len(t, c.Regions(), 33)
	rows := 0
	for _, m := range spot {
		rows += len(m)
	}
	require.Equal(t, 14962, rows)
	require.Len(t, spot["us-east-1"], 894)
	require.Len(t, spot["us-west-2"], 893)
	require.Len(t, spot["eu-west-1"], 791)
	require.Len(t, spot["eu-west-2"], 566)
	require.Len(t, spot["ap-southeast-4"], 180)

	bands := map[string]int{}
	zeroSavings := 0
	for _, m := range spot {
		for _, a := range m {
			bands[a.BandLabel]++
			if a.SavingsPct == 0 {
				zeroSavings++
			}
		}
	}
	require.Equal(t, map[string]int{"<5%": 3239, "5-10%": 2894, "10-15%": 2025, "15-20%": 1874, ">20%": 4930}, bands)
	require.Equal(t, 73, zeroSavings) // 72 in the data, and the one -62 read as 0

	missing := map[string]int{}
	for _, r := range c.Regions() {
		for _, it := range types {
			if _, ok := c.SpotAdvice(r, it.Name); !ok {
				missing[r]++
			}
		}
	}
	require.Equal(t, 211, missing["us-east-1"])
	require.Equal(t, 213, missing["us-west-2"])
	require.Equal(t, 314, missing["eu-west-1"])
	require.Equal(t, 536, missing["eu-west-2"])
	require.Equal(t, 921, missing["ap-southeast-4"])

	// Advisor types that are not catalog types: 51 rows in 21 regions.
	var extra []string
	for r, m := range spot {
		for typ := range m {
			if _, ok := c.Lookup(typ); !ok {
				extra = append(extra, r+"/"+typ)
			}
		}
	}
	require.Len(t, extra, 51)
	slices.Sort(extra)
	require.Equal(t, []string{
		"us-east-1/i3.metal", "us-east-1/p2.16xlarge", "us-east-1/p2.8xlarge", "us-east-1/p2.xlarge",
		"us-east-2/i3.metal", "us-east-2/p2.16xlarge", "us-east-2/p2.8xlarge", "us-east-2/p2.xlarge",
		"us-west-1/i3.metal",
		"us-west-2/dl2q.24xlarge", "us-west-2/i3.metal", "us-west-2/p2.16xlarge", "us-west-2/p2.8xlarge", "us-west-2/p2.xlarge",
	}, slices.DeleteFunc(extra, func(s string) bool { return !strings.HasPrefix(s, "us-") }))
}

func TestTypesSortedAndConsistent(t *testing.T) {
	c := defaultCatalog(t)
	types := c.Types()
	require.True(t, slices.IsSortedFunc(types, func(a, b *InstanceType) int { return strings.Compare(a.Name, b.Name) }))
	for i, it := range types {
		if i > 0 {
			require.NotEqual(t, types[i-1].Name, it.Name)
		}
		got, ok := c.Lookup(it.Name)
		require.True(t, ok)
		require.Same(t, it, got)
		require.Equal(t, it.Family+"."+it.Size, it.Name)
		require.True(t, strings.HasPrefix(it.Family, it.Category))
		p, exact, ok := c.OnDemandPrice(PriceBaseRegion, it.Name)
		require.True(t, ok && exact, it.Name)
		require.Equal(t, it.OnDemandUSDPerHour, p, it.Name)
	}
	// Types returns a copy of the slice.
	types[0] = nil
	require.NotNil(t, c.Types()[0])
}

func TestDefaultReturnsIndependentCopies(t *testing.T) {
	a, b := defaultCatalog(t), defaultCatalog(t)
	ta, _ := a.Lookup("m5.large")
	tb, _ := b.Lookup("m5.large")
	require.NotSame(t, ta, tb)
	ta.VCPU = 999
	require.Equal(t, 2, tb.VCPU)
}

func TestLookup(t *testing.T) {
	c := defaultCatalog(t)

	it, ok := c.Lookup("m5.large")
	require.True(t, ok)
	require.Equal(t, &InstanceType{
		Name: "m5.large", Family: "m5", Category: "m", Generation: 5, Size: "large",
		VCPU: 2, MemoryMiB: 8192, GPU: 0, Arch: ArchAMD64, MaxPodsENI: 29, OnDemandUSDPerHour: 0.096,
		Labels: it.Labels, Extended: it.Extended, Reference: it.Reference, EBS: EBSAttachments{Max: 27},
	}, it)
	hv, ok := it.Label("karpenter.k8s.aws/instance-hypervisor")
	require.True(t, ok)
	require.Equal(t, "nitro", hv)
	require.Equal(t, &ReferenceAllocatable{CPU: "1930m", Memory: "6903Mi", Ephemeral: "17Gi", Pods: "29"}, it.Reference)

	it, ok = c.Lookup("m6g.large")
	require.True(t, ok)
	require.Equal(t, ArchARM64, it.Arch)

	it, ok = c.Lookup("g4dn.xlarge")
	require.True(t, ok)
	require.Equal(t, 1, it.GPU)

	// Multi-network-card type: default card only (PROVENANCE).
	it, ok = c.Lookup("p4d.24xlarge")
	require.True(t, ok)
	require.Equal(t, 737, it.MaxPodsENI)
	require.Equal(t, 8, it.GPU)

	// Caveat 5: literal first-digit-run generation.
	it, ok = c.Lookup("u-3tb1.56xlarge")
	require.True(t, ok)
	require.Equal(t, "u-3tb1", it.Family)
	require.Equal(t, "u", it.Category)
	require.Equal(t, 3, it.Generation)

	for _, name := range []string{"m5.larg", "M5.large", "", "p2.xlarge", "mac1.metal", "m5"} {
		_, ok := c.Lookup(name)
		require.False(t, ok, name)
	}
}

func TestOnDemandPrice(t *testing.T) {
	c := defaultCatalog(t)

	p, exact, ok := c.OnDemandPrice("us-east-1", "m5.large")
	require.True(t, ok)
	require.True(t, exact)
	require.Equal(t, 0.096, p)

	// Other regions: us-east-1 price stands in, exact=false.
	for _, r := range []string{"us-west-2", "eu-west-1", "ap-southeast-2"} {
		p, exact, ok = c.OnDemandPrice(r, "m5.large")
		require.True(t, ok, r)
		require.False(t, exact, r)
		require.Equal(t, 0.096, p, r)
	}

	// Priced but not a catalog type.
	p, exact, ok = c.OnDemandPrice("us-east-1", "p2.xlarge")
	require.True(t, ok)
	require.True(t, exact)
	require.Equal(t, 0.9, p)

	for _, q := range [][2]string{{"us-east-1", "nope.large"}, {"", "m5.large"}, {"us-east-1", "mac1.metal"}} {
		_, _, ok = c.OnDemandPrice(q[0], q[1])
		require.False(t, ok, q)
	}
}

func TestSpotAdviceAndEstimate(t *testing.T) {
	c := defaultCatalog(t)

	a, ok := c.SpotAdvice("us-east-1", "m5.large")
	require.True(t, ok)
	require.Equal(t, SpotAdvice{SavingsPct: 66, Band: 3, BandLabel: "15-20%"}, a)

	// 0.096 * (1 - 0.66) = 0.03264
	p, ok := c.SpotPriceEstimate("us-east-1", "m5.large")
	require.True(t, ok)
	require.InDelta(t, 0.03264, p, 1e-12)

	// us-west-2: 62% savings, applied to the us-east-1 on-demand price:
	// 0.096 * 0.38 = 0.03648
	p, ok = c.SpotPriceEstimate("us-west-2", "m5.large")
	require.True(t, ok)
	require.InDelta(t, 0.03648, p, 1e-12)

	// Savings 0 (a1.* in us-east-1): estimate equals on-demand.
	p, ok = c.SpotPriceEstimate("us-east-1", "a1.large")
	require.True(t, ok)
	require.Equal(t, 0.051, p)

	// Advisor row for a non-catalog type with a price: p2.xlarge 0.9 * 0.35.
	p, ok = c.SpotPriceEstimate("us-east-1", "p2.xlarge")
	require.True(t, ok)
	require.InDelta(t, 0.315, p, 1e-12)

	// No advisor row: a newer family in the catalog.
	_, ok = c.Lookup("c8a.large")
	require.True(t, ok)
	_, ok = c.SpotAdvice("us-east-1", "c8a.large")
	require.False(t, ok)
	_, ok = c.SpotPriceEstimate("us-east-1", "c8a.large")
	require.False(t, ok)

	// Advisor row but no on-demand price anywhere.
	_, ok = c.SpotAdvice("us-west-2", "dl2q.24xlarge")
	require.True(t, ok)
	_, _, ok = c.OnDemandPrice("us-west-2", "dl2q.24xlarge")
	require.False(t, ok)
	_, ok = c.SpotPriceEstimate("us-west-2", "dl2q.24xlarge")
	require.False(t, ok)

	// Region without advisor data.
	_, ok = c.SpotPriceEstimate("cn-north-1", "m5.large")
	require.False(t, ok)

	// Every advisor band/label pair is the documented one.
	labels := []string{"<5%", "5-10%", "10-15%", "15-20%", ">20%"}
	for _, r := range c.Regions() {
		for _, it := range c.Types() {
			if a, ok := c.SpotAdvice(r, it.Name); ok {
				require.Equal(t, labels[a.Band], a.BandLabel)
			}
		}
	}
}
