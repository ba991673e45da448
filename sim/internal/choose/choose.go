// Package choose is where a model-based test takes its choices from: a
// seeded generator in a deterministic sweep, a fuzzer's bytes in a fuzz
// target, so one sequence generator serves both.
package choose

import "math/rand/v2"

// Source gives choices.
type Source interface {
	// IntN returns a choice in [0, n); ok is false when the source is
	// exhausted (the run ends).
	IntN(n int) (v int, ok bool)
}

// Seeded is a Source that never runs out.
func Seeded(r *rand.Rand) Source { return seeded{r} }

type seeded struct{ r *rand.Rand }

func (c seeded) IntN(n int) (int, bool) { return c.r.IntN(n), true }

// Bytes is a Source that reads one byte per choice (modulo n) and runs
// out with the data.
func Bytes(data []byte) Source { return &bytesSource{data: data} }

type bytesSource struct {
	data []byte
	pos  int
}

func (c *bytesSource) IntN(n int) (int, bool) {
	if c.pos >= len(c.data) {
		return 0, false
	}
	b := c.data[c.pos]
	c.pos++
	return int(b) % n, true
}

// RandomBytes is n seeded random bytes: a fuzz target's seed corpus for a
// Bytes source.
func RandomBytes(seed, stream uint64, n int) []byte {
	r := rand.New(rand.NewPCG(seed, stream))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.IntN(256))
	}
	return b
}
