// Package inflow paces the inbox to the rate at which the agents answer, as
// Postfix's in_flow_delay paces its queue to its delivery rate: while the
// backlog of accepted messages waiting for their answer or their reply is at
// its bound, a new SMTP transaction waits at MAIL FROM until the backlog has
// room (first come, first admitted), and after MaxWait is told to try again
// later (451 4.3.2), which every sending server does.
//
// Why: every accepted message is a promise of a reply. An inbox that accepts
// a burst faster than the answering path answers turns the burst into a
// queue whose tail waits for the whole drain (a 1,000-message burst: 13 s
// from 250 OK to the reply). Held at MAIL FROM instead, the sending server
// waits (RFC 5321 gives MAIL a 5-minute timeout), nothing is stored that is
// not about to be answered, and once a message is accepted its reply comes
// within the backlog's drain time. What is measured is the backlog
// (PostgreSQL, shared by every replica), not the rate: the bound adapts to
// however many answers a second the deployment manages.
//
// Messages and replies waiting for a retry (the model or the relay is down)
// are not in the backlog: an outage backs them off, and the inbox keeps
// accepting and storing mail durably, as it did before.
package inflow

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// Defaults (MAIL_INFLOW_BACKLOG, MAIL_INFLOW_MAX_WAIT).
const (
	// DefaultBacklog: at the ~75 answers a second of the 2-core dev machine,
	// 64 waiting messages drain in under a second.
	DefaultBacklog = 64
	// DefaultMaxWait is well inside RFC 5321's 5-minute MAIL timeout.
	DefaultMaxWait = 60 * time.Second
	// DefaultRefresh is how often the backlog is read from the database.
	DefaultRefresh = 100 * time.Millisecond
)

// ErrBusy: the backlog stayed full for MaxWait; the sender should try again later.
var ErrBusy = errors.New("inflow: too many messages waiting to be answered")

// Config configures New.
type Config struct {
	// Backlog is the bound on accepted messages waiting for their answer or
	// reply, over all replicas; 0 or less disables pacing.
	Backlog int
	MaxWait time.Duration
	Refresh time.Duration
	// Count reads the backlog (due messages + due replies).
	Count      func(ctx context.Context) (int, error)
	Logger     *slog.Logger
	Registerer prometheus.Registerer
}

// Gate admits SMTP transactions while the backlog has room.
type Gate struct {
	cfg Config

	mu sync.Mutex
	// counted is the backlog last read; inTransit the transactions admitted
	// here and not yet ended; stored those that stored a message since the
	// last read began (not in counted yet).
	counted, inTransit, stored int
	queue                      []chan struct{}
	// stopped is closed when Run ends (shutdown): waiters are told to try
	// again later instead of holding their sessions open.
	stopped  chan struct{}
	stopOnce sync.Once

	waits   prometheus.Histogram
	backlog prometheus.Gauge
	refused prometheus.Counter
	errs    prometheus.Counter
}

// New returns a Gate; call Run to keep its backlog current.
func New(cfg Config) *Gate {
	if cfg.MaxWait <= 0 {
		cfg.MaxWait = DefaultMaxWait
	}
	if cfg.Refresh <= 0 {
		cfg.Refresh = DefaultRefresh
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	g := &Gate{
		cfg:     cfg,
		stopped: make(chan struct{}),
		waits: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "mail_inflow_wait_seconds", Help: "How long SMTP transactions waited at MAIL FROM for room in the backlog.",
			Buckets: []float64{.001, .01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60},
		}),
		backlog: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "mail_inflow_backlog", Help: "Accepted messages waiting for their answer or reply (last read), plus transactions admitted here.",
		}),
		refused: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mail_inflow_refused_total", Help: "Transactions told to try again later (451 4.3.2) after waiting the longest allowed.",
		}),
		errs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "mail_inflow_count_errors_total", Help: "Backlog reads that failed (the last value is kept).",
		}),
	}
	if cfg.Registerer != nil {
		g.waits = observability.Register(cfg.Registerer, g.waits)
		g.backlog = observability.Register(cfg.Registerer, g.backlog)
		g.refused = observability.Register(cfg.Registerer, g.refused)
		g.errs = observability.Register(cfg.Registerer, g.errs)
	}
	return g
}

// Enabled reports whether the gate paces anything.
func (g *Gate) Enabled() bool { return g != nil && g.cfg.Backlog > 0 }

// Done ends an admitted transaction; stored says whether it stored a
// message (which then waits in the backlog). Calls after the first are
// ignored.
type Done func(stored bool)

// Admit waits until the backlog has room for one more message and returns
// the function that ends the transaction (call it once the message is stored
// or refused, or the session resets). It returns ErrBusy after MaxWait, or
// ctx's error.
func (g *Gate) Admit(ctx context.Context) (Done, error) {
	if !g.Enabled() {
		return func(bool) {}, nil
	}
	start := time.Now()
	g.mu.Lock()
	if len(g.queue) == 0 && g.room() {
		g.inTransit++
		g.mu.Unlock()
		g.waits.Observe(0)
		return g.releaser(), nil
	}
	admitted := make(chan struct{})
	g.queue = append(g.queue, admitted)
	g.mu.Unlock()

	timer := time.NewTimer(g.cfg.MaxWait)
	defer timer.Stop()
	var err error
	select {
	case <-admitted:
		g.waits.Observe(time.Since(start).Seconds())
		return g.releaser(), nil
	case <-timer.C:
		err = ErrBusy
	case <-g.stopped:
		err = ErrBusy
	case <-ctx.Done():
		err = ctx.Err()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, ch := range g.queue {
		if ch == admitted {
			g.queue = append(g.queue[:i], g.queue[i+1:]...)
			if errors.Is(err, ErrBusy) {
				g.refused.Inc()
			}
			return nil, err
		}
	}
	// Admitted while giving up: take the place rather than leak it.
	g.waits.Observe(time.Since(start).Seconds())
	return g.releaser(), nil
}

func (g *Gate) room() bool { return g.counted+g.inTransit+g.stored < g.cfg.Backlog }

func (g *Gate) releaser() Done {
	var once sync.Once
	return func(stored bool) {
		once.Do(func() {
			g.mu.Lock()
			g.inTransit--
			if stored {
				g.stored++
			}
			g.admitQueued()
			g.mu.Unlock()
		})
	}
}

// admitQueued lets waiters in, oldest first, while there is room (g.mu held).
func (g *Gate) admitQueued() {
	for len(g.queue) > 0 && g.room() {
		close(g.queue[0])
		g.queue = g.queue[1:]
		g.inTransit++
	}
	g.backlog.Set(float64(g.counted + g.inTransit + g.stored))
}

// Run reads the backlog every Refresh until ctx ends; then waiting
// transactions are told to try again later.
func (g *Gate) Run(ctx context.Context) error {
	if !g.Enabled() {
		<-ctx.Done()
		return nil
	}
	defer g.stopOnce.Do(func() { close(g.stopped) })
	worker.Every(ctx, g.cfg.Refresh, g.refresh)
	return nil
}

func (g *Gate) refresh(ctx context.Context) {
	g.mu.Lock()
	before := g.stored // stored before the read began: the read counts them
	g.mu.Unlock()
	cctx, cancel := context.WithTimeout(ctx, max(g.cfg.Refresh, time.Second))
	n, err := g.cfg.Count(cctx)
	cancel()
	if err != nil {
		if ctx.Err() == nil {
			// The database is what stores the message too: if it is away,
			// DATA answers 451 anyway. Keep the last value.
			g.errs.Inc()
			g.cfg.Logger.Warn("inflow: could not read the backlog", "error", err)
		}
		return
	}
	g.mu.Lock()
	g.counted = n
	g.stored -= before
	g.admitQueued()
	g.mu.Unlock()
}
