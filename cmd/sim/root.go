package main

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"os"
	"runtime/debug"
	"strconv"
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
	return checkSettings(v, cmd)
}

// checkSettings checks the values the environment and the config file give
// the command's flags as the flags themselves are checked: viper turns a
// number it cannot read into 0 (SIM_SEED=abc, seed: -5 in the config
// file would run seed 0), where --seed abc is refused.
func checkSettings(v *viper.Viper, cmd *cobra.Command) error {
	var err error
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed {
			return
		}
		var raw, where string
		env := "SIM_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		if s, ok := os.LookupEnv(env); ok && s != "" {
			raw, where = s, env
		} else if v.InConfig(f.Name) {
			raw, where = fmt.Sprint(v.Get(f.Name)), fmt.Sprintf("config file %s: %s", v.GetString("config"), f.Name)
		} else {
			return
		}
		var want string
		switch f.Value.Type() {
		case "uint64":
			if _, perr := strconv.ParseUint(strings.TrimSpace(raw), 10, 64); perr != nil {
				want = "a whole number from 0 to 18446744073709551615"
			}
		case "int":
			if _, perr := strconv.Atoi(strings.TrimSpace(raw)); perr != nil {
				want = "a whole number"
			}
		case "float64":
			x, perr := strconv.ParseFloat(strings.TrimSpace(raw), 64)
			if perr != nil || math.IsNaN(x) || math.IsInf(x, 0) {
				want = "a finite number"
			}
		case "bool":
			if _, perr := strconv.ParseBool(strings.TrimSpace(raw)); perr != nil {
				want = "true or false"
			}
		}
		if want != "" {
			err = fmt.Errorf("%s: %q is not %s (as --%s takes)", where, raw, want, f.Name)
		}
	})
	return err
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
