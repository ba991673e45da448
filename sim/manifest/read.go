package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	yaml "go.yaml.in/yaml/v3"
)

// ReadFile reads one file. YAML or JSON is told by content, not by the
// extension, so any name works (.yaml, .yml, .json are the usual ones).
//
// Like all readers here it returns the documents it could read together with
// the errors for the rest; callers should normally stop on any error. Empty
// documents (nothing but comments, or a bare ---) are skipped, as kubectl
// does; every other document must be a mapping with apiVersion and kind.
// Documents of kind List are replaced by their items.
func ReadFile(path string) (docs []*Document, err error) {
	defer guard(&err, path)
	var el errList
	docs = readFile(osSource{}, path, &el)
	return docs, el.err()
}

// ReadBytes parses in-memory content named file (for embedded scenarios and
// tests). file is used in errors and in Document.File, and decides one
// thing: content that starts with { or [ is parsed as JSON, and if that
// fails, as YAML (whose flow style looks alike) unless file ends in .json.
func ReadBytes(file string, data []byte) (docs []*Document, err error) {
	defer guard(&err, file)
	var el errList
	docs = parseBytes(file, data, &el)
	return docs, el.err()
}

// ReadPath reads a file, or every .yaml, .yml and .json file under a folder
// (recursively, skipping hidden files and folders whose names start with a
// dot, such as .git). Files are read in lexical order of their
// slash-separated paths so that runs are deterministic. A folder without any
// such file is an error: it is almost always a wrong path.
func ReadPath(path string) (docs []*Document, err error) {
	defer guard(&err, path)
	var el errList
	docs = readPath(osSource{}, path, &el)
	return docs, el.err()
}

// ReadFS is ReadPath for an fs.FS (such as an embed.FS), so that embedded
// scenarios go through exactly the same code. name is a slash-separated path
// in fsys; "." is the root.
func ReadFS(fsys fs.FS, name string) (docs []*Document, err error) {
	defer guard(&err, name)
	var el errList
	docs = readPath(fsSource{fsys}, name, &el)
	return docs, el.err()
}

// source abstracts the OS file system and fs.FS.
type source interface {
	stat(name string) (fs.FileInfo, error)
	open(name string) (io.ReadCloser, error)
	walk(root string, fn fs.WalkDirFunc) error
	slash(name string) string // the path with / separators, for sorting
}

type osSource struct{}

func (osSource) stat(name string) (fs.FileInfo, error)     { return os.Stat(name) }
func (osSource) open(name string) (io.ReadCloser, error)   { return os.Open(name) }
func (osSource) walk(root string, fn fs.WalkDirFunc) error { return filepath.WalkDir(root, fn) }
func (osSource) slash(name string) string                  { return filepath.ToSlash(name) }

type fsSource struct{ fsys fs.FS }

func (s fsSource) stat(name string) (fs.FileInfo, error)     { return fs.Stat(s.fsys, name) }
func (s fsSource) open(name string) (io.ReadCloser, error)   { return s.fsys.Open(name) }
func (s fsSource) walk(root string, fn fs.WalkDirFunc) error { return fs.WalkDir(s.fsys, root, fn) }
func (fsSource) slash(name string) string                    { return path.Clean(name) }

// fileError turns an I/O error into a user-facing one.
func fileError(name string, err error) *Error {
	if errors.Is(err, fs.ErrNotExist) {
		return &Error{File: name, Msg: "no such file or folder",
			Hint: "check the path; a relative path is relative to the file that references it (or to the current folder on the command line)"}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &Error{File: name, Msg: "cannot read: " + err.Error()}
}

// ReadLimited reads all of r, named name in errors, up to MaxFileSize
// bytes: anything longer (/dev/zero, a runaway pipe) is an error, never an
// exhausted memory.
func ReadLimited(name string, r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxFileSize+1))
	if err != nil {
		return nil, fileError(name, err)
	}
	if len(data) > MaxFileSize {
		return nil, &Error{File: name, Msg: fmt.Sprintf("too large (more than the %d MiB a file may hold)", MaxFileSize>>20),
			Hint: "give the right file; split a large one into several"}
	}
	return data, nil
}

// ReadFileLimited reads the file at path with ReadLimited's bound; a
// folder is an error.
func ReadFileLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fileError(path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		return nil, &Error{File: path, Msg: "is a folder, not a file", Hint: "give a file"}
	}
	return ReadLimited(path, f)
}

func tooLarge(name string, size int64) *Error {
	return &Error{File: name,
		Msg:  fmt.Sprintf("file is too large (%d bytes; the limit is %d MiB)", size, MaxFileSize>>20),
		Hint: "split it into several files"}
}

func readFile(src source, name string, el *errList) []*Document {
	fi, err := src.stat(name)
	if err != nil {
		el.add(fileError(name, err))
		return nil
	}
	if fi.IsDir() {
		el.add(&Error{File: name, Msg: "is a folder, not a file", Hint: "give a file, or read the whole folder"})
		return nil
	}
	if fi.Size() > MaxFileSize {
		el.add(tooLarge(name, fi.Size()))
		return nil
	}
	f, err := src.open(name)
	if err != nil {
		el.add(fileError(name, err))
		return nil
	}
	defer f.Close()
	// Read at most one byte more than allowed: the size from Stat can be
	// wrong (pipes, files being written).
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		el.add(fileError(name, err))
		return nil
	}
	return parseBytes(name, data, el)
}

// Irregular describes what p is when it is neither a regular file nor a
// folder ("a FIFO", "a device", "a socket"); "" otherwise, and when p
// cannot be read (the read says why). stat follows symbolic links (os.Stat
// does). An included file is read whole before the load goes on, so a
// FIFO would hang it and a device such as /dev/zero fill the limit: only
// the command line may name those.
func Irregular(stat func(string) (fs.FileInfo, error), p string) string {
	fi, err := stat(p)
	if err != nil {
		return ""
	}
	m := fi.Mode()
	switch {
	case m.IsRegular(), m.IsDir():
		return ""
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file (" + m.Type().String() + ")"
}

// manifestExt reports whether a file in a folder is read by ReadPath.
func manifestExt(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

func readPath(src source, root string, el *errList) []*Document {
	files, ok := listPath(src, root, el)
	if !ok {
		return readFile(src, root, el)
	}
	var docs []*Document
	for _, f := range files {
		docs = append(docs, readFile(src, f, el)...)
	}
	return docs
}

// Files lists the files ReadPath reads for path, in the order it reads
// them: path itself when it is not a folder, else the folder's .yaml, .yml
// and .json files (hidden ones skipped), so that a command reading files
// its own way (sim import streams each one) takes a folder as sim lint -f
// and a scenario's include do. The errors are ReadPath's for the listing
// (a folder without such files, a FIFO among them), with the files that
// could be listed.
func Files(path string) (files []string, err error) {
	defer guard(&err, path)
	var el errList
	files, ok := listPath(osSource{}, path, &el)
	if !ok {
		return []string{path}, nil
	}
	return files, el.err()
}

// listPath lists the manifest files under the folder root, sorted by
// their slash-separated paths, adding listing errors to el. ok is false
// when root is not a folder (or cannot be read: el says why); then
// nothing is listed.
func listPath(src source, root string, el *errList) (files []string, ok bool) {
	fi, err := src.stat(root)
	if err != nil {
		el.add(fileError(root, err))
		return nil, true
	}
	if !fi.IsDir() {
		return nil, false
	}
	err = src.walk(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			el.add(fileError(p, err))
			if d != nil && d.IsDir() && p != root {
				return fs.SkipDir
			}
			return nil
		}
		if p != root && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && manifestExt(d.Name()) {
			if what := Irregular(src.stat, p); what != "" {
				// A FIFO would hang the load; a device could be /dev/zero.
				el.add(&Error{File: p, Msg: "is " + what + ", not a regular file", Hint: "a folder's manifests must be regular files; remove it from the folder"})
				return nil
			}
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		el.add(fileError(root, err))
	}
	sort.SliceStable(files, func(i, j int) bool { return src.slash(files[i]) < src.slash(files[j]) })
	if len(files) == 0 && el.len() == 0 {
		el.add(&Error{File: root, Msg: "no .yaml, .yml or .json files in this folder",
			Hint: "check the path; hidden files and folders (names starting with a dot) are skipped"})
	}
	return files, true
}

// parseBytes parses a file's content into documents, adding errors to el.
func parseBytes(file string, data []byte, el *errList) []*Document {
	if len(data) > MaxFileSize {
		el.add(tooLarge(file, int64(len(data))))
		return nil
	}
	var tops []*yaml.Node
	if looksLikeJSON(data) {
		nodes, jerr := parseJSON(data)
		switch {
		case jerr == nil:
			tops = nodes
		case jerr.fatal:
			el.add(jsonSyntaxError(file, data, jerr))
			return nil
		case strings.EqualFold(path.Ext(file), ".json"):
			// No YAML fallback for .json files: YAML would read a typo such
			// as tru as the text "tru".
			el.add(jsonSyntaxError(file, data, jerr))
			return nil
		default:
			// Not JSON; YAML flow style ({a: 1}) looks alike, so try YAML.
			nodes, yerr := parseYAML(file, data)
			if yerr != nil {
				el.add(yerr)
				return nil
			}
			tops = nodes
		}
	} else {
		nodes, yerr := parseYAML(file, data)
		if yerr != nil {
			el.add(yerr)
		}
		tops = nodes
	}
	var docs []*Document
	for _, n := range tops {
		docs = append(docs, toDocuments(file, n, el, structureUnchecked)...)
	}
	return docs
}

// looksLikeJSON reports whether the content starts with { or [.
func looksLikeJSON(data []byte) bool {
	data = bytes.TrimPrefix(data, []byte{0xEF, 0xBB, 0xBF})
	data = bytes.TrimLeft(data, " \t\r\n")
	return len(data) > 0 && (data[0] == '{' || data[0] == '[')
}

func jsonSyntaxError(file string, data []byte, jerr *jsonError) *Error {
	if jerr.msg == depthMsg {
		return &Error{File: file, Line: lineAt(data, jerr.off), Msg: depthMsg, Hint: depthHint}
	}
	return &Error{File: file, Line: lineAt(data, jerr.off), Msg: "invalid JSON: " + jerr.msg}
}

// lineAt returns the 1-based line of a byte offset.
func lineAt(data []byte, off int) int {
	off = min(off, len(data))
	return bytes.Count(data[:off], []byte{'\n'}) + 1
}

// parseYAML parses all documents. On a syntax error it returns the documents
// before it and the error (yaml.v3 cannot resume after one).
func parseYAML(file string, data []byte) ([]*yaml.Node, *Error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []*yaml.Node
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, yamlSyntaxError(file, data, err)
		}
		if len(doc.Content) > 0 {
			out = append(out, doc.Content[0])
		}
	}
}

var yamlLineRE = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// parserProblems are the messages of yaml.v3's parser (as opposed to its
// scanner). For those, yaml.v3 reports a 0-based line; we add 1.
var parserProblems = []string{
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"did not find expected '-' indicator",
	"did not find expected <document start>",
	"did not find expected <stream-start>",
	"did not find expected key",
	"did not find expected node content",
	"found duplicate %TAG directive",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found undefined tag handle",
}

var unknownAnchorRE = regexp.MustCompile(`^unknown anchor '(.*)' referenced$`)

// yamlSyntaxError turns a yaml.v3 error into an Error with a correct line
// and, for the common mistakes, a hint.
func yamlSyntaxError(file string, data []byte, err error) *Error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRE.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		for _, p := range parserProblems {
			if msg == p {
				line++
				break
			}
		}
	} else if m := unknownAnchorRE.FindStringSubmatch(msg); m != nil {
		line = findAlias(data, m[1])
	} else if off := badCharOffset(data); off >= 0 {
		line = lineAt(data, off)
	} else if isParserOrScannerProblem(msg) {
		line = 1 // yaml.v3 omits "line 1" (its 0-based line 0)
	}
	e := &Error{File: file, Line: line, Msg: "syntax error: " + msg}
	switch {
	case strings.Contains(msg, "tab character") || strings.Contains(msg, "cannot start any token"):
		if tl := tabLine(data, line); tl > 0 {
			e.Line = tl
			e.Hint = "YAML does not allow tabs for indentation: indent with spaces"
		} else if strings.Contains(msg, "tab") {
			e.Hint = "YAML does not allow tabs for indentation: indent with spaces"
		} else {
			e.Hint = "put values that start with a special character such as @ or ` in quotes"
		}
	case strings.Contains(msg, "mapping values are not allowed"):
		e.Hint = `put values that contain ": " in quotes, or check the indentation`
	case msg == "did not find expected key" || msg == "did not find expected '-' indicator":
		e.Hint = "check the indentation of this line against the lines above it"
	case strings.Contains(msg, "could not find expected ':'"):
		e.Hint = "every line of a mapping needs key: value; check for a missing colon, or quote a value that spans lines"
	case strings.HasPrefix(msg, "did not find expected ',' or"):
		e.Hint = "check for a missing comma, or a [ or { that is not closed"
	case strings.Contains(msg, "found unexpected end of stream"):
		e.Hint = "a quoted value starting here is not closed"
	case strings.HasPrefix(msg, "unknown anchor"):
		e.Hint = "define the anchor (&name) before its alias (*name), in the same document"
	case strings.Contains(msg, "control characters") || strings.Contains(msg, "UTF-8") || strings.Contains(msg, "Unicode"):
		e.Hint = "the file must be UTF-8 text; remove control characters or re-save it as UTF-8"
	}
	return e
}

func isParserOrScannerProblem(msg string) bool {
	return strings.HasPrefix(msg, "did not find") || strings.HasPrefix(msg, "found") ||
		strings.HasPrefix(msg, "could not find") || strings.HasPrefix(msg, "mapping values") ||
		strings.HasPrefix(msg, "block sequence")
}

// tabLine finds the line, from line on (up to two further lines: yaml.v3
// sometimes reports the line before), whose indentation contains a tab.
func tabLine(data []byte, line int) int {
	lines := bytes.Split(data, []byte{'\n'})
	from := max(line, 1)
	for l := from; l <= from+2 && l <= len(lines); l++ {
		s := lines[l-1]
		indent := s[:len(s)-len(bytes.TrimLeft(s, " \t"))]
		if bytes.IndexByte(indent, '\t') >= 0 {
			return l
		}
	}
	return 0
}

// findAlias returns the line of the first use of alias *name, or 0.
func findAlias(data []byte, name string) int {
	needle := []byte("*" + name)
	for off := 0; off < len(data); {
		i := bytes.Index(data[off:], needle)
		if i < 0 {
			return 0
		}
		end := off + i + len(needle)
		if end >= len(data) || strings.IndexByte(" \t\r\n,]}", data[end]) >= 0 {
			return lineAt(data, off+i)
		}
		off = end
	}
	return 0
}

// badCharOffset returns the offset of the first byte that YAML does not
// accept (invalid UTF-8 or a control character), or -1. UTF-16 input (with a
// byte order mark) is left to yaml.v3.
func badCharOffset(data []byte) int {
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return -1
	}
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			return i
		}
		if !yamlPrintable(r) {
			return i
		}
		i += size
	}
	return -1
}

func yamlPrintable(r rune) bool {
	switch {
	case r == '\t' || r == '\n' || r == '\r' || r == 0x85:
		return true
	case r >= 0x20 && r <= 0x7E:
		return true
	case r >= 0xA0 && r <= 0xD7FF, r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF, r >= 0x10000 && r <= 0x10FFFF:
		return true
	case r == 0xFEFF:
		return true // byte order mark
	}
	return false
}

const headerHint = "every Kubernetes object needs apiVersion and kind"

// structureState says whether a node's structure (nesting, duplicate keys,
// aliases) is already checked: it is checked once per file-level document,
// so a List's items are not checked again.
type structureState bool

const (
	structureUnchecked structureState = false
	structureChecked   structureState = true
)

// toDocuments turns one top-level node into documents: checks it is a
// mapping, checks its structure unless already checked, reads its header,
// and expands Lists.
func toDocuments(file string, n *yaml.Node, el *errList, structure structureState) []*Document {
	if r := resolve(n); r != nil {
		n = r
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if isNull(n) {
			return nil // an empty document
		}
		el.add(&Error{File: file, Line: n.Line,
			Msg:  "expected a Kubernetes object (key: value fields), found the value " + describe(n),
			Hint: headerHint + "; check for a stray line or broken indentation"})
		return nil
	case yaml.SequenceNode:
		el.add(&Error{File: file, Line: n.Line,
			Msg:  "expected a Kubernetes object (key: value fields), found a list",
			Hint: `remove the leading "- ", or wrap the objects in a List: apiVersion: v1, kind: List, items: [...]`})
		return nil
	case yaml.MappingNode:
	default:
		el.add(&Error{File: file, Line: n.Line, Msg: "expected a Kubernetes object (key: value fields)", Hint: headerHint})
		return nil
	}
	cost := treeCost(n)
	if structure == structureUnchecked {
		w := newWalker(file, cost, checkOnly)
		w.value(n, nil, "", docLine(n), 1)
		w.finish(docLine(n))
		if w.errs.len() > 0 {
			el.addAll(w.errs.list)
			el.more += w.errs.more
			return nil
		}
	}
	d := &Document{File: file, Line: docLine(n), Node: n, cost: cost}
	h, ok := readHeader(d, el)
	if !ok {
		return nil
	}
	if h.items != nil || d.Kind == "List" {
		return expandList(d, h, el)
	}
	return []*Document{d}
}

// docLine is the line of a mapping's first key.
func docLine(n *yaml.Node) int {
	if n.Kind == yaml.MappingNode && len(n.Content) > 0 {
		return n.Content[0].Line
	}
	return n.Line
}

type header struct {
	items    *yaml.Node // the items of a List, if this is one
	kindLine int        // where kind is written; lines of added item fields
}

// readHeader fills in APIVersion, Kind, Name and Namespace.
func readHeader(d *Document, el *errList) (header, bool) {
	var h header
	x := expander{budget: 1 << 20}
	fields := map[string]entry{}
	for _, e := range x.entries(d.Node, 0, nil) {
		fields[e.name] = e
	}
	ok := true
	text := func(e entry, path, example string) string {
		v := resolve(e.val)
		if v == nil || isNull(v) {
			return ""
		}
		if !textual(v) {
			hint := ""
			if v.Kind == yaml.ScalarNode {
				hint = "put it in quotes: " + strconv.Quote(v.Value)
			}
			if example != "" {
				hint = "write it as text, e.g. " + example
			}
			el.add(&Error{File: d.File, Line: e.key.Line, Path: path, Msg: "cannot use " + describe(v) + " as a string", Hint: hint})
			ok = false
			return ""
		}
		return v.Value
	}
	if e, found := fields["apiVersion"]; found {
		d.APIVersion = text(e, "apiVersion", `"apps/v1"`)
	}
	if e, found := fields["kind"]; found {
		d.Kind = text(e, "kind", `"Deployment"`)
		h.kindLine = e.key.Line
	}
	if !ok {
		return h, false
	}
	var missing []string
	if d.APIVersion == "" {
		missing = append(missing, "apiVersion")
	}
	if d.Kind == "" {
		missing = append(missing, "kind")
	}
	if len(missing) > 0 {
		el.add(&Error{File: d.File, Line: d.Line, Msg: "missing " + strings.Join(missing, " and "), Hint: headerHint})
		return h, false
	}
	if e, found := fields["metadata"]; found {
		m := resolve(e.val)
		switch {
		case m == nil || isNull(m):
		case m.Kind != yaml.MappingNode:
			el.add(&Error{File: d.File, Line: e.key.Line, Path: "metadata",
				Msg:  "cannot use " + describe(m) + " as a mapping (want " + wantMapping + ")",
				Hint: "metadata holds name:, namespace:, labels: and so on, on the following lines, indented"})
			return h, false
		default:
			nameLine, nsLine := 0, 0
			for _, me := range x.entries(m, 1, nil) {
				switch me.name {
				case "name":
					d.Name, nameLine = text(me, "metadata.name", ""), me.key.Line
				case "namespace":
					d.Namespace, nsLine = text(me, "metadata.namespace", ""), me.key.Line
				}
			}
			if ok && !checkNames(d, nameLine, nsLine, el) {
				return h, false
			}
		}
	}
	if e, found := fields["items"]; found && strings.HasSuffix(d.Kind, "List") {
		v := resolve(e.val)
		switch {
		case v == nil || isNull(v):
			h.items = &yaml.Node{Kind: yaml.SequenceNode}
		case v.Kind == yaml.SequenceNode:
			h.items = v
		case d.Kind == "List":
			el.add(&Error{File: d.File, Line: e.key.Line, Path: "items",
				Msg: "cannot use " + describe(v) + " as a list (want " + wantList + ")"})
			return h, false
		}
	}
	return h, ok
}

// expandList returns the items of a List as documents. Items of kind List
// ("v1 List" from kubectl) carry their own apiVersion and kind; items of a
// typed list such as DeploymentList (raw API output) usually do not, so
// they get the list's apiVersion and the kind without "List".
func expandList(d *Document, h header, el *errList) []*Document {
	if h.items == nil {
		return nil
	}
	itemKind := strings.TrimSuffix(d.Kind, "List")
	var docs []*Document
	for _, item := range h.items.Content {
		it := resolve(item)
		if it == nil {
			continue
		}
		if itemKind != "" && it.Kind == yaml.MappingNode {
			it = withTypeMeta(it, d.APIVersion, itemKind, h.kindLine)
		}
		docs = append(docs, toDocuments(d.File, it, el, structureChecked)...)
	}
	return docs
}

// withTypeMeta returns m with apiVersion and kind added where missing. m
// itself is not changed (it may be shared through an anchor).
func withTypeMeta(m *yaml.Node, apiVersion, kind string, line int) *yaml.Node {
	has := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		has[m.Content[i].Value] = true
	}
	var add []*yaml.Node
	pair := func(k, v string) {
		add = append(add,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: k, Line: line},
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v, Line: line})
	}
	if !has["apiVersion"] {
		pair("apiVersion", apiVersion)
	}
	if !has["kind"] {
		pair("kind", kind)
	}
	if len(add) == 0 {
		return m
	}
	c := *m
	c.Content = append(append([]*yaml.Node(nil), m.Content...), add...)
	return &c
}
