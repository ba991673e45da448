package engine

import "math/rand/v2"

// Stream returns the random stream called name. It is seeded from the root
// seed and the name only (see [NewStream]), so creating streams in any
// order, or adding new ones, never shifts another stream's sequence. The
// same name returns the same *rand.Rand, so draws continue where they left
// off. Give each independent source of randomness its own name.
func (e *Engine) Stream(name string) *rand.Rand {
	if r, ok := e.streams[name]; ok {
		return r
	}
	r := NewStream(e.seed, name)
	e.streams[name] = r
	return r
}

// NewStream returns a fresh PCG stream for (root, name), identical to the
// one Engine.Stream(name) starts with for an engine seeded with root:
//
//	s := DeriveSeed(root, name)
//	rand.New(rand.NewPCG(s, SplitMix64(s)))
//
// Useful outside an Engine, e.g. to draw a scenario before the run starts.
func NewStream(root uint64, name string) *rand.Rand {
	s := DeriveSeed(root, name)
	return rand.New(rand.NewPCG(s, SplitMix64(s)))
}

// DeriveSeed maps (root seed, name) to a child seed:
//
//	DeriveSeed(root, name) = SplitMix64(SplitMix64(root) ^ FNV-1a-64(name))
//
// FNV-1a turns the name into 64 bits; SplitMix64 (a bijective avalanche
// mixer) is applied to the root first so that nearby roots (1, 2, 3, as in a
// multi-seed run) and nearby names do not give correlated children, and
// again after combining. It depends on nothing but its arguments, which is
// what keeps streams independent of each other's creation. Other packages
// use it for the same purpose, e.g. DeriveSeed(base, "run/3") for the seed
// of the fourth run of a multi-seed experiment. The formula is frozen:
// changing it changes every simulation result.
func DeriveSeed(root uint64, name string) uint64 {
	return SplitMix64(SplitMix64(root) ^ FNV1a64(name))
}

// SplitMix64 is one step of Steele, Lea and Flood's SplitMix64 generator
// (add the golden-ratio increment, then the Stafford variant 13 finalizer):
// a fast bijective 64-bit mixer.
func SplitMix64(x uint64) uint64 {
	z := x + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// FNV1a64 is FNV-1a over the bytes of s, inlined to avoid hash/fnv's
// allocation.
func FNV1a64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
