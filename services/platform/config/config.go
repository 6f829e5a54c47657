// Package config reads service configuration from environment variables.
//
// Every helper returns the default when the variable is unset or empty and a
// descriptive error when it is set to a value that cannot be parsed. Use a
// Loader to collect all errors at once and report them together.
package config

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
)

// Error describes one environment variable with a bad value.
type Error struct {
	Key   string
	Value string
	Want  string
}

func (e *Error) Error() string {
	return fmt.Sprintf("config: %s=%q is not a valid %s", e.Key, e.Value, e.Want)
}

func lookup(key string) (string, bool) {
	v, ok := os.LookupEnv(key)
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return "", false
	}
	return v, true
}

// String returns the value of key, or def when unset or empty.
func String(key, def string) string {
	if v, ok := lookup(key); ok {
		return v
	}
	return def
}

// Int returns the integer value of key, or def when unset.
func Int(key string, def int) (int, error) {
	v, ok := lookup(key)
	if !ok {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return def, &Error{Key: key, Value: v, Want: "integer"}
	}
	return n, nil
}

// Float returns the decimal number value of key, or def when unset.
func Float(key string, def float64) (float64, error) {
	v, ok := lookup(key)
	if !ok {
		return def, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return def, &Error{Key: key, Value: v, Want: "number"}
	}
	return f, nil
}

// Duration returns the duration value of key (Go syntax, e.g. "10s"), or def when unset.
func Duration(key string, def time.Duration) (time.Duration, error) {
	v, ok := lookup(key)
	if !ok {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return def, &Error{Key: key, Value: v, Want: "duration (e.g. 500ms, 10s, 1m)"}
	}
	return d, nil
}

// Bool returns the boolean value of key (1/0, true/false, yes/no, on/off), or def when unset.
func Bool(key string, def bool) (bool, error) {
	v, ok := lookup(key)
	if !ok {
		return def, nil
	}
	switch strings.ToLower(v) {
	case "1", "t", "true", "yes", "y", "on":
		return true, nil
	case "0", "f", "false", "no", "n", "off":
		return false, nil
	}
	return def, &Error{Key: key, Value: v, Want: "boolean (true/false)"}
}

// List returns the comma-separated value of key with blank items dropped, or def when unset.
func List(key string, def []string) []string {
	v, ok := lookup(key)
	if !ok {
		return def
	}
	var out []string
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	if len(out) == 0 {
		return def
	}
	return out
}

// Loader collects parse errors so a service can report every bad variable at once:
//
//	var l config.Loader
//	timeout := l.Duration("SHUTDOWN_TIMEOUT", 10*time.Second)
//	if err := l.Err(); err != nil { ... }
type Loader struct {
	errs    []error
	env     string
	envRead bool
}

// String is config.String.
func (l *Loader) String(key, def string) string { return String(key, def) }

// List is config.List.
func (l *Loader) List(key string, def []string) []string { return List(key, def) }

// Int is config.Int, recording any error.
func (l *Loader) Int(key string, def int) int {
	v, err := Int(key, def)
	l.add(err)
	return v
}

// Float is config.Float, recording any error.
func (l *Loader) Float(key string, def float64) float64 {
	v, err := Float(key, def)
	l.add(err)
	return v
}

// Duration is config.Duration, recording any error.
func (l *Loader) Duration(key string, def time.Duration) time.Duration {
	v, err := Duration(key, def)
	l.add(err)
	return v
}

// Bool is config.Bool, recording any error.
func (l *Loader) Bool(key string, def bool) bool {
	v, err := Bool(key, def)
	l.add(err)
	return v
}

func (l *Loader) add(err error) {
	if err != nil {
		l.errs = append(l.errs, err)
	}
}

// Err returns all recorded errors joined, or nil.
func (l *Loader) Err() error { return errors.Join(l.errs...) }
