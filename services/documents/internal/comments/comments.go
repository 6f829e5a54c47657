// Package comments answers Google Docs comments that mention an agent: for
// every linked document that the last sync found shared with its agent, a
// worker polls the document's comments as the agent (comments.list with
// startModifiedTime), records each new comment or reply that mentions the
// agent's address (one row per mention, unique), asks the conversations
// service to answer it for its author — when the author (by e-mail address:
// identity FindUsersByEmail → uid → catalog CheckAccess) owns the agent or is
// an active subscriber — and posts the answer as a reply in the comment's
// thread (replies.create as the agent). Each mention is answered at most
// once, also across restarts and replicas:
//
//	pending → answered (the answer text is stored) → replied
//
// The Answer call is idempotent by key, so a crash before "answered" only
// replays it; a reply is posted only from "answered", and a row found in
// "answered" after a crash is first compared with the agent's replies in the
// thread (a reply with the same text means it was posted: no second one).
//
// The polls are a lease-based queue (comment_watches, FOR UPDATE SKIP LOCKED)
// like the sync queue, run by a bounded pool of workers.
package comments

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/documents/internal/drive"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// Channel is the conversations channel of Docs comments.
const Channel = "docs_comment"

// MsgCannotAnswer is the reply when an answer cannot be given (insufficient
// funds, the model or the request refused).
const MsgCannotAnswer = "The agent cannot answer right now."

// MsgAgentUnavailable is the reply to a subscriber whose monthly cap is
// spent: the sentence every channel gives them (it does not say why).
const MsgAgentUnavailable = "This agent is unavailable right now."

// Defaults of Config.
const (
	DefaultInterval      = time.Minute
	DefaultConcurrency   = 4
	DefaultLease         = 5 * time.Minute
	DefaultPoll          = time.Second
	DefaultAnswerTimeout = 3 * time.Minute
	DefaultMaxAttempts   = 5
	DefaultGrace         = 5 * time.Second
	// CreatedSlack: comments written up to this long before the document was
	// linked still count as new (clocks differ a little).
	CreatedSlack = time.Minute
)

// Drive reads comments and posts replies as an agent (drive.Client).
type Drive interface {
	ListComments(ctx context.Context, agent, fileID string, since time.Time) ([]drive.Comment, error)
	CreateReply(ctx context.Context, agent, fileID, commentID, content string) (drive.Reply, error)
}

// Agents gives an agent's e-mail address (the catalog).
type Agents interface {
	AgentEmail(ctx context.Context, agentID string) (string, error)
}

// AgentNames gives an agent's name as its owner wrote it (the catalog): a
// reply is signed with it.
type AgentNames interface {
	AgentName(ctx context.Context, agentID string) (string, error)
}

// Directory tells who wrote a comment and whether they may use the agent.
type Directory interface {
	// UsersByEmail: the uids whose address is exactly address.
	UsersByEmail(ctx context.Context, address string) ([]string, error)
	// CanUse: uid owns agentID or is its active subscriber.
	CanUse(ctx context.Context, agentID, uid string) (bool, error)
}

// AnswerRequest is one question for ConversationsService.Answer.
type AnswerRequest struct {
	AgentID, UserUID, ThreadKey, Title, Content, IdempotencyKey string
}

// Answer is the agent's answer.
type Answer struct {
	ConversationID string
	Content        string
	Citations      []Citation
	Replayed       bool
}

// Answerer answers a question (the conversations service); errors:
// ErrInsufficientFunds, ErrModelUnavailable, ErrNoAccess, ErrRejected, or
// any other (temporary).
type Answerer interface {
	Answer(ctx context.Context, req AnswerRequest) (Answer, error)
}

// Config configures the Worker.
type Config struct {
	Pool      *pgxpool.Pool
	Drive     Drive
	Agents    Agents
	Directory Directory
	Answerer  Answerer
	// Names signs the replies with the agent's name (optional: unsigned
	// without it).
	Names  AgentNames
	Logger *slog.Logger
	// Registerer receives documents_comment_mentions_total and
	// documents_comment_polls_total (optional).
	Registerer prometheus.Registerer

	// Interval: each watched document's comments are polled this often
	// (DOCUMENT_COMMENTS_INTERVAL, ±10% jitter).
	Interval time.Duration
	// Concurrency: documents polled at once in this process
	// (DOCUMENT_COMMENTS_CONCURRENCY).
	Concurrency int
	// Lease: a claimed poll belongs to its worker this long; it is renewed
	// before every answer and reply.
	Lease time.Duration
	// Poll: how often an idle worker looks for due polls.
	Poll time.Duration
	// AnswerTimeout bounds one Answer call (kept under Lease).
	AnswerTimeout time.Duration
	// MaxAttempts: a mention whose answer keeps failing for a passing reason
	// is tried this many times (once per poll), then declined with
	// MsgCannotAnswer.
	MaxAttempts int
	// Grace: on shutdown, running polls get this long before they are cancelled.
	Grace time.Duration
}

func (c *Config) defaults() {
	if c.Interval <= 0 {
		c.Interval = DefaultInterval
	}
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	if c.Poll <= 0 {
		c.Poll = DefaultPoll
	}
	if c.AnswerTimeout <= 0 {
		c.AnswerTimeout = DefaultAnswerTimeout
	}
	if c.AnswerTimeout > c.Lease*3/4 {
		c.AnswerTimeout = c.Lease * 3 / 4
	}
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
}

// Mention outcomes (metric label of documents_comment_mentions_total).
const (
	OutcomeReplied    = "replied"     // answered and the answer posted
	OutcomeDeclined   = "declined"    // MsgCannotAnswer posted (insufficient funds, refused, unavailable)
	OutcomeNotAllowed = "not_allowed" // the author may not use the agent (or is unknown): ignored
	OutcomeEmpty      = "empty"       // only the mention, nothing asked: ignored
	OutcomeNoAccess   = "no_access"   // the conversations service refused the author: ignored
	OutcomeFailed     = "failed"      // the reply could not be posted (comment gone, Drive refused)
	OutcomeRetry      = "retry"       // a passing failure; tried again at the next poll
)

// Mention states.
const (
	StatePending  = "pending"
	StateAnswered = "answered"
	StateReplied  = "replied"
	StateIgnored  = "ignored"
	StateFailed   = "failed"
)

// Worker polls the watched documents' comments and answers mentions.
type Worker struct {
	cfg      Config
	mentions *prometheus.CounterVec
	polls    *prometheus.CounterVec
}

// New returns a Worker.
func New(cfg Config) (*Worker, error) {
	if cfg.Pool == nil || cfg.Drive == nil || cfg.Agents == nil || cfg.Directory == nil || cfg.Answerer == nil {
		return nil, errors.New("comments: Pool, Drive, Agents, Directory and Answerer are required")
	}
	cfg.defaults()
	w := &Worker{cfg: cfg}
	w.mentions = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "documents_comment_mentions_total",
		Help: "Google Docs comments mentioning an agent, by outcome (replied, declined, not_allowed, empty, no_access, failed, retry).",
	}, []string{"outcome"})
	w.polls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "documents_comment_polls_total",
		Help: "Comment polls of watched documents by result (ok, not_shared, error, lost_lease).",
	}, []string{"result"})
	if cfg.Registerer != nil {
		w.mentions = observability.Register(cfg.Registerer, w.mentions)
		w.polls = observability.Register(cfg.Registerer, w.polls)
	}
	return w, nil
}

// Run watches new shared documents and polls due ones until ctx is
// cancelled; running polls then get Grace to finish.
func (w *Worker) Run(ctx context.Context) error {
	done := make(chan struct{})
	go func() {
		defer close(done)
		w.schedule(ctx)
	}()
	w.dispatch(ctx)
	<-done
	return nil
}

// schedule adds a watch for every document the sync found shared, each tick.
func (w *Worker) schedule(ctx context.Context) {
	tick := min(max(w.cfg.Interval/4, 200*time.Millisecond), 30*time.Second)
	worker.Every(ctx, tick, func(ctx context.Context) {
		if _, err := w.EnsureWatches(ctx); err != nil && ctx.Err() == nil {
			w.cfg.Logger.Warn("comments: schedule failed", "error", err)
		}
	})
}

// EnsureWatches adds a watch (due now) for each document shared with its
// agent that has none; it returns how many were added.
func (w *Worker) EnsureWatches(ctx context.Context) (int64, error) {
	tag, err := w.cfg.Pool.Exec(ctx, `
		INSERT INTO comment_watches (document_id)
		SELECT id FROM documents WHERE sharing_status = 'shared' AND synced_at IS NOT NULL
		ON CONFLICT (document_id) DO NOTHING`)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

// dispatch claims due watches while a slot is free and polls each in its
// own goroutine.
func (w *Worker) dispatch(ctx context.Context) {
	worker.RunJobs(ctx, worker.JobLoop{Name: "comments", Concurrency: w.cfg.Concurrency, Poll: w.cfg.Poll,
		Grace: w.cfg.Grace, Logger: w.cfg.Logger}, w.claim, w.process)
}

// PollDue adds missing watches, then polls every due document one after the
// other in this goroutine (tests, tools); it returns how many were polled.
func (w *Worker) PollDue(ctx context.Context) (int, error) {
	if _, err := w.EnsureWatches(ctx); err != nil {
		return 0, err
	}
	n := 0
	for {
		j, ok, err := w.claim(ctx)
		if err != nil {
			return n, err
		}
		if !ok {
			return n, nil
		}
		w.process(ctx, j)
		n++
	}
}

// job is a claimed poll of one document.
type job struct {
	DocumentID  string
	Lease       string
	AgentID     string
	DriveFileID string
	Name        string
	LinkedAt    time.Time
	Watermark   *time.Time
}

// claim leases the oldest due watch of a document the sync found shared.
func (w *Worker) claim(ctx context.Context) (job, bool, error) {
	var j job
	err := w.cfg.Pool.QueryRow(ctx, `
		WITH next AS (
			SELECT cw.document_id FROM comment_watches cw JOIN documents d ON d.id = cw.document_id
			WHERE cw.run_at <= now() AND (cw.locked_until IS NULL OR cw.locked_until < now())
				AND d.sharing_status = 'shared' AND d.synced_at IS NOT NULL
			ORDER BY cw.run_at, cw.document_id
			LIMIT 1
			FOR UPDATE OF cw SKIP LOCKED
		)
		UPDATE comment_watches cw SET locked_until = now() + $1::interval, lease_token = gen_random_uuid()
		FROM next, documents d
		WHERE cw.document_id = next.document_id AND d.id = next.document_id
		RETURNING cw.document_id::text, cw.lease_token::text, d.agent_id::text, d.drive_file_id, d.name,
			d.created_at, cw.watermark`, w.cfg.Lease).
		Scan(&j.DocumentID, &j.Lease, &j.AgentID, &j.DriveFileID, &j.Name, &j.LinkedAt, &j.Watermark)
	if errors.Is(err, pgx.ErrNoRows) {
		return job{}, false, nil
	}
	if err != nil {
		return job{}, false, err
	}
	return j, true, nil
}

// errLostLease: another worker took the poll over.
var errLostLease = errors.New("comments: lease lost")

// process polls one document and hands its watch back, due again after
// Interval (the watermark moves only when every mention up to it is settled).
func (w *Worker) process(ctx context.Context, j job) {
	wm, err := w.poll(ctx, j)
	result := "ok"
	var lastErr *string
	switch {
	case errors.Is(err, errLostLease):
		w.polls.WithLabelValues("lost_lease").Inc()
		return
	case err != nil && drive.KindOf(err) == drive.KindNotShared:
		result = "not_shared"
	case err != nil:
		result = "error"
	}
	if err != nil {
		msg := err.Error()
		lastErr = &msg
		if ctx.Err() == nil {
			w.cfg.Logger.Warn("comments: poll failed", "document_id", j.DocumentID, "error", err)
		}
	}
	w.polls.WithLabelValues(result).Inc()
	next := w.jitter(w.cfg.Interval)
	if ctx.Err() != nil {
		next = 0 // shutdown: hand it back for the next worker
	}
	// The job's context may be cancelled (shutdown): release regardless.
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	_, uerr := w.cfg.Pool.Exec(rctx, `
		UPDATE comment_watches SET locked_until = NULL, lease_token = NULL,
			run_at = now() + $3::interval, polled_at = now(), last_error = $4,
			watermark = CASE WHEN $5::timestamptz IS NOT NULL AND (watermark IS NULL OR $5 > watermark) THEN $5 ELSE watermark END
		WHERE document_id = $1 AND lease_token = $2`, j.DocumentID, j.Lease, next, lastErr, wm)
	if uerr != nil {
		w.cfg.Logger.Warn("comments: release watch", "document_id", j.DocumentID, "error", uerr)
	}
}

func (w *Worker) jitter(d time.Duration) time.Duration {
	return d*9/10 + rand.N(d/5+1)
}

// renew extends the lease; errLostLease when another worker holds it now.
func (w *Worker) renew(ctx context.Context, j job) error {
	tag, err := w.cfg.Pool.Exec(ctx, `UPDATE comment_watches SET locked_until = now() + $3::interval
		WHERE document_id = $1 AND lease_token = $2`, j.DocumentID, j.Lease, w.cfg.Lease)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errLostLease
	}
	return nil
}
