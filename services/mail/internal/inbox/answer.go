package inbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message/mail"
	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/mail/internal/compose"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// Defaults of AnswerConfig.
const (
	DefaultHourlyLimit   = 30
	DefaultAnswerWorkers = 8
	DefaultAnswerLease   = 5 * time.Minute
	DefaultAnswerTimeout = 3 * time.Minute
	DefaultPoll          = time.Second
	DefaultRetryBase     = 5 * time.Second
	DefaultRetryMax      = 10 * time.Minute
	DefaultModelRetries  = 4
	DefaultMaxAge        = 24 * time.Hour
	DefaultGrace         = 5 * time.Second
)

// AnswerConfig configures the AnswerWorker.
type AnswerConfig struct {
	Store    *Store
	Answerer Answerer
	// HourlyLimit is the answers per sender per hour (MAIL_SENDER_HOURLY_LIMIT).
	HourlyLimit int
	// RateWindow is the limit's window (default one hour; tests shorten it).
	RateWindow time.Duration
	// Concurrency: answers asked at once (MAIL_ANSWER_CONCURRENCY).
	Concurrency int
	// Lease: a claimed message belongs to its worker this long; Timeout
	// bounds one Answer call (kept below the lease).
	Lease, Timeout time.Duration
	// Poll: how often an idle worker looks for due messages.
	Poll time.Duration
	// RetryBase, RetryMax: back-off of temporary failures.
	RetryBase, RetryMax time.Duration
	// ModelRetries: after this many "model unavailable" answers the sender
	// gets the "cannot answer" reply.
	ModelRetries int
	// MaxAge: a message the conversations service could not answer for this
	// long gets the "cannot answer" reply.
	MaxAge time.Duration
	// Wake wakes the worker (messages stored by this process); Replied is
	// woken when a reply is queued.
	Wake    <-chan struct{}
	Replied chan<- struct{}
	Grace   time.Duration
	Logger  *slog.Logger
	// Registerer receives mail_answers_total (default: not registered).
	Registerer prometheus.Registerer
}

// Outcomes of one answer job (metric label).
const (
	AnswerOutcomeAnswered  = "answered"
	AnswerOutcomeRefused   = "refused"
	AnswerOutcomeRetry     = "retry"
	AnswerOutcomeLostLease = "lost_lease"
	AnswerOutcomeReleased  = "released"
	AnswerOutcomeError     = "error"
)

// AnswerWorker answers stored messages.
type AnswerWorker struct {
	cfg     AnswerConfig
	answers *prometheus.CounterVec
	now     func() time.Time
}

// NewAnswerWorker returns an AnswerWorker.
func NewAnswerWorker(cfg AnswerConfig) (*AnswerWorker, error) {
	if cfg.Store == nil || cfg.Answerer == nil {
		return nil, errors.New("inbox: answer worker needs Store and Answerer")
	}
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	if cfg.HourlyLimit <= 0 {
		cfg.HourlyLimit = DefaultHourlyLimit
	}
	def(&cfg.RateWindow, time.Hour)
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultAnswerWorkers
	}
	def(&cfg.Lease, DefaultAnswerLease)
	def(&cfg.Timeout, DefaultAnswerTimeout)
	if cfg.Timeout > cfg.Lease*3/4 {
		cfg.Timeout = cfg.Lease * 3 / 4 // an answer never outlives its lease
	}
	def(&cfg.Poll, DefaultPoll)
	def(&cfg.RetryBase, DefaultRetryBase)
	def(&cfg.RetryMax, DefaultRetryMax)
	if cfg.ModelRetries <= 0 {
		cfg.ModelRetries = DefaultModelRetries
	}
	def(&cfg.MaxAge, DefaultMaxAge)
	def(&cfg.Grace, DefaultGrace)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	w := &AnswerWorker{cfg: cfg, now: time.Now}
	w.answers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mail_answers_total",
		Help: "Answer jobs of inbound messages by outcome (answered, refused, retry, lost_lease, released, error) and reason.",
	}, []string{"outcome", "reason"})
	if cfg.Registerer != nil {
		w.answers = observability.Register(cfg.Registerer, w.answers)
	}
	return w, nil
}

// Run answers until ctx is cancelled.
func (w *AnswerWorker) Run(ctx context.Context) error {
	w.cfg.Logger.Info("answer worker started", "concurrency", w.cfg.Concurrency, "hourly_limit", w.cfg.HourlyLimit)
	worker.RunJobs(ctx, worker.JobLoop{Name: "answer", Concurrency: w.cfg.Concurrency, Poll: w.cfg.Poll, Wake: w.cfg.Wake,
		Grace: w.cfg.Grace, Logger: w.cfg.Logger},
		func(ctx context.Context) (Message, bool, error) { return w.cfg.Store.ClaimMessage(ctx, w.cfg.Lease) },
		w.process)
	return nil
}

func (w *AnswerWorker) process(ctx context.Context, m Message) {
	outcome, reason := w.run(ctx, m)
	w.answers.WithLabelValues(outcome, reason).Inc()
}

func (w *AnswerWorker) run(ctx context.Context, m Message) (outcome, reason string) {
	log := w.cfg.Logger.With("message_id", m.ID, "agent_id", m.AgentID, "attempt", m.Attempts)
	store := w.cfg.Store
	// Results are recorded even when shutdown cancelled ctx meanwhile.
	rec := context.WithoutCancel(ctx)
	finish := func(err error, outcome, reason string) (string, string) {
		switch {
		case errors.Is(err, ErrLostLease):
			log.Warn("answer: lease lost; another worker has the message")
			return AnswerOutcomeLostLease, reason
		case err != nil:
			log.Error("answer: recording the outcome failed; the message will be retried", "error", err)
			return AnswerOutcomeError, reason
		}
		return outcome, reason
	}
	refuse := func(reason, kind, text string) (string, string) {
		var r *NewReply
		if kind != "" {
			nr, err := w.reply(m, kind, Answer{Markdown: text})
			if err != nil {
				return finish(err, AnswerOutcomeError, reason)
			}
			r = &nr
		}
		err := store.FinishRefused(rec, m, reason, r)
		if err == nil {
			log.Info("message not answered", "reason", reason, "replied", r != nil)
			if r != nil {
				nudge(w.cfg.Replied)
			}
		}
		return finish(err, AnswerOutcomeRefused, reason)
	}

	if m.AutoSubmitted {
		return refuse(ReasonAutoSubmitted, "", "") // never answer a machine (RFC 3834)
	}
	content := Content(m.Body, m.Subject, m.Attachments)
	if content == "" {
		return refuse(ReasonEmpty, "", "")
	}
	if utf8.RuneCountInString(content) > MaxContent {
		return refuse(ReasonTooLong, KindTooLong, MsgTooLong)
	}

	allowed, err := store.TakeRate(rec, m, w.cfg.HourlyLimit, w.cfg.RateWindow, func(first bool) (*NewReply, error) {
		if !first {
			return nil, nil
		}
		r, err := w.reply(m, KindRateLimited, Answer{Markdown: MsgRateLimited(w.cfg.HourlyLimit)})
		return &r, err
	})
	if err != nil {
		return finish(err, AnswerOutcomeError, "")
	}
	if !allowed {
		log.Info("message not answered", "reason", ReasonRateLimited)
		nudge(w.cfg.Replied)
		return AnswerOutcomeRefused, ReasonRateLimited
	}

	actx, cancel := context.WithTimeout(ctx, w.cfg.Timeout)
	ans, err := w.cfg.Answerer.Answer(actx, AnswerRequest{
		AgentID: m.AgentID, UserUID: m.SenderUID, ThreadKey: ConversationKey(m.ThreadKey),
		Title: Title(m.Subject), Content: content, IdempotencyKey: ConversationKey(m.RFCMessageID),
	})
	cancel()
	var feeDue *AgentFeeDueError
	switch {
	case err == nil:
		r, err := w.reply(m, KindAnswer, ans)
		if err != nil {
			return finish(err, AnswerOutcomeError, "")
		}
		err = store.FinishAnswered(rec, m, ans, r)
		if err == nil {
			log.Info("message answered", "conversation_id", ans.ConversationID, "replayed", ans.Replayed, "total_micros", ans.TotalMicros)
			nudge(w.cfg.Replied)
		}
		return finish(err, AnswerOutcomeAnswered, "")
	case errors.As(err, &feeDue):
		// The owner is told that the agent's monthly fee is due and what to add.
		return refuse(ReasonInsufficientFunds, KindCannotAnswer, feeDue.Message())
	case errors.Is(err, ErrInsufficientFunds):
		return refuse(ReasonInsufficientFunds, KindCannotAnswer, MsgCannotAnswer)
	case errors.Is(err, ErrAgentUnavailable):
		return refuse(ReasonAgentUnavailable, KindCannotAnswer, MsgAgentUnavailable)
	case errors.Is(err, ErrNoAccess):
		return refuse(ReasonNoAccess, KindCannotAnswer, MsgCannotAnswer)
	case errors.Is(err, ErrRejected):
		log.Error("answer: the conversations service rejected the request", "error", err)
		return refuse(ReasonRejected, KindCannotAnswer, MsgCannotAnswer)
	case errors.Is(err, ErrModelUnavailable) && m.ModelFailures+1 >= w.cfg.ModelRetries:
		return refuse(ReasonModelUnavailable, KindCannotAnswer, MsgCannotAnswer)
	case ctx.Err() != nil:
		// Shutdown: hand the message back untouched; the Answer call is
		// idempotent, so the next worker's call replays or completes it.
		if err := store.Release(rec, m); err != nil {
			log.Warn("answer: release failed; the lease will expire", "error", err)
		}
		return AnswerOutcomeReleased, ""
	case w.now().Sub(m.ReceivedAt) > w.cfg.MaxAge:
		log.Error("answer: giving up after failing for too long", "error", err)
		return refuse(ReasonUnavailable, KindCannotAnswer, MsgCannotAnswer)
	default:
		model := errors.Is(err, ErrModelUnavailable)
		failures := m.Attempts
		if model {
			failures = m.ModelFailures + 1
		}
		delay := backoff(failures, w.cfg.RetryBase, w.cfg.RetryMax, rand.Float64())
		log.Warn("answer failed; retrying", "error", err, "in", delay.String())
		return finish(store.Retry(rec, m, err.Error(), w.now().Add(delay), model), AnswerOutcomeRetry, "")
	}
}

// reply composes the reply to m: from the agent, to the sender, in m's thread.
func (w *AnswerWorker) reply(m Message, kind string, a Answer) (NewReply, error) {
	id, err := uuid.NewV7()
	if err != nil {
		return NewReply{}, err
	}
	domain := domainOf(m.AgentEmail)
	rfcID := id.String() + "@" + domain
	raw, err := compose.Build(compose.Reply{
		From:       mail.Address{Name: m.AgentName, Address: m.AgentEmail},
		To:         mail.Address{Name: m.SenderName, Address: m.SenderEmail},
		Subject:    m.Subject,
		MessageID:  rfcID,
		InReplyTo:  m.RFCMessageID,
		References: compose.References(m.References, m.InReplyTo, m.RFCMessageID),
		Date:       w.now(),
		Markdown:   a.Markdown,
		Citations:  a.Citations,
	})
	if err != nil {
		return NewReply{}, fmt.Errorf("compose reply: %w", err)
	}
	return NewReply{ID: id, Kind: kind, RFCMessageID: rfcID, MailFrom: m.AgentEmail, RcptTo: m.SenderEmail, Raw: raw}, nil
}
