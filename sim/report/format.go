package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
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

// CSV is the rows as encoding/csv writes them, every text cell that a
// spreadsheet would take for a formula neutralised (FormulaSafe).
func CSV(rows [][]string) []byte {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	for _, row := range rows {
		safe := make([]string, len(row))
		for i, c := range row {
			safe[i] = FormulaSafe(c)
		}
		_ = w.Write(safe) // a bytes.Buffer does not fail
	}
	w.Flush()
	return buf.Bytes()
}

// FormulaSafe is a CSV cell that a spreadsheet shows as text: a cell of
// text that starts with =, +, -, @, a tab or a carriage return (which
// Excel, LibreOffice and Google Sheets read as a formula, such as
// =HYPERLINK(...) or =cmd|...) gets a leading single quote, as OWASP's
// CSV injection guidance advises. A number is left as it is, a negative
// one too: only text that is not a number can be a formula.
func FormulaSafe(cell string) string {
	if cell == "" || !strings.ContainsRune("=+-@\t\r", rune(cell[0])) {
		return cell
	}
	if _, err := strconv.ParseFloat(cell, 64); err == nil {
		return cell
	}
	return "'" + cell
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
