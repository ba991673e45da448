package testscript

import (
	"fmt"
	"strings"
)

// separator ends a block's input; doubled, it fences output that holds
// blank lines.
const separator = "----"

// Block is one command of a script, with its input and expected output.
type Block struct {
	// File and Line locate the command line (1-based).
	File string
	Line int
	// Cmd is the command's first word; Args the words after it.
	Cmd  string
	Args []Arg
	// Input is the lines between the command and the separator, each
	// ending in a newline ("" when there are none).
	Input string
	// Expected is the output below the separator without its final
	// newline.
	Expected string

	// commandLine is the line as written, kept for rewriting.
	commandLine string
	// used marks the arguments the handler read (see Unused).
	used []bool
}

// Pos is "file:line" of the block's command.
func (b *Block) Pos() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

// script is a parsed file: comments kept verbatim and blocks, in order.
type script struct {
	parts []part
}

// part is either verbatim text (comments, blank lines) or a block.
type part struct {
	text  string
	block *Block
}

func (s *script) blocks() []*Block {
	var out []*Block
	for _, p := range s.parts {
		if p.block != nil {
			out = append(out, p.block)
		}
	}
	return out
}

// parse reads a script; name is used in positions and errors.
func parse(name, data string) (*script, error) {
	lines := strings.SplitAfter(data, "\n")
	if n := len(lines); n > 0 && lines[n-1] == "" {
		lines = lines[:n-1]
	}
	trim := func(l string) string { return strings.TrimRight(l, "\r\n") }
	s := &script{}
	for i := 0; i < len(lines); {
		line := trim(lines[i])
		if t := strings.TrimSpace(line); t == "" || strings.HasPrefix(t, "#") {
			s.parts = append(s.parts, part{text: line + "\n"})
			i++
			continue
		}
		b := &Block{File: name, Line: i + 1, commandLine: line}
		cmd, args, err := parseCommand(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, i+1, err)
		}
		b.Cmd, b.Args, b.used = cmd, args, make([]bool, len(args))
		i++
		var input strings.Builder
		for i < len(lines) && trim(lines[i]) != separator {
			input.WriteString(trim(lines[i]) + "\n")
			i++
		}
		if i == len(lines) {
			return nil, fmt.Errorf("%s:%d: %s: no %s line before the end of the file (every block has one, then its expected output)", name, b.Line, b.Cmd, separator)
		}
		b.Input = input.String()
		i++ // the separator
		var out []string
		if i < len(lines) && trim(lines[i]) == separator {
			// Fenced output: up to a doubled separator.
			i++
			closed := false
			for ; i < len(lines); i++ {
				if trim(lines[i]) == separator && i+1 < len(lines) && trim(lines[i+1]) == separator {
					i += 2
					closed = true
					break
				}
				out = append(out, trim(lines[i]))
			}
			if !closed {
				return nil, fmt.Errorf("%s:%d: %s: output opened with a doubled %s is never closed by another", name, b.Line, b.Cmd, separator)
			}
		} else {
			for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
				out = append(out, trim(lines[i]))
			}
		}
		b.Expected = strings.Join(out, "\n")
		s.parts = append(s.parts, part{block: b})
	}
	return s, nil
}

// parseCommand splits a command line into its command and arguments.
// Words are separated by spaces; a value may be double-quoted to hold
// spaces ("key=\"a b\"").
func parseCommand(line string) (string, []Arg, error) {
	var words []string
	var cur strings.Builder
	inQuote, started := false, false
	for _, r := range line {
		switch {
		case r == '"':
			inQuote = !inQuote
			started = true
		case (r == ' ' || r == '\t') && !inQuote:
			if started {
				words = append(words, cur.String())
				cur.Reset()
				started = false
			}
		default:
			cur.WriteRune(r)
			started = true
		}
	}
	if inQuote {
		return "", nil, fmt.Errorf("unclosed quote in %q", line)
	}
	if started {
		words = append(words, cur.String())
	}
	args := make([]Arg, 0, len(words)-1)
	for _, w := range words[1:] {
		k, v, ok := strings.Cut(w, "=")
		if !ok {
			args = append(args, Arg{Value: w})
			continue
		}
		if k == "" {
			return "", nil, fmt.Errorf("argument %q has no name before =", w)
		}
		args = append(args, Arg{Key: k, Value: v, keyed: true})
	}
	return words[0], args, nil
}

// format writes the script back with new outputs (by block, in order).
func (s *script) format(outputs map[*Block]string) string {
	var sb strings.Builder
	for _, p := range s.parts {
		if p.block == nil {
			sb.WriteString(p.text)
			continue
		}
		b := p.block
		sb.WriteString(b.commandLine + "\n")
		sb.WriteString(b.Input)
		out, ok := outputs[b]
		if !ok {
			out = b.Expected
		}
		writeOutput(&sb, out)
	}
	return sb.String()
}

// writeOutput writes the separator and the output, fenced when it holds a
// line a reader would take for the block's end.
func writeOutput(sb *strings.Builder, out string) {
	sb.WriteString(separator + "\n")
	if out == "" {
		return
	}
	fenced := false
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) == "" || l == separator {
			fenced = true
		}
	}
	if fenced {
		sb.WriteString(separator + "\n" + out + "\n" + separator + "\n" + separator + "\n")
		return
	}
	sb.WriteString(out + "\n")
}

// normalize is how outputs compare: trailing spaces and final newlines do
// not count (a blank line ends the output in a file).
func normalize(out string) string {
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// NewBlock builds a block as if read from a file, for tests of handlers.
func NewBlock(file string, line int, commandLine, input string) (*Block, error) {
	cmd, args, err := parseCommand(commandLine)
	if err != nil {
		return nil, err
	}
	return &Block{File: file, Line: line, Cmd: cmd, Args: args, Input: input, commandLine: commandLine, used: make([]bool, len(args))}, nil
}
