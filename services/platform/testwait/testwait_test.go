package testwait_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/testwait"
)

// fatalTB records Fatalf and stops its goroutine as testing.T does.
type fatalTB struct {
	testing.TB
	msg string
}

func (f *fatalTB) Helper() {}

func (f *fatalTB) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func TestUntilReturnsOnceCondHolds(t *testing.T) {
	calls := 0
	testwait.Until(t, "the third call", func() bool { calls++; return calls == 3 }, testwait.Every(time.Millisecond))
	if calls != 3 {
		t.Fatalf("cond called %d times, want 3", calls)
	}
}

func TestUntilFailsAfterTheTimeout(t *testing.T) {
	f := &fatalTB{TB: t}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		testwait.Until(f, "nothing", func() bool { return false }, testwait.Timeout(50*time.Millisecond), testwait.Every(5*time.Millisecond))
	}()
	<-done
	if f.msg != "timed out waiting for nothing" {
		t.Fatalf("Fatalf message %q", f.msg)
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 5*time.Second {
		t.Fatalf("failed after %v, want about 50ms", d)
	}
}
