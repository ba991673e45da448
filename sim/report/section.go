package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// Section is a model with figures of its own (Karpenter, the Cluster
// Autoscaler): the report writes them under the model's key, so adding
// such a model needs no change here. Models satisfy it without importing
// this package.
type Section interface {
	// ReportSection returns the section's JSON key (part of the schema:
	// never renamed) and the figures as of now, which encoding/json
	// writes (a model's Stats).
	ReportSection() (key string, figures any)
}

// ModelSection is one model's section of a report.
type ModelSection struct {
	Key string
	// Figures are what the model gave (its Stats); in a report read back
	// from JSON, the section's json.RawMessage.
	Figures any
}

// Figures returns the figures of the model section under key, and
// whether the report has it.
func (r *Report) Figures(key string) (any, bool) {
	for _, m := range r.Models {
		if m.Key == key {
			return m.Figures, true
		}
	}
	return nil, false
}

// MarshalJSON writes Summary's keys, the models' sections, then Details'
// keys: one object, in the report's fixed order.
func (r Report) MarshalJSON() ([]byte, error) {
	head, err := json.Marshal(r.Summary)
	if err != nil {
		return nil, err
	}
	tail, err := json.Marshal(r.Details)
	if err != nil {
		return nil, err
	}
	b := head[:len(head)-1] // the open object, without its }
	for _, m := range r.Models {
		key, err := json.Marshal(m.Key)
		if err != nil {
			return nil, err
		}
		figures, err := json.Marshal(m.Figures)
		if err != nil {
			return nil, fmt.Errorf("report: section %s: %w", m.Key, err)
		}
		b = append(append(append(append(b, ','), key...), ':'), figures...)
	}
	b = append(b, ',')
	b = append(b, tail[1:]...) // Details' keys, after its {
	if r.Timeline != nil {
		tl, err := json.Marshal(r.Timeline)
		if err != nil {
			return nil, err
		}
		b = append(append(b[:len(b)-1], `,"timeline":`...), tl...)
		b = append(b, '}')
	}
	return b, nil
}

// UnmarshalJSON reads a report written by MarshalJSON: the keys that
// neither Summary nor Details has are models' sections, kept in order as
// json.RawMessage.
func (r *Report) UnmarshalJSON(data []byte) error {
	if err := json.Unmarshal(data, &r.Summary); err != nil {
		return err
	}
	if err := json.Unmarshal(data, &r.Details); err != nil {
		return err
	}
	r.Models, r.Timeline = nil, nil
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil { // {, checked above
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string) // an object's keys are strings
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if key == "timeline" {
			r.Timeline = new(Timeline)
			if err := json.Unmarshal(raw, r.Timeline); err != nil {
				return fmt.Errorf("timeline: %w", err)
			}
			continue
		}
		if !reportKeys[key] {
			r.Models = append(r.Models, ModelSection{Key: key, Figures: raw})
		}
	}
	return nil
}

// reportKeys are the JSON keys of Summary and Details.
var reportKeys = jsonKeys(reflect.TypeFor[Summary](), reflect.TypeFor[Details]())

func jsonKeys(types ...reflect.Type) map[string]bool {
	keys := map[string]bool{}
	for _, t := range types {
		for i := range t.NumField() {
			name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
			keys[name] = true
		}
	}
	return keys
}
