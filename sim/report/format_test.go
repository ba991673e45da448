package report

import (
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// The tables' figures: whole numbers as integers, one decimal from 100,
// else three significant digits; CSV cells in full.
func TestNumbers(t *testing.T) {
	for x, want := range map[float64]string{0: "0", -3: "-3", 1e14: "100000000000000", 1e15: "1000000000000000.0", 123.456: "123.5",
		-100.04: "-100.0", 99.95: "100", 0.012345: "0.0123", math.Inf(1): "+Inf"} {
		require.Equal(t, want, TableNumber(x), "%v", x)
	}
	require.Equal(t, "0.012345", CSVNumber(0.012345))
	require.Equal(t, "1e+15", CSVNumber(1e15))
	require.Equal(t, "a,\"b,c\"\n", string(CSV([][]string{{"a", "b,c"}})))
	out, err := IndentedJSON(map[string]any{"a": []int{1}})
	require.NoError(t, err)
	require.Equal(t, "{\n  \"a\": [\n    1\n  ]\n}\n", string(out))
}
