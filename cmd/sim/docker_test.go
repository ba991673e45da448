package main

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Docker cannot run here, so the Dockerfile is checked by what it says and
// by running its build line: the final stage is distroless static (or
// scratch) and non-root, and the build gives a static binary that runs.
func TestDockerfileBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds sim")
	}
	data, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	text := string(data)
	stages := strings.Split(text, "\nFROM ")
	final := stages[len(stages)-1]
	require.Regexp(t, `^(gcr.io/distroless/static\S*|scratch)\n`, final, "the final stage is distroless static or scratch")
	require.Regexp(t, `(?m)^USER (65532|nonroot|[1-9][0-9]*)(:\S+)?$`, final, "and runs as a non-root user")
	require.Contains(t, final, `ENTRYPOINT ["/sim"]`)
	line := regexp.MustCompile(`(?m)^RUN (CGO_ENABLED=0 .*go build .*)$`).FindStringSubmatch(text)
	require.NotNil(t, line, "a RUN line with CGO_ENABLED=0 go build")
	out := filepath.Join(t.TempDir(), "sim")
	build := strings.ReplaceAll(line[1], "${VERSION}", "test")
	build = strings.Replace(build, "-o /out/sim", "-o "+out, 1)
	require.Contains(t, build, "-o "+out)
	cmd := exec.Command("sh", "-c", build)
	cmd.Dir = "../.."
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, string(msg))
	f, err := elf.Open(out)
	require.NoError(t, err)
	defer f.Close()
	for _, p := range f.Progs {
		require.NotEqual(t, elf.PT_INTERP, p.Type, "a static binary has no dynamic loader")
	}
	v, err := exec.Command(out, "version").CombinedOutput()
	require.NoError(t, err, string(v))
	require.Equal(t, "sim test\n", string(v))
}
