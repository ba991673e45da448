package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
)

// The formats of the commands that write many runs (sim run --runs, sim
// compare, sim sweep): one place, so that their outputs agree.

// TableNumber is x as those tables show a figure: a whole number as an
// integer, from 100 up (or down from -100) with one decimal, else to three
// significant digits.
func TableNumber(x float64) string {
	switch {
	case x == float64(int64(x)) && x < 1e15 && x > -1e15:
		return strconv.FormatInt(int64(x), 10)
	case x >= 100 || x <= -100:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// CSVNumber is x as a CSV cell: the fewest digits that read back as x.
func CSVNumber(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// CSV is the rows as encoding/csv writes them.
func CSV(rows [][]string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	_ = w.WriteAll(rows) // a bytes.Buffer does not fail
	return buf.Bytes()
}

// IndentedJSON is v as encoding/json's Encoder writes it with two-space
// indents (a newline at the end).
func IndentedJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	err := enc.Encode(v)
	return buf.Bytes(), err
}
