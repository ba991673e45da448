package catalog

import (
	"k8s.io/apimachinery/pkg/api/resource"
	"testing"

	"github.com/stretchr/testify/require"
)

// Expected values below are computed by hand from the embedded CSV rows and
// the rules in the package doc (Karpenter AWS provider types.go), with the
// default KubeletOptions (ENI-limited pods, 20Gi root volume, 7.5% VM
// overhead).
//
// Shared by every row with the default root volume:
//
//	capacity ephemeral = 20Gi = 21474836480 B
//	eviction ephemeral = ceil(21474836480/100*10) = 2147483648 B = 2Gi
//	kube-reserved eph. = 1Gi
//	allocatable eph.   = 20Gi - 1Gi - 2Gi = 17Gi = 18253611008 B
//
// Karpenter's generated reference page
// (website/content/en/docs/reference/instance-types.md, AL2023, no
// blockDeviceMappings) lists exactly the same cpu/memory/ephemeral/pods
// allocatable for all five types: m5.large 1930m/6903Mi/17Gi/29,
// c5.large 1930m/3114Mi, m6g.large 1930m/6844Mi, g4dn.xlarge
// 3920m/14481Mi/nvidia.com/gpu 1, m5.24xlarge 95690m/355262Mi/737.
// So there is no difference to explain for these types with the default
// options. Differences would appear only with settings this package does
// not model (reserved ENIs, custom kube-reserved, evictionHard, pods-per-core,
// Bottlerocket's non-ENI-limited memory overhead, instance-store RAID0).
func TestAllocatableTable(t *testing.T) {
	c := defaultCatalog(t)

	const eph20 = 20 * GiB
	const ephAlloc = 17 * GiB

	tests := []struct {
		name     string
		capacity Resources
		reserved Resources // kube-reserved
		evict    Resources // eviction threshold
		alloc    Resources
	}{
		{
			// m5.large: 2 vCPU, 8192 MiB, amd64, 29 ENI pods, 0 GPU.
			name: "m5.large",
			capacity: Resources{
				CPUMilli: 2000, // 2 * 1000
				// 8192 - ceil(8192*0.075 = 614.4 -> 615) = 7577 MiB
				MemoryBytes:    7577 * MiB,
				EphemeralBytes: eph20,
				Pods:           29,
			},
			reserved: Resources{
				// 6% of 1000 = 60, 1% of 1000 = 10, 0.5% of 0 = 0 -> 70m
				CPUMilli: 70,
				// 11*29 + 255 = 319 + 255 = 574 MiB
				MemoryBytes:    574 * MiB,
				EphemeralBytes: GiB,
			},
			evict: Resources{MemoryBytes: 100 * MiB, EphemeralBytes: 2 * GiB},
			alloc: Resources{
				CPUMilli:       1930,       // 2000 - 70
				MemoryBytes:    6903 * MiB, // 7577 - 574 - 100
				EphemeralBytes: ephAlloc,
				Pods:           29,
			},
		},
		{
			// c5.large: 2 vCPU, 4096 MiB, amd64, 29 ENI pods.
			name: "c5.large",
			capacity: Resources{
				CPUMilli: 2000,
				// 4096 - ceil(4096*0.075 = 307.2 -> 308) = 3788 MiB
				MemoryBytes:    3788 * MiB,
				EphemeralBytes: eph20,
				Pods:           29,
			},
			reserved: Resources{CPUMilli: 70, MemoryBytes: 574 * MiB, EphemeralBytes: GiB}, // as m5.large
			evict:    Resources{MemoryBytes: 100 * MiB, EphemeralBytes: 2 * GiB},
			alloc: Resources{
				CPUMilli:       1930,
				MemoryBytes:    3114 * MiB, // 3788 - 574 - 100
				EphemeralBytes: ephAlloc,
				Pods:           29,
			},
		},
		{
			// m6g.large: 2 vCPU, 8192 MiB, arm64 (Graviton), 29 ENI pods.
			name: "m6g.large",
			capacity: Resources{
				CPUMilli: 2000,
				// 8192 - 64 (CMA) = 8128; 8128 - ceil(8128*0.075 = 609.6 -> 610) = 7518 MiB
				MemoryBytes:    7518 * MiB,
				EphemeralBytes: eph20,
				Pods:           29,
			},
			reserved: Resources{CPUMilli: 70, MemoryBytes: 574 * MiB, EphemeralBytes: GiB},
			evict:    Resources{MemoryBytes: 100 * MiB, EphemeralBytes: 2 * GiB},
			alloc: Resources{
				CPUMilli:       1930,
				MemoryBytes:    6844 * MiB, // 7518 - 574 - 100
				EphemeralBytes: ephAlloc,
				Pods:           29,
			},
		},
		{
			// g4dn.xlarge: 4 vCPU, 16384 MiB, amd64, 29 ENI pods, 1 GPU.
			name: "g4dn.xlarge",
			capacity: Resources{
				CPUMilli: 4000,
				// 16384 - ceil(16384*0.075 = 1228.8 -> 1229) = 15155 MiB
				MemoryBytes:    15155 * MiB,
				EphemeralBytes: eph20,
				Pods:           29,
				GPU:            1,
			},
			reserved: Resources{
				// 60 + 10 + 0.5% of 2000 = 10 + 0.25% of 0 = 0 -> 80m
				CPUMilli:       80,
				MemoryBytes:    574 * MiB, // 11*29 + 255
				EphemeralBytes: GiB,
			},
			evict: Resources{MemoryBytes: 100 * MiB, EphemeralBytes: 2 * GiB},
			alloc: Resources{
				CPUMilli:       3920,        // 4000 - 80
				MemoryBytes:    14481 * MiB, // 15155 - 574 - 100
				EphemeralBytes: ephAlloc,
				Pods:           29,
				GPU:            1, // GPUs are not reserved
			},
		},
		{
			// m5.24xlarge: 96 vCPU, 393216 MiB, amd64, 737 ENI pods.
			name: "m5.24xlarge",
			capacity: Resources{
				CPUMilli: 96000,
				// 393216 - ceil(393216*0.075 = 29491.2 -> 29492) = 363724 MiB
				MemoryBytes:    363724 * MiB,
				EphemeralBytes: eph20,
				Pods:           737,
			},
			reserved: Resources{
				// 60 + 10 + 10 + int(0.0025 * (96000-4000) = 230) -> 310m
				CPUMilli: 310,
				// 11*737 + 255 = 8107 + 255 = 8362 MiB
				MemoryBytes:    8362 * MiB,
				EphemeralBytes: GiB,
			},
			evict: Resources{MemoryBytes: 100 * MiB, EphemeralBytes: 2 * GiB},
			alloc: Resources{
				CPUMilli:       95690,        // 96000 - 310
				MemoryBytes:    355262 * MiB, // 363724 - 8362 - 100
				EphemeralBytes: ephAlloc,
				Pods:           737,
			},
		},
		{
			// a1.medium: 1 vCPU, 2048 MiB, arm64, 8 ENI pods (Karpenter docs: 940m, 1392Mi).
			name: "a1.medium",
			capacity: Resources{
				CPUMilli: 1000,
				// 2048 - 64 = 1984; 1984 - ceil(1984*0.075 = 148.8 -> 149) = 1835 MiB
				MemoryBytes:    1835 * MiB,
				EphemeralBytes: eph20,
				Pods:           8,
			},
			reserved: Resources{
				// 6% of 1000 = 60; 1% of (1000-1000) = 0; higher ranges 0 -> 60m
				CPUMilli:       60,
				MemoryBytes:    343 * MiB, // 11*8 + 255
				EphemeralBytes: GiB,
			},
			evict: Resources{MemoryBytes: 100 * MiB, EphemeralBytes: 2 * GiB},
			alloc: Resources{
				CPUMilli:       940,
				MemoryBytes:    1392 * MiB, // 1835 - 343 - 100
				EphemeralBytes: ephAlloc,
				Pods:           8,
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			it, ok := c.Lookup(tc.name)
			require.True(t, ok)
			opts := KubeletOptions{}
			require.Equal(t, tc.capacity, it.Capacity(opts), "capacity")
			require.Equal(t, tc.reserved, it.KubeReserved(opts), "kube-reserved")
			require.Equal(t, tc.evict, it.EvictionThreshold(opts), "eviction threshold")
			require.Equal(t, tc.alloc, it.Allocatable(opts), "allocatable")
		})
	}
}

func TestKubeReservedCPU(t *testing.T) {
	for _, tc := range []struct{ cpu, want int64 }{
		{0, 0},
		{500, 30},     // int(500*0.06)
		{1000, 60},    // 60 + int(0*0.01)
		{1500, 65},    // 60 + int(500*0.01)
		{3000, 75},    // 60 + 10 + int(1000*0.005)
		{8000, 90},    // 60 + 10 + 10 + int(4000*0.0025)
		{4001, 80},    // 60 + 10 + 10 + int(1*0.0025 = 0.0025 -> 0)
		{4399, 80},    // ... + int(399*0.0025 = 0.9975 -> 0): truncation per range
		{4400, 81},    // ... + int(400*0.0025 = 1)
		{192000, 550}, // 60 + 10 + 10 + int(188000*0.0025 = 470)
	} {
		require.Equal(t, tc.want, kubeReservedCPUMilli(tc.cpu), "cpu %dm", tc.cpu)
	}
}

func TestKubeletOptions(t *testing.T) {
	c := defaultCatalog(t)
	m5, _ := c.Lookup("m5.large")

	t.Run("MaxPods caps pods but not the ENI-based memory reservation", func(t *testing.T) {
		opts := KubeletOptions{MaxPods: 110}
		require.Equal(t, int64(110), m5.Capacity(opts).Pods)
		require.Equal(t, int64(110), m5.Allocatable(opts).Pods)
		// Still 11*29+255 = 574 MiB (upstream UsesENILimitedMemoryOverhead).
		require.Equal(t, 574*MiB, m5.KubeReserved(opts).MemoryBytes)
		require.Equal(t, 6903*MiB, m5.Allocatable(opts).MemoryBytes)

		big, _ := c.Lookup("m5.24xlarge")
		require.Equal(t, int64(250), big.Allocatable(KubeletOptions{MaxPods: 250}).Pods)
	})

	t.Run("root volume", func(t *testing.T) {
		opts := KubeletOptions{RootVolumeGiB: 100}
		require.Equal(t, 100*GiB, m5.Capacity(opts).EphemeralBytes)
		// eviction = ceil(107374182400/100*10) = 10737418240 = 10Gi
		// allocatable = 100Gi - 1Gi - 10Gi = 89Gi
		require.Equal(t, 10*GiB, m5.EvictionThreshold(opts).EphemeralBytes)
		require.Equal(t, 89*GiB, m5.Allocatable(opts).EphemeralBytes)

		// 8Gi: 8589934592/100*10 = 858993459.2 -> ceil 858993460
		opts = KubeletOptions{RootVolumeGiB: 8}
		require.Equal(t, int64(858993460), m5.EvictionThreshold(opts).EphemeralBytes)
		require.Equal(t, 8*GiB-GiB-858993460, m5.Allocatable(opts).EphemeralBytes)
	})

	t.Run("VM overhead", func(t *testing.T) {
		// 8192 - ceil(8192*0.05 = 409.6 -> 410) = 7782 MiB
		require.Equal(t, 7782*MiB, m5.Capacity(KubeletOptions{VMMemoryOverheadPercent: 0.05}).MemoryBytes)
	})

	t.Run("negative values act as defaults and fail Validate", func(t *testing.T) {
		bad := KubeletOptions{MaxPods: -1, RootVolumeGiB: -5, VMMemoryOverheadPercent: -0.1}
		require.Error(t, bad.Validate())
		require.Equal(t, m5.Allocatable(KubeletOptions{}), m5.Allocatable(bad))
		require.NoError(t, KubeletOptions{}.Validate())
		require.NoError(t, KubeletOptions{MaxPods: 110, RootVolumeGiB: 50, VMMemoryOverheadPercent: 0.1}.Validate())
		require.Error(t, KubeletOptions{VMMemoryOverheadPercent: 1}.Validate())
	})
}

func TestAllocatableClampsAtZero(t *testing.T) {
	// Tiny synthetic type: 1 vCPU, 256 MiB, 110 ENI pods.
	// capacity memory = 256 - ceil(19.2) = 236 MiB < 11*110+255 + 100 MiB.
	it := &InstanceType{Name: "x1.tiny", VCPU: 1, MemoryMiB: 256, Arch: ArchAMD64, MaxPodsENI: 110}
	a := it.Allocatable(KubeletOptions{})
	require.Equal(t, int64(0), a.MemoryBytes)
	require.Equal(t, int64(940), a.CPUMilli)
}

func TestAllocatableInvariantsAllTypes(t *testing.T) {
	c := defaultCatalog(t)
	for _, it := range c.Types() {
		capa, alloc := it.Capacity(KubeletOptions{}), it.Allocatable(KubeletOptions{})
		require.Positive(t, alloc.CPUMilli, it.Name)
		require.Positive(t, alloc.MemoryBytes, it.Name)
		require.Less(t, alloc.CPUMilli, capa.CPUMilli, it.Name)
		require.Less(t, alloc.MemoryBytes, capa.MemoryBytes, it.Name)
		require.Equal(t, capa.Pods, alloc.Pods, it.Name)
		require.Equal(t, capa.GPU, alloc.GPU, it.Name)
		require.Equal(t, int64(it.GPU), alloc.GPU, it.Name)
		require.Equal(t, 17*GiB, alloc.EphemeralBytes, it.Name)
		require.Zero(t, alloc.MemoryBytes%MiB, it.Name)
	}
}

// Karpenter's generated instance-type reference (the allocatable/* columns of
// ec2-instance-labels.csv) is the oracle of our overhead arithmetic: every
// type it lists must get the same allocatable cpu, memory,
// ephemeral-storage and pods with the default options (AL2023, 20 GiB root
// volume, default kubelet settings).
func TestAllocatableMatchesReference(t *testing.T) {
	c := defaultCatalog(t)
	checked := 0
	for _, it := range c.Types() {
		ref := it.Reference
		if ref == nil {
			continue
		}
		checked++
		a := it.Allocatable(KubeletOptions{})
		for _, q := range []struct {
			name  string
			ref   string
			got   int64
			milli bool
		}{
			{"cpu", ref.CPU, a.CPUMilli, true},
			{"memory", ref.Memory, a.MemoryBytes, false},
			{"ephemeral-storage", ref.Ephemeral, a.EphemeralBytes, false},
			{"pods", ref.Pods, a.Pods, false},
		} {
			want, err := resource.ParseQuantity(q.ref)
			require.NoError(t, err, "%s %s", it.Name, q.name)
			w := want.Value()
			if q.milli {
				w = want.MilliValue()
			}
			require.Equal(t, w, q.got, "%s: allocatable %s: reference %s", it.Name, q.name, q.ref)
		}
	}
	require.Equal(t, 1094+251, checked)
}

// instanceStorePolicy RAID0: ephemeral storage is the NVMe instance store,
// TotalSizeInGB decimal gigabytes (KA ephemeralStorage "%dG"), with the
// usual 1Gi kube-reserved and 10% eviction threshold; types without NVMe
// keep the root volume.
func TestInstanceStoreRAID0(t *testing.T) {
	c := defaultCatalog(t)
	it, ok := c.Lookup("c6id.2xlarge")
	require.True(t, ok)
	require.Equal(t, int64(474), it.LocalNVMeGB)
	opts := KubeletOptions{InstanceStoreRAID0: true}
	require.Equal(t, int64(474_000_000_000), it.Capacity(opts).EphemeralBytes)
	require.Equal(t, int64(474_000_000_000-47_400_000_000)-GiB, it.Allocatable(opts).EphemeralBytes)
	require.Equal(t, 17*GiB, it.Allocatable(KubeletOptions{}).EphemeralBytes)

	c5, ok := c.Lookup("c5.large")
	require.True(t, ok)
	require.Zero(t, c5.LocalNVMeGB)
	require.Equal(t, 20*GiB, c5.Capacity(opts).EphemeralBytes)
}
