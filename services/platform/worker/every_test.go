package worker_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/testwait"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// start runs loop in a goroutine and returns a channel closed when it returns.
func start(loop func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		loop()
	}()
	return done
}

func waitReturn(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not return", what)
	}
}

func TestEveryRunsAtOnceThenEachInterval(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var rounds atomic.Int32
	// An hour: only the round run at once can be seen.
	done := start(func() { worker.Every(ctx, time.Hour, func(context.Context) { rounds.Add(1) }) })
	testwait.Until(t, "the first round", func() bool { return rounds.Load() == 1 })
	cancel()
	waitReturn(t, done, "Every")
	if n := rounds.Load(); n != 1 {
		t.Fatalf("rounds = %d, want 1", n)
	}

	ctx, cancel = context.WithCancel(t.Context())
	defer cancel()
	rounds.Store(0)
	done = start(func() { worker.Every(ctx, time.Millisecond, func(context.Context) { rounds.Add(1) }) })
	testwait.Until(t, "rounds on the ticks", func() bool { return rounds.Load() >= 3 })
	cancel()
	waitReturn(t, done, "Every")
}

func TestEveryStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	var roundCtx context.Context
	done := start(func() {
		worker.Every(ctx, time.Hour, func(c context.Context) { roundCtx = c })
	})
	cancel()
	waitReturn(t, done, "Every")
	if roundCtx != nil && roundCtx.Err() == nil {
		t.Fatal("the round's context outlived the loop's")
	}
}

func TestDelayedWaitsOneIntervalBeforeTheFirstRound(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var rounds atomic.Int32
	events := make(chan int)
	handled := make(chan int32)
	// Without Delayed the first round runs before the loop takes any event.
	done := start(func() {
		worker.EveryAndOn(ctx, time.Hour, func(context.Context) { rounds.Add(1) }, events,
			func(context.Context, int) { handled <- rounds.Load() }, worker.Delayed())
	})
	events <- 1
	if n := <-handled; n != 0 {
		t.Fatalf("rounds before the first interval = %d, want 0", n)
	}
	cancel()
	waitReturn(t, done, "EveryAndOn")
}

func TestEveryAndOnHandlesEventsBetweenRounds(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var rounds, active, overlaps atomic.Int32
	enter := func() {
		if active.Add(1) > 1 {
			overlaps.Add(1)
		}
		time.Sleep(100 * time.Microsecond) // widen any overlap
		active.Add(-1)
	}
	events := make(chan string)
	var got []string // written by on only, read after the loop returned
	done := start(func() {
		worker.EveryAndOn(ctx, time.Millisecond,
			func(context.Context) { rounds.Add(1); enter() },
			events,
			func(_ context.Context, id string) { got = append(got, id); enter() })
	})
	for _, id := range []string{"a", "b", "c"} {
		events <- id
	}
	testwait.Until(t, "rounds on the ticks", func() bool { return rounds.Load() >= 3 })
	cancel()
	waitReturn(t, done, "EveryAndOn")
	if len(got) != 3 || got[0] != "a" || got[1] != "b" || got[2] != "c" {
		t.Fatalf("events handled = %v, want [a b c]", got)
	}
	if n := overlaps.Load(); n != 0 {
		t.Fatalf("a round and an event ran at the same time %d times", n)
	}
}
