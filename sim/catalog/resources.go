package catalog

import (
	"errors"
	"fmt"
	"math"
)

// Byte units.
const (
	MiB int64 = 1 << 20
	GiB int64 = 1 << 30
)

// GPUResourceName is the extended resource name under which this package's
// GPU counts are meant to be exposed (see [InstanceType.GPU] for the caveat).
const GPUResourceName = "nvidia.com/gpu"

// Defaults of [KubeletOptions], from Karpenter's AWS provider
// (pkg/providers/amifamily/resolver.go DefaultEBS, and the
// VM_MEMORY_OVERHEAD_PERCENT option in pkg/operator/options/options.go).
const (
	DefaultRootVolumeGiB           int64   = 20    // GiB, Karpenter's default EBS root volume
	DefaultVMMemoryOverheadPercent float64 = 0.075 // fraction of instance memory lost to the hypervisor
)

// Fixed overheads from Karpenter's AWS provider
// (pkg/providers/instancetype/types.go).
const (
	kubeReservedEphemeralBytes = 1 * GiB   // kube-reserved ephemeral-storage
	evictionMemoryBytes        = 100 * MiB // evictionHard memory.available
	armCMAReservedMiB          = 64        // Graviton CMA reservation
)

// Resources is an amount of node resources in Kubernetes units.
type Resources struct {
	CPUMilli       int64 // cpu, millicores
	MemoryBytes    int64 // memory, bytes
	EphemeralBytes int64 // ephemeral-storage, bytes
	Pods           int64 // pods, count
	GPU            int64 // GPUs, count (GPUResourceName)
}

// String formats r for logs, with memory and ephemeral storage in whole MiB.
func (r Resources) String() string {
	return fmt.Sprintf("cpu=%dm memory=%dMi ephemeral-storage=%dMi pods=%d gpu=%d",
		r.CPUMilli, r.MemoryBytes/MiB, r.EphemeralBytes/MiB, r.Pods, r.GPU)
}

// subClamped returns r - o field by field, each clamped at 0.
func (r Resources) subClamped(o Resources) Resources {
	return Resources{
		CPUMilli:       max(r.CPUMilli-o.CPUMilli, 0),
		MemoryBytes:    max(r.MemoryBytes-o.MemoryBytes, 0),
		EphemeralBytes: max(r.EphemeralBytes-o.EphemeralBytes, 0),
		Pods:           max(r.Pods-o.Pods, 0),
		GPU:            max(r.GPU-o.GPU, 0),
	}
}

// KubeletOptions are the node settings that change capacity and overhead.
// The zero value means the defaults (AL2/AL2023 AMI family, Karpenter's
// defaults). Values that [KubeletOptions.Validate] rejects (negative, or a
// VMMemoryOverheadPercent of 1 or more) are treated as zero, the default, by
// Capacity and Allocatable, which never fail.
type KubeletOptions struct {
	MaxPods                 int32   // max pods per node; 0 = ENI-limited (the default on AL2/AL2023)
	RootVolumeGiB           int64   // root EBS volume (ephemeral storage) in GiB; 0 = DefaultRootVolumeGiB (20)
	VMMemoryOverheadPercent float64 // fraction (not percent) of memory lost to the VM; 0 = DefaultVMMemoryOverheadPercent (0.075)
	// InstanceStoreRAID0 is an EC2NodeClass's instanceStorePolicy: RAID0:
	// the NVMe instance stores, striped, hold the node's ephemeral storage,
	// so a type with them ([InstanceType.LocalNVMeGB] > 0) gets their size
	// instead of the root volume's.
	InstanceStoreRAID0 bool
}

// Validate reports negative or out-of-range values.
func (o KubeletOptions) Validate() error {
	var errs []error
	if o.MaxPods < 0 {
		errs = append(errs, fmt.Errorf("MaxPods %d < 0", o.MaxPods))
	}
	if o.RootVolumeGiB < 0 {
		errs = append(errs, fmt.Errorf("RootVolumeGiB %d < 0", o.RootVolumeGiB))
	}
	if p := o.VMMemoryOverheadPercent; math.IsNaN(p) || p < 0 || p >= 1 {
		errs = append(errs, fmt.Errorf("VMMemoryOverheadPercent %v not in [0, 1)", p))
	}
	return errors.Join(errs...)
}

func (o KubeletOptions) rootVolumeBytes() int64 {
	if o.RootVolumeGiB <= 0 {
		return DefaultRootVolumeGiB * GiB
	}
	return o.RootVolumeGiB * GiB
}

func (o KubeletOptions) vmOverhead() float64 {
	if p := o.VMMemoryOverheadPercent; p > 0 && p < 1 {
		return p
	}
	return DefaultVMMemoryOverheadPercent
}

// Capacity returns the node capacity the kubelet would report:
//
//	cpu       = VCPU*1000 m
//	memory    = m - ceil(m*VMMemoryOverheadPercent) MiB, m = MemoryMiB (-64 on arm64)
//	ephemeral = LocalNVMeGB * 10^9 bytes with InstanceStoreRAID0 and NVMe
//	            instance stores (KA ephemeralStorage: "<TotalSizeInGB>G"),
//	            else RootVolumeGiB GiB
//	pods      = MaxPods, or MaxPodsENI when MaxPods is 0
//	gpu       = GPU (nvidia.com/gpu; the other extended resources are
//	            [InstanceType.Extended], capacity and allocatable alike)
func (it *InstanceType) Capacity(opts KubeletOptions) Resources {
	memMiB := it.MemoryMiB
	if it.Arch == ArchARM64 {
		// Gravitons have an extra 64 MiB of CMA reserved memory.
		memMiB -= armCMAReservedMiB
	}
	// Same float expression as upstream: ceil(bytes * pct / 1024 / 1024) MiB.
	overheadMiB := int64(math.Ceil(float64(memMiB*MiB) * opts.vmOverhead() / 1024 / 1024))
	pods := int64(it.MaxPodsENI)
	if opts.MaxPods > 0 {
		pods = int64(opts.MaxPods)
	}
	eph := opts.rootVolumeBytes()
	if opts.InstanceStoreRAID0 && it.LocalNVMeGB > 0 {
		eph = it.LocalNVMeGB * 1_000_000_000
	}
	return Resources{
		CPUMilli:       int64(it.VCPU) * 1000,
		MemoryBytes:    max(memMiB-overheadMiB, 0) * MiB,
		EphemeralBytes: eph,
		Pods:           pods,
		GPU:            int64(it.GPU),
	}
}

// KubeReserved returns Karpenter's default kube-reserved for AL2/AL2023:
// memory (11*MaxPodsENI + 255) MiB (ENI-limited pods even when
// opts.MaxPods is set, as upstream's UsesENILimitedMemoryOverhead does),
// ephemeral-storage 1Gi, and cpu 6% of the first core, 1% of the second,
// 0.5% of cores 3-4 and 0.25% of the rest, each range truncated to whole
// millicores. opts does not affect the result today; it is accepted for
// symmetry with Capacity.
func (it *InstanceType) KubeReserved(opts KubeletOptions) Resources {
	return Resources{
		CPUMilli:       kubeReservedCPUMilli(int64(it.VCPU) * 1000),
		MemoryBytes:    (11*int64(it.MaxPodsENI) + 255) * MiB,
		EphemeralBytes: kubeReservedEphemeralBytes,
	}
}

// kubeReservedCPUMilli mirrors upstream kubeReservedResources: for each range
// the cpu reaches, add int64(r*percentage) millicores.
func kubeReservedCPUMilli(cpuMilli int64) int64 {
	var total int64
	for _, cr := range []struct {
		start, end int64
		percentage float64
	}{
		{start: 0, end: 1000, percentage: 0.06},
		{start: 1000, end: 2000, percentage: 0.01},
		{start: 2000, end: 4000, percentage: 0.005},
		{start: 4000, end: 1 << 31, percentage: 0.0025},
	} {
		if cpuMilli >= cr.start {
			r := float64(cr.end - cr.start)
			if cpuMilli < cr.end {
				r = float64(cpuMilli - cr.start)
			}
			total += int64(r * cr.percentage)
		}
	}
	return total
}

// EvictionThreshold returns Karpenter's default hard eviction thresholds:
// memory 100Mi and ephemeral-storage ceil(10% of capacity ephemeral bytes).
func (it *InstanceType) EvictionThreshold(opts KubeletOptions) Resources {
	eph := it.Capacity(opts).EphemeralBytes
	return Resources{
		MemoryBytes:    evictionMemoryBytes,
		EphemeralBytes: int64(math.Ceil(float64(eph) / 100 * 10)), // upstream expression
	}
}

// Allocatable returns Capacity - KubeReserved - EvictionThreshold (no
// system-reserved by default), each field clamped at 0.
func (it *InstanceType) Allocatable(opts KubeletOptions) Resources {
	return it.Capacity(opts).subClamped(it.KubeReserved(opts)).subClamped(it.EvictionThreshold(opts))
}
