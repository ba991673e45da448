package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/tw"
)

// NewTable returns a table writer with the house style: headers as
// written (no upper-casing), cells left-aligned, no automatic wrapping.
func NewTable(w io.Writer) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
	)
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
			rows[len(rows)-1])
	}
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	if len(r.Workloads) > 0 {
		fmt.Fprintln(w)
		wt := NewTable(w)
		wt.Header("Workload", "Pods", "Scheduled", "Pending at end", "Stranded", "Pending p95", "Why pods waited (most frequent scheduler message)")
		for _, wl := range r.Workloads {
			why := wl.StrandedReason
			if why == "" {
				why = wl.WaitReason
			}
			if err := wt.Append(wl.Ref, fmt.Sprint(wl.Pods), fmt.Sprint(wl.Scheduled), fmt.Sprint(wl.PendingAtEnd),
				fmt.Sprint(wl.Stranded), formatSeconds(wl.PendingSeconds.P95), wrap(why, 60)); err != nil {
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
