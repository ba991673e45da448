package testscript

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Arg is one word after the command: key=value, or a bare word (Key "").
type Arg struct {
	Key   string
	Value string
	keyed bool
}

// Positional returns the bare words, in order, marking them read.
func (b *Block) Positional() []string {
	var out []string
	for i, a := range b.Args {
		if !a.keyed {
			out = append(out, a.Value)
			b.used[i] = true
		}
	}
	return out
}

// Flag reports whether the bare word name is given ("do-not-disrupt").
func (b *Block) Flag(name string) bool {
	found := false
	for i, a := range b.Args {
		if !a.keyed && a.Value == name {
			b.used[i] = true
			found = true
		}
	}
	return found
}

// Lookup returns the value of key=value, if given.
func (b *Block) Lookup(key string) (string, bool) {
	for i, a := range b.Args {
		if a.keyed && a.Key == key {
			b.used[i] = true
			return a.Value, true
		}
	}
	return "", false
}

// String returns key's value, or def.
func (b *Block) String(key, def string) string {
	if v, ok := b.Lookup(key); ok {
		return v
	}
	return def
}

// List returns key's comma-separated values (nil when not given).
func (b *Block) List(key string) []string {
	v, ok := b.Lookup(key)
	if !ok || v == "" {
		return nil
	}
	return strings.Split(v, ",")
}

// Int returns key's value as an integer, or def.
func (b *Block) Int(key string, def int) (int, error) {
	return parseArg(b, key, def, strconv.Atoi, "not an integer")
}

// Float returns key's value as a number, or def.
func (b *Block) Float(key string, def float64) (float64, error) {
	return parseArg(b, key, def, func(v string) (float64, error) { return strconv.ParseFloat(v, 64) }, "not a number")
}

// Duration returns key's value as a Go duration ("90s", "1h30m"), or def.
func (b *Block) Duration(key string, def time.Duration) (time.Duration, error) {
	return parseArg(b, key, def, time.ParseDuration, "not a duration (e.g. 90s, 10m, 1h30m)")
}

// parseArg returns key's value read by parse, or def when key is not
// given; a value parse rejects is an error "key=value: " + what.
func parseArg[T any](b *Block, key string, def T, parse func(string) (T, error), what string) (T, error) {
	v, ok := b.Lookup(key)
	if !ok {
		return def, nil
	}
	x, err := parse(v)
	if err != nil {
		var zero T
		return zero, fmt.Errorf("%s=%s: %s", key, v, what)
	}
	return x, nil
}

// Unused lists the arguments the handler never read, as written: typos
// fail the block instead of being ignored.
func (b *Block) Unused() []string {
	var out []string
	for i, a := range b.Args {
		if b.used[i] {
			continue
		}
		if a.keyed {
			out = append(out, a.Key+"="+a.Value)
		} else {
			out = append(out, a.Value)
		}
	}
	return out
}
