package inbox

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// Relay hands a message to the outgoing SMTP relay (relay.Client).
type Relay interface {
	// Send returns nil only once the relay accepted the message.
	Send(ctx context.Context, from string, to []string, raw []byte) error
}

// Defaults of SendConfig.
const (
	DefaultSendWorkers   = 16
	DefaultSendLease     = 2 * time.Minute
	DefaultSendTimeout   = time.Minute
	DefaultSendRetryBase = 5 * time.Second
	DefaultSendRetryMax  = 15 * time.Minute
	DefaultSendMaxAge    = 72 * time.Hour
)

// SendConfig configures the SendWorker.
type SendConfig struct {
	Store *Store
	// Queue is what is delivered (default: Store.Replies()); Name labels
	// the worker in logs ("send", "notify").
	Queue SendQueue
	Name  string
	Relay Relay
	// IsPermanent tells a final refusal of the relay (5xx) from a passing
	// failure (relay.IsPermanent).
	IsPermanent func(error) bool
	Concurrency int
	// Lease of a claimed reply; Timeout bounds one delivery (below the lease).
	Lease, Timeout      time.Duration
	Poll                time.Duration
	RetryBase, RetryMax time.Duration
	// MaxAge: a reply the relay did not take for this long is given up.
	MaxAge time.Duration
	Wake   <-chan struct{}
	Grace  time.Duration
	Logger *slog.Logger
	// Registerer receives mail_replies_total and mail_queue_depth.
	Registerer prometheus.Registerer
}

// Outcomes of one send job (metric label).
const (
	SendOutcomeSent     = "sent"
	SendOutcomeRetry    = "retry"
	SendOutcomeFailed   = "failed"
	SendOutcomeReleased = "released"
	SendOutcomeError    = "error"
)

// SendWorker delivers queued replies: at least once, and only once unless
// the process dies between the relay's acceptance and recording it (the
// retry then carries the same Message-ID, which mail clients deduplicate).
type SendWorker struct {
	cfg     SendConfig
	replies *prometheus.CounterVec
	depth   *prometheus.GaugeVec
	now     func() time.Time
	// sampleDepth: the reply worker samples mail_queue_depth.
	sampleDepth bool
}

// NewSendWorker returns a SendWorker.
func NewSendWorker(cfg SendConfig) (*SendWorker, error) {
	if cfg.Store == nil || cfg.Relay == nil {
		return nil, errors.New("inbox: send worker needs Store and Relay")
	}
	if cfg.Name == "" {
		cfg.Name = "send"
	}
	sampleDepth := cfg.Queue == nil
	if cfg.Queue == nil {
		cfg.Queue = cfg.Store.Replies()
	}
	if cfg.IsPermanent == nil {
		cfg.IsPermanent = func(error) bool { return false }
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultSendWorkers
	}
	def(&cfg.Lease, DefaultSendLease)
	def(&cfg.Timeout, DefaultSendTimeout)
	if cfg.Timeout > cfg.Lease*3/4 {
		cfg.Timeout = cfg.Lease * 3 / 4
	}
	def(&cfg.Poll, DefaultPoll)
	def(&cfg.RetryBase, DefaultSendRetryBase)
	def(&cfg.RetryMax, DefaultSendRetryMax)
	def(&cfg.MaxAge, DefaultSendMaxAge)
	def(&cfg.Grace, DefaultGrace)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	w := &SendWorker{cfg: cfg, now: time.Now, sampleDepth: sampleDepth}
	w.replies = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mail_replies_total",
		Help: "Reply deliveries to the SMTP relay by outcome (sent, retry, failed, released, error) and kind.",
	}, []string{"outcome", "kind"})
	w.depth = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "mail_queue_depth",
		Help: "Due, unleased jobs by queue (answers, replies), sampled by the send worker.",
	}, []string{"queue"})
	if cfg.Registerer != nil {
		w.replies = observability.Register(cfg.Registerer, w.replies)
		w.depth = observability.Register(cfg.Registerer, w.depth)
	}
	return w, nil
}

// Run delivers until ctx is cancelled.
func (w *SendWorker) Run(ctx context.Context) error {
	w.cfg.Logger.Info(w.cfg.Name+" worker started", "concurrency", w.cfg.Concurrency)
	if w.sampleDepth {
		go w.sample(ctx)
	}
	worker.RunJobs(ctx, worker.JobLoop{Name: w.cfg.Name, Concurrency: w.cfg.Concurrency, Poll: w.cfg.Poll, Wake: w.cfg.Wake,
		Grace: w.cfg.Grace, Logger: w.cfg.Logger},
		func(ctx context.Context) (Reply, bool, error) { return w.cfg.Queue.Claim(ctx, w.cfg.Lease) },
		func(ctx context.Context, r Reply) {
			w.replies.WithLabelValues(w.send(ctx, r), r.Kind).Inc()
		})
	return nil
}

func (w *SendWorker) sample(ctx context.Context) {
	worker.Every(ctx, 5*time.Second, func(ctx context.Context) {
		if m, r, err := w.cfg.Store.Depth(ctx); err == nil {
			w.depth.WithLabelValues("answers").Set(float64(m))
			w.depth.WithLabelValues("replies").Set(float64(r))
		}
	})
}

func (w *SendWorker) send(ctx context.Context, r Reply) string {
	log := w.cfg.Logger.With("worker", w.cfg.Name, "reply_id", r.ID, "message_id", r.MessageID, "kind", r.Kind, "attempt", r.Attempts)
	rec := context.WithoutCancel(ctx)
	sctx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	err := w.cfg.Relay.Send(sctx, r.MailFrom, []string{r.RcptTo}, r.Raw)
	cancel()
	switch {
	case err == nil:
		// The relay has it: record that first, whatever else happens.
		if err := w.cfg.Queue.MarkSent(rec, r); err != nil {
			log.Error("reply sent but not recorded; it may be sent again", "error", err)
			return SendOutcomeError
		}
		log.Info("reply sent")
		return SendOutcomeSent
	case w.cfg.IsPermanent(err):
		log.Error("relay refused the reply for good", "error", err)
		if err := w.cfg.Queue.Fail(rec, r, err.Error()); err != nil {
			log.Error("recording the failure failed", "error", err)
			return SendOutcomeError
		}
		return SendOutcomeFailed
	case ctx.Err() != nil:
		if err := w.cfg.Queue.Release(rec, r); err != nil {
			log.Warn("release failed; the lease will expire", "error", err)
		}
		return SendOutcomeReleased
	case w.now().Sub(r.CreatedAt) > w.cfg.MaxAge:
		log.Error("giving up on a reply the relay has not taken for too long", "error", err)
		if err := w.cfg.Queue.Fail(rec, r, err.Error()); err != nil {
			return SendOutcomeError
		}
		return SendOutcomeFailed
	default:
		delay := backoff(r.Attempts, w.cfg.RetryBase, w.cfg.RetryMax, rand.Float64())
		log.Warn("relay unavailable; retrying", "error", err, "in", delay.String())
		if err := w.cfg.Queue.Retry(rec, r, err.Error(), w.now().Add(delay)); err != nil && !errors.Is(err, ErrLostLease) {
			log.Error("recording the retry failed", "error", err)
			return SendOutcomeError
		}
		return SendOutcomeRetry
	}
}
