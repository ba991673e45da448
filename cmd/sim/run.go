package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/scenarios"
	"github.com/clustersim/clustersim/sim/scenario"
	"github.com/clustersim/clustersim/sim/simulation"
)

func newRunCmd(v *viper.Viper, stdout, stderr io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "run SCENARIO",
		Short: "Run a scenario (a file, or the name of an embedded scenario) and print its report",
		Example: `  sim run static-burst
  sim run ./my-scenario.yaml --seed 7 -o json
  SIM_OUTPUT=json sim run static-burst --report out.json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runScenario(v, cmd, args[0], stdout, stderr)
		},
	}
	f := cmd.Flags()
	f.Uint64("seed", 0, "override the scenario's seed")
	f.StringP("output", "o", "table", "report format: table or json")
	f.String("report", "", "write the report to this file (atomically) instead of stdout")
	return cmd
}

// loadScenario reads a scenario from disk, or else from the embedded ones.
func loadScenario(arg string) (*scenario.Scenario, error) {
	if _, err := os.Stat(arg); err == nil {
		return scenario.LoadFile(arg)
	}
	if name, ok := scenarios.File(arg); ok {
		return scenario.LoadFS(scenarios.FS, name)
	}
	return nil, fmt.Errorf("%s: no such file, and no embedded scenario of that name (embedded: %s)", arg, strings.Join(scenarios.Names(), ", "))
}

func runScenario(v *viper.Viper, cmd *cobra.Command, arg string, stdout, stderr io.Writer) error {
	format := v.GetString("output")
	if format != "table" && format != "json" {
		return fmt.Errorf("--output %q: use table or json", format)
	}
	sc, err := loadScenario(arg)
	if err != nil {
		return err
	}
	var opts simulation.Options
	// A seed given by flag, environment or config file overrides the
	// scenario's; the flag's zero default does not.
	if cmd.Flags().Changed("seed") || os.Getenv("SIM_SEED") != "" || v.InConfig("seed") {
		s := v.GetUint64("seed")
		opts.Seed = &s
	}
	start := time.Now()
	rep, err := simulation.Run(sc, opts)
	if err != nil {
		return err
	}
	wall := time.Since(start)
	fmt.Fprintf(stderr, "simulated %s in %s: %d events (%.2fM events/s)\n",
		sc.Duration, wall.Round(time.Millisecond), rep.Engine.Events, float64(rep.Engine.Events)/wall.Seconds()/1e6)
	if format == "json" {
		for _, w := range rep.Warnings {
			fmt.Fprintln(stderr, "warning:", w)
		}
	}

	var buf bytes.Buffer
	if format == "json" {
		err = rep.WriteJSON(&buf)
	} else {
		err = rep.WriteTable(&buf)
	}
	if err != nil {
		return err
	}
	if path := v.GetString("report"); path != "" {
		return writeAtomic(path, buf.Bytes())
	}
	_, err = stdout.Write(buf.Bytes())
	return err
}

// writeAtomic writes data to a temporary file next to path and renames it,
// so a reader never sees half a report and an old one is never lost to a
// failed write.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("--report %s: %w", path, err)
	}
	name := tmp.Name()
	_, werr := tmp.Write(data)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		os.Remove(name)
		return fmt.Errorf("--report %s: %w", path, err)
	}
	if err := os.Rename(name, path); err != nil {
		os.Remove(name)
		return fmt.Errorf("--report %s: %w", path, err)
	}
	return nil
}
