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

func newScenariosCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "scenarios",
		Short: "List the embedded scenarios",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			t := report.NewTable(stdout)
			t.Header("Name", "Duration", "Description")
			for _, name := range scenarios.Names() {
				file, _ := scenarios.File(name)
				sc, err := scenario.LoadFS(scenarios.FS, file)
				if err != nil {
					return fmt.Errorf("embedded scenario %s: %w", name, err)
				}
				if err := t.Append(name, sc.Duration.String(), sc.Description); err != nil {
					return err
				}
			}
			if err := t.Render(); err != nil {
				return err
			}
			if sw := scenarios.Sweeps(); len(sw) > 0 {
				fmt.Fprintf(stdout, "\nEmbedded sweeps (sim sweep NAME): %s\n", strings.Join(sw, ", "))
			}
			return nil
		},
	}
}
