package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/sim/explain"
)

func newExplainCmd(v *viper.Viper, stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "explain SCENARIO --pod NAME",
		Short: "Tell one pod's story: why it waited, who tried to provision for it, where it landed",
		Example: `  sim explain static-burst --pod render-7
  sim explain hybrid-naive --pod batch/render-12 --seed 3`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return explainPod(v, cmd, args[0], stdout)
		},
	}
	cmd.Flags().String("pod", "", "the pod: NAME or NAMESPACE/NAME (required)")
	cmd.Flags().Uint64("seed", 0, "override the scenario's seed")
	return cmd
}

// explainPod loads the scenario arg and writes the story package explain
// tells of --pod; a run stopped by a signal ends as every command's does
// (errSignal).
func explainPod(v *viper.Viper, cmd *cobra.Command, arg string, stdout io.Writer) error {
	want := v.GetString("pod")
	if want == "" {
		return fmt.Errorf("--pod is required: give the pod's name as the report lists it (unschedulablePods[].pod)")
	}
	sc, err := loadScenario(cmd.Context(), arg)
	if err != nil {
		return err
	}
	story, err := explain.Pod(sc, explain.Options{Seed: seedOf(v, cmd), Context: cmd.Context()}, want)
	if errors.Is(err, explain.ErrStopped) {
		return fmt.Errorf("%w: %v", errSignal, err)
	}
	if err != nil {
		return err
	}
	return story.Write(stdout)
}
