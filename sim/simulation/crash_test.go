package simulation

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/engine"
)

// A model's panic ends the run with an InternalError that carries the
// panic, its stack and, in a checked run, the last events: what sim run's
// crash report writes.
func TestPanicIsAnInternalError(t *testing.T) {
	for _, check := range []bool{false, true} {
		sc := loadAdopt(t, adoptScenario(""))
		s, err := Start(sc, Options{Check: check})
		require.NoError(t, err)
		id := s.eng.Register(engine.HandlerFunc(func(ev engine.Event) { panicInModel() }))
		s.eng.Schedule(90e9, engine.Event{Handler: id, Kind: 7, Obj: 3})
		err = s.RunUntil(sc.Duration)
		var ie *InternalError
		require.True(t, errors.As(err, &ie), "%v", err)
		require.Equal(t, "a model bug", ie.Panic)
		require.Equal(t, engine.Time(90e9), ie.At)
		require.Contains(t, ie.Stack, "panicInModel")
		require.Contains(t, err.Error(), "internal error at t=1m30s (seed 1): a model bug; please report it with the scenario")
		if check {
			// The events dispatched before the one that panicked.
			// (an adopted cluster: Karpenter's first pass runs at the start)
			require.Len(t, ie.Recent, 17, "the 17 events before it")
			require.True(t, strings.HasPrefix(ie.Recent[len(ie.Recent)-1], "t=1m"), ie.Recent[len(ie.Recent)-1])
		} else {
			require.Empty(t, ie.Recent)
		}
	}
}

func panicInModel() { panic("a model bug") }
