package spotmarket

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/clustersim/clustersim/sim/cluster"
	"github.com/clustersim/clustersim/sim/internal/clip"
	"github.com/clustersim/clustersim/sim/internal/duration"
)

// TraceKind is what a trace line does.
type TraceKind uint8

// Trace kinds.
const (
	TracePrice     TraceKind = iota // the pool's price becomes Value USD/h (a step)
	TraceState                      // the pool's regime becomes State
	TraceInterrupt                  // a fraction Value of the pool's running instances get a notice
	TraceRebalance                  // a fraction Value of them get a rebalance recommendation
	TraceDepth                      // the pool's full depth becomes Value instances (-1: the model's again)
)

// MaxTracePrice bounds a trace's price, in USD per hour: the dearest EC2
// instances cost a few hundred.
const MaxTracePrice = 10_000

var traceKindNames = [...]string{"price", "state", "interrupt", "rebalance", "depth"}

func (k TraceKind) String() string {
	if int(k) < len(traceKindNames) {
		return traceKindNames[k]
	}
	return fmt.Sprintf("TraceKind(%d)", k)
}

// TraceEvent is one line of a trace.
type TraceEvent struct {
	Line  int           // 1-based line in the trace file
	At    time.Duration // since the start of the run
	Pool  Offering
	Kind  TraceKind
	Value float64 // price in USD/h, the fraction (0, 1] of instances hit, or a depth (-1: the model's)
	State Regime  // for TraceState
}

// Trace is a recorded market history replayed by ModelReplay. Events are in
// time order.
type Trace struct {
	Name   string // file name, for messages
	Events []TraceEvent
}

// ReadTrace reads a trace in CSV or JSON Lines. The format comes from
// name's extension (.csv; .jsonl, .ndjson or .json) or, failing that, from
// the first line that is not blank or a # comment ('{' means JSON Lines).
//
// CSV: a header naming the columns time, pool, kind and (optionally) value,
// in any order, then one event per line:
//
//	# an incident in us-east-1a
//	time,pool,kind,value
//	0s,c5.large/us-east-1a/spot,price,0.0343
//	30m,c5.large/us-east-1a/spot,state,exhausted
//	30m,c5.large/us-east-1a/spot,interrupt,0.8
//	75m,c5.large/us-east-1a,state,available
//	80m,c5.large/us-east-1b/spot,depth,40
//
// JSON Lines: one object per line with the same keys; time and value may be
// strings or numbers:
//
//	{"time": "30m", "pool": "c5.large/us-east-1a/spot", "kind": "state", "value": "exhausted"}
//
// Fields:
//   - time: since the start of the run, Go duration syntax plus days
//     ("90s", "1h30m", "2d") or a number of seconds; lines must be in time
//     order (equal times keep file order).
//   - pool: instanceType/zone/capacityType; the capacity type (spot,
//     on-demand, reserved) defaults to spot.
//   - kind and value: price (USD per hour, > 0: the price steps to it);
//     state (available, constrained or exhausted: the regime from then on;
//     every pool starts available); interrupt (a fraction in (0, 1] of the
//     pool's running spot instances, rounded up, chosen at random, get a
//     notice and are reclaimed NoticeLead later; default 1); rebalance (as
//     interrupt, a rebalance recommendation); depth (a whole number of
//     instances >= 0: from then on the pool's depth while available, with
//     nothing taken yet; constrained pools keep Depth.Constrained of it,
//     exhausted ones none; launches take from it and terminations give
//     back as usual; "model" returns to the model's depth).
//
// Every problem is reported, each as "name:line: field: what is wrong".
// Whether the pools exist (type, zone, spot data) is checked by [New].
func ReadTrace(r io.Reader, name string) (Trace, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Trace{}, fmt.Errorf("%s: %w", name, err)
	}
	t := Trace{Name: name}
	var errs []error
	if isJSONL(name, data) {
		errs = t.readJSONL(data)
	} else {
		errs = t.readCSV(data)
	}
	if len(t.Events) == 0 && len(errs) == 0 {
		errs = append(errs, fmt.Errorf("%s: no events", name))
	}
	if len(errs) > 0 {
		return Trace{}, errors.Join(errs...)
	}
	return t, nil
}

func isJSONL(name string, data []byte) bool {
	lower := strings.ToLower(name)
	switch {
	case strings.HasSuffix(lower, ".csv"):
		return false
	case strings.HasSuffix(lower, ".jsonl"), strings.HasSuffix(lower, ".ndjson"), strings.HasSuffix(lower, ".json"):
		return true
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		return line[0] == '{'
	}
	return false
}

// rawEvent is a line before checking.
type rawEvent struct {
	line                    int
	time, pool, kind, value string
	hasValue                bool
}

func (t *Trace) readCSV(data []byte) []error {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = -1
	var errs []error
	col := map[string]int{}
	header := true
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", t.Name, err))
			break
		}
		line, _ := cr.FieldPos(0)
		if header {
			header = false
			for i, h := range rec {
				h = strings.ToLower(strings.TrimSpace(h))
				switch h {
				case "time", "pool", "kind", "value":
					if _, dup := col[h]; dup {
						errs = append(errs, fmt.Errorf("%s:%d: header: column %q twice", t.Name, line, h))
					}
					col[h] = i
				default:
					errs = append(errs, fmt.Errorf("%s:%d: header: unknown column %q; want time,pool,kind,value", t.Name, line, h))
				}
			}
			for _, need := range []string{"time", "pool", "kind"} {
				if _, ok := col[need]; !ok {
					errs = append(errs, fmt.Errorf("%s:%d: header: no %q column; the first line must be the header time,pool,kind,value", t.Name, line, need))
				}
			}
			if len(errs) > 0 {
				return errs
			}
			continue
		}
		get := func(c string) (string, bool) {
			i, ok := col[c]
			if !ok || i >= len(rec) {
				return "", false
			}
			return strings.TrimSpace(rec[i]), true
		}
		if len(rec) > len(col) {
			errs = append(errs, fmt.Errorf("%s:%d: %d fields but the header has %d", t.Name, line, len(rec), len(col)))
			continue
		}
		ev := rawEvent{line: line}
		ev.time, _ = get("time")
		ev.pool, _ = get("pool")
		ev.kind, _ = get("kind")
		ev.value, ev.hasValue = get("value")
		ev.hasValue = ev.hasValue && ev.value != ""
		errs = t.add(ev, errs)
	}
	return errs
}

func (t *Trace) readJSONL(data []byte) []error {
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 || b[0] == '#' {
			continue
		}
		var obj struct {
			Time  json.RawMessage `json:"time"`
			Pool  string          `json:"pool"`
			Kind  string          `json:"kind"`
			Value json.RawMessage `json:"value"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&obj); err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %v", t.Name, line, err))
			continue
		}
		ev := rawEvent{line: line, pool: obj.Pool, kind: obj.Kind}
		ev.time = jsonScalar(obj.Time)
		if len(obj.Value) > 0 && string(obj.Value) != "null" {
			ev.value, ev.hasValue = jsonScalar(obj.Value), true
		}
		errs = t.add(ev, errs)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s:%d: %w", t.Name, line+1, err))
	}
	return errs
}

// jsonScalar is a JSON string's text or a number's literal.
func jsonScalar(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return strings.TrimSpace(string(raw))
}

// add checks one line and appends it.
func (t *Trace) add(r rawEvent, errs []error) []error {
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s: %s", t.Name, r.line, field, clip.Message(fmt.Sprintf(format, args...))))
	}
	n := len(errs)
	ev := TraceEvent{Line: r.line}
	var err error
	if ev.At, err = parseTraceTime(r.time); err != nil {
		bad("time", "%v; write a duration like 90s, 30m, 1h30m or 2d, or a number of seconds", err)
	} else if k := len(t.Events); k > 0 && ev.At < t.Events[k-1].At {
		prev := t.Events[k-1]
		bad("time", "%s is before %s on line %d; lines must be in time order", ev.At, prev.At, prev.Line)
	}
	var poolOK bool
	if ev.Pool, poolOK = parsePool(r.pool); !poolOK {
		bad("pool", "%q is not instanceType/zone[/capacityType], e.g. c5.large/us-east-1a/spot", r.pool)
	}
	kind := -1
	for i, k := range traceKindNames {
		if k == r.kind {
			kind = i
		}
	}
	if kind < 0 {
		bad("kind", "unknown kind %q; want price, state, interrupt, rebalance or depth", r.kind)
	} else {
		ev.Kind = TraceKind(kind)
		switch ev.Kind {
		case TracePrice:
			v, err := strconv.ParseFloat(r.value, 64)
			switch {
			case !r.hasValue || err != nil || !(v > 0) || math.IsInf(v, 0):
				bad("value", "a price needs a value in USD per hour > 0, got %q", r.value)
			case v > MaxTracePrice:
				// 1e300 summed to $+Inf, which JSON output refused only
				// at the end of the run.
				bad("value", "price %s is more than $%g per hour, far above any EC2 instance's; give USD per hour (check the unit)", r.value, float64(MaxTracePrice))
			}
			ev.Value = v
		case TraceState:
			s, ok := ParseRegime(r.value)
			if !ok {
				bad("value", "unknown state %q; want available, constrained or exhausted", r.value)
			}
			ev.State = s
		case TraceDepth:
			ev.Value = -1
			if r.value != "model" {
				v, err := strconv.ParseFloat(r.value, 64)
				if !r.hasValue || err != nil || !(v >= 0 && v <= 1e9) || v != math.Trunc(v) {
					bad("value", "depth needs a whole number of instances >= 0, or model for the model's depth, got %q", r.value)
				}
				ev.Value = v
			}
			if poolOK && ev.Pool.CapacityType == cluster.Reserved {
				bad("pool", "depth applies to spot and on-demand pools; reserved capacity has no depth")
			}
		case TraceInterrupt, TraceRebalance:
			ev.Value = 1
			if r.hasValue {
				v, err := strconv.ParseFloat(r.value, 64)
				if err != nil || !(v > 0 && v <= 1) {
					bad("value", "%s needs the fraction of the pool's instances hit, > 0 and <= 1 (default 1), got %q", ev.Kind, r.value)
				}
				ev.Value = v
			}
			if poolOK && ev.Pool.CapacityType != cluster.Spot {
				bad("pool", "%s applies to spot pools only; %s instances are never interrupted", ev.Kind, ev.Pool.CapacityType)
			}
		}
	}
	if len(errs) == n {
		t.Events = append(t.Events, ev)
	}
	return errs
}

// parsePool reads instanceType/zone[/capacityType].
func parsePool(s string) (Offering, bool) {
	parts := strings.Split(strings.TrimSpace(s), "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return Offering{}, false
	}
	o := Offering{InstanceType: parts[0], Zone: parts[1], CapacityType: cluster.Spot}
	if len(parts) == 3 {
		ct, ok := cluster.ParseCapacityType(parts[2])
		if !ok || parts[2] == "" {
			return Offering{}, false
		}
		o.CapacityType = ct
	}
	return o, true
}

// parseTraceTime reads Go duration syntax plus whole days ("2d", "1d12h"),
// or a number of seconds, from 0 to a year (as scenarios bound durations).
func parseTraceTime(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, errors.New("empty time")
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if !(f >= 0) || f > duration.Year.Seconds() {
			return 0, fmt.Errorf("%q is out of range", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := duration.Parse(s)
	if errors.Is(err, duration.ErrNegative) || errors.Is(err, duration.ErrTooLong) || (err == nil && d > duration.Year) {
		return 0, fmt.Errorf("%q is out of range (0 to a year)", s)
	}
	return d, err
}
