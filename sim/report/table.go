package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// TableStyle is how tables are drawn for where they go.
type TableStyle struct {
	// Plain draws aligned columns without borders, one line per row, with
	// upper-case headers and no trailing spaces, as kubectl prints: for
	// pipes and files. Otherwise tables are box-drawn, for a terminal.
	Plain bool
	// Wide shows every column and long cells in full (-o wide).
	Wide bool
	// Width is the terminal's width in columns (0: unknown or not a
	// terminal); commands with wide tables fit them to it.
	Width int
}

// styledWriter is an io.Writer that carries a TableStyle to the tables
// written through it.
type styledWriter struct {
	io.Writer
	style TableStyle
}

// WithStyle returns a writer to w whose tables (NewTable, WriteTable) are
// drawn in style s. Without it tables are box-drawn, long cells wrapped.
func WithStyle(w io.Writer, s TableStyle) io.Writer {
	if sw, ok := w.(*styledWriter); ok {
		w = sw.Writer
	}
	return &styledWriter{Writer: w, style: s}
}

// StyleOf returns the style of a writer made by WithStyle (the zero
// style, box-drawn, for any other).
func StyleOf(w io.Writer) TableStyle {
	if sw, ok := w.(*styledWriter); ok {
		return sw.style
	}
	return TableStyle{}
}

// NewTable returns a table writer with the house style: headers as
// written (no upper-casing), cells left-aligned, no automatic wrapping,
// box-drawn; for a writer with a plain style (WithStyle), kubectl's
// columns: no borders, three spaces between columns, upper-case headers,
// multi-line cells joined into one line, no trailing spaces.
func NewTable(w io.Writer) *tablewriter.Table {
	if StyleOf(w).Plain {
		return tablewriter.NewTable(&trimWriter{w: w},
			tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
				Borders: tw.BorderNone,
				Symbols: tw.NewSymbols(tw.StyleNone),
				Settings: tw.Settings{
					Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
					Lines:      tw.Lines{ShowHeaderLine: tw.Off, ShowTop: tw.Off, ShowBottom: tw.Off},
				},
			})),
			tablewriter.WithHeaderAutoFormat(tw.Off),
			tablewriter.WithHeaderFilter(tw.CellFilter{Global: upperAll}),
			tablewriter.WithRowFilter(tw.CellFilter{Global: oneLine}),
			tablewriter.WithHeaderAlignment(tw.AlignLeft),
			tablewriter.WithRowAutoWrap(tw.WrapNone),
			tablewriter.WithPadding(tw.Padding{Left: "", Right: "   ", Overwrite: true}),
		)
	}
	return tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
}

func upperAll(cells []string) []string {
	for i, c := range cells {
		cells[i] = strings.ToUpper(c)
	}
	return cells
}

// oneLine joins a multi-line cell's lines with spaces.
func oneLine(cells []string) []string {
	for i, c := range cells {
		if strings.Contains(c, "\n") {
			cells[i] = strings.Join(strings.Fields(c), " ")
		}
	}
	return cells
}

// trimWriter drops the spaces at the end of each line written through it
// (the plain style pads every cell, the last one too). Tables end their
// lines, so nothing is held back once a table is rendered.
type trimWriter struct {
	w       io.Writer
	pending []byte // spaces not yet known to be trailing
}

func (t *trimWriter) Write(p []byte) (int, error) {
	var out []byte
	for _, b := range p {
		switch b {
		case ' ':
			t.pending = append(t.pending, b)
		case '\n':
			t.pending = t.pending[:0]
			out = append(out, b)
		default:
			out = append(out, t.pending...)
			t.pending = t.pending[:0]
			out = append(out, b)
		}
	}
	if _, err := t.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// LongCell formats a long text cell (a message, a description) for a
// table written to w: wrapped at width for a box-drawn table, cut at
// width (at a word's end) with "..." for a plain one, in full with -o wide.
func LongCell(w io.Writer, s string, width int) string {
	st := StyleOf(w)
	switch {
	case st.Wide:
		return s
	case st.Plain:
		if utf8.RuneCountInString(s) <= width {
			return s
		}
		r := []rune(s)
		cut := string(r[:width-3])
		if r[width-3] != ' ' {
			if i := strings.LastIndexByte(cut, ' '); i > 0 {
				cut = cut[:i] // at a word's end
			}
		}
		return strings.TrimRight(cut, " ") + "..."
	}
	return wrap(s, width)
}

// WriteTable renders the report for people: a summary table, then one row
// per workload, then the warnings.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "Scenario %s, seed %d, %s simulated\n\n", r.Scenario, r.Seed, formatSeconds(r.DurationSeconds))
	if r.Partial {
		fmt.Fprintf(w, "PARTIAL: the run was stopped after %s of simulated time\n\n", formatSeconds(r.DurationSeconds))
	}
	t := NewTable(w)
	t.Header("Metric", "Value")
	p := r.Pods
	rows := [][]string{
		{"pods total", fmt.Sprint(p.Total)},
		{"pods scheduled", fmt.Sprint(p.Scheduled)},
		{"pods pending at end", fmt.Sprint(p.PendingAtEnd)},
		{"pods stranded", fmt.Sprint(p.Stranded)},
		{"pods succeeded", fmt.Sprint(p.Succeeded)},
		{"pending p50 / p95 / p99", fmt.Sprintf("%s / %s / %s", formatSeconds(p.PendingSeconds.P50), formatSeconds(p.PendingSeconds.P95), formatSeconds(p.PendingSeconds.P99))},
		{"pending max", formatSeconds(p.PendingSeconds.Max)},
		{"cost total", fmt.Sprintf("$%.2f", r.Cost.TotalUSD)},
		{"cost spot / on-demand", fmt.Sprintf("$%.2f / $%.2f", r.Cost.SpotUSD, r.Cost.OnDemandUSD)},
		{"node-hours spot / on-demand", fmt.Sprintf("%.1f / %.1f", r.Nodes.SpotHours, r.Nodes.OnDemandHours)},
		{"nodes initial / launched / terminated", fmt.Sprintf("%d / %d / %d", r.Nodes.Initial, r.Nodes.Launched, r.Nodes.Terminated)},
		{"nodes peak / at end", fmt.Sprintf("%d / %d", r.Nodes.Peak, r.Nodes.AtEnd)},
		{"engine events", fmt.Sprint(r.Engine.Events)},
	}
	if r.Cost.OverlaidUSD > 0 {
		// Only with NodeOverlay prices, so other tables keep their rows.
		rows = append(rows[:9], append([][]string{{"cost at NodeOverlay prices", fmt.Sprintf("$%.2f", r.Cost.OverlaidUSD)}}, rows[9:]...)...)
	}
	if len(r.Reservations) > 0 {
		// Only with capacity reservations, so other tables keep their rows.
		var reserved, used float64
		for _, rs := range r.Reservations {
			reserved, used = reserved+rs.ReservedHours, used+rs.UsedHours
		}
		util := 0.0
		if reserved > 0 {
			util = 100 * used / reserved
		}
		rows = append(rows[:9], append([][]string{{"cost of reservations (used or not) / used", fmt.Sprintf("$%.2f / %.1f%%", r.Cost.ReservationsUSD, util)}}, rows[9:]...)...)
	}
	if r.Nodes.Failed > 0 {
		// Only with spec.nodeFailures, so other tables keep their rows.
		rows = append(rows[:len(rows)-1], []string{"nodes failed / unhealthy node-hours", fmt.Sprintf("%d / %.1f", r.Nodes.Failed, r.Nodes.UnhealthyHours)}, rows[len(rows)-1])
	}
	if p.WaitedOnIPs > 0 || r.Provisioning.InsufficientAddressErrors > 0 {
		// Only with spec.network's subnets, so other tables keep their rows.
		rows = append(rows[:len(rows)-1],
			[]string{"pods waited on subnet IPs / total wait", fmt.Sprintf("%d / %s", p.WaitedOnIPs, formatSeconds(p.IPWaitSeconds))},
			[]string{"launch offerings without subnet IPs", fmt.Sprint(r.Provisioning.InsufficientAddressErrors)},
			rows[len(rows)-1])
	}
	if v := p.Volumes; v != nil {
		// Only with storage objects, so other tables keep their rows.
		rows = append(rows[:len(rows)-1],
			[]string{"claims created / volumes provisioned", fmt.Sprintf("%d / %d", v.ClaimsCreated, v.VolumesProvisioned)},
			[]string{"pods waited on volume detach / total wait", fmt.Sprintf("%d / %s", v.WaitedOnAttach, formatSeconds(v.AttachWaitSeconds))},
			[]string{"volumes force-detached (6 min after their node went)", fmt.Sprint(v.ForceDetached)},
			rows[len(rows)-1])
	}
	if ctl := r.Controllers; ctl.JobsArrived > 0 {
		// Only with Jobs, so other tables keep their rows: the work done
		// beside the cost (a run whose Jobs failed did less).
		at := 5 // after pods succeeded
		rows = append(rows[:at], append([][]string{
			{"Jobs completed / failed / arrived", fmt.Sprintf("%d / %d / %d", ctl.JobsCompleted, ctl.JobsFailed, ctl.JobsArrived)},
			{"Job pod run time lost", formatSeconds(ctl.LostPodSeconds)},
		}, rows[at:]...)...)
	}
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(r.Controllers.FailedJobs) > 0 {
		fmt.Fprintln(w, "\nFailed Jobs:")
		for _, f := range r.Controllers.FailedJobs {
			fmt.Fprintf(w, "  - %s failed at %s: %s\n", f.Job, formatSeconds(f.AtSeconds), f.Reason)
		}
	}
	if len(r.Reservations) > 0 {
		fmt.Fprintln(w)
		rt := NewTable(w)
		rt.Header("Reservation", "Type", "Instance type", "Zone", "Count", "Reserved h", "Used h", "Used", "Cost")
		for _, rs := range r.Reservations {
			if err := rt.Append(rs.ID, rs.Type, rs.InstanceType, rs.Zone, fmt.Sprint(rs.Count), fmt.Sprintf("%.1f", rs.ReservedHours),
				fmt.Sprintf("%.1f", rs.UsedHours), fmt.Sprintf("%.1f%%", rs.UtilizationPct), fmt.Sprintf("$%.2f", rs.CostUSD)); err != nil {
				return err
			}
		}
		if err := rt.Render(); err != nil {
			return err
		}
	}
	if len(r.Workloads) > 0 {
		fmt.Fprintln(w)
		wt := NewTable(w)
		wide := StyleOf(w).Wide
		header := []any{"Workload", "Pods", "Scheduled", "Pending at end", "Stranded", "Pending p95"}
		if wide {
			header = append(header, "Pending p50", "Pending p99", "Pending max")
		}
		wt.Header(append(header, "Why pods waited (most frequent scheduler message)")...)
		for _, wl := range r.Workloads {
			why := wl.StrandedReason
			if why == "" {
				why = wl.WaitReason
			}
			row := []any{wl.Ref, fmt.Sprint(wl.Pods), fmt.Sprint(wl.Scheduled), fmt.Sprint(wl.PendingAtEnd),
				fmt.Sprint(wl.Stranded), formatSeconds(wl.PendingSeconds.P95)}
			if wide {
				row = append(row, formatSeconds(wl.PendingSeconds.P50), formatSeconds(wl.PendingSeconds.P99), formatSeconds(wl.PendingSeconds.Max))
			}
			if err := wt.Append(append(row, LongCell(w, why, 60))...); err != nil {
				return err
			}
		}
		if err := wt.Render(); err != nil {
			return err
		}
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintln(w, "\nWarnings:")
		for _, s := range r.Warnings {
			fmt.Fprintf(w, "  - %s\n", s)
		}
	}
	return nil
}

// formatSeconds renders seconds as 0s, 4.2s, 3m05s or 2h10m.
func formatSeconds(s float64) string {
	switch {
	case s < 60:
		return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", s), "0"), ".") + "s"
	case s < 3600:
		return fmt.Sprintf("%dm%02ds", int(s)/60, int(s)%60)
	}
	return fmt.Sprintf("%dh%02dm", int(s)/3600, (int(s)%3600)/60)
}

// wrap breaks a long message at spaces so table cells stay readable.
func wrap(s string, width int) string {
	if len(s) <= width {
		return s
	}
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		if i > 0 {
			if line+1+len(word) > width {
				b.WriteByte('\n')
				line = 0
			} else {
				b.WriteByte(' ')
				line++
			}
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}
