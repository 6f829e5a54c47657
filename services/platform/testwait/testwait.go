// Package testwait lets tests wait for what a service does in the
// background (a consumer applying an event, a relay publishing a row, a
// scheduler acting) without sleeping for a fixed time.
package testwait

import (
	"testing"
	"time"
)

// Option changes how long or how often Until polls.
type Option func(*polling)

type polling struct{ timeout, every time.Duration }

// Timeout is how long Until polls before it fails the test (default 10 s).
func Timeout(d time.Duration) Option { return func(p *polling) { p.timeout = d } }

// Every is how long Until sleeps between two checks (default 20 ms).
func Every(d time.Duration) Option { return func(p *polling) { p.every = d } }

// Until calls cond until it returns true and fails t with "timed out waiting
// for <what>" when it still returns false after the timeout. Like t.Fatal,
// it must be called from the goroutine running the test.
func Until(t testing.TB, what string, cond func() bool, opts ...Option) {
	t.Helper()
	p := polling{timeout: 10 * time.Second, every: 20 * time.Millisecond}
	for _, o := range opts {
		o(&p)
	}
	deadline := time.Now().Add(p.timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(p.every)
	}
}
