// Package logtest captures what a service's logger writes, for tests that
// assert on log lines while the code under test is still running.
package logtest

import (
	"bytes"
	"sync"
)

// Buffer is an io.Writer that many goroutines (a server's handlers, a
// consumer's reader) may write to while a test reads it.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// String is everything written so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
