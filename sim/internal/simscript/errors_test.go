package simscript_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/clustersim/clustersim/sim/internal/simscript"
	"github.com/clustersim/clustersim/sim/internal/testscript"
)

// Mistakes in a script are errors that say what to do, not outputs.
func TestScriptMistakes(t *testing.T) {
	handle := simscript.Handler(t)
	do := func(line int, command, input string) (string, error) {
		b, err := testscript.NewBlock("s.txt", line, command, input)
		require.NoError(t, err)
		return handle(b)
	}
	mustFail := func(line int, command, input, want string) {
		t.Helper()
		_, err := do(line, command, input)
		require.ErrorContains(t, err, want)
	}
	mustFail(1, "nodes", "", "nothing runs yet: run first")
	mustFail(1, "frobnicate", "", "unknown command")
	mustFail(1, "nodepool", "", "give NodePool manifests as input")
	mustFail(1, "deploy cpu=1", "", "give the workload's name=")
	mustFail(1, "deploy name=web replicas=2,3", "", "say when each later count holds")
	mustFail(1, "job name=render", "", "give each pod's runtime")
	mustFail(1, "exhaust zones=us-east-1a", "", "give the event's time")
	mustFail(1, "deploy name=web spread=rack", "", "spread=rack: use zone or hostname")

	// A manifest the loader refuses is reported with the file named after
	// its block's line.
	_, err := do(7, "manifest", "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: []}\n")
	require.NoError(t, err)
	mustFail(9, "run 1m", "", "line7-manifest.yaml")

	handle(mustBlock(t, "reset"))
	_, err = do(1, "scenario duration=1h", "")
	require.NoError(t, err)
	out, err := do(2, "run 30m", "")
	require.NoError(t, err)
	require.Equal(t, "t=30m", out)
	mustFail(3, "run until=10m", "", "the run is at 30m already")
	mustFail(3, "run 2h", "", "past the scenario's end (1h)")
	mustFail(3, "deploy name=late", "", "the run has started")
	mustFail(3, "report key=nodes.nope", "", "report has no nodes.nope")
	mustFail(3, "node name=ghost", "", "no node named ghost")
}

func mustBlock(t *testing.T, line string) *testscript.Block {
	b, err := testscript.NewBlock("s.txt", 1, line, "")
	require.NoError(t, err)
	return b
}
