package main

import (
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/sim/scalegen"
)

func newGenCmd(v *viper.Viper, stdout io.Writer) *cobra.Command {
	gen := &cobra.Command{Use: "gen", Short: "Generate scenarios"}
	scale := &cobra.Command{
		Use:     "scale",
		Short:   "Write a scale scenario to stdout: N nodes, M resident pods, D days, the spot market on",
		Example: "  sim gen scale --nodes 5000 --pods 150000 --days 7 > scale.yaml && sim run scale.yaml",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := scalegen.Generate(scalegen.Params{Nodes: v.GetInt("nodes"), Pods: v.GetInt("pods"), Days: v.GetInt("days"), Seed: v.GetUint64("seed")})
			if err != nil {
				return err
			}
			_, err = io.WriteString(stdout, out)
			return err
		},
	}
	f := scale.Flags()
	f.Int("nodes", 5000, "nodes at the daily mean")
	f.Int("pods", 150000, "resident pods")
	f.Int("days", 7, "simulated days")
	f.Uint64("seed", 1, "the scenario's seed")
	gen.AddCommand(scale)
	return gen
}
