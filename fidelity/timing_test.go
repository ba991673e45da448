package fidelity

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// FitSolve recovers the coefficients of timings made by the model
// itself, with no error; and a timing table survives printing and
// parsing.
func TestFitSolveRecoversTheModel(t *testing.T) {
	want := SolveFit{
		Plain:      SolveClass{20 * time.Microsecond, 300 * time.Nanosecond, 40 * time.Nanosecond},
		Spread:     SolveClass{60 * time.Microsecond, time.Microsecond, 100 * time.Nanosecond},
		Affinity:   SolveClass{5 * time.Microsecond, 7 * time.Microsecond, 400 * time.Nanosecond},
		PerPodNode: 800 * time.Nanosecond, ConstrainedPerPodNode: 2 * time.Microsecond,
	}
	var ts []Timing
	for _, tc := range TimingGrid() {
		ts = append(ts, Timing{TimingCase: tc, Up: want.Predict(tc)})
	}
	got, err := FitSolve(ts)
	require.NoError(t, err)
	for _, c := range [][2]time.Duration{
		{want.Plain.PerPod, got.Plain.PerPod}, {want.Plain.PerPodType, got.Plain.PerPodType}, {want.Plain.PerPodPair, got.Plain.PerPodPair},
		{want.Spread.PerPod, got.Spread.PerPod}, {want.Spread.PerPodType, got.Spread.PerPodType}, {want.Spread.PerPodPair, got.Spread.PerPodPair},
		{want.Affinity.PerPod, got.Affinity.PerPod}, {want.Affinity.PerPodType, got.Affinity.PerPodType}, {want.Affinity.PerPodPair, got.Affinity.PerPodPair},
		{want.PerPodNode, got.PerPodNode}, {want.ConstrainedPerPodNode, got.ConstrainedPerPodNode},
	} {
		require.InDelta(t, float64(c[0]), float64(c[1]), 2, "ns")
	}
	require.Less(t, got.RMSLog["all"], 1e-3)
	require.Less(t, math.Abs(got.MaxFactor-1), 1e-3)

	buf := new(bytes.Buffer)
	PrintTimings(buf, ts[:3])
	back, err := ParseTimings(buf)
	require.NoError(t, err)
	require.Len(t, back, 3)
	for i := range back {
		require.Equal(t, ts[i].TimingCase, back[i].TimingCase)
		require.InDelta(t, float64(ts[i].Up), float64(back[i].Up), 1e5, "printed to 0.1 ms")
	}
}
