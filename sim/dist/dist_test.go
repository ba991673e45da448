package dist

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func sample(d Duration, n int) []time.Duration {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = d.Sample(r)
	}
	slices.Sort(out)
	return out
}

func TestLogNormalHitsMedianAndP90(t *testing.T) {
	d, err := NewLogNormal(10*time.Minute, 30*time.Minute)
	require.NoError(t, err)
	s := sample(d, 100000)
	// With 100k samples the empirical quantiles land within about 1-2%.
	require.InEpsilon(t, float64(10*time.Minute), float64(s[50000]), 0.02)
	require.InEpsilon(t, float64(30*time.Minute), float64(s[90000]), 0.03)
	_, err = NewLogNormal(10*time.Minute, 5*time.Minute)
	require.EqualError(t, err, "p90 (5m0s) must be at least the median (10m0s)")
}

func TestExponentialAndUniform(t *testing.T) {
	s := sample(Exponential{MeanD: time.Minute}, 100000)
	var sum time.Duration
	for _, x := range s {
		sum += x
	}
	require.InEpsilon(t, float64(time.Minute), float64(sum/time.Duration(len(s))), 0.02)

	u := sample(Uniform{Min: time.Minute, Max: 2 * time.Minute}, 10000)
	require.GreaterOrEqual(t, u[0], time.Minute)
	require.LessOrEqual(t, u[len(u)-1], 2*time.Minute)
	require.Equal(t, 90*time.Second, Uniform{Min: time.Minute, Max: 2 * time.Minute}.Mean())
	require.Equal(t, 5*time.Second, Fixed{D: 5 * time.Second}.Sample(nil))
}
