package manifest

import (
	"encoding/json"
	"fmt"
	"sort"

	yaml "go.yaml.in/yaml/v3"
)

// JSON input is parsed by a small parser of our own into yaml.Node trees, so
// that JSON and YAML documents share one code path and JSON errors carry
// lines too. yaml.v3 cannot be used for JSON: it rejects valid JSON such as
// the escape "\/" and tab indentation, and has no JSON error messages.

// jsonError is a JSON syntax error at a byte offset.
type jsonError struct {
	off   int
	msg   string
	fatal bool // not worth retrying as YAML (nesting too deep)
}

type jsonParser struct {
	data       []byte
	pos        int
	lineStarts []int // offsets at which lines start
	depth      int
	err        *jsonError
}

// parseJSON parses one or more JSON values separated by whitespace.
func parseJSON(data []byte) ([]*yaml.Node, *jsonError) {
	p := &jsonParser{data: data, lineStarts: []int{0}}
	for i, c := range data {
		if c == '\n' {
			p.lineStarts = append(p.lineStarts, i+1)
		}
	}
	if len(data) >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF {
		p.pos = 3 // UTF-8 byte order mark
	}
	var out []*yaml.Node
	for {
		p.space()
		if p.pos >= len(p.data) {
			break
		}
		n := p.value()
		if p.err != nil {
			return nil, p.err
		}
		out = append(out, n)
	}
	return out, nil
}

// lineCol returns the 1-based line and column of a byte offset.
func (p *jsonParser) lineCol(off int) (int, int) {
	i := sort.Search(len(p.lineStarts), func(i int) bool { return p.lineStarts[i] > off }) - 1
	return i + 1, off - p.lineStarts[i] + 1
}

func (p *jsonParser) fail(off int, format string, args ...any) {
	if p.err == nil {
		p.err = &jsonError{off: off, msg: fmt.Sprintf(format, args...)}
	}
}

func (p *jsonParser) node(kind yaml.Kind, tag, value string, off int) *yaml.Node {
	line, col := p.lineCol(off)
	n := &yaml.Node{Kind: kind, Tag: tag, Value: value, Line: line, Column: col}
	if kind == yaml.MappingNode || kind == yaml.SequenceNode {
		n.Style = yaml.FlowStyle
	} else if tag == "!!str" {
		n.Style = yaml.DoubleQuotedStyle
	}
	return n
}

func (p *jsonParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// describeAt names the character at off for messages.
func (p *jsonParser) describeAt(off int) string {
	if off >= len(p.data) {
		return "end of input"
	}
	return fmt.Sprintf("%q", rune(p.data[off]))
}

func (p *jsonParser) value() *yaml.Node {
	if p.err != nil {
		return nil
	}
	p.space()
	if p.pos >= len(p.data) {
		p.fail(p.pos, "unexpected end of input, expected a value")
		return nil
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		start := p.pos
		s, ok := p.str()
		if !ok {
			return nil
		}
		return p.node(yaml.ScalarNode, "!!str", s, start)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case c == 't':
		return p.literal("true", "!!bool")
	case c == 'f':
		return p.literal("false", "!!bool")
	case c == 'n':
		return p.literal("null", "!!null")
	default:
		p.fail(p.pos, "unexpected character %s, expected a value", p.describeAt(p.pos))
		return nil
	}
}

func (p *jsonParser) enter(off int) bool {
	p.depth++
	if p.depth > MaxDepth {
		if p.err == nil {
			p.err = &jsonError{off: off, msg: depthMsg, fatal: true}
		}
		return false
	}
	return true
}

func (p *jsonParser) object() *yaml.Node {
	n := p.node(yaml.MappingNode, "!!map", "", p.pos)
	if !p.enter(p.pos) {
		return nil
	}
	defer func() { p.depth-- }()
	p.pos++ // {
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return n
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			if p.pos < len(p.data) && p.data[p.pos] == '}' {
				p.fail(p.pos, "trailing comma before '}'")
			} else {
				p.fail(p.pos, "expected a quoted key, found %s", p.describeAt(p.pos))
			}
			return nil
		}
		start := p.pos
		k, ok := p.str()
		if !ok {
			return nil
		}
		key := p.node(yaml.ScalarNode, "!!str", k, start)
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			p.fail(p.pos, "expected ':' after key %q, found %s", k, p.describeAt(p.pos))
			return nil
		}
		p.pos++
		v := p.value()
		if p.err != nil {
			return nil
		}
		n.Content = append(n.Content, key, v)
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == '}' {
			p.pos++
			return n
		}
		p.fail(p.pos, "expected ',' or '}' after the value of %q, found %s", k, p.describeAt(p.pos))
		return nil
	}
}

func (p *jsonParser) array() *yaml.Node {
	n := p.node(yaml.SequenceNode, "!!seq", "", p.pos)
	if !p.enter(p.pos) {
		return nil
	}
	defer func() { p.depth-- }()
	p.pos++ // [
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return n
	}
	for {
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.fail(p.pos, "trailing comma before ']'")
			return nil
		}
		v := p.value()
		if p.err != nil {
			return nil
		}
		n.Content = append(n.Content, v)
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ',' {
			p.pos++
			continue
		}
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
			return n
		}
		p.fail(p.pos, "expected ',' or ']' after a list item, found %s", p.describeAt(p.pos))
		return nil
	}
}

// str parses a string at p.pos; encoding/json decodes the escapes.
func (p *jsonParser) str() (string, bool) {
	start := p.pos
	i := start + 1
	for ; i < len(p.data); i++ {
		c := p.data[i]
		if c == '\\' {
			i++
			continue
		}
		if c == '"' {
			break
		}
		if c < 0x20 {
			p.fail(i, "a string cannot contain a raw control character (write line breaks as \\n and tabs as \\t)")
			return "", false
		}
	}
	if i >= len(p.data) {
		p.fail(start, "string is not closed with '\"'")
		return "", false
	}
	var s string
	if err := json.Unmarshal(p.data[start:i+1], &s); err != nil {
		p.fail(start, "invalid string: %v", err)
		return "", false
	}
	p.pos = i + 1
	return s, true
}

func (p *jsonParser) number() *yaml.Node {
	start := p.pos
	i := start
	isFloat := false
	for ; i < len(p.data); i++ {
		c := p.data[i]
		if c == '.' || c == 'e' || c == 'E' {
			isFloat = true
		} else if !(c == '-' || c == '+' || (c >= '0' && c <= '9')) {
			break
		}
	}
	lit := p.data[start:i]
	if !json.Valid(lit) {
		p.fail(start, "invalid number %q", lit)
		return nil
	}
	p.pos = i
	tag := "!!int"
	if isFloat {
		tag = "!!float"
	}
	return p.node(yaml.ScalarNode, tag, string(lit), start)
}

func (p *jsonParser) literal(word, tag string) *yaml.Node {
	end := p.pos + len(word)
	if end > len(p.data) || string(p.data[p.pos:end]) != word || (end < len(p.data) && isWordByte(p.data[end])) {
		p.fail(p.pos, "unexpected word, expected a value (strings need double quotes)")
		return nil
	}
	n := p.node(yaml.ScalarNode, tag, word, p.pos)
	p.pos = end
	return n
}

func isWordByte(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
