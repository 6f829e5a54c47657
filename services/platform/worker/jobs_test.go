package worker_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/logtest"
	"github.com/agentic-app/agentic/services/platform/testwait"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// queue is an in-memory job table: claim takes the oldest job.
type queue struct {
	mu     sync.Mutex
	jobs   []int
	claims int
	fail   int // how many claims fail before one succeeds
}

func (q *queue) add(jobs ...int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.jobs = append(q.jobs, jobs...)
}

func (q *queue) claim(context.Context) (int, bool, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.claims++
	if q.fail > 0 {
		q.fail--
		return 0, false, errors.New("database away")
	}
	if len(q.jobs) == 0 {
		return 0, false, nil
	}
	j := q.jobs[0]
	q.jobs = q.jobs[1:]
	return j, true, nil
}

func (q *queue) claimCount() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.claims
}

func TestRunJobsRunsAtMostConcurrencyJobs(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	q := &queue{}
	for i := range 20 {
		q.add(i)
	}
	var active, maxActive, processed atomic.Int32
	gate := make(chan struct{})
	done := start(func() {
		worker.RunJobs(ctx, worker.JobLoop{Name: "test", Concurrency: 3, Poll: time.Hour, Grace: time.Hour}, q.claim,
			func(context.Context, int) {
				n := active.Add(1)
				for m := maxActive.Load(); n > m && !maxActive.CompareAndSwap(m, n); m = maxActive.Load() {
				}
				<-gate
				active.Add(-1)
				processed.Add(1)
			})
	})
	testwait.Until(t, "three running jobs", func() bool { return active.Load() == 3 })
	if n := q.claimCount(); n != 3 {
		t.Fatalf("claims while every slot is busy = %d, want 3", n)
	}
	close(gate)
	testwait.Until(t, "every job processed", func() bool { return processed.Load() == 20 })
	cancel()
	waitReturn(t, done, "RunJobs")
	if m := maxActive.Load(); m != 3 {
		t.Fatalf("most jobs at once = %d, want 3", m)
	}
}

func TestRunJobsWakesAnIdleLoop(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	q := &queue{}
	wake := make(chan struct{}, 1)
	got := make(chan int, 1)
	// An hour's poll: only the wake-up can bring the job in time.
	done := start(func() {
		worker.RunJobs(ctx, worker.JobLoop{Name: "test", Concurrency: 1, Poll: time.Hour, Wake: wake, Grace: time.Hour}, q.claim,
			func(_ context.Context, j int) { got <- j })
	})
	testwait.Until(t, "an empty claim", func() bool { return q.claimCount() >= 1 })
	q.add(7)
	wake <- struct{}{}
	select {
	case j := <-got:
		if j != 7 {
			t.Fatalf("job = %d, want 7", j)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the woken loop did not run the job")
	}
	cancel()
	waitReturn(t, done, "RunJobs")
}

func TestRunJobsLogsAFailedClaimAndRetries(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	q := &queue{fail: 2}
	q.add(1)
	var logs logtest.Buffer
	got := make(chan int, 1)
	done := start(func() {
		worker.RunJobs(ctx, worker.JobLoop{Name: "sync", Concurrency: 1, Poll: time.Millisecond, Grace: time.Hour,
			Logger: slog.New(slog.NewTextHandler(&logs, nil))}, q.claim,
			func(_ context.Context, j int) { got <- j })
	})
	select {
	case <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("the job was not run after the claim recovered")
	}
	cancel()
	waitReturn(t, done, "RunJobs")
	if n := strings.Count(logs.String(), `msg="sync: claim failed" error="database away"`); n != 2 {
		t.Fatalf("claim failures logged %d times, want 2:\n%s", n, logs.String())
	}
}

func TestRunJobsLetsRunningJobsFinishOnShutdown(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	q := &queue{}
	q.add(1)
	started, finish := make(chan struct{}), make(chan struct{})
	var jobErr error
	var returned atomic.Bool
	done := start(func() {
		worker.RunJobs(ctx, worker.JobLoop{Name: "test", Concurrency: 1, Poll: time.Hour, Grace: time.Hour}, q.claim,
			func(jctx context.Context, _ int) {
				close(started)
				<-finish
				jobErr = jctx.Err()
				returned.Store(true)
			})
	})
	<-started
	cancel()
	// Cannot fail a loop that waits for its jobs, whatever the machine's speed.
	select {
	case <-done:
		t.Fatal("RunJobs returned while a job was running within its grace")
	case <-time.After(20 * time.Millisecond):
	}
	close(finish)
	waitReturn(t, done, "RunJobs")
	if !returned.Load() {
		t.Fatal("RunJobs returned before the job")
	}
	if jobErr != nil {
		t.Fatalf("the job's context ended with the loop's: %v", jobErr)
	}
}

func TestRunJobsCancelsJobsAfterGrace(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	q := &queue{}
	q.add(1)
	started := make(chan struct{})
	var jobErr error
	done := start(func() {
		worker.RunJobs(ctx, worker.JobLoop{Name: "test", Concurrency: 1, Poll: time.Hour, Grace: time.Millisecond}, q.claim,
			func(jctx context.Context, _ int) {
				close(started)
				<-jctx.Done() // a job that only stops when told to
				jobErr = jctx.Err()
			})
	})
	<-started
	cancel()
	waitReturn(t, done, "RunJobs")
	if !errors.Is(jobErr, context.Canceled) {
		t.Fatalf("job context error = %v, want context.Canceled", jobErr)
	}
}
