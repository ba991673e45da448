package manifest

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/clustersim/clustersim/sim/internal/clip"
)

// Limits that keep hostile or broken input from hanging the simulator or
// exhausting its memory. Real manifests are far below all of them.
const (
	// MaxFileSize is the largest file, in bytes, that is read.
	MaxFileSize = 64 << 20
	// MaxDepth is the deepest nesting of mappings and lists that is accepted.
	// A Deployment with affinity nests about 12 levels; CRD schemas a few
	// dozen.
	MaxDepth = 100
	// MaxErrors is how many errors are collected before the rest are only
	// counted: after that many, a user learns more from fixing the first ones.
	MaxErrors = 50
)

// Error is a user-facing input error. It carries the location as separate
// fields so that callers can add context (for example which scenario
// referenced the file) and tools can jump to the line.
type Error struct {
	File string // as given by the user (relative path is fine)
	Line int    // 1-based; 0 if unknown
	Path string // field path like "spec.template.spec.containers[0].resources.requests.cpu"; "" for document-level
	Msg  string // what is wrong
	Hint string // what to do ("" if none)
	// Code names the finding for programs (sim lint reads codes, never
	// the prose), e.g. "ca.removed-flag"; "" for most errors.
	Code string
	// Fix, for a warning, is the fix its Msg already words (in
	// parentheses), for programs that show it apart (sim lint); unlike
	// Hint it is not appended to the message.
	Fix string
}

// Error renders e as "FILE:LINE: PATH: MESSAGE; HINT", the values echoed in
// PATH and MESSAGE cut to a few hundred bytes (clip). ":LINE" is left out
// when Line is 0, "PATH: " when Path is empty, "; HINT" when Hint is empty;
// without a file the location is "line LINE".
func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		b.WriteString(e.File)
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteString(": ")
	case e.File != "":
		b.WriteString(e.File)
		b.WriteString(": ")
	case e.Line > 0:
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteString(": ")
	}
	if e.Path != "" {
		b.WriteString(clip.Value(e.Path))
		b.WriteString(": ")
	}
	b.WriteString(clip.Message(e.Msg))
	if e.Hint != "" {
		b.WriteString("; ")
		b.WriteString(e.Hint)
	}
	return b.String()
}

// Errors collects several errors: validation reports everything it finds (up
// to MaxErrors) so that users can fix a file in one pass instead of one
// error per run.
type Errors []*Error

// Error renders one error per line, in order.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Unwrap lets errors.As and errors.Is look at the individual errors.
func (es Errors) Unwrap() []error {
	out := make([]error, len(es))
	for i, e := range es {
		out[i] = e
	}
	return out
}

// AsErrors returns the input errors err carries: those of an Errors, or one
// *Error. ok is false for any other error (a missing file, say).
func AsErrors(err error) (es Errors, ok bool) {
	var many Errors
	var one *Error
	switch {
	case errors.As(err, &many):
		return many, true
	case errors.As(err, &one):
		return Errors{one}, true
	}
	return nil, false
}

// Add appends the input errors err carries (AsErrors), or else err's
// message as an error without a place.
func (es Errors) Add(err error) Errors {
	if more, ok := AsErrors(err); ok {
		return append(es, more...)
	}
	return append(es, &Error{Msg: err.Error()})
}

// Err returns nil when es is empty. Otherwise it sorts es by file, then line
// (stable, so errors on one line keep their order) and, if there are more
// than MaxErrors, keeps the first MaxErrors and appends one error saying how
// many more were found.
func (es Errors) Err() error {
	if len(es) == 0 {
		return nil
	}
	sortErrors(es)
	if len(es) > MaxErrors {
		more := len(es) - MaxErrors
		es = append(es[:MaxErrors:MaxErrors], moreError(more))
	}
	return es
}

func sortErrors(es Errors) {
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].File != es[j].File {
			return es[i].File < es[j].File
		}
		return es[i].Line < es[j].Line
	})
}

func moreError(n int) *Error {
	noun := "errors"
	if n == 1 {
		noun = "error"
	}
	return &Error{Msg: fmt.Sprintf("%d more %s not shown", n, noun), Hint: "fix the errors above and run again"}
}

// errList collects errors up to MaxErrors and only counts the rest, so that a
// huge broken file cannot make us hold millions of errors in memory.
type errList struct {
	list Errors
	more int
}

func (l *errList) add(e *Error) {
	if len(l.list) >= MaxErrors {
		l.more++
		return
	}
	l.list = append(l.list, e)
}

func (l *errList) addAll(es Errors) {
	for _, e := range es {
		l.add(e)
	}
}

func (l *errList) len() int { return len(l.list) + l.more }

// full reports whether further errors will only be counted. Callers check
// it before building expensive messages (hints search the Go types), so
// that a document with a million bad fields stays fast.
func (l *errList) full() bool { return len(l.list) >= MaxErrors }

// err returns the collected errors sorted, or nil.
func (l *errList) err() error {
	if l.len() == 0 {
		return nil
	}
	sortErrors(l.list)
	es := l.list
	if l.more > 0 {
		es = append(es, moreError(l.more))
	}
	return es
}
