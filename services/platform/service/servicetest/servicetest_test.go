package servicetest

import (
	"context"
	"errors"
	"net"
	"testing"
)

// fakeT records failures instead of ending the test, so Start's failure paths
// can be checked.
type fakeT struct {
	testing.TB
	failed   bool
	cleanups []func()
}

func (f *fakeT) Helper()               {}
func (f *fakeT) Fatalf(string, ...any) { f.failed = true; panic(fatal{}) }
func (f *fakeT) Fatal(...any)          { f.failed = true; panic(fatal{}) }
func (f *fakeT) Errorf(string, ...any) { f.failed = true }
func (f *fakeT) Error(...any)          { f.failed = true }
func (f *fakeT) Cleanup(fn func())     { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) runCleanups() {
	for _, fn := range f.cleanups {
		fn()
	}
}

type fatal struct{}

func startFake(f *fakeT, run func(context.Context, Ready) error) (r Running) {
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(fatal); !ok {
				panic(p)
			}
		}
	}()
	return Start(f, run)
}

func TestStartReturnsTheAddressesAndStopsAtTheEnd(t *testing.T) {
	h := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8101}
	g := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9101}
	stopped := make(chan struct{})
	f := &fakeT{TB: t}
	r := startFake(f, func(ctx context.Context, ready Ready) error {
		ready(h, g)
		<-ctx.Done()
		close(stopped)
		return nil
	})
	if r.HTTP != "http://127.0.0.1:8101" || r.GRPC != "127.0.0.1:9101" {
		t.Fatalf("addresses %+v", r)
	}
	select {
	case <-stopped:
		t.Fatal("stopped before the test ended")
	default:
	}
	f.runCleanups()
	<-stopped
	if f.failed {
		t.Fatal("a clean start and stop failed the test")
	}
}

func TestStartFailsWhenRunExitsBeforeListening(t *testing.T) {
	f := &fakeT{TB: t}
	startFake(f, func(context.Context, Ready) error { return errors.New("bad config") })
	if !f.failed {
		t.Fatal("an early exit did not fail the test")
	}
}

func TestStartFailsWhenRunReturnsAnErrorAtShutdown(t *testing.T) {
	f := &fakeT{TB: t}
	startFake(f, func(ctx context.Context, ready Ready) error {
		ready(nil, &net.TCPAddr{Port: 1})
		<-ctx.Done()
		return errors.New("did not drain")
	})
	if f.failed {
		t.Fatal("failed before shutdown")
	}
	f.runCleanups()
	if !f.failed {
		t.Fatal("an error at shutdown did not fail the test")
	}
}
