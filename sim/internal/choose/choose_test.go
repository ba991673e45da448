package choose

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSources(t *testing.T) {
	b := Bytes([]byte{7, 250})
	v, ok := b.IntN(5)
	require.True(t, ok)
	require.Equal(t, 2, v)
	v, ok = b.IntN(100)
	require.True(t, ok)
	require.Equal(t, 50, v)
	_, ok = b.IntN(5)
	require.False(t, ok, "exhausted")
	s := Seeded(rand.New(rand.NewPCG(1, 2)))
	for range 100 {
		v, ok := s.IntN(3)
		require.True(t, ok)
		require.GreaterOrEqual(t, v, 0)
		require.Less(t, v, 3)
	}
}
