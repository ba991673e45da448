package cluster

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
)

// Resource dimensions. The first four are fixed; extended resources
// (nvidia.com/gpu, hugepages-2Mi, vpc.amazonaws.com/pod-eni, ...) take the
// remaining slots in the order a scenario first mentions them.
const (
	CPU       = 0 // millicores
	Memory    = 1 // bytes
	Ephemeral = 2 // bytes
	Pods      = 3 // count
	// MaxResources bounds the vector so it stays a value type that never
	// allocates. Four extended resource names per scenario are enough for
	// every case we know of; more is a clear load error.
	MaxResources = 8
)

// Resources is a vector of quantities, indexed by the constants above and by
// the slots a ResourceNames registry hands out.
type Resources [MaxResources]int64

// Add returns r + o.
func (r Resources) Add(o Resources) Resources {
	for i := range r {
		r[i] += o[i]
	}
	return r
}

// Sub returns r - o.
func (r Resources) Sub(o Resources) Resources {
	for i := range r {
		r[i] -= o[i]
	}
	return r
}

// Fits reports whether req fits in free, dimension by dimension. A dimension
// that req does not ask for always fits, even if free is negative there.
func (req Resources) Fits(free Resources) bool {
	for i := range req {
		if req[i] > 0 && req[i] > free[i] {
			return false
		}
	}
	return true
}

// IsZero reports whether every dimension is zero.
func (r Resources) IsZero() bool { return r == Resources{} }

// ResourceNames maps resource names to vector slots for one cluster.
type ResourceNames struct {
	names []corev1.ResourceName
}

// NewResourceNames returns a registry with the four fixed dimensions.
func NewResourceNames() *ResourceNames {
	return &ResourceNames{names: []corev1.ResourceName{
		corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceEphemeralStorage, corev1.ResourcePods,
	}}
}

// Index returns the slot of a resource name, adding an extended resource if
// new. It fails when the vector is full.
func (n *ResourceNames) Index(name corev1.ResourceName) (int, error) {
	for i, have := range n.names {
		if have == name {
			return i, nil
		}
	}
	if len(n.names) == MaxResources {
		return 0, fmt.Errorf("too many distinct resource names: %s would be the %dth after cpu, memory, ephemeral-storage and pods (at most %d extended resources per scenario: %s)",
			name, len(n.names)-3, MaxResources-4, n.extended())
	}
	n.names = append(n.names, name)
	return len(n.names) - 1, nil
}

// Lookup returns the slot of a known resource name.
func (n *ResourceNames) Lookup(name corev1.ResourceName) (int, bool) {
	for i, have := range n.names {
		if have == name {
			return i, true
		}
	}
	return 0, false
}

// Name returns the resource name of a slot.
func (n *ResourceNames) Name(i int) corev1.ResourceName { return n.names[i] }

// Len is the number of slots in use.
func (n *ResourceNames) Len() int { return len(n.names) }

func (n *ResourceNames) extended() string {
	var s []string
	for _, name := range n.names[4:] {
		s = append(s, string(name))
	}
	return strings.Join(s, ", ")
}

// FromList converts a Kubernetes resource list into a vector. CPU is taken
// in millicores (rounded up, as the API server does for requests), the rest
// as whole values rounded up.
func (n *ResourceNames) FromList(list corev1.ResourceList) (Resources, error) {
	var r Resources
	for _, name := range sortedResourceNames(list) {
		q := list[name]
		i, err := n.Index(name)
		if err != nil {
			return r, err
		}
		if name == corev1.ResourceCPU {
			r[i] = q.MilliValue()
		} else {
			r[i] = q.Value()
		}
	}
	return r, nil
}

// Format renders a vector for messages: "cpu=500m memory=1Gi" style, only
// non-zero dimensions.
func (n *ResourceNames) Format(r Resources) string {
	var b strings.Builder
	for i := 0; i < len(n.names); i++ {
		if r[i] == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(string(n.names[i]))
		b.WriteByte('=')
		switch i {
		case CPU:
			fmt.Fprintf(&b, "%dm", r[i])
		case Memory, Ephemeral:
			b.WriteString(FormatBytes(r[i]))
		default:
			fmt.Fprintf(&b, "%d", r[i])
		}
	}
	return b.String()
}

// FormatBytes renders bytes with a binary suffix when exact enough.
func FormatBytes(v int64) string {
	const (
		ki = 1 << 10
		mi = 1 << 20
		gi = 1 << 30
	)
	switch {
	case v != 0 && v%gi == 0:
		return fmt.Sprintf("%dGi", v/gi)
	case v >= gi:
		return fmt.Sprintf("%.1fGi", float64(v)/gi)
	case v != 0 && v%mi == 0:
		return fmt.Sprintf("%dMi", v/mi)
	case v >= mi:
		return fmt.Sprintf("%.1fMi", float64(v)/mi)
	case v != 0 && v%ki == 0:
		return fmt.Sprintf("%dKi", v/ki)
	}
	return fmt.Sprintf("%d", v)
}

func sortedResourceNames(list corev1.ResourceList) []corev1.ResourceName {
	names := make([]corev1.ResourceName, 0, len(list))
	for name := range list {
		names = append(names, name)
	}
	// Fixed dimensions first keeps slot assignment independent of map order.
	rank := func(n corev1.ResourceName) int {
		switch n {
		case corev1.ResourceCPU:
			return 0
		case corev1.ResourceMemory:
			return 1
		case corev1.ResourceEphemeralStorage:
			return 2
		case corev1.ResourcePods:
			return 3
		}
		return 4
	}
	for i := 1; i < len(names); i++ {
		for j := i; j > 0; j-- {
			a, b := names[j-1], names[j]
			if rank(a) < rank(b) || (rank(a) == rank(b) && a <= b) {
				break
			}
			names[j-1], names[j] = b, a
		}
	}
	return names
}
