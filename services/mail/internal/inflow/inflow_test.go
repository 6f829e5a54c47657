package inflow

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"
)

// backlog is the database's count, set by the test.
type backlog struct {
	n   atomic.Int64
	err atomic.Bool
}

func (b *backlog) count(context.Context) (int, error) {
	if b.err.Load() {
		return 0, errors.New("database away")
	}
	return int(b.n.Load()), nil
}

func newGate(t *testing.T, limit int, maxWait time.Duration) (*Gate, *backlog) {
	t.Helper()
	db := &backlog{}
	g := New(Config{Backlog: limit, MaxWait: maxWait, Count: db.count})
	g.refresh(context.Background())
	return g, db
}

type admission struct {
	done Done
	err  error
}

// admitAsync starts an Admit and waits until it is queued.
func admitAsync(t *testing.T, g *Gate) <-chan admission {
	t.Helper()
	g.mu.Lock()
	queued := len(g.queue)
	g.mu.Unlock()
	out := make(chan admission, 1)
	go func() {
		d, err := g.Admit(context.Background())
		out <- admission{d, err}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		g.mu.Lock()
		n := len(g.queue)
		g.mu.Unlock()
		if n > queued {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatal("Admit did not queue")
		}
		time.Sleep(time.Millisecond)
	}
}

func admitted(t *testing.T, ch <-chan admission) Done {
	t.Helper()
	select {
	case a := <-ch:
		if a.err != nil {
			t.Fatalf("Admit: %v", a.err)
		}
		return a.done
	case <-time.After(5 * time.Second):
		t.Fatal("not admitted")
		return nil
	}
}

func waiting(t *testing.T, ch <-chan admission) {
	t.Helper()
	select {
	case a := <-ch:
		t.Fatalf("admitted beyond the backlog (err %v)", a.err)
	default:
	}
}

func TestWaitersAreAdmittedOldestFirst(t *testing.T) {
	g, _ := newGate(t, 1, time.Minute)
	first, err := g.Admit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	second := admitAsync(t, g)
	third := admitAsync(t, g)
	waiting(t, second)
	first(false) // refused or reset: its place is free at once
	first(false) // a second call is ignored
	secondDone := admitted(t, second)
	waiting(t, third)
	secondDone(false)
	admitted(t, third)(false)
}

// A stored message stays in the backlog until the database count includes
// it (and then until it is answered), not only while its transaction runs.
func TestStoredMessagesCountUntilAnswered(t *testing.T) {
	g, db := newGate(t, 2, time.Minute)
	ctx := context.Background()
	a, _ := g.Admit(ctx)
	b, _ := g.Admit(ctx)
	a(true)
	c := admitAsync(t, g)
	waiting(t, c) // a is stored, b in transit: 2
	db.n.Store(1) // the database now counts a
	g.refresh(ctx)
	waiting(t, c)
	b(false) // b refused: room for c
	cDone := admitted(t, c)
	d := admitAsync(t, g)
	db.err.Store(true) // a failed read keeps the last count
	g.refresh(ctx)
	waiting(t, d)
	db.err.Store(false)
	db.n.Store(0) // a answered and replied
	g.refresh(ctx)
	admitted(t, d)(false)
	cDone(false)
}

func TestBusyAfterMaxWait(t *testing.T) {
	g, db := newGate(t, 1, 50*time.Millisecond)
	db.n.Store(1)
	g.refresh(context.Background())
	if _, err := g.Admit(context.Background()); !errors.Is(err, ErrBusy) {
		t.Fatalf("Admit on a full backlog: %v, want ErrBusy", err)
	}
	g.mu.Lock()
	queued := len(g.queue)
	g.mu.Unlock()
	if queued != 0 {
		t.Fatalf("a waiter that gave up is still queued (%d)", queued)
	}
	db.n.Store(0)
	g.refresh(context.Background())
	if g.inTransit != 0 {
		t.Fatalf("a waiter that gave up took a place: %d in transit", g.inTransit)
	}
}

func TestDisabled(t *testing.T) {
	g := New(Config{Count: func(context.Context) (int, error) { return 1 << 30, nil }})
	if g.Enabled() {
		t.Fatal("Backlog 0 must disable pacing")
	}
	done, err := g.Admit(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	done(true)
}

// At shutdown (Run's context ends) a waiting transaction is told to try
// again later at once rather than held until MaxWait.
func TestWaitersReleasedAtShutdown(t *testing.T) {
	db := &backlog{}
	db.n.Store(5)
	g := New(Config{Backlog: 1, MaxWait: time.Minute, Refresh: 10 * time.Millisecond, Count: db.count})
	ctx, cancel := context.WithCancel(context.Background())
	g.refresh(ctx) // the backlog is full before anyone asks
	ran := make(chan error, 1)
	go func() { ran <- g.Run(ctx) }()
	waiter := admitAsync(t, g)
	cancel()
	select {
	case a := <-waiter:
		if !errors.Is(a.err, ErrBusy) {
			t.Fatalf("waiter at shutdown: %v, want ErrBusy", a.err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("waiter still held after shutdown")
	}
	if err := <-ran; err != nil {
		t.Fatal(err)
	}
}
