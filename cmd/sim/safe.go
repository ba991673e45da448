package main

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// safeWriter escapes, in what sim prints, the characters a terminal acts
// on rather than shows: C0 controls but newline and tab (ESC starts the
// sequences that set a window's title, clear the screen or move the
// cursor; CR rewrites the line), DEL, C1 controls (U+0080 to U+009F: CSI,
// OSC), bytes that are not UTF-8 (a lone 0x9b is CSI to an 8-bit
// terminal) and the bidirectional overrides and isolates that reorder
// what a line shows. A C0 control or a stray byte shows as \x1b, the
// others as \u009b: both stay valid inside a JSON string, which
// encoding/json leaves them raw in but for C0. It is the last guard:
// names with such characters are refused when read
// (sim/scenario/names.go), but a file name, a description or a sweep
// point's name is free text. Our own progress lines write to the
// underlying writer (raw).
type safeWriter struct {
	w io.Writer
	// pending is the start of a UTF-8 sequence that the last Write cut.
	pending []byte
}

func newSafeWriter(w io.Writer) *safeWriter { return &safeWriter{w: w} }

// raw is the writer under a safeWriter: for our own control sequences
// (the progress line's carriage return and erase).
func raw(w io.Writer) io.Writer {
	if s, ok := w.(*safeWriter); ok {
		return s.w
	}
	return w
}

// Write escapes p as it writes it; it reports len(p) written on success.
func (s *safeWriter) Write(p []byte) (int, error) {
	n := len(p)
	if len(s.pending) > 0 {
		p = append(s.pending, p...)
		s.pending = nil
	}
	out := escapeTerminal(p, func(tail []byte) { s.pending = append([]byte(nil), tail...) })
	if _, err := s.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush writes a cut UTF-8 sequence left at the end (escaped: it is not
// UTF-8).
func (s *safeWriter) Flush() error {
	if len(s.pending) == 0 {
		return nil
	}
	out := escapeTerminal(s.pending, nil)
	s.pending = nil
	_, err := s.w.Write(out)
	return err
}

// escapeTerminal returns p with what a terminal acts on escaped (see
// safeWriter). cut, if not nil, receives a UTF-8 sequence cut at the end
// of p, which is then not written (the next Write completes it).
func escapeTerminal(p []byte, cut func(tail []byte)) []byte {
	i := 0
	for i < len(p) && safeByte(p[i]) {
		i++
	}
	if i == len(p) {
		return p // the common case: printable ASCII, newlines and tabs
	}
	out := append(make([]byte, 0, len(p)+16), p[:i]...)
	for i < len(p) {
		c := p[i]
		if safeByte(c) {
			out = append(out, c)
			i++
			continue
		}
		if c < utf8.RuneSelf {
			if c == 0x7f {
				out = append(out, `\u007f`...) // valid in a JSON string, as \x7f is not
			} else {
				out = fmt.Appendf(out, `\x%02x`, c)
			}
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) && cut != nil {
			cut(p[i:])
			return out
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			out = fmt.Appendf(out, `\x%02x`, c)
			size = 1
		case r <= 0x9f, isBidiControl(r):
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, p[i:i+size]...)
		}
		i += size
	}
	return out
}

// safeByte: an ASCII byte a terminal shows as it is.
func safeByte(c byte) bool { return c >= 0x20 && c < 0x7f || c == '\n' || c == '\t' }

// isBidiControl: the embeddings, overrides and isolates of Unicode's
// bidirectional algorithm (U+202A..U+202E, U+2066..U+2069).
func isBidiControl(r rune) bool { return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 }
