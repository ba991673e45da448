package testscript

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// recorder keeps what the runner reports instead of failing the test.
type recorder struct {
	errors, fatals []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

const sample = `# A counter.
add n=2
----
2

add n=3 note="a b"
some input
----
5 (a b, 11 bytes of input)

# Output with a blank line is fenced.
lines
----
----
one

two
----
----
`

// counter is a handler whose output depends on earlier blocks.
func counter() Handler {
	total := 0
	return func(b *Block) (string, error) {
		switch b.Cmd {
		case "add":
			n, err := b.Int("n", 0)
			if err != nil {
				return "", err
			}
			total += n
			if note, ok := b.Lookup("note"); ok {
				return fmt.Sprintf("%d (%s, %d bytes of input)", total, note, len(b.Input)), nil
			}
			return fmt.Sprint(total), nil
		case "lines":
			return "one\n\ntwo\n", nil
		}
		return "", fmt.Errorf("unknown command")
	}
}

func writeScript(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.txt")
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

func TestParseFormatRoundTrip(t *testing.T) {
	s, err := parse("s.txt", sample)
	require.NoError(t, err)
	bs := s.blocks()
	require.Len(t, bs, 3)
	require.Equal(t, "add", bs[1].Cmd)
	require.Equal(t, 6, bs[1].Line)
	require.Equal(t, "some input\n", bs[1].Input)
	require.Equal(t, []Arg{{Key: "n", Value: "3", keyed: true}, {Key: "note", Value: "a b", keyed: true}}, bs[1].Args)
	require.Equal(t, "one\n\ntwo", bs[2].Expected)
	require.Equal(t, sample, s.format(nil), "formatting unchanged blocks gives the file back")
}

func TestMatchingScriptPasses(t *testing.T) {
	var r recorder
	runFile(&r, writeScript(t, sample), counter(), false)
	require.Empty(t, r.errors)
	require.Empty(t, r.fatals)
}

func TestMismatchNamesTheBlockAndShowsADiff(t *testing.T) {
	p := writeScript(t, strings.Replace(sample, "5 (a b", "6 (a b", 1))
	var r recorder
	runFile(&r, p, counter(), false)
	require.Len(t, r.errors, 1)
	require.Contains(t, r.errors[0], p+":6: add: output differs")
	require.Contains(t, r.errors[0], "- 6 (a b, 11 bytes of input)\n+ 5 (a b, 11 bytes of input)")
}

func TestUpdateRewritesOutputs(t *testing.T) {
	stale := strings.Replace(strings.Replace(sample, "5 (a b", "6 (a b", 1), "----\n----\none\n\ntwo\n----\n----\n", "----\n", 1)
	p := writeScript(t, stale)
	var r recorder
	runFile(&r, p, counter(), true)
	require.Empty(t, r.errors)
	require.Empty(t, r.fatals)
	got, err := os.ReadFile(p)
	require.NoError(t, err)
	require.Equal(t, sample, string(got))
	left, err := filepath.Glob(filepath.Join(filepath.Dir(p), ".*"))
	require.NoError(t, err)
	require.Empty(t, left, "no temporary file left behind")
}

func TestScriptMistakesFailAtTheirLine(t *testing.T) {
	for _, tc := range []struct{ script, want string }{
		{"add n=1 typo=2\n----\n1\n", ":1: add: add does not take typo=2"},
		{"\nadd n=x\n----\n", ":2: add: n=x: not an integer"},
		{"add n=1\n", ":1: add: no ---- line"},
		{"lines\n----\n----\none\n", ":1: lines: output opened with a doubled ---- is never closed"},
		{"add note=\"a b\n----\n", ":1: unclosed quote"},
	} {
		var r recorder
		runFile(&r, writeScript(t, tc.script), counter(), false)
		require.Len(t, r.fatals, 1, tc.script)
		require.Contains(t, r.fatals[0], tc.want)
	}
}

func TestLineDiff(t *testing.T) {
	require.Equal(t, "  a\n- b\n+ B\n  c\n+ d\n", lineDiff("a\nb\nc", "a\nB\nc\nd"))
}
