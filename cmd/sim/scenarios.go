package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
)

// scenarioEntry is one embedded scenario in sim scenarios -o json.
type scenarioEntry struct {
	Name        string   `json:"name"`
	Duration    string   `json:"duration"`
	Description string   `json:"description"`
	Region      string   `json:"region"`
	Zones       []string `json:"zones"`
	Seed        uint64   `json:"seed"`
}

func newScenariosCmd(stdout io.Writer) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "List the embedded scenarios",
		Example: `  sim scenarios
  sim scenarios -o name | xargs -n1 sim lint`,
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			switch format {
			case "table", "wide", "name", "json":
			default:
				return fmt.Errorf("--output %q: use table, wide, name or json", format)
			}
			var list []scenarioEntry
			for _, name := range scenarios.Names() {
				file, _ := scenarios.File(name)
				sc, err := scenario.LoadFS(scenarios.FS, file)
				if err != nil {
					return fmt.Errorf("embedded scenario %s: %w", name, err)
				}
				list = append(list, scenarioEntry{Name: name, Duration: sc.Duration.String(), Description: sc.Description,
					Region: sc.Region, Zones: sc.Zones, Seed: sc.Seed})
			}
			switch format {
			case "name":
				var b strings.Builder
				for _, e := range list {
					fmt.Fprintln(&b, e.Name)
				}
				_, err := io.WriteString(stdout, b.String())
				return err
			case "json":
				data, err := writeJSON(list)
				if err != nil {
					return err
				}
				_, err = stdout.Write(data)
				return err
			}
			var b strings.Builder
			w := report.WithStyle(&b, tableStyle(format, "", stdout))
			t := report.NewTable(w)
			header := []any{"Name", "Duration"}
			if format == "wide" {
				header = append(header, "Region", "Zones", "Seed")
			}
			t.Header(append(header, "Description")...)
			for _, e := range list {
				row := []any{e.Name, e.Duration}
				if format == "wide" {
					row = append(row, e.Region, strings.Join(e.Zones, ","), fmt.Sprint(e.Seed))
				}
				if err := t.Append(append(row, report.LongCell(w, e.Description, 80))...); err != nil {
					return err
				}
			}
			if err := t.Render(); err != nil {
				return err
			}
			_, err := io.WriteString(stdout, b.String())
			return err
		},
	}
	cmd.Flags().StringVarP(&format, "output", "o", "table", "table, wide (more columns), name (one per line) or json")
	return cmd
}
