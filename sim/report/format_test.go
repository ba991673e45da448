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

// A text cell a spreadsheet would run as a formula is quoted; numbers,
// negative ones too, are left as they are (OWASP, CSV injection).
func TestCSVFormulaSafe(t *testing.T) {
	got := string(CSV([][]string{
		{"point", "value"},
		{"=HYPERLINK(\"http://x\",\"y\")", "-1.5"},
		{"+cmd|' /C calc'!A0", "+3"},
		{"-2+3", "-Inf"},
		{"@SUM(A1:A2)", "1e-3"},
		{"\tx", "-0"},
		{"web+big.yaml", "ok"},
	}))
	require.Equal(t, "point,value\n"+
		"\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-1.5\n"+
		"'+cmd|' /C calc'!A0,+3\n"+
		"'-2+3,-Inf\n"+
		"'@SUM(A1:A2),1e-3\n"+
		"'\tx,-0\n"+
		"web+big.yaml,ok\n", got)
}
