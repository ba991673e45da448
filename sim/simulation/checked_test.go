package simulation

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/scenarios"
)

// TestCheckedRunReportsTheSame: --check verifies the models' incremental
// structures (CheckIndexes) without side effects, so a checked run's
// report is byte-identical to an unchecked one's, checking as often as
// by default and after every event.
func TestCheckedRunReportsTheSame(t *testing.T) {
	report := func(opts Options) []byte {
		sc, err := scenarios.Load("hybrid-naive")
		require.NoError(t, err)
		r, err := Run(sc, opts)
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, r.WriteJSON(&b))
		return b.Bytes()
	}
	plain := report(Options{})
	for _, every := range []uint64{0, 1} {
		require.Equal(t, string(plain), string(report(Options{Check: true, CheckEvery: every})), "checked every %d events", every)
	}
}
