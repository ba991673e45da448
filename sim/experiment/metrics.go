package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/clustersim/clustersim/sim/report"
)

// Metric is one numeric figure of a report, by its JSON path
// ("pods.pendingSeconds.p99").
type Metric struct {
	Path  string
	Value float64
}

// Flatten lists a report's numeric figures in the report's own key order.
// Lists (workloads, pods, warnings), text and the timeline are left out:
// they do not aggregate.
func Flatten(r *report.Report) ([]Metric, error) {
	shell := *r
	shell.Timeline = nil // series, not figures
	data, err := json.Marshal(shell)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []Metric
	if err := walk(dec, "", &out); err != nil {
		return nil, err
	}
	return out, nil
}

// walk reads one JSON value, keeping numbers of objects (not arrays).
func walk(dec *json.Decoder, path string, out *[]Metric) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch v := tok.(type) {
	case json.Delim:
		switch v {
		case '{':
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				key := k.(string)
				if path != "" {
					key = path + "." + key
				}
				if err := walk(dec, key, out); err != nil {
					return err
				}
			}
			_, err := dec.Token() // }
			return err
		case '[':
			// Skip the whole array.
			depth := 1
			for depth > 0 {
				t, err := dec.Token()
				if err != nil {
					return err
				}
				if d, ok := t.(json.Delim); ok {
					switch d {
					case '[', '{':
						depth++
					case ']', '}':
						depth--
					}
				}
			}
			return nil
		}
	case json.Number:
		f, err := v.Float64()
		if err != nil {
			return err
		}
		if path != "schemaVersion" && path != "seed" {
			*out = append(*out, Metric{path, f})
		}
	}
	return nil
}

// Lookup returns a metric's value by path.
func Lookup(ms []Metric, path string) (float64, bool) {
	for _, m := range ms {
		if m.Path == path {
			return m.Value, true
		}
	}
	return 0, false
}

// Paths lists the paths of ms.
func Paths(ms []Metric) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Path
	}
	return out
}

// suggestPath names known paths close to an unknown one, for errors.
func suggestPath(path string, known []string) string {
	var close []string
	last := path[strings.LastIndex(path, ".")+1:]
	for _, k := range known {
		if strings.HasSuffix(k, "."+last) || strings.HasPrefix(k, path) {
			close = append(close, k)
		}
	}
	if len(close) > 5 {
		close = close[:5]
	}
	if len(close) == 0 {
		return ""
	}
	return fmt.Sprintf("did you mean %s?", strings.Join(close, ", "))
}
