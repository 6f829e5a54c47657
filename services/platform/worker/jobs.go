package worker

import (
	"context"
	"log/slog"
	"time"
)

// JobLoop configures RunJobs.
type JobLoop struct {
	// Name prefixes the loop's log messages ("<Name>: claim failed").
	Name string
	// Concurrency is how many jobs run at the same time.
	Concurrency int
	// Poll is how long an idle loop, or one whose claim failed, waits
	// before it claims again.
	Poll time.Duration
	// Wake, when signalled, makes an idle loop look for work at once (work
	// stored by this process); other replicas find it by polling. Optional.
	Wake <-chan struct{}
	// Grace is how long running jobs get to finish once ctx ends, before
	// their context is cancelled.
	Grace time.Duration
	// Logger defaults to slog.Default().
	Logger *slog.Logger
}

// RunJobs claims jobs while a slot is free and processes each in its own
// goroutine, until ctx is cancelled. claim returns false when no job is
// due; it owns the queue's table, lease and locking (FOR UPDATE SKIP
// LOCKED), the loop only decides when to call it. Jobs run under their own
// context: on shutdown they get Grace to finish before it is cancelled
// (process must then hand the job back). RunJobs returns once every job has
// returned.
func RunJobs[J any](ctx context.Context, cfg JobLoop, claim func(context.Context) (J, bool, error), process func(context.Context, J)) {
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	done := make(chan struct{}, cfg.Concurrency)
	inFlight := 0
	// wait sleeps for d, a finished job or a wake-up; false when ctx ended.
	wait := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		case <-cfg.Wake:
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
		if inFlight >= cfg.Concurrency {
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
				log.Warn(cfg.Name+": claim failed", "error", err)
			}
			if !wait(cfg.Poll) {
				break
			}
			continue
		}
		if !ok {
			if !wait(cfg.Poll) {
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
	grace := time.NewTimer(cfg.Grace)
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
