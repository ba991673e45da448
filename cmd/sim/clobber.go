package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/viper"

	"github.com/clustersim/clustersim/sim/scenario"
)

// A namedPath is a file a command reads or writes, with what it is for
// messages: "--report", "the scenario".
type namedPath struct {
	what, path string
}

// pathSet is the set of a command's inputs or outputs.
type pathSet []namedPath

// add appends path (ignored when empty).
func (ps *pathSet) add(what, path string) {
	if path != "" {
		*ps = append(*ps, namedPath{what, path})
	}
}

// addFlags appends the outputs of the named flags that are set.
func (ps *pathSet) addFlags(v *viper.Viper, flags ...string) {
	for _, f := range flags {
		ps.add("--"+f, v.GetString(f))
	}
}

// addScenario appends the files on disk a scenario loaded from arg
// ("path+override...") was read from: all of them when the scenario is a
// file, only the overrides (and the files in override folders) when it is
// an embedded one.
func (ps *pathSet) addScenario(arg string, sc *scenario.Scenario) {
	parts := strings.Split(arg, "+")
	_, err := os.Stat(parts[0])
	onDisk := err == nil
	for _, f := range sc.Files {
		if !onDisk && !fromOverride(parts[1:], f) {
			continue
		}
		what := "a file of the scenario " + parts[0]
		switch {
		case f == parts[0]:
			what = "the scenario"
		case fromOverride(parts[1:], f):
			what = "an override of " + parts[0]
		}
		ps.add(what, f)
	}
}

// addArgs appends the files on disk that command-line arguments name
// (each part of "path+override..."), before they are loaded.
func (ps *pathSet) addArgs(what string, args ...string) {
	for _, a := range args {
		for _, p := range strings.Split(a, "+") {
			if fileExists(p) {
				ps.add(what, p)
			}
		}
	}
}

// checkClobber refuses outputs that would overwrite an input (the same
// file, also through a symbolic or hard link: os.SameFile), and two
// outputs that write one file: the run would destroy what it reads, or
// one output the other. Outputs that do not exist yet cannot be an input;
// devices and FIFOs are written through, never replaced, so they are not
// compared. It runs once the inputs are known and before anything runs.
func checkClobber(outputs, inputs pathSet) error {
	type seen struct {
		namedPath
		fi  os.FileInfo
		abs string
	}
	var written []seen
	for _, o := range outputs {
		fi, err := os.Stat(o.path)
		exists := err == nil
		if exists && !fi.Mode().IsRegular() {
			continue
		}
		abs, _ := filepath.Abs(o.path)
		if exists {
			for _, in := range inputs {
				ifi, err := os.Stat(in.path)
				if err == nil && os.SameFile(fi, ifi) {
					same := ""
					if filepath.Clean(in.path) != filepath.Clean(o.path) {
						same = fmt.Sprintf(" (%s is %s, through a link)", o.path, in.path)
					}
					return fmt.Errorf("%s %s would overwrite %s, %s%s: write the output to another file", o.what, o.path, in.what, in.path, same)
				}
			}
		}
		for _, w := range written {
			if (exists && w.fi != nil && os.SameFile(fi, w.fi)) || (!exists && w.fi == nil && abs == w.abs) {
				return fmt.Errorf("%s %s and %s %s are the same file: give each output a file of its own", w.what, w.path, o.what, o.path)
			}
		}
		s := seen{namedPath: o, abs: abs}
		if exists {
			s.fi = fi
		}
		written = append(written, s)
	}
	return nil
}
