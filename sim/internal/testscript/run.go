package testscript

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected outputs of testdata scripts with what the commands print")

// Handler runs one block and returns its output. An error is a mistake in
// the script (an unknown command, a bad argument): it fails the test at
// the block's position. Behaviour under test belongs in the output.
type Handler func(b *Block) (string, error)

// RunFile runs the script at path, each block in order, against handler.
func RunFile(t *testing.T, path string, handler Handler) {
	t.Helper()
	runFile(t, path, handler, *update)
}

// RunDir runs every *.txt script in dir as a subtest named after the file;
// newHandler gives each file its own handler (its own simulation).
func RunDir(t *testing.T, dir string, newHandler func(t *testing.T) Handler) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("no *.txt scripts in %s", dir)
	}
	sort.Strings(paths)
	for _, p := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(p), ".txt"), func(t *testing.T) {
			RunFile(t, p, newHandler(t))
		})
	}
}

// reporter is the part of testing.T the runner uses (tests of the runner
// itself record what it reports).
type reporter interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

func runFile(t reporter, path string, handler Handler, rewrite bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v", err)
		return
	}
	s, err := parse(path, string(data))
	if err != nil {
		t.Fatalf("%v", err)
		return
	}
	outputs := map[*Block]string{}
	for _, b := range s.blocks() {
		out, err := handler(b)
		if err == nil {
			if unused := b.Unused(); len(unused) > 0 {
				err = fmt.Errorf("%s does not take %s", b.Cmd, strings.Join(unused, " "))
			}
		}
		if err != nil {
			t.Fatalf("%s: %s: %v", b.Pos(), b.Cmd, err)
			return
		}
		got := normalize(out)
		outputs[b] = got
		if !rewrite && got != normalize(b.Expected) {
			t.Errorf("%s: %s: output differs (- expected, + got; run with -update to accept):\n%s",
				b.Pos(), b.Cmd, lineDiff(normalize(b.Expected), got))
		}
	}
	if !rewrite {
		return
	}
	if updated := s.format(outputs); updated != string(data) {
		if err := writeAtomically(path, updated); err != nil {
			t.Fatalf("%v", err)
		}
	}
}

// writeAtomically replaces path's content: a temporary file in the same
// folder renamed over it, so an interrupted run leaves the old file or the
// new one, never half of one.
func writeAtomically(path, content string) error {
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // after a successful rename there is nothing left to remove
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(info.Mode().Perm()); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
