package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	v := viper.New()
	root := &cobra.Command{
		Use:   "sim",
		Short: "Simulate a Kubernetes cluster on AWS: scheduler, autoscalers, spot market",
		Long: `sim replays scenarios of a Kubernetes cluster on AWS in virtual time and reports
pending time, cost and stranded pods.

Every flag can also be set in the environment (SIM_ prefix, dashes as
underscores: SIM_OUTPUT=json) or in a YAML config file given with --config.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return loadConfig(v, cmd)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.PersistentFlags().String("config", "", "YAML file with flag values (keys are flag names)")
	root.AddCommand(newRunCmd(v, stdout, stderr), newCompareCmd(v, stdout, stderr), newSweepCmd(v, stdout, stderr), newExplainCmd(v, stdout),
		newLintCmd(v, stdout, stderr), newGenCmd(v, stdout), newImportCmd(v, stdout, stderr), newScenariosCmd(stdout), newVersionCmd(stdout))
	return root
}

// loadConfig binds the command's flags to viper with the SIM_ environment
// prefix and reads the config file if one is given. Precedence: flag, then
// environment, then config file, then default.
func loadConfig(v *viper.Viper, cmd *cobra.Command) error {
	v.SetEnvPrefix("SIM")
	v.SetEnvKeyReplacer(strings.NewReplacer("-", "_"))
	v.AutomaticEnv()
	if err := v.BindPFlags(cmd.Flags()); err != nil {
		return err
	}
	if err := v.BindPFlags(cmd.InheritedFlags()); err != nil {
		return err
	}
	if file := v.GetString("config"); file != "" {
		data, err := readInput(cmd.Context(), file)
		if err != nil {
			return fmt.Errorf("--config: %w", err)
		}
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return fmt.Errorf("config file %s: %w", file, err)
		}
		known := map[string]bool{}
		cmd.Flags().VisitAll(func(f *pflag.Flag) { known[f.Name] = true })
		for _, k := range v.AllKeys() {
			if !known[k] && k != "config" && v.InConfig(k) {
				return fmt.Errorf("config file %s: unknown key %q (keys are the flag names of %q)", file, k, cmd.CommandPath())
			}
		}
	}
	return nil
}

func newVersionCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			fmt.Fprintln(stdout, "sim", buildVersion())
			return nil
		},
	}
}

func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(unknown)"
	}
	rev, dirty := "", false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return info.Main.Version + " " + info.GoVersion
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		rev += "-dirty"
	}
	return rev + " " + info.GoVersion
}
