package report

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

func standardJSON(t *testing.T, r *Report) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	require.NoError(t, enc.Encode(r))
	return buf.Bytes()
}

// Report.JSON writes what encoding/json writes, byte for byte, whatever
// the unschedulable pods hold: strings to escape (quotes, HTML, control
// characters, non-ASCII, invalid UTF-8), floats of every magnitude, nil,
// empty and many-keyed reason maps, absent workloads; and with the list
// nil, empty or long, next to workloads that count unschedulable pods.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	texts := []string{"", "plain", "ns/pod-1", `quote " and \ slash`, "<b>&amp;</b>", "tab\tnew\nline\r", "bell\x07",
		"é ü 日本", "\u2028\u2029", "bad \xff utf8", "0/3999 nodes are available: 3999 node(s) didn't match Pod's node affinity/selector."}
	floats := []float64{0, 1, -2.5, 36.009, 1e-7, 5e-324, 1e21, 1.5e22, 123456789.123, 1e-6, 0.1 + 0.2, math.MaxFloat64}
	pick := func() string { return texts[rng.IntN(len(texts))] }
	for round := range 40 {
		r := &Report{
			Summary: Summary{SchemaVersion: SchemaVersion, Scenario: pick()},
			Details: Details{Workloads: []Workload{{Ref: "w", UnschedulablePods: 3}}, Warnings: []string{pick()}},
		}
		if round%2 == 0 {
			r.Models = []ModelSection{{Key: "model", Figures: map[string]string{"note": pick()}}}
		}
		switch round {
		case 0:
			r.UnschedulablePods = nil
		case 1:
			r.UnschedulablePods = []UnschedulablePod{}
		default:
			for range rng.IntN(50) + 1 {
				u := UnschedulablePod{Pod: pick(), Workload: pick(), Attempts: int32(rng.IntN(9)), Bound: rng.IntN(2) == 0,
					PendingSeconds: floats[rng.IntN(len(floats))], Stranded: rng.IntN(2) == 0, Message: pick()}
				switch rng.IntN(3) {
				case 0:
				case 1:
					u.Reasons = map[string]int{}
				default:
					u.Reasons = map[string]int{}
					for range rng.IntN(5) + 1 {
						u.Reasons[pick()] = rng.IntN(5000)
					}
				}
				r.UnschedulablePods = append(r.UnschedulablePods, u)
			}
		}
		got, err := r.JSON()
		require.NoError(t, err)
		require.Equal(t, string(standardJSON(t, r)), string(got), "round %d", round)
	}
}
