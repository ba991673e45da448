package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeOutput marks a block of the README that is a command's output:
//
//	<!-- output of: sim run hybrid-naive -->
//	```text
//	...what sim run hybrid-naive prints on stdout...
//	```
var readmeOutput = regexp.MustCompile("(?s)<!-- output of: sim ([^>]*?) -->\n```text\n(.*?)```\n")

// The README's example output is what the commands print today (go test
// ./cmd/sim -run TestREADME -update rewrites it), and the figures its prose
// quotes for make run are the default scenario's.
func TestREADMEIsTrue(t *testing.T) {
	t.Setenv("COLUMNS", "") // the output as piped, never folded to a terminal
	const path = "../../README.md"
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	readme := string(data)
	blocks := readmeOutput.FindAllStringSubmatchIndex(readme, -1)
	require.NotEmpty(t, blocks, "the README shows example output")
	var b strings.Builder
	last := 0
	for _, m := range blocks {
		args := strings.Fields(readme[m[2]:m[3]])
		stdout, stderr, code := sim(t, args...)
		require.Equal(t, 0, code, "sim %s: %s", strings.Join(args, " "), stderr)
		b.WriteString(readme[last:m[4]])
		b.WriteString(stdout)
		last = m[5]
		if !*update {
			require.Equal(t, stdout, readme[m[4]:m[5]], "the README's output of sim %s is stale: go test ./cmd/sim -run TestREADME -update", strings.Join(args, " "))
		}
	}
	b.WriteString(readme[last:])
	if *update {
		require.NoError(t, writeFileAtomic(path, []byte(b.String())))
	}

	// The prose: "make run shows it (41 stranded pods, ...)".
	out, stderr, code := sim(t, "run", "hybrid-naive", "-o", "json")
	require.Equal(t, 0, code, stderr)
	var rep struct {
		Pods struct {
			Stranded int `json:"stranded"`
		} `json:"pods"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	m := regexp.MustCompile("`make run` shows it \\((\\d+) stranded pods").FindStringSubmatch(readme)
	require.NotNil(t, m, "the README says how many pods make run strands")
	n, _ := strconv.Atoi(m[1])
	require.Equal(t, rep.Pods.Stranded, n, "the README's stranded count for make run")
}

// writeFileAtomic replaces path with data through a temporary file.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// The scenario library's table quotes each scenario's seed-1 figures
// (stranded, p99 pending in minutes, cost, savings against on-demand):
// they are what sim run prints, to the digits quoted.
func TestREADMELibraryFigures(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	row := regexp.MustCompile("(?m)^\\| (`[^|]+`)(?: \\(default\\))? \\|.*\\| ([^|]+) \\|$")
	figures := regexp.MustCompile(`^(\d+), ([\d.]+)m, \$([\d.]+)(?:, (-?[\d.]+)%)?$`)
	names := regexp.MustCompile("`([^`]+)`")
	checked := 0
	for _, m := range row.FindAllStringSubmatch(string(data), -1) {
		var scen []string
		for _, n := range names.FindAllStringSubmatch(m[1], -1) {
			name := n[1]
			if strings.HasPrefix(name, "-") && len(scen) > 0 {
				name = scen[0] + name // `stateful-zone-ca` / `-per-az`
			}
			scen = append(scen, name)
		}
		quoted := strings.Split(m[2], " / ")
		if len(quoted) != len(scen) {
			if len(quoted) == 1 && figures.MatchString(quoted[0]) {
				scen = scen[:1] // one set of figures for the row's first scenario
			} else {
				continue
			}
		}
		for i, name := range scen {
			f := figures.FindStringSubmatch(strings.TrimSpace(quoted[i]))
			if f == nil {
				continue
			}
			out, stderr, code := sim(t, "run", name, "-o", "json", "--seed", "1")
			require.Equal(t, 0, code, "%s: %s", name, stderr)
			var rep struct {
				Pods struct {
					Stranded       int `json:"stranded"`
					PendingSeconds struct {
						P99 float64 `json:"p99"`
					} `json:"pendingSeconds"`
				} `json:"pods"`
				Cost struct {
					TotalUSD   float64 `json:"totalUSD"`
					SavingsPct float64 `json:"savingsPct"`
				} `json:"cost"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &rep))
			stranded, _ := strconv.Atoi(f[1])
			assert.Equal(t, rep.Pods.Stranded, stranded, "%s: stranded pods in the README's library table", name)
			near(t, name+": p99 pending (minutes)", f[2], rep.Pods.PendingSeconds.P99/60)
			near(t, name+": cost ($)", f[3], rep.Cost.TotalUSD)
			if f[4] != "" {
				near(t, name+": savings (%)", f[4], rep.Cost.SavingsPct)
			}
			checked++
		}
	}
	require.GreaterOrEqual(t, checked, 10, "the library table's figures were found")
}

// near checks that got rounds to the quoted figure: within half a unit of
// its last digit.
func near(t *testing.T, what, quoted string, got float64) {
	t.Helper()
	want, err := strconv.ParseFloat(quoted, 64)
	require.NoError(t, err, what)
	unit := 1.0
	if i := strings.IndexByte(quoted, '.'); i >= 0 {
		for range len(quoted) - i - 1 {
			unit /= 10
		}
	}
	assert.InDelta(t, want, got, unit/2+1e-9, "%s: the README says %s", what, quoted)
}
