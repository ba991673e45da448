package simulation

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/engine"
	"github.com/clustersim/clustersim/sim/scenario"
)

// The pod cap holds while running, not only in the load-time estimate:
// pods recreated as fast as they go stop the run with an error naming the
// cause, never an out-of-memory kill; Watch sees the pods created and can
// stop the run too.
func TestPodCapHoldsWhileRunning(t *testing.T) {
	sc, err := scenario.LoadFile("testdata/churn.yaml")
	require.NoError(t, err)
	require.Less(t, sc.EstimatedPods, int64(1000))
	_, err = Run(sc, Options{MaxPods: 50_000})
	require.ErrorIs(t, err, ErrTooManyPods)
	require.ErrorContains(t, err, "pods, more than the 50000 a run may hold (200 were estimated at load): pods are recreated as fast as they go")

	stop := errors.New("enough")
	seen := 0
	_, err = Run(sc, Options{Watch: func(_ engine.Time, pods int) error {
		seen = pods
		if pods > 10_000 {
			return stop
		}
		return nil
	}})
	require.ErrorIs(t, err, stop)
	require.Greater(t, seen, 10_000)
}
