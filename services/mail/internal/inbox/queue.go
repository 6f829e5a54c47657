package inbox

import (
	"context"
	"log/slog"
	"time"
)

// loopConfig configures runLoop.
type loopConfig struct {
	name        string
	concurrency int
	poll        time.Duration
	// wake, when signalled, makes an idle loop look for work at once
	// (work stored by this process); other replicas find it by polling.
	wake  <-chan struct{}
	grace time.Duration
	log   *slog.Logger
}

// runLoop claims jobs while a slot is free and processes each in its own
// goroutine, until ctx is cancelled. Jobs run under their own context: on
// shutdown they get grace to finish before it is cancelled (process must
// then hand the job back).
func runLoop[J any](ctx context.Context, cfg loopConfig, claim func(context.Context) (J, bool, error), process func(context.Context, J)) {
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	done := make(chan struct{}, cfg.concurrency)
	inFlight := 0
	// wait sleeps for d, a finished job or a wake-up; false when ctx ended.
	wait := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		case <-cfg.wake:
		case <-done:
			inFlight--
		}
		return true
	}
	for ctx.Err() == nil {
		// Collect finished jobs without blocking.
		for drained := false; !drained; {
			select {
			case <-done:
				inFlight--
			default:
				drained = true
			}
		}
		if inFlight >= cfg.concurrency {
			select {
			case <-ctx.Done():
			case <-done:
				inFlight--
			}
			continue
		}
		j, ok, err := claim(ctx)
		if err != nil {
			if ctx.Err() == nil {
				cfg.log.Warn(cfg.name+": claim failed", "error", err)
			}
			if !wait(cfg.poll) {
				break
			}
			continue
		}
		if !ok {
			if !wait(cfg.poll) {
				break
			}
			continue
		}
		inFlight++
		go func() {
			defer func() { done <- struct{}{} }()
			process(jobCtx, j)
		}()
	}
	grace := time.NewTimer(cfg.grace)
	defer grace.Stop()
	for inFlight > 0 {
		select {
		case <-done:
			inFlight--
		case <-grace.C:
			cancelJobs()
		}
	}
}

// nudge signals ch without blocking (a pending signal is enough).
func nudge(ch chan<- struct{}) {
	if ch == nil {
		return
	}
	select {
	case ch <- struct{}{}:
	default:
	}
}

// Waker is a wake-up signal between the parts of one process.
type Waker chan struct{}

// NewWaker returns a Waker.
func NewWaker() Waker { return make(Waker, 1) }

// Wake signals w without blocking.
func (w Waker) Wake() { nudge(w) }
