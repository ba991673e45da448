package sweep

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/clustersim/clustersim/sim/experiment"
)

// The markers around a partial. A line holding one may start with
// anything (kubectl logs --prefix puts the pod's name there); the data
// lines of that partial then start with the same prefix.
const (
	BeginMarker = "#clustersim-sweep-partial BEGIN "
	EndMarker   = "#clustersim-sweep-partial END "
)

// partialVersion is the format of a partial; a reader refuses another.
const partialVersion = 1

// header is the JSON after BeginMarker.
type header struct {
	Version     int    `json:"version"`
	Fingerprint string `json:"fingerprint"`
	Shard       int    `json:"shard"`
	Shards      int    `json:"shards"`
	// Pairs is how many results the shard holds.
	Pairs int    `json:"pairs"`
	Sweep *Sweep `json:"sweep"`
	// Program and Inputs are what the fingerprint covers besides the
	// definition (Identity): a merge checks the fingerprint against them.
	Program string       `json:"program"`
	Inputs  []FileDigest `json:"inputs"`
}

// trailer is the JSON after EndMarker.
type trailer struct {
	Results int    `json:"results"`
	SHA256  string `json:"sha256"`
}

// record is one result line: the metrics as [index, value] pairs into the
// partial's table of paths, which New extends (the paths a run has that no
// earlier line of the partial had), so each run's own order is kept.
type record struct {
	Point int       `json:"point"`
	Run   int       `json:"run"`
	Seed  uint64    `json:"seed"`
	New   []string  `json:"new,omitempty"`
	M     []float64 `json:"m"`
}

// PartialWriter writes one shard's partial.
type PartialWriter struct {
	w     *bufio.Writer
	paths map[string]int
	n     int
	sum   hash.Hash
	buf   []byte
}

// NewPartialWriter writes the partial's header; id is the sweep's
// Identity (Identify).
func NewPartialWriter(w io.Writer, s *Sweep, id Identity, sh Shard) (*PartialWriter, error) {
	h, err := json.Marshal(header{Version: partialVersion, Fingerprint: id.Fingerprint, Shard: sh.Index, Shards: sh.Of, Pairs: s.Count(sh), Sweep: s,
		Program: id.Program, Inputs: id.Inputs})
	if err != nil {
		return nil, err
	}
	pw := &PartialWriter{w: bufio.NewWriterSize(w, 1<<16), paths: map[string]int{}, sum: sha256.New()}
	pw.w.WriteString(BeginMarker)
	pw.w.Write(h)
	pw.w.WriteByte('\n')
	return pw, nil
}

// Write adds one result.
func (pw *PartialWriter) Write(r Result) error {
	b := pw.buf[:0]
	b = append(b, `{"point":`...)
	b = strconv.AppendInt(b, int64(r.Point), 10)
	b = append(b, `,"run":`...)
	b = strconv.AppendInt(b, int64(r.Run), 10)
	b = append(b, `,"seed":`...)
	b = strconv.AppendUint(b, r.Seed, 10)
	first := true
	for _, m := range r.Metrics {
		if _, ok := pw.paths[m.Path]; ok {
			continue
		}
		pw.paths[m.Path] = len(pw.paths)
		if first {
			b = append(b, `,"new":[`...)
			first = false
		} else {
			b = append(b, ',')
		}
		q, err := json.Marshal(m.Path)
		if err != nil {
			return err
		}
		b = append(b, q...)
	}
	if !first {
		b = append(b, ']')
	}
	b = append(b, `,"m":[`...)
	for i, m := range r.Metrics {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, int64(pw.paths[m.Path]), 10)
		b = append(b, ',')
		b = strconv.AppendFloat(b, m.Value, 'g', -1, 64)
	}
	b = append(b, "]}\n"...)
	pw.buf = b
	pw.sum.Write(b)
	pw.n++
	_, err := pw.w.Write(b)
	return err
}

// Close writes the END line and flushes.
func (pw *PartialWriter) Close() error {
	t, _ := json.Marshal(trailer{Results: pw.n, SHA256: hex.EncodeToString(pw.sum.Sum(nil))})
	pw.w.WriteString(EndMarker)
	pw.w.Write(t)
	pw.w.WriteByte('\n')
	return pw.w.Flush()
}

// Merger collects partials.
type Merger struct {
	sweep       *Sweep
	fingerprint string
	first       string // the input that gave the definition, for messages
	// got holds each pair's result; count how many complete partials gave it.
	got   []Result
	count []uint8
	seeds []uint64
	// shards are the shard counts seen, for the rerun hint.
	shards map[int]bool
	intern map[string]string
	// Warnings are partials ignored because they were cut short.
	Warnings []string
}

// NewMerger starts an empty merge.
func NewMerger() *Merger {
	return &Merger{shards: map[int]bool{}, intern: map[string]string{}}
}

// section is one partial being read.
type section struct {
	prefix string
	line   int
	hdr    header
	paths  []string
	res    []Result
	sum    hash.Hash
	// broken is a line that does not read (cut short): the partial
	// counts only if nothing follows it.
	broken error
}

// Read reads every partial in r (a file, or a stream of logs holding
// partials between other lines); name locates it in messages.
func (m *Merger) Read(r io.Reader, name string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 256<<20)
	var open []*section
	line := 0
	found := 0
	cut := func(s *section, why string) {
		m.Warnings = append(m.Warnings, fmt.Sprintf("%s:%d: the partial of shard %d/%d %s: its %d results are ignored; rerun that shard (--shard %d/%d)",
			name, s.line, s.hdr.Shard, s.hdr.Shards, why, len(s.res), s.hdr.Shard, s.hdr.Shards))
	}
	for sc.Scan() {
		line++
		text := sc.Bytes()
		if i := bytes.Index(text, []byte(BeginMarker)); i >= 0 {
			prefix := string(text[:i])
			for k, s := range open {
				if s.prefix == prefix {
					cut(s, "stops before its END line (the shard was stopped)")
					open = append(open[:k], open[k+1:]...)
					break
				}
			}
			s := &section{prefix: prefix, line: line, sum: sha256.New()}
			if err := json.Unmarshal(text[i+len(BeginMarker):], &s.hdr); err != nil {
				return fmt.Errorf("%s:%d: a partial's BEGIN line is not valid: %v", name, line, err)
			}
			if err := m.begin(s, name, line); err != nil {
				return err
			}
			open = append(open, s)
			found++
			continue
		}
		if i := bytes.Index(text, []byte(EndMarker)); i >= 0 {
			prefix := string(text[:i])
			k := -1
			for j, s := range open {
				if s.prefix == prefix {
					k = j
				}
			}
			if k < 0 {
				continue // the END of a partial whose BEGIN is not here
			}
			s := open[k]
			open = append(open[:k], open[k+1:]...)
			if s.broken != nil {
				return s.broken
			}
			var t trailer
			if err := json.Unmarshal(text[i+len(EndMarker):], &t); err != nil {
				return fmt.Errorf("%s:%d: a partial's END line is not valid: %v", name, line, err)
			}
			if t.Results != len(s.res) || t.SHA256 != hex.EncodeToString(s.sum.Sum(nil)) {
				return fmt.Errorf("%s:%d: the partial of shard %d/%d (from line %d) was altered: its END line counts %d results, %d were read, or their digest differs; run the shard again",
					name, line, s.hdr.Shard, s.hdr.Shards, s.line, t.Results, len(s.res))
			}
			if t.Results != s.hdr.Pairs {
				return fmt.Errorf("%s:%d: the partial of shard %d/%d holds %d results, its header says the shard has %d", name, line, s.hdr.Shard, s.hdr.Shards, t.Results, s.hdr.Pairs)
			}
			m.commit(s)
			continue
		}
		// A data line belongs to the open partial with the longest
		// prefix it has; other lines (logs) are skipped.
		var s *section
		for _, o := range open {
			if bytes.HasPrefix(text, []byte(o.prefix)) && (s == nil || len(o.prefix) > len(s.prefix)) {
				s = o
			}
		}
		if s == nil {
			continue
		}
		data := text[len(s.prefix):]
		if !bytes.HasPrefix(data, []byte(`{"point":`)) {
			continue
		}
		if s.broken != nil {
			return s.broken
		}
		if err := m.record(s, data, name, line); err != nil {
			if !errors.Is(err, errSyntax) {
				return err
			}
			// The last line of a partial cut short; anything after it
			// means the partial was damaged.
			s.broken = err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	for _, s := range open {
		cut(s, "stops before its END line (the shard was stopped, or its output cut short)")
	}
	if found == 0 {
		return fmt.Errorf("%s: no partial result in it (no %q line); give the files sim sweep --shard wrote, or the logs of the shards", name, strings.TrimSpace(BeginMarker))
	}
	return nil
}

// begin checks a partial's header against the partials read before.
func (m *Merger) begin(s *section, name string, line int) error {
	h := &s.hdr
	where := fmt.Sprintf("%s:%d", name, line)
	if h.Version != partialVersion {
		return fmt.Errorf("%s: a partial of format %d; this sim reads format %d: merge with the sim version that ran the shards", where, h.Version, partialVersion)
	}
	if h.Sweep == nil {
		return fmt.Errorf("%s: the partial's header has no sweep", where)
	}
	if err := h.Sweep.Validate(); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if _, err := NewShard(h.Shard, h.Shards); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	// The definition a merge uses comes from the headers: each must be
	// the one its fingerprint was computed from.
	if fp, err := fingerprintOf(h.Sweep, h.Program, h.Inputs); err != nil || fp != h.Fingerprint {
		return fmt.Errorf("%s: the header of the partial of shard %d/%d does not match its fingerprint %s: its sweep definition (points, names, runs, seed) was altered, or a sim older than this check wrote it; rerun the shard (--shard %d/%d) with this sim",
			where, h.Shard, h.Shards, short(h.Fingerprint), h.Shard, h.Shards)
	}
	if m.sweep == nil {
		m.sweep, m.fingerprint, m.first = h.Sweep, h.Fingerprint, where
		m.got = make([]Result, h.Sweep.Pairs())
		m.count = make([]uint8, h.Sweep.Pairs())
		m.seeds = h.Sweep.Seeds()
	} else if h.Fingerprint != m.fingerprint {
		return fmt.Errorf("%s: the partial of shard %d/%d is of another sweep (fingerprint %s; the one at %s has %s): merge only partials of one sweep definition run on the same input files",
			where, h.Shard, h.Shards, short(h.Fingerprint), m.first, short(m.fingerprint))
	}
	m.shards[h.Shards] = true
	return nil
}

func short(fp string) string {
	if len(fp) > 19 {
		return fp[:19]
	}
	return fp
}

// record reads one result line of s.
func (m *Merger) record(s *section, data []byte, name string, line int) error {
	r, ok := fastRecord(data)
	if !ok {
		r = record{}
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("%s:%d: a result line of shard %d/%d is not valid (%w): %v", name, line, s.hdr.Shard, s.hdr.Shards, errSyntax, err)
		}
	}
	sw := m.sweep
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: a result line of shard %d/%d: %s", name, line, s.hdr.Shard, s.hdr.Shards, fmt.Sprintf(format, args...))
	}
	if r.Point < 0 || r.Point >= len(sw.Points) || r.Run < 0 || r.Run >= sw.Runs {
		return bad("point %d run %d is outside the sweep (%d points x %d runs)", r.Point, r.Run, len(sw.Points), sw.Runs)
	}
	if m.seeds[r.Run] != r.Seed {
		return bad("run %d has seed %d; the sweep's run %d has seed %d", r.Run, r.Seed, r.Run, m.seeds[r.Run])
	}
	for _, p := range r.New {
		if q, ok := m.intern[p]; ok {
			p = q
		} else {
			m.intern[p] = p
		}
		s.paths = append(s.paths, p)
	}
	if len(r.M)%2 != 0 {
		return bad("an odd number of entries in m")
	}
	ms := make([]experiment.Metric, len(r.M)/2)
	for i := range ms {
		k := int(r.M[2*i])
		if k < 0 || k >= len(s.paths) || float64(k) != r.M[2*i] {
			return bad("metric index %v is not declared", r.M[2*i])
		}
		ms[i] = experiment.Metric{Path: s.paths[k], Value: r.M[2*i+1]}
	}
	s.sum.Write(data)
	s.sum.Write([]byte{'\n'})
	s.res = append(s.res, Result{Point: r.Point, Run: r.Run, Seed: r.Seed, Metrics: ms})
	return nil
}

// fastRecord reads a result line as PartialWriter writes it without new
// paths, several times faster than encoding/json; anything else (a line
// with new paths, other spacing) is left to encoding/json.
func fastRecord(b []byte) (record, bool) {
	var r record
	field := func(name string) bool {
		if !bytes.HasPrefix(b, []byte(name)) {
			return false
		}
		b = b[len(name):]
		return true
	}
	integer := func() (uint64, bool) {
		i := 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		if i == 0 || i > 20 {
			return 0, false
		}
		v, err := strconv.ParseUint(string(b[:i]), 10, 64)
		b = b[i:]
		return v, err == nil
	}
	var ok bool
	var v uint64
	if !field(`{"point":`) {
		return r, false
	}
	if v, ok = integer(); !ok || v > 1<<31 {
		return r, false
	}
	r.Point = int(v)
	if !field(`,"run":`) {
		return r, false
	}
	if v, ok = integer(); !ok || v > 1<<31 {
		return r, false
	}
	r.Run = int(v)
	if !field(`,"seed":`) {
		return r, false
	}
	if r.Seed, ok = integer(); !ok {
		return r, false
	}
	if !field(`,"m":[`) {
		return r, false
	}
	r.M = make([]float64, 0, bytes.Count(b, []byte{','})+1)
	for len(b) > 0 && b[0] != ']' {
		i := bytes.IndexAny(b, ",]")
		if i <= 0 {
			return r, false
		}
		f, err := strconv.ParseFloat(string(b[:i]), 64)
		if err != nil {
			return r, false
		}
		r.M = append(r.M, f)
		b = b[i:]
		if b[0] == ',' {
			b = b[1:]
		}
	}
	return r, string(b) == "]}"
}

// errSyntax marks a result line that does not read.
var errSyntax = errors.New("damaged")

// commit adds a complete partial's results.
func (m *Merger) commit(s *section) {
	for _, r := range s.res {
		k := r.Pair(m.sweep.Runs)
		if m.count[k] < 255 {
			m.count[k]++
		}
		m.got[k] = r
	}
}

// Results returns every pair's result in pair order, the definition and
// its fingerprint, or an error naming the pairs missing or given twice.
func (m *Merger) Results() (*Sweep, []Result, error) {
	if m.sweep == nil {
		return nil, nil, fmt.Errorf("no partial result to merge")
	}
	s := m.sweep
	var missing, twice []int
	for k, c := range m.count {
		switch {
		case c == 0:
			missing = append(missing, k)
		case c > 1:
			twice = append(twice, k)
		}
	}
	if len(missing) == 0 && len(twice) == 0 {
		return s, m.got, nil
	}
	var b strings.Builder
	if len(missing) > 0 {
		fmt.Fprintf(&b, "%d of the %d (point, seed) pairs are missing: %s", len(missing), s.Pairs(), m.pairList(missing))
		if len(m.shards) == 1 {
			for n := range m.shards {
				fmt.Fprintf(&b, "; rerun shard(s) %s of %d (--shard I/%d)", shardsOf(missing, n), n, n)
			}
		}
	}
	if len(twice) > 0 {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d pairs are given by more than one partial: %s; merge each shard's partial once, from shards of one --shard count",
			len(twice), m.pairList(twice))
	}
	return nil, nil, fmt.Errorf("%s", b.String())
}

// pairList names up to 10 pairs.
func (m *Merger) pairList(ks []int) string {
	s := m.sweep
	seeds := s.Seeds()
	var parts []string
	for i, k := range ks {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(ks)-10))
			break
		}
		p, r := k/s.Runs, k%s.Runs
		parts = append(parts, fmt.Sprintf("%q run %d (seed %d)", s.Points[p].Name, r, seeds[r]))
	}
	return strings.Join(parts, ", ")
}

// shardsOf lists the shard indexes (of n) that hold pairs ks, in order.
func shardsOf(ks []int, n int) string {
	seen := map[int]bool{}
	var idx []int
	for _, k := range ks {
		if i := k % n; !seen[i] {
			seen[i] = true
			idx = append(idx, i)
		}
	}
	slices.Sort(idx)
	var out []string
	for i, x := range idx {
		if i == 20 {
			out = append(out, "...")
			break
		}
		out = append(out, strconv.Itoa(x))
	}
	return strings.Join(out, ", ")
}
