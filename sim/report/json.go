package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
)

// JSON is the report as encoding/json writes it with two-space indents
// (json.Encoder, SetIndent("", "  ")), byte for byte, but for the
// timeline, whose series are written one line each (a day's series would
// otherwise take one line per number). The list of unschedulable pods,
// hundreds of thousands of entries in a long run at scale, is written by
// hand: encoding/json spends seconds on it.
func (r *Report) JSON() ([]byte, error) {
	out, err := r.json()
	if err != nil || r.Timeline == nil {
		return out, err
	}
	// The timeline is the last key: its series one line each.
	if !bytes.HasSuffix(out, []byte("\n}\n")) {
		return nil, fmt.Errorf("report: the end of the JSON was not found")
	}
	out = append(out[:len(out)-3], ",\n  \"timeline\": "...)
	out, err = appendTimeline(out, r.Timeline)
	if err != nil {
		return nil, err
	}
	return append(out, "\n}\n"...), nil
}

// json is the report without its timeline, as encoding/json writes it.
func (r *Report) json() ([]byte, error) {
	shell := *r
	shell.Timeline = nil
	shell.UnschedulablePods = []UnschedulablePod{}
	out, err := IndentedJSON(&shell)
	if err != nil {
		return nil, err
	}
	if r.UnschedulablePods == nil {
		return bytes.Replace(out, []byte(emptyList), []byte(nullList), 1), nil
	}
	if len(r.UnschedulablePods) == 0 {
		return out, nil
	}
	at := bytes.Index(out, []byte(emptyList))
	if at < 0 || bytes.Count(out, []byte(emptyList)) != 1 {
		return nil, fmt.Errorf("report: the unschedulable pods' place in the JSON was not found")
	}
	list := make([]byte, 0, len(out)+len(r.UnschedulablePods)*400)
	list = append(list, out[:at]...)
	list = append(list, "\n  \"unschedulablePods\": [\n"...)
	for i := range r.UnschedulablePods {
		var err error
		if list, err = appendUnschedulable(list, &r.UnschedulablePods[i]); err != nil {
			return nil, err
		}
		if i < len(r.UnschedulablePods)-1 {
			list = append(list, ',')
		}
		list = append(list, '\n')
	}
	list = append(list, "  ],\n"...)
	return append(list, out[at+len(emptyList):]...), nil
}

// The list's line in the shell (unique: other "unschedulablePods" keys
// are counts, deeper in).
const (
	emptyList = "\n  \"unschedulablePods\": [],\n"
	nullList  = "\n  \"unschedulablePods\": null,\n"
)

// appendUnschedulable writes one entry at the list's depth.
func appendUnschedulable(b []byte, u *UnschedulablePod) ([]byte, error) {
	const in = "      " // the fields' indent
	b = append(b, "    {\n"...)
	b = append(b, in+`"pod": `...)
	b = appendString(b, u.Pod)
	if u.Workload != "" {
		b = append(b, ",\n"+in+`"workload": `...)
		b = appendString(b, u.Workload)
	}
	b = append(b, ",\n"+in+`"attempts": `...)
	b = strconv.AppendInt(b, int64(u.Attempts), 10)
	b = append(b, ",\n"+in+`"bound": `...)
	b = strconv.AppendBool(b, u.Bound)
	b = append(b, ",\n"+in+`"pendingSeconds": `...)
	var err error
	if b, err = appendFloat(b, u.PendingSeconds); err != nil {
		return nil, err
	}
	b = append(b, ",\n"+in+`"stranded": `...)
	b = strconv.AppendBool(b, u.Stranded)
	b = append(b, ",\n"+in+`"message": `...)
	b = appendString(b, u.Message)
	b = append(b, ",\n"+in+`"reasons": `...)
	switch {
	case u.Reasons == nil:
		b = append(b, "null"...)
	case len(u.Reasons) == 0:
		b = append(b, "{}"...)
	default:
		keys := make([]string, 0, len(u.Reasons))
		for k := range u.Reasons {
			keys = append(keys, k)
		}
		slices.Sort(keys) // encoding/json sorts map keys
		b = append(b, "{\n"...)
		for i, k := range keys {
			b = append(b, in+"  "...)
			b = appendString(b, k)
			b = append(b, ": "...)
			b = strconv.AppendInt(b, int64(u.Reasons[k]), 10)
			if i < len(keys)-1 {
				b = append(b, ',')
			}
			b = append(b, '\n')
		}
		b = append(b, in+"}"...)
	}
	return append(b, "\n    }"...), nil
}

// appendString writes s as encoding/json does; strings with anything
// but printable ASCII other than " \ < > & are left to encoding/json.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendFloat writes f as encoding/json does: the shortest 'f' form in
// [1e-6, 1e21), else left to encoding/json.
func appendFloat(b []byte, f float64) ([]byte, error) {
	if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64), nil
	}
	q, err := json.Marshal(f)
	if err != nil {
		return nil, err
	}
	return append(b, q...), nil
}

// appendTimeline writes the timeline at the report's second level: one
// line per series, per pool and per event.
func appendTimeline(b []byte, t *Timeline) ([]byte, error) {
	const in = "    "
	var err error
	b = append(b, "{\n"+in+`"intervalSeconds": `...)
	if b, err = appendFloat(b, t.IntervalSeconds); err != nil {
		return nil, err
	}
	floats := func(key string, xs []float64) {
		b = append(b, ",\n"+in+`"`+key+`": [`...)
		for i, x := range xs {
			if i > 0 {
				b = append(b, ',')
			}
			if err == nil {
				b, err = appendFloat(b, x)
			}
		}
		b = append(b, ']')
	}
	ints := func(key string, xs []int32) {
		b = append(b, ",\n"+in+`"`+key+`": `...)
		b = appendInts(b, xs)
	}
	floats("t", t.T)
	ints("pendingPods", t.PendingPods)
	ints("strandedPods", t.StrandedPods)
	ints("startingPods", t.StartingPods)
	ints("runningPods", t.RunningPods)
	ints("spotNodes", t.SpotNodes)
	ints("onDemandNodes", t.OnDemandNodes)
	ints("reservedNodes", t.ReservedNodes)
	b = append(b, ",\n"+in+`"pools": [`...)
	for i, p := range t.Pools {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n"+in+`  {"owner": `...)
		b = appendString(b, p.Owner)
		b = append(b, `, "name": `...)
		b = appendString(b, p.Name)
		b = append(b, `, "nodes": `...)
		b = appendInts(b, p.Nodes)
		b = append(b, `, "launched": `...)
		b = appendInts(b, p.Launched)
		b = append(b, '}')
	}
	if len(t.Pools) > 0 {
		b = append(b, "\n"+in...)
	}
	b = append(b, ']')
	floats("costUSDPerHour", t.CostUSDPerHour)
	floats("costUSD", t.CostUSD)
	floats("onDemandEquivalentUSDPerHour", t.OnDemandEquivalentUSDPerHour)
	floats("onDemandEquivalentUSD", t.OnDemandEquivalentUSD)
	if err != nil {
		return nil, err
	}
	b = append(b, ",\n"+in+`"events": [`...)
	for i := range t.Events {
		if i > 0 {
			b = append(b, ',')
		}
		e, err := json.Marshal(&t.Events[i])
		if err != nil {
			return nil, err
		}
		b = append(b, "\n"+in+"  "...)
		b = append(b, e...)
	}
	if len(t.Events) > 0 {
		b = append(b, "\n"+in...)
	}
	b = append(b, "]\n  }"...)
	return b, nil
}
