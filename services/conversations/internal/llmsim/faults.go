package llmsim

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Faults is what one request asks the simulator to do wrong. Set by a model
// suffix ("agentic-sim+fail429x2+latency20ms", "agentic-sim:cut=5") or by
// headers (which win); see docs/llm.md.
type Faults struct {
	// LatencyPerToken is slept before each delta, per token of the delta.
	LatencyPerToken time.Duration
	// TimeToFirstToken is slept before the first delta.
	TimeToFirstToken time.Duration
	// FailStatus, when non-zero, is returned instead of an answer: always when
	// FailCount is 0, else for the first FailCount attempts of the same
	// request (same FailKey, by default the same body), then it succeeds.
	FailStatus int
	FailCount  int
	FailKey    string
	// CutAfter ≥ 0 cuts a stream once this many completion tokens were sent:
	// the connection is dropped without a finish reason, usage or [DONE].
	// -1: no cut.
	CutAfter int
	// RetryAfter, when set, is sent with failures (Retry-After, Retry-After-Ms).
	RetryAfter time.Duration
}

// Header names of the fault headers.
const (
	HeaderLatencyPerToken = "X-Sim-Latency-Per-Token"
	HeaderTTFT            = "X-Sim-Ttft"
	HeaderFail            = "X-Sim-Fail"
	HeaderFailCount       = "X-Sim-Fail-Count"
	HeaderFailKey         = "X-Sim-Fail-Key"
	HeaderCutAfter        = "X-Sim-Cut-After"
	HeaderRetryAfter      = "X-Sim-Retry-After"
)

// ParseModel splits a simulator model id into its base ("agentic-sim") and
// the faults of its options. Options follow the base after '+' or ':' and
// are separated by '+', ':' or ','; each is "key=value" or the compact
// "keyvalue": fail429, fail=500x3, cut5, latency20ms, ttft200ms,
// retryafter1s.
func ParseModel(model string) (base string, f Faults, err error) {
	f.CutAfter = -1
	if model == "" {
		return Model, f, nil
	}
	rest, ok := strings.CutPrefix(model, Model)
	if !ok || (rest != "" && !strings.ContainsRune("+:", rune(rest[0]))) {
		return "", f, fmt.Errorf("unknown model %q", model)
	}
	for _, opt := range strings.FieldsFunc(rest, func(r rune) bool { return r == '+' || r == ':' || r == ',' }) {
		key, value, hasEq := strings.Cut(opt, "=")
		if !hasEq {
			i := strings.IndexFunc(opt, func(r rune) bool { return !unicode.IsLetter(r) && r != '-' })
			if i < 0 {
				return "", f, fmt.Errorf("model option %q has no value", opt)
			}
			key, value = opt[:i], opt[i:]
		}
		if err := f.set(strings.ToLower(key), value); err != nil {
			return "", f, fmt.Errorf("model option %q: %w", opt, err)
		}
	}
	return Model, f, nil
}

func (f *Faults) set(key, value string) error {
	var err error
	switch key {
	case "latency", "latency-per-token":
		f.LatencyPerToken, err = parseDuration(value)
	case "ttft":
		f.TimeToFirstToken, err = parseDuration(value)
	case "fail":
		status, count, _ := strings.Cut(value, "x")
		if f.FailStatus, err = strconv.Atoi(status); err != nil || f.FailStatus < 400 || f.FailStatus > 599 {
			return fmt.Errorf("fail wants an HTTP error status (400-599), got %q", status)
		}
		if count != "" {
			if f.FailCount, err = strconv.Atoi(count); err != nil || f.FailCount < 0 {
				return fmt.Errorf("fail count %q is not a number", count)
			}
		}
	case "failcount", "fail-count":
		if f.FailCount, err = strconv.Atoi(value); err != nil || f.FailCount < 0 {
			return fmt.Errorf("fail count %q is not a number", value)
		}
	case "cut", "cut-after":
		if f.CutAfter, err = strconv.Atoi(value); err != nil || f.CutAfter < 0 {
			return fmt.Errorf("cut wants a token count, got %q", value)
		}
	case "retryafter", "retry-after":
		f.RetryAfter, err = parseDuration(value)
	default:
		return fmt.Errorf("unknown option %q (latency, ttft, fail, failcount, cut, retryafter)", key)
	}
	return err
}

// parseDuration reads a Go duration; a bare number is milliseconds.
func parseDuration(v string) (time.Duration, error) {
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Millisecond, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q is not a duration (e.g. 20ms)", v)
	}
	return d, nil
}

// applyHeaders overrides f with the request's X-Sim-* headers.
func (f *Faults) applyHeaders(h http.Header) error {
	for _, hv := range []struct{ header, key string }{
		{HeaderLatencyPerToken, "latency"},
		{HeaderTTFT, "ttft"},
		{HeaderFail, "fail"},
		{HeaderFailCount, "failcount"},
		{HeaderCutAfter, "cut"},
		{HeaderRetryAfter, "retryafter"},
	} {
		if v := strings.TrimSpace(h.Get(hv.header)); v != "" {
			if err := f.set(hv.key, v); err != nil {
				return fmt.Errorf("%s: %w", hv.header, err)
			}
		}
	}
	if v := h.Get(HeaderFailKey); v != "" {
		f.FailKey = v
	}
	return nil
}
