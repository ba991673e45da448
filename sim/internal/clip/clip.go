// Package clip shortens the user values that error messages echo: a 20 MB
// field quoted whole in an error buries the message (and the terminal).
package clip

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Max is how many bytes of a quoted value a message keeps.
const Max = 256

// maxMessage bounds a whole message (after its quoted values are cut).
const maxMessage = 16 * Max

// Message shortens every double-quoted value in msg (as %q writes one,
// backslash escapes included) that is longer than Max bytes to its first
// Max bytes, followed by `..."` and a note of its length (a value only a
// little longer is left whole: the note would not be shorter); then a message
// still longer than a few KiB is cut with a note. A short message is
// returned as it is.
func Message(msg string) string {
	if len(msg) <= Max {
		return msg
	}
	var b strings.Builder
	for i := 0; i < len(msg); {
		q := strings.IndexByte(msg[i:], '"')
		if q < 0 {
			b.WriteString(msg[i:])
			break
		}
		start := i + q
		b.WriteString(msg[i : start+1])
		end := closing(msg, start+1)                          // index of the closing quote, or len(msg)
		if inner := msg[start+1 : end]; len(inner) > Max+32 { // the note never makes it longer
			b.WriteString(cut(inner, Max))
			b.WriteString("...")
			if end < len(msg) {
				b.WriteByte('"')
			}
			fmt.Fprintf(&b, " (%d bytes, cut)", len(inner))
		} else {
			b.WriteString(msg[start+1 : min(end+1, len(msg))])
		}
		i = end + 1
	}
	out := b.String()
	if len(out) > maxMessage {
		out = cut(out, maxMessage) + fmt.Sprintf("... (%d bytes, cut)", len(out))
	}
	return out
}

// Value shortens one value (a field path, a name) to Max bytes, with a
// note of its length.
func Value(s string) string {
	if len(s) <= Max+32 {
		return s
	}
	return cut(s, Max) + fmt.Sprintf("... (%d bytes, cut)", len(s))
}

// closing finds the quote that closes a quoted value starting at i.
func closing(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(s)
}

// cut keeps at most n bytes of s, never half a rune nor a dangling
// backslash.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	s = s[:n]
	if trailing := len(s) - len(strings.TrimRight(s, `\`)); trailing%2 == 1 {
		s = s[:len(s)-1]
	}
	return s
}
