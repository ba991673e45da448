package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/sim/scenario"
)

// addWhatIfFlags adds the flags that change a loaded scenario without
// editing its files (sim run and sim compare).
func addWhatIfFlags(f *pflag.FlagSet) {
	f.Float64("scale-workloads", 1, "multiply every workload's replicas, arrival rates or Job parallelism by this factor (e.g. 2; see docs/commands.md)")
	f.StringArray("zone-out", nil, "ZONE@AT: from virtual time AT every offering in ZONE is unavailable, e.g. us-east-1a@30m (repeatable)")
}

// applyWhatIfs applies --scale-workloads and --zone-out to a loaded
// scenario (every configuration of a comparison alike).
func applyWhatIfs(v *viper.Viper, sc *scenario.Scenario) error {
	if f := v.GetFloat64("scale-workloads"); f != 1 {
		if err := sc.ScaleWorkloads(f); err != nil {
			return fmt.Errorf("--scale-workloads: %w", err)
		}
	}
	for _, z := range v.GetStringSlice("zone-out") {
		zone, at, ok := strings.Cut(z, "@")
		if !ok || zone == "" || at == "" {
			return fmt.Errorf("--zone-out %q: write ZONE@AT, e.g. us-east-1a@30m (AT is when the zone runs out, 0s for the whole run)", z)
		}
		d, err := scenario.ParseDuration(at)
		if err != nil {
			return fmt.Errorf("--zone-out %q: %v; write a duration like 0s, 30m or 1h30m after the @", z, err)
		}
		if err := sc.ZoneOut(zone, d); err != nil {
			return fmt.Errorf("--zone-out %q: %w", z, err)
		}
	}
	return nil
}
