// Package sweep runs a grid of configurations over the same seeds and
// finds its Pareto frontier; the runs can be cut into shards that run
// apart (on Kubernetes, one Indexed Job index each) and merge exactly.
//
// A sweep is a list of points (a base scenario, override files and
// parameter settings: a workload scale factor, a market hazard multiplier,
// a fallback timeout), every point run on the same seeds (common random
// numbers, as sim compare), derived from one root seed as
// experiment.Seeds derives them. The (point, seed) pairs are numbered
// point by point, seed by seed (pair k is point k/runs, seed k%runs); shard
// I of N runs the pairs k with k%N == I, so every shard gets a share of
// every point and the slices are deterministic.
//
// A run's report is flattened to its metrics (experiment.Flatten) as soon
// as it ends and dropped: a shard holds one report per worker and a list
// of numbers per run, never every run's report. A shard writes its results
// as a partial (partial.go): a header naming the sweep and its fingerprint
// (a hash of the definition and of every input file's bytes), one line per
// (point, seed) with that run's metrics, and an END line with a count and a
// digest, between markers, so that a stream of logs can carry it. Merge
// reads any set of partials, refuses those of another sweep, ignores one
// cut short (no END: the shard was stopped) with a warning, and names the
// pairs missing or given twice; from a complete set it renders the same
// bytes as the unsharded run, because both render from the same per-run
// metrics in the same order (render.go).
//
// The package does no I/O of its own: cmd/sim loads the scenarios (Load),
// reads the input files for the fingerprint and the Job's ConfigMap, and
// writes what the functions here render to an io.Writer.
package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/experiment"
	"github.com/clustersim/clustersim/sim/report"
	"github.com/clustersim/clustersim/sim/scenario"
)

// Sweep is the definition of a sweep: what a fingerprint covers and what a
// partial carries in its header.
type Sweep struct {
	// Name is the Sweep document's metadata.name ("" for a sweep given
	// on the command line).
	Name string `json:"name,omitempty"`
	// Axes are the names of the axes, in order (none on the command line).
	Axes     []string `json:"axes,omitempty"`
	Points   []Point  `json:"points"`
	Runs     int      `json:"runs"`
	RootSeed uint64   `json:"rootSeed"`
	// WhatIfs are the command line's what-ifs applied to every point
	// (--scale-workloads=2, --zone-out=us-east-1a@30m).
	WhatIfs []string `json:"whatIfs,omitempty"`
}

// Point is one configuration of the grid.
type Point struct {
	// Name labels the point: the command-line argument, or the base and
	// every axis's value ("hybrid-isolated spot=od-base types=wide").
	Name string `json:"name"`
	// Values are the axes' value names, in the order of Sweep.Axes.
	Values []string `json:"values,omitempty"`
	// Base is the scenario (a path, or an embedded scenario's name) and
	// Overrides the manifest files applied on it, as the loader takes them.
	Base      string   `json:"base"`
	Overrides []string `json:"overrides,omitempty"`
	// Scale multiplies every workload (scenario.ScaleWorkloads), Hazard
	// the market's reclaim hazard (scenario.ScaleHazard); 1 leaves them.
	Scale  float64 `json:"scale,omitempty"`
	Hazard float64 `json:"hazard,omitempty"`
	// FallbackAfter sets every fallback's timeout (0 leaves them).
	FallbackAfter time.Duration `json:"fallbackAfter,omitempty"`
}

// Apply applies the point's parameter settings to its loaded scenario.
func (p *Point) Apply(sc *scenario.Scenario) error {
	if p.Scale != 0 && p.Scale != 1 {
		if err := sc.ScaleWorkloads(p.Scale); err != nil {
			return fmt.Errorf("%s: scaleWorkloads: %w", p.Name, err)
		}
	}
	if p.Hazard != 0 && p.Hazard != 1 {
		if err := sc.ScaleHazard(p.Hazard); err != nil {
			return fmt.Errorf("%s: hazardMultiplier: %w", p.Name, err)
		}
	}
	if p.FallbackAfter != 0 {
		if err := sc.SetFallbackAfter(p.FallbackAfter); err != nil {
			return fmt.Errorf("%s: fallbackAfter: %w", p.Name, err)
		}
	}
	return nil
}

// Pairs is the number of (point, seed) pairs.
func (s *Sweep) Pairs() int { return len(s.Points) * s.Runs }

// Seeds are the seeds every point runs on.
func (s *Sweep) Seeds() []uint64 { return experiment.Seeds(s.RootSeed, s.Runs) }

// Validate checks what a definition from a partial or a caller must hold.
func (s *Sweep) Validate() error {
	switch {
	case len(s.Points) == 0:
		return fmt.Errorf("a sweep needs at least one point")
	case s.Runs < 1 || s.Runs > 100000:
		return fmt.Errorf("runs %d: use 1 to 100000 runs per point", s.Runs)
	case s.Pairs() > MaxPairs:
		return fmt.Errorf("%d points x %d runs is %d runs, more than the %d a sweep may have; split the grid into several sweeps", len(s.Points), s.Runs, s.Pairs(), MaxPairs)
	}
	for i, p := range s.Points {
		if len(p.Values) != len(s.Axes) {
			return fmt.Errorf("point %d (%s): %d axis values for %d axes", i, p.Name, len(p.Values), len(s.Axes))
		}
	}
	return nil
}

// MaxPoints bounds the points of a Sweep document's grid.
const MaxPoints = 100_000

// MaxPairs bounds the (point, seed) pairs of one sweep.
const MaxPairs = 1_000_000

// Shard is one of N slices of the (point, seed) pairs: Index in 0..Of-1.
type Shard struct{ Index, Of int }

// All is the whole sweep as one shard.
var All = Shard{0, 1}

// ParseShard reads "I/N" (0-based I).
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(s, "/")
	a, err1 := strconv.Atoi(i)
	b, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("--shard %q: write I/N, e.g. 0/4 for the first of 4 shards (I counts from 0)", s)
	}
	return NewShard(a, b)
}

// NewShard checks 0 <= i < n.
func NewShard(i, n int) (Shard, error) {
	if n < 1 || n > 100000 {
		return Shard{}, fmt.Errorf("%d shards: use 1 to 100000", n)
	}
	if i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard index %d: use 0 to %d for %d shards (the index counts from 0)", i, n-1, n)
	}
	return Shard{i, n}, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Of) }

// Holds says whether pair k belongs to the shard.
func (s Shard) Holds(k int) bool { return k%s.Of == s.Index }

// File is an input file of the sweep, for its fingerprint and the Job's
// ConfigMap.
type File struct {
	// Path as the loader named it; Embedded marks a file of the embedded
	// scenarios (in the image already).
	Path     string
	Embedded bool
	Data     []byte
}

// Fingerprint hashes the definition and the input files (sorted by path;
// for files on disk what the runs read of them, Kept),
// with the report schema and the simulator's build (program, e.g. `sim
// version`'s commit): partials with the same fingerprint come from the
// same sweep on the same inputs run by the same simulator, so a merge
// never mixes results of two model versions.
func Fingerprint(s *Sweep, files []File, program string) (string, error) {
	id, err := Identify(s, files, program)
	return id.Fingerprint, err
}

// Identity is what a partial's header carries to prove which sweep it
// belongs to: the fingerprint and what it was computed from, but the
// files' bytes (their digests only). A merge recomputes the fingerprint
// from the header's definition, program and digests, so a header whose
// definition was altered (points swapped or renamed: results attributed
// to the wrong configurations) no longer matches its fingerprint.
type Identity struct {
	Fingerprint string
	Program     string
	Inputs      []FileDigest
}

// FileDigest is an input file's path and the SHA-256 of its bytes (hex).
type FileDigest struct {
	Path     string `json:"path"`
	Embedded bool   `json:"embedded,omitempty"`
	SHA256   string `json:"sha256"`
}

// Identify computes the sweep's Identity (Fingerprint's value and what it
// covers).
func Identify(s *Sweep, files []File, program string) (Identity, error) {
	ds := make([]FileDigest, 0, len(files))
	for _, f := range files {
		if len(f.Data) == 0 {
			// Nothing a run reads (a file of Secrets, whose Kept is
			// empty): the loader does not list such a file of a folder
			// among the scenario's files, so a shard reading the empty
			// copy --emit-job ships may not see it at all.
			continue
		}
		sum := sha256.Sum256(f.Data)
		ds = append(ds, FileDigest{Path: f.Path, Embedded: f.Embedded, SHA256: hex.EncodeToString(sum[:])})
	}
	slices.SortFunc(ds, func(a, b FileDigest) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		if a.Embedded == b.Embedded {
			return strings.Compare(a.SHA256, b.SHA256)
		}
		if a.Embedded {
			return 1
		}
		return -1
	})
	fp, err := fingerprintOf(s, program, ds)
	return Identity{Fingerprint: fp, Program: program, Inputs: ds}, err
}

// fingerprintOf hashes the definition, the program and the sorted input
// digests.
func fingerprintOf(s *Sweep, program string, inputs []FileDigest) (string, error) {
	def, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	fmt.Fprintf(h, "clustersim sweep %d %d %q\n%s\n", partialVersion, report.SchemaVersion, program, def)
	for _, f := range inputs {
		fmt.Fprintf(h, "%s %t %s\n", f.Path, f.Embedded, f.SHA256)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil)), nil
}
