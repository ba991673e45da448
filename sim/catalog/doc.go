// Package catalog describes EC2 instance types for the simulator: their
// hardware shape, their on-demand and estimated spot prices, and the node
// capacity and allocatable resources a kubelet would report for them.
//
// # Data
//
// Everything comes from five CSV files embedded from data/ (four copies of
// the shared snapshot; data/PROVENANCE.md documents every column and source,
// data/README.md the copies):
//
//   - ec2-instance-types.csv: 1101 instance types (759 amd64, 342 arm64, 61
//     with GPUs): vCPUs, memory (MiB), GPU count, architecture, ENI-limited
//     max pods and the us-east-1 on-demand price. Shapes come from the
//     kubernetes/autoscaler static table (last updated 2026-01-22); ENI
//     limits from Karpenter's generated VPC limits (generated 2026-08-06).
//   - ec2-od-prices.csv: 1367 on-demand prices, USD per hour, Linux, shared
//     tenancy, list price (no Savings Plans or RIs), from Karpenter's
//     generated pricing table (generated 2026-07-20). us-east-1 only.
//   - ec2-spot-advisor-regions.csv: 14962 AWS Spot Instance Advisor rows
//     (Linux) for the advisor's 33 regions: savings versus on-demand in
//     percent and an interruption-frequency band 0..4. Effective date about
//     2025-06-28, more than a year older than the prices.
//   - ec2-instance-labels.csv: Karpenter's generated instance-type reference
//     (v1.14.1 docs): for 1363 types every label Karpenter puts on their
//     nodes ([InstanceType.Labels]), their extended resources
//     ([InstanceType.Extended]: nvidia.com/gpu, amd.com/gpu,
//     aws.amazon.com/neuron, aws.amazon.com/neuroncore,
//     vpc.amazonaws.com/efa, vpc.amazonaws.com/pod-eni), the NVMe
//     instance-store size ([InstanceType.LocalNVMeGB]) and the allocatable
//     resources it computes ([InstanceType.Reference], the tests' oracle).
//     1094 of its types are in ec2-instance-types.csv; of the 269 others the
//     251 with an on-demand price are added to the catalogue (shape from the
//     labels, max pods from allocatable/pods); the 18 without one are not
//     offered ([Catalog.Unpriced]). The catalogue has 1352 types.
//   - ebs-attachment-limits.csv (not in the shared snapshot): the EBS CSI
//     driver's per-type EBS attachment limits (EC2 MaximumEbsAttachments
//     and shared/dedicated, 39 for Xen types; 27 shared for a type it does
//     not list), [InstanceType.EBS]; [InstanceType.EBSVolumeLimit] turns
//     them into the volumes a node can attach, by the driver's rule.
//
// [Zones] knows the availability zones of those 33 regions (a table of
// their zone letters in regions.go, not from the data files).
//
// # Caveats
//
//   - Only us-east-1 has on-demand prices. [Catalog.OnDemandPrice] answers
//     other regions with the us-east-1 price and exact=false; real list prices
//     in other regions can differ.
//   - The spot advisor has no rows for newer families (c8a, m8a, r8a, ...),
//     nor for types a region does not offer: 211 catalog types have no
//     us-east-1 row, 213 no us-west-2 row, 314 no eu-west-1 row, 536 no
//     eu-west-2 row, up to 921 in the smallest regions (ap-southeast-4).
//     [Catalog.SpotPriceEstimate] then returns ok=false and the caller
//     decides (for example: do not offer spot, or assume a default
//     discount). Every catalog type is still offered on demand in every
//     region: the data does not say which types a region lacks. The
//     estimate on-demand*(1-savings/100) is coarse: savings were computed by
//     AWS against its own on-demand price at the advisor date, real spot
//     prices vary by AZ and over time, and 72 advisor rows have savings 0
//     (probably "unknown", not "no discount"). One row has a negative
//     saving (ca-central-1 p5.48xlarge, -62%); it reads as 0, since EC2
//     never charges more than on-demand for spot.
//   - The advisor band is regional, a trailing one-month estimate, and an
//     ordinal bucket, not a probability (labels "<5%", "5-10%", "10-15%",
//     "15-20%", ">20%").
//   - MaxPodsENI is the raw ENI limit ENIs*(IPv4 per ENI-1)+2 of the default
//     network card, with no cap: 400 types exceed 250 and many large ones
//     reach 737. EKS guidance often caps max pods at 110 or 250; set
//     [KubeletOptions.MaxPods] to model that. Reserved ENIs, EFA-only
//     interfaces and prefix delegation are not modelled.
//   - Generation is the first run of digits in the family, which is wrong for
//     the u-<N>tb1 families (u-3tb1 gets 3, really generation 1).
//   - GPU is the NVIDIA GPU count (nvidia.com/gpu); g4ad's AMD GPUs are
//     amd.com/gpu and inf/trn's devices aws.amazon.com/neuron in Extended.
//     The 7 types the reference lacks (dl1.24xlarge, f1.*, p3.*) get only
//     the labels derived from their own columns (category, family,
//     generation, size, cpu, memory, arch, os, gpu-count): no hypervisor,
//     manufacturer or bandwidth labels; p3's GPUs are nvidia.com/gpu and
//     dl1's Gaudis habana.ai/gaudi.
//   - instance-local-nvme is only set for NVMe instance stores, so with
//     instanceStorePolicy RAID0 ([KubeletOptions.InstanceStoreRAID0]) the
//     older types with non-NVMe instance stores (c3, d2, i2, m3, r3, x1,
//     ...) keep the root volume: Karpenter would use their instance store's
//     size, which the data does not give.
//   - MemoryMiB is nominal instance memory (DescribeInstanceTypes), not what
//     the kubelet sees; see Capacity below.
//
// # Capacity and allocatable
//
// [InstanceType.Capacity] and [InstanceType.Allocatable] reproduce the
// overhead rules of Karpenter's AWS provider
// (github.com/aws/karpenter-provider-aws, pkg/providers/instancetype/types.go,
// read at commit 1d927085dd81 of 2026-08-21, v1.14.1) for the AL2/AL2023 AMI
// families with no blockDeviceMappings, kubeReserved, systemReserved or
// evictionHard overrides, and with the default Karpenter options
// (VM_MEMORY_OVERHEAD_PERCENT=0.075, RESERVED_ENIS=0):
//
//	capacity.cpu     = vCPU * 1000 m
//	capacity.memory  = mem - ceil(mem * VMMemoryOverheadPercent) MiB,
//	                   mem = MemoryMiB - 64 on arm64 (Graviton CMA), else MemoryMiB
//	capacity.ephemeral-storage = RootVolumeGiB Gi (default 20Gi EBS root), or
//	                   LocalNVMeGB * 10^9 bytes with InstanceStoreRAID0
//	                   (KA: the instance store's TotalSizeInGB "G")
//	capacity.pods    = MaxPods if set, else MaxPodsENI
//	capacity.gpu     = GPU
//
//	kubeReserved.memory = (11 * MaxPodsENI + 255) MiB  (ENI-limited even if MaxPods is set)
//	kubeReserved.ephemeral-storage = 1Gi
//	kubeReserved.cpu = 6% of [0,1000)m + 1% of [1000,2000)m + 0.5% of [2000,4000)m
//	                   + 0.25% of [4000,∞)m, each term truncated to whole millicores
//	evictionThreshold.memory = 100Mi
//	evictionThreshold.ephemeral-storage = ceil(10% of capacity ephemeral bytes)
//	systemReserved = none
//
//	allocatable = capacity - kubeReserved - evictionThreshold, each clamped at 0
//
// For m5.large this gives cpu 1930m, memory 6903Mi, ephemeral 17Gi, pods 29,
// matching Karpenter's generated instance-types reference page; the tests
// check cpu, memory, ephemeral-storage and pods against that page for all
// 1345 types it lists (no differences). Extended resources have no
// overhead: capacity = allocatable = the count.
//
// # Concurrency
//
// A [Catalog] is immutable after construction and safe for concurrent use.
// Do not modify the [InstanceType] values it returns; [Default] returns a
// fresh copy on each call, so a caller that must modify one can own a copy.
package catalog
