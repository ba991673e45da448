package catalog

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// Well-known label keys of the instance-label table that this package also
// reads as numbers or names (KA pkg/apis/v1/labels.go).
const (
	LabelArch          = "kubernetes.io/arch"
	LabelOS            = "kubernetes.io/os"
	LabelCategory      = "karpenter.k8s.aws/instance-category"
	LabelFamily        = "karpenter.k8s.aws/instance-family"
	LabelGeneration    = "karpenter.k8s.aws/instance-generation"
	LabelSize          = "karpenter.k8s.aws/instance-size"
	LabelCPU           = "karpenter.k8s.aws/instance-cpu"
	LabelMemory        = "karpenter.k8s.aws/instance-memory"
	LabelGPUCount      = "karpenter.k8s.aws/instance-gpu-count"
	LabelLocalNVMe     = "karpenter.k8s.aws/instance-local-nvme"
	labelAllocatable   = "allocatable/"
	labelsInstanceType = "instance_type"
)

// Extended resources nodes of an instance type can have (KA
// pkg/apis/v1/labels.go Resource*). The instance-label table gives the
// first six; ResourceHabanaGaudi is only used for dl1.24xlarge, which the
// table lacks (see the package doc).
const (
	ResourceNVIDIAGPU   = "nvidia.com/gpu"
	ResourceAMDGPU      = "amd.com/gpu"
	ResourceNeuron      = "aws.amazon.com/neuron"
	ResourceNeuronCore  = "aws.amazon.com/neuroncore"
	ResourceEFA         = "vpc.amazonaws.com/efa"
	ResourcePodENI      = "vpc.amazonaws.com/pod-eni"
	ResourceHabanaGaudi = "habana.ai/gaudi"
)

// Label is one node label Karpenter puts on every node of an instance type.
type Label struct {
	Key, Value string
}

// ExtendedResource is an extended resource of an instance type: capacity and
// allocatable alike (no overhead is reserved for them).
type ExtendedResource struct {
	Name  string
	Count int64
}

// ReferenceAllocatable is what Karpenter's generated instance-type reference
// says a node of the type has allocatable (AL2023, 20 GiB root volume,
// default kubelet settings): the oracle the tests compare
// [InstanceType.Allocatable] with. Quantities are as printed there, e.g.
// "1930m", "6903Mi", "17Gi", "29".
type ReferenceAllocatable struct {
	CPU, Memory, Ephemeral, Pods string
}

// labelRow is one parsed row of the instance-label table.
type labelRow struct {
	name     string
	labels   []Label // sorted by key, empty cells left out
	extended []ExtendedResource
	ref      ReferenceAllocatable
	vcpu     int64
	memMiB   int64
	arch     string
	pods     int64
	nvme     int64
	gpuCount int64
}

// parseLabels reads ec2-instance-labels.csv (data/PROVENANCE.md, "Added
// 2026-12-01"). The header is read, not fixed: instance_type first, then
// label keys, then allocatable/<resource> columns, of which cpu, memory,
// ephemeral-storage and pods are required, as are the label columns this
// package reads (arch, instance-cpu, instance-memory).
func parseLabels(r io.Reader) ([]labelRow, []string, error) {
	if r == nil {
		return nil, nil, fmt.Errorf("instance labels: nil reader")
	}
	t := &csvTable{name: "instance labels"}
	header, err := t.readHeader(r)
	if err != nil {
		return nil, nil, err
	}
	col := map[string]int{}
	var keys []string
	for i, h := range header {
		if _, dup := col[h]; dup || h == "" {
			return nil, nil, fmt.Errorf("instance labels: header: column %d %q is empty or repeated", i+1, h)
		}
		col[h] = i
		if i > 0 && !strings.HasPrefix(h, labelAllocatable) {
			keys = append(keys, h)
		}
	}
	for _, need := range []string{labelsInstanceType, LabelArch, LabelCPU, LabelMemory,
		labelAllocatable + "cpu", labelAllocatable + "memory", labelAllocatable + "ephemeral-storage", labelAllocatable + "pods"} {
		if _, ok := col[need]; !ok {
			return nil, nil, fmt.Errorf("instance labels: header has no %q column", need)
		}
	}
	if header[0] != labelsInstanceType {
		return nil, nil, fmt.Errorf("instance labels: header starts with %q, want %q", header[0], labelsInstanceType)
	}
	slices.Sort(keys)
	var out []labelRow
	seen := map[string]bool{}
	err = t.each(func(rec []string) error {
		row := labelRow{name: rec[0]}
		if err := t.nonEmpty(labelsInstanceType, row.name); err != nil {
			return err
		}
		if seen[row.name] {
			return t.errorf("duplicate instance type %q", row.name)
		}
		seen[row.name] = true
		for _, k := range keys {
			if v := rec[col[k]]; v != "" {
				if strings.TrimSpace(v) != v {
					return t.errorf("%s: %q has surrounding spaces", k, v)
				}
				row.labels = append(row.labels, Label{Key: k, Value: v})
			}
		}
		for i, h := range header {
			name, ok := strings.CutPrefix(h, labelAllocatable)
			if !ok || rec[i] == "" {
				continue
			}
			switch name {
			case "cpu":
				row.ref.CPU = rec[i]
			case "memory":
				row.ref.Memory = rec[i]
			case "ephemeral-storage":
				row.ref.Ephemeral = rec[i]
			case "pods":
				row.ref.Pods = rec[i]
				if row.pods, err = t.int(h, rec[i], 0, 1<<20); err != nil {
					return err
				}
			default:
				n, err := t.int(h, rec[i], 0, 1<<20)
				if err != nil {
					return err
				}
				if n > 0 {
					row.extended = append(row.extended, ExtendedResource{Name: name, Count: n})
				}
			}
		}
		slices.SortFunc(row.extended, func(a, b ExtendedResource) int { return strings.Compare(a.Name, b.Name) })
		if row.vcpu, err = t.int(LabelCPU, rec[col[LabelCPU]], 1, 1<<20); err != nil {
			return err
		}
		if row.memMiB, err = t.int(LabelMemory, rec[col[LabelMemory]], 1, 1<<40); err != nil {
			return err
		}
		if row.arch = rec[col[LabelArch]]; row.arch != ArchAMD64 && row.arch != ArchARM64 {
			return t.errorf("%s: %q is not %q or %q", LabelArch, row.arch, ArchAMD64, ArchARM64)
		}
		for _, n := range []struct {
			key string
			dst *int64
		}{{LabelLocalNVMe, &row.nvme}, {LabelGPUCount, &row.gpuCount}} {
			if i, ok := col[n.key]; ok && rec[i] != "" {
				if *n.dst, err = t.int(n.key, rec[i], 0, 1<<40); err != nil {
					return err
				}
			}
		}
		out = append(out, row)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.SortFunc(out, func(a, b labelRow) int { return strings.Compare(a.name, b.name) })
	return out, keys, nil
}

// applyLabels gives it the labels, extended resources and NVMe size of its
// reference row, and the NVIDIA GPU count as GPU.
func (it *InstanceType) applyLabels(row *labelRow) {
	it.Labels = row.labels
	it.Extended = row.extended
	it.LocalNVMeGB = row.nvme
	it.Reference = &row.ref
	it.GPU = 0
	for _, e := range row.extended {
		if e.Name == ResourceNVIDIAGPU {
			it.GPU = int(e.Count)
		}
	}
}

// deriveLabels gives a type the reference lacks the labels this package can
// derive from its own columns (category, family, generation, size, cpu,
// memory, arch, os, gpu-count), and its GPUs as nvidia.com/gpu, except
// dl1's Habana Gaudis (habana.ai/gaudi, as Karpenter exposes them).
func (it *InstanceType) deriveLabels() {
	ls := []Label{
		{LabelCategory, it.Category},
		{LabelCPU, strconv.Itoa(it.VCPU)},
		{LabelFamily, it.Family},
		{LabelGeneration, strconv.Itoa(it.Generation)},
		{LabelMemory, strconv.FormatInt(it.MemoryMiB, 10)},
		{LabelSize, it.Size},
		{LabelArch, it.Arch},
		{LabelOS, "linux"},
	}
	it.Extended = nil
	if n := it.GPU; n > 0 {
		ls = append(ls, Label{LabelGPUCount, strconv.Itoa(n)})
		name := ResourceNVIDIAGPU
		if it.Family == "dl1" {
			name, it.GPU = ResourceHabanaGaudi, 0
		}
		it.Extended = []ExtendedResource{{Name: name, Count: int64(n)}}
	}
	slices.SortFunc(ls, func(a, b Label) int { return strings.Compare(a.Key, b.Key) })
	it.Labels = ls
}

// Label returns the value of the type's label key and whether it has it.
func (it *InstanceType) Label(key string) (string, bool) {
	i, ok := slices.BinarySearchFunc(it.Labels, key, func(l Label, k string) int { return strings.Compare(l.Key, k) })
	if !ok {
		return "", false
	}
	return it.Labels[i].Value, true
}

// ExtendedCount returns the type's count of an extended resource (0: none).
func (it *InstanceType) ExtendedCount(name string) int64 {
	for _, e := range it.Extended {
		if e.Name == name {
			return e.Count
		}
	}
	return 0
}

// IsAccelerator reports whether an extended resource is an accelerator
// (GPUs, Neuron devices and cores, Gaudis) rather than a network resource
// (EFA, pod ENIs).
func IsAccelerator(name string) bool {
	switch name {
	case ResourceNVIDIAGPU, ResourceAMDGPU, ResourceNeuron, ResourceNeuronCore, ResourceHabanaGaudi:
		return true
	}
	return false
}

// Accelerators returns the type's accelerator resources ([IsAccelerator]),
// sorted by name: what static nodes and node-group templates expose.
func (it *InstanceType) Accelerators() []ExtendedResource {
	var out []ExtendedResource
	for _, e := range it.Extended {
		if IsAccelerator(e.Name) {
			out = append(out, e)
		}
	}
	return out
}
