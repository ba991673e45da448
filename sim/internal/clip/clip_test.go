package clip

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

func TestMessage(t *testing.T) {
	short := `unknown instance type "m5.larg"; did you mean m5.large?`
	require.Equal(t, short, Message(short))
	huge := strings.Repeat("x", 20<<20)
	got := Message(fmt.Sprintf("unknown instance type %q; did you mean m5.large?", huge))
	require.Equal(t, `unknown instance type "`+strings.Repeat("x", Max)+`..." (20971520 bytes, cut); did you mean m5.large?`, got)
	// Escapes are kept whole; a value without its closing quote too.
	got = Message(fmt.Sprintf("bad %q", strings.Repeat(`a\`, 300)))
	require.True(t, strings.HasPrefix(got, `bad "a\\a\\`), got)
	require.Less(t, len(got), 2*Max)
	got = Message(`open "` + strings.Repeat("é", 1000))
	require.True(t, utf8.ValidString(got))
	require.Contains(t, got, "...")
	require.LessOrEqual(t, len(Message(strings.Repeat("word ", 100000))), maxMessage+40)
	require.Equal(t, strings.Repeat("k", Max)+"... (1000 bytes, cut)", Value(strings.Repeat("k", 1000)))
}

func FuzzMessage(f *testing.F) {
	f.Add(`a "b\"c" d`)
	f.Add(`"` + strings.Repeat("é", 300) + `\`)
	f.Fuzz(func(t *testing.T, s string) {
		out := Message(s)
		if utf8.ValidString(s) {
			require.True(t, utf8.ValidString(out))
		}
		require.LessOrEqual(t, len(out), max(len(s), maxMessage+40))
	})
}
