package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"sigs.k8s.io/yaml"
)

// item is one object of an export, cut out of its List: its first line
// and its JSON (a YAML item is converted when it is decoded, so kinds
// that are skipped are never parsed).
type item struct {
	line       int // YAML: the item's first line; JSON: 0
	index      int // JSON: the index in items (-1: not in a List)
	apiVersion string
	kind       string
	yamlText   []byte // set for a YAML item
	json       []byte // set for a JSON item
	lite       *itemLite
}

// decode decodes the item into v.
func (it *item) decode(v any) error {
	data := it.json
	if data == nil {
		j, err := yaml.YAMLToJSON(it.yamlText)
		if err != nil {
			return err
		}
		data = j
	}
	return json.Unmarshal(data, v)
}

// maxLine bounds one line of a YAML export (a long annotation such as
// kubectl.kubernetes.io/last-applied-configuration fits easily).
const maxLine = 16 << 20

// scan reads an export (kubectl get -o yaml or -o json: a List, a single
// object, or several YAML documents) and calls fn for each object, one at
// a time: the List's items are cut out of the stream, never the whole
// tree. A truncated file or items in something that is not a List are
// errors.
func scan(r io.Reader, fn func(*item) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		b, err := br.Peek(1)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch b[0] {
		case ' ', '\t', '\r', '\n':
			br.ReadByte() //nolint:errcheck // peeked
			continue
		case '{', '[':
			return scanJSON(br, fn)
		}
		return scanYAML(br, fn)
	}
}

// scanJSON reads JSON values one after another; an object with "items" is
// a List whose items are decoded one by one.
func scanJSON(r io.Reader, fn func(*item) error) error {
	rec := &recorder{r: r}
	dec := json.NewDecoder(rec)
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return jsonErr(err)
		}
		if tok != json.Delim('{') {
			return fmt.Errorf("expected a JSON object (a List or one Kubernetes object), found %v", tok)
		}
		if err := scanJSONObject(dec, rec, fn); err != nil {
			return err
		}
		rec.drop(dec.InputOffset())
	}
}

// recorder keeps what the decoder has read, so that an item's bytes are
// at hand after decoding its kind and pod fields in one pass (a second
// decode, of the kinds kept, reads them again).
type recorder struct {
	r    io.Reader
	buf  []byte
	base int64 // stream offset of buf[0]
}

func (rc *recorder) Read(p []byte) (int, error) {
	n, err := rc.r.Read(p)
	rc.buf = append(rc.buf, p[:n]...)
	return n, err
}

// bytes returns the stream's bytes [from, to).
func (rc *recorder) bytes(from, to int64) []byte { return rc.buf[from-rc.base : to-rc.base] }

// drop forgets the bytes before off.
func (rc *recorder) drop(off int64) {
	n := copy(rc.buf, rc.buf[off-rc.base:])
	rc.buf = rc.buf[:n]
	rc.base = off
}

func jsonErr(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errors.New("the file ends in the middle of an object: it was cut short (export it again)")
	}
	return err
}

func scanJSONObject(dec *json.Decoder, rec *recorder, fn func(*item) error) error {
	header := map[string]json.RawMessage{}
	sawItems := false
	index := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return jsonErr(err)
		}
		key, _ := tok.(string)
		if key != "items" {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return jsonErr(err)
			}
			header[key] = raw
			continue
		}
		sawItems = true
		tok, err = dec.Token()
		if err != nil {
			return jsonErr(err)
		}
		if tok == nil {
			continue // "items": null
		}
		if tok != json.Delim('[') {
			return fmt.Errorf("items is not a list")
		}
		for dec.More() {
			// One pass reads the kind and, for a pod, what a pod
			// owned by a controller contributes; the item's bytes
			// come from the recorder.
			start := dec.InputOffset()
			lite := &itemLite{}
			if err := dec.Decode(lite); err != nil {
				var te *json.UnmarshalTypeError
				if errors.As(err, &te) {
					return &posError{pos: fmt.Sprintf("items[%d]", index), err: fmt.Errorf("not a Kubernetes object: %w", err)}
				}
				return &posError{pos: fmt.Sprintf("items[%d]", index), err: jsonErr(err)}
			}
			end := dec.InputOffset()
			raw := bytes.TrimLeft(rec.bytes(start, end), ", \t\r\n")
			if err := fn(&item{index: index, apiVersion: lite.APIVersion, kind: lite.Kind, json: raw, lite: lite}); err != nil {
				return err
			}
			rec.drop(end)
			index++
		}
		if _, err := dec.Token(); err != nil { // ]
			return jsonErr(err)
		}
	}
	if _, err := dec.Token(); err != nil { // }
		return jsonErr(err)
	}
	var kind, apiVersion string
	json.Unmarshal(header["kind"], &kind)             //nolint:errcheck // absent or not a string: ""
	json.Unmarshal(header["apiVersion"], &apiVersion) //nolint:errcheck
	if sawItems {
		if !isList(kind) {
			if kind == "" {
				return errors.New(`the List has no "kind": the file was cut short, or it is not a kubectl export`)
			}
			return fmt.Errorf("a %s with items: only a List holds items (export it again with kubectl get -o yaml, unedited)", kind)
		}
		return nil
	}
	// One object: put it back together (it is small).
	data, err := json.Marshal(header)
	if err != nil {
		return err
	}
	return fn(&item{index: -1, apiVersion: apiVersion, kind: kind, json: data})
}

// itemLite is a JSON item's kind and, were it a pod, its podLite.
type itemLite struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	podLite
}

// isList reports whether kind is a List: kubectl writes "List"; typed lists
// (NodeList, PodList) come from the API directly.
func isList(kind string) bool { return kind == "List" || strings.HasSuffix(kind, "List") }

// yamlDoc collects one YAML document: its top-level lines other than the
// items, and the items as they are cut out.
type yamlDoc struct {
	header    []byte
	headLine  int
	sawItems  bool
	inItems   bool
	dash      int // indentation of the items' "- " (-1: not seen yet)
	cur       []byte
	curLine   int
	itemCount int
}

// scanYAML cuts kubectl's YAML into documents and a List's items into
// objects, by lines: an item starts with "- " at the items' indentation
// and holds every line indented deeper. Only one item is held at a time.
func scanYAML(br *bufio.Reader, fn func(*item) error) error {
	d := &yamlDoc{dash: -1}
	lineNo := 0
	for {
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			// A long line: collect it whole (up to maxLine).
			long := append([]byte(nil), raw...)
			for err == bufio.ErrBufferFull {
				raw, err = br.ReadSlice('\n')
				long = append(long, raw...)
				if len(long) > maxLine {
					return atLine(lineNo+1, "longer than %d MiB", maxLine>>20)
				}
			}
			raw = long
		}
		if err != nil && err != io.EOF {
			return err
		}
		if len(raw) > 0 {
			lineNo++
			line := bytes.TrimRight(raw, "\r\n")
			if e := d.line(line, lineNo, fn); e != nil {
				return e
			}
		}
		if err == io.EOF {
			return d.end(fn, true)
		}
	}
}

func (d *yamlDoc) line(line []byte, n int, fn func(*item) error) error {
	if bytes.Equal(line, []byte("---")) || bytes.HasPrefix(line, []byte("--- ")) || bytes.Equal(line, []byte("...")) {
		if err := d.end(fn, false); err != nil {
			return err
		}
		*d = yamlDoc{dash: -1}
		return nil
	}
	if d.inItems {
		trimmed := bytes.TrimLeft(line, " ")
		indent := len(line) - len(trimmed)
		if len(trimmed) == 0 || trimmed[0] == '#' {
			if d.cur != nil {
				d.cur = append(d.cur, '\n')
			}
			return nil
		}
		isDash := trimmed[0] == '-' && (len(trimmed) == 1 || trimmed[1] == ' ')
		if d.dash < 0 && isDash {
			d.dash = indent
		}
		switch {
		case d.dash >= 0 && indent == d.dash && isDash:
			if err := d.flush(fn); err != nil {
				return err
			}
			d.curLine = n
			d.cur = make([]byte, 0, 4096)
			if len(trimmed) > 1 {
				d.cur = append(d.cur, line[indent+2:]...)
			}
			d.cur = append(d.cur, '\n')
			return nil
		case d.dash >= 0 && indent >= d.dash+2 && d.cur != nil:
			d.cur = append(d.cur, line[d.dash+2:]...)
			d.cur = append(d.cur, '\n')
			return nil
		case d.dash >= 0 && indent > d.dash:
			return atLine(n, "indentation %d inside the List's items, expected %d or more", indent, d.dash+2)
		}
		// The items ended.
		if err := d.flush(fn); err != nil {
			return err
		}
		d.inItems = false
	}
	if d.headLine == 0 && len(bytes.TrimSpace(line)) > 0 && line[0] != '#' {
		d.headLine = n
	}
	if bytes.HasPrefix(line, []byte("items:")) && (len(line) == 6 || line[6] == ' ' || line[6] == '\t') {
		rest := bytes.TrimSpace(line[len("items:"):])
		d.sawItems = true
		switch {
		case len(rest) == 0:
			d.inItems = true
			return nil
		case bytes.Equal(rest, []byte("[]")) || bytes.Equal(rest, []byte("null")):
			return nil
		}
		return atLine(n, "items must be a block list (as kubectl writes it), not %q", rest)
	}
	d.header = append(d.header, line...)
	d.header = append(d.header, '\n')
	return nil
}

// flush hands the item being collected to fn.
func (d *yamlDoc) flush(fn func(*item) error) error {
	if d.cur == nil {
		return nil
	}
	text := d.cur
	d.cur = nil
	d.itemCount++
	apiVersion, kind := kindOf(text)
	// The callback may keep text: it is not reused.
	return fn(&item{line: d.curLine, index: -1, apiVersion: apiVersion, kind: kind, yamlText: text})
}

// end finishes a document: a List must have its kind (kubectl writes
// "kind: List" after the items, so a file cut short lacks it); a document
// without items is one object.
func (d *yamlDoc) end(fn func(*item) error, eof bool) error {
	if err := d.flush(fn); err != nil {
		return err
	}
	kind := topLevel(d.header, "kind")
	if d.sawItems {
		switch {
		case kind == "":
			return errors.New(`the List has no "kind: List" after its items: the file was cut short (export it again)`)
		case !isList(kind):
			return atLine(d.headLine, "a %s with items: only a List holds items (export it again with kubectl get -o yaml, unedited)", kind)
		}
		return nil
	}
	if len(bytes.TrimSpace(stripComments(d.header))) == 0 {
		return nil
	}
	apiVersion, kind := kindOf(d.header)
	return fn(&item{line: d.headLine, index: -1, apiVersion: apiVersion, kind: kind, yamlText: d.header})
}

func stripComments(b []byte) []byte {
	var out []byte
	for _, l := range bytes.Split(b, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] != '#' {
			out = append(out, l...)
			out = append(out, '\n')
		}
	}
	return out
}

// kindOf reads an item's apiVersion and kind from its top-level lines
// (block style, as kubectl writes it), else by parsing it (flow style).
func kindOf(text []byte) (apiVersion, kind string) {
	apiVersion, kind = topLevel(text, "apiVersion"), topLevel(text, "kind")
	if kind != "" {
		return apiVersion, kind
	}
	var tm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if j, err := yaml.YAMLToJSON(text); err == nil && json.Unmarshal(j, &tm) == nil {
		return tm.APIVersion, tm.Kind
	}
	return apiVersion, kind
}

// topLevel finds "key: value" at column 0 of a YAML mapping and returns
// the value, unquoted ("" when absent).
func topLevel(text []byte, key string) string {
	prefix := []byte(key + ":")
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if bytes.HasPrefix(line, prefix) {
			v := strings.TrimSpace(string(line[len(prefix):]))
			if i := strings.Index(v, " #"); i >= 0 {
				v = strings.TrimSpace(v[:i])
			}
			return strings.Trim(v, `"'`)
		}
	}
	return ""
}

// pos says where the item is: its line (YAML) or its index in the List
// (JSON, whose decoder does not count lines).
func (it *item) pos() string {
	switch {
	case it.line > 0:
		return fmt.Sprint(it.line)
	case it.index >= 0:
		return fmt.Sprintf("items[%d]", it.index)
	}
	return "1"
}

// posError is an error at a line (YAML) or item (JSON) of a file.
type posError struct {
	pos string
	err error
}

func (e *posError) Error() string { return e.pos + ": " + e.err.Error() }
func (e *posError) Unwrap() error { return e.err }

func atLine(n int, format string, args ...any) error {
	return &posError{pos: fmt.Sprint(n), err: fmt.Errorf(format, args...)}
}
