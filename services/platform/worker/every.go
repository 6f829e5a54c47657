// Package worker holds the control flow of a service's background loops: a
// round run every interval (Every, EveryAndOn) and a durable job queue
// drained by a bounded number of goroutines (RunJobs). What a round or a job
// does, and the SQL that claims a job, stays with the service that owns the
// tables.
package worker

import (
	"context"
	"time"
)

// Option changes how Every and EveryAndOn schedule their rounds.
type Option func(*schedule)

type schedule struct{ delayed bool }

// Delayed makes the first round wait one interval instead of running at
// once (for a round that only samples what the loop's owner is doing).
func Delayed() Option { return func(s *schedule) { s.delayed = true } }

// Every runs round at once and then every interval (a positive duration)
// until ctx ends. Rounds never overlap: a round slower than interval is
// followed by the next one at once, and the ticks missed meanwhile are
// dropped. round reports its own failures; the loop never stops on one.
func Every(ctx context.Context, interval time.Duration, round func(context.Context), opts ...Option) {
	EveryAndOn[struct{}](ctx, interval, round, nil, nil, opts...)
}

// EveryAndOn is Every for a loop that is also handed work between rounds:
// each value received from events is passed to on, in the loop's goroutine,
// so on and round never run at the same time. Events do not move the next
// round. A nil events channel is never ready.
func EveryAndOn[T any](ctx context.Context, interval time.Duration, round func(context.Context), events <-chan T, on func(context.Context, T), opts ...Option) {
	var s schedule
	for _, o := range opts {
		o(&s)
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	if !s.delayed {
		round(ctx)
	}
	for {
		select {
		case <-ctx.Done():
			return
		case v := <-events:
			on(ctx, v)
		case <-t.C:
			round(ctx)
		}
	}
}
