package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A value from SIM_ variables or the config file is checked as the flag
// is: a bad seed (abc, -5) was run as seed 0.
func TestBadSettingsFromEnvironmentAndConfig(t *testing.T) {
	_, stderr, code := sim(t, "run", "static-burst", "--seed", "-5")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "invalid argument \"-5\" for \"--seed\"")
	for _, bad := range []string{"abc", "-5", "1.5"} {
		t.Setenv("SIM_SEED", bad)
		_, stderr, code := sim(t, "run", "static-burst")
		require.Equal(t, 1, code, bad)
		require.Contains(t, stderr, `error: SIM_SEED: "`+bad+`" is not a whole number from 0 to 18446744073709551615 (as --seed takes)`)
	}
	os.Unsetenv("SIM_SEED")
	t.Setenv("SIM_RUNS", "many")
	_, stderr, code = sim(t, "run", "static-burst")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `SIM_RUNS: "many" is not a whole number (as --runs takes)`)
	os.Unsetenv("SIM_RUNS")

	cfg := filepath.Join(t.TempDir(), "sim.yaml")
	for _, bad := range []string{"abc", "-5"} {
		require.NoError(t, os.WriteFile(cfg, []byte("seed: "+bad+"\n"), 0o644))
		_, stderr, code := sim(t, "run", "static-burst", "--config", cfg)
		require.Equal(t, 1, code, bad)
		require.Contains(t, stderr, "config file "+cfg+`: seed: "`+bad+`" is not a whole number`)
	}
	require.NoError(t, os.WriteFile(cfg, []byte("scale-workloads: .nan\n"), 0o644))
	_, stderr, code = sim(t, "run", "static-burst", "--config", cfg)
	require.Equal(t, 1, code)
	require.Contains(t, stderr, `scale-workloads: "NaN" is not a finite number`)
	// A flag wins over a bad environment, as it wins over a good one.
	t.Setenv("SIM_SEED", "abc")
	_, stderr, code = sim(t, "run", "static-burst", "--seed", "3")
	require.Equal(t, 0, code, stderr)
}

// --fail-if against NaN or Inf could never fail: refused. --memory-limit
// takes the size its message suggests (8GiB as well as 8Gi) and refuses a
// negative or zero one.
func TestBadGateAndMemoryLimit(t *testing.T) {
	for _, expr := range []string{"pods.stranded>NaN", "pods.stranded<inf", "cost.totalUSD>-Inf*baseline"} {
		_, stderr, code := sim(t, "run", "static-burst", "--fail-if", expr)
		require.Equal(t, 1, code, expr)
		require.Contains(t, stderr, "is not a finite number (a gate against it could never fail, or always would)", expr)
	}
	for _, ok := range []string{"8GiB", "8Gi", "8G", "8GB", "500Mi"} {
		_, stderr, code := sim(t, "run", "static-burst", "--memory-limit", ok)
		require.Equal(t, 0, code, "%s: %s", ok, stderr)
	}
	for bad, want := range map[string]string{
		"-1Gi":  "the limit must be at least 1Mi",
		"0":     "the limit must be at least 1Mi",
		"lots":  "write a size such as 8Gi, 8GiB or 500M",
		"8 GiB": "write a size such as 8Gi, 8GiB or 500M",
	} {
		_, stderr, code := sim(t, "run", "static-burst", "--memory-limit", bad)
		require.Equal(t, 1, code, bad)
		require.Contains(t, stderr, want, bad)
	}
	_, stderr, code := sim(t, "run", "static-burst", "--memory-limit", "10Mi")
	require.Equal(t, 1, code)
	require.Contains(t, stderr, "more than the 10 MiB allowed")
}
