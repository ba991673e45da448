package lint

import (
	"fmt"
	"io"
	"strings"

	"github.com/clustersim/clustersim/sim/report"
)

// wrapWidth is the text width of findings and long reasons in the table.
const wrapWidth = 100

// WriteTable renders the result for people: the placement matrix, one
// line per workload and capacity source, then the findings.
func (r *Result) WriteTable(w io.Writer) error {
	switch {
	case len(r.Placements) > 0 || len(r.Sources) > 0:
		fmt.Fprintf(w, "Scenario %s: %d workload row(s), %d capacity source(s)\n\n", r.Scenario, len(r.Placements), len(r.Sources))
	case r.Scenario != "":
		fmt.Fprintf(w, "Scenario %s\n\n", r.Scenario)
	}
	if len(r.Placements) > 0 && len(r.Sources) > 0 {
		t := report.NewTable(w)
		t.Header("Workload", "Capacity source", "Can land", "Autoscaler adds nodes", "Why not / instance types")
		for _, p := range r.Placements {
			name := p.Workload
			if p.Variant != "" {
				name += "\n(" + p.Variant + ")"
			}
			for i, c := range p.Cells {
				label := ""
				if i == 0 {
					label = name
				}
				land, adds := "no", ""
				if c.CanLand {
					land = "yes"
				}
				if r.Sources[i].Autoscaler != "" {
					adds = "no"
					if c.Provisions {
						adds = "yes"
					}
				}
				detail := c.Reason
				if c.CanLand {
					detail = summarizeTypes(c.InstanceTypes)
				}
				if err := t.Append(label, c.Source, land, adds, report.LongCell(w, detail, 70)); err != nil {
					return err
				}
			}
		}
		if err := t.Render(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	s := r.Summary
	fmt.Fprintf(w, "Findings: %d error(s), %d warning(s), %d info\n", s.Errors, s.Warnings, s.Infos)
	for i := range r.Findings {
		f := &r.Findings[i]
		fmt.Fprintf(w, "\n%-7s  %s", f.Severity, f.Kind)
		if loc := f.Location(); loc != "" {
			fmt.Fprintf(w, "  %s", loc)
		}
		fmt.Fprintln(w)
		fmt.Fprintln(w, wrap(f.Message, wrapWidth, "  "))
		if f.Fix != "" {
			fmt.Fprintln(w, wrap("fix: "+f.Fix, wrapWidth, "  "))
		}
	}
	return nil
}

// tableTypes is how many instance types a cell of the table names.
const tableTypes = 6

// summarizeTypes names the first instance types and counts the rest (the
// JSON form has them all).
func summarizeTypes(types []string) string {
	if len(types) <= tableTypes {
		return strings.Join(types, ", ")
	}
	return fmt.Sprintf("%s, ... (%d types)", strings.Join(types[:tableTypes], ", "), len(types))
}

// wrap breaks s into lines of at most width runes (words longer than that
// stay whole), each prefixed with indent.
func wrap(s string, width int, indent string) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		n := len([]rune(word))
		switch {
		case i == 0:
			b.WriteString(indent)
			line = 0
		case line+1+n > width:
			b.WriteString("\n" + indent)
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += n
	}
	return b.String()
}
