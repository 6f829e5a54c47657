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
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/documents/internal/drive"
	"github.com/agentic-app/agentic/services/platform/observability"
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
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		if _, err := w.EnsureWatches(ctx); err != nil && ctx.Err() == nil {
			w.cfg.Logger.Warn("comments: schedule failed", "error", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
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

func (w *Worker) dispatch(ctx context.Context) {
	jobCtx, cancelJobs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelJobs()
	done := make(chan struct{}, w.cfg.Concurrency)
	inFlight := 0
	wait := func(d time.Duration) bool {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		case <-done:
			inFlight--
		}
		return true
	}
	for ctx.Err() == nil {
		if inFlight == w.cfg.Concurrency {
			if !wait(time.Hour) {
				break
			}
			continue
		}
		j, ok, err := w.claim(ctx)
		if err != nil && ctx.Err() == nil {
			w.cfg.Logger.Warn("comments: claim failed", "error", err)
		}
		if err != nil || !ok {
			if !wait(w.cfg.Poll) {
				break
			}
			continue
		}
		inFlight++
		go func() {
			defer func() { done <- struct{}{} }()
			w.process(jobCtx, j)
		}()
	}
	grace := time.NewTimer(w.cfg.Grace)
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

// mention is a row of comment_mentions.
type mention struct {
	ID          int64
	CommentID   string
	ReplyID     string
	AuthorEmail string
	AuthorUID   *string
	Question    string
	State       string
	Reason      *string
	Answer      *string
	Attempts    int
}

// poll lists the document's comments as the agent, records new mentions and
// settles every open mention of the document; it returns the new watermark
// (nil: keep the old one).
func (w *Worker) poll(ctx context.Context, j job) (*time.Time, error) {
	agent, err := w.cfg.Agents.AgentEmail(ctx, j.AgentID)
	if err != nil {
		return nil, fmt.Errorf("agent address: %w", err)
	}
	var since time.Time
	if j.Watermark != nil {
		since = *j.Watermark
	}
	list, err := w.cfg.Drive.ListComments(ctx, agent, j.DriveFileID, since)
	if err != nil {
		return nil, err
	}
	byID := map[string]drive.Comment{}
	latest := since
	for _, c := range list {
		byID[c.ID] = c
		if c.ModifiedTime.After(latest) {
			latest = c.ModifiedTime
		}
		if c.Deleted {
			continue
		}
		if err := w.consider(ctx, j, agent, c.ID, "", c.Author, c.Content, c.CreatedTime); err != nil {
			return nil, err
		}
		for _, r := range c.Replies {
			if r.Deleted {
				continue
			}
			if err := w.consider(ctx, j, agent, c.ID, r.ID, r.Author, r.Content, r.CreatedTime); err != nil {
				return nil, err
			}
		}
	}

	open, err := w.openMentions(ctx, j, agent)
	if err != nil {
		return nil, err
	}
	full := false // byID holds every comment (a listing without startModifiedTime)
	unsettled := 0
	for _, m := range open {
		if err := w.renew(ctx, j); err != nil {
			return nil, err
		}
		if m.State == StateAnswered || m.State == StatePending {
			if _, ok := byID[m.CommentID]; !ok && !full && !since.IsZero() {
				// The comment was not modified since the watermark (another
				// document row of the same file moved on): read them all once.
				all, err := w.cfg.Drive.ListComments(ctx, agent, j.DriveFileID, time.Time{})
				if err != nil {
					return nil, err
				}
				for _, c := range all {
					byID[c.ID] = c
				}
				full = true
			}
		}
		settled, err := w.settle(ctx, j, agent, m, byID)
		if err != nil {
			return nil, err
		}
		if !settled {
			unsettled++
		}
	}
	if unsettled > 0 || !latest.After(since) {
		return nil, nil
	}
	return &latest, nil
}

// isAgent: the author is the agent itself (its own replies are never answered).
func isAgent(u drive.User, agent string) bool {
	return u.Me || (u.EmailAddress != "" && strings.EqualFold(strings.TrimSpace(u.EmailAddress), agent))
}

// consider records a comment or reply that mentions the agent (once: the
// unique key ignores it when it is already known).
func (w *Worker) consider(ctx context.Context, j job, agent, commentID, replyID string, author drive.User,
	content string, created time.Time) error {
	if isAgent(author, agent) {
		return nil
	}
	// Only what was written after the document was linked is new.
	if !created.IsZero() && created.Before(j.LinkedAt.Add(-CreatedSlack)) {
		return nil
	}
	question, ok := Mention(content, agent)
	if !ok {
		return nil
	}
	email := strings.ToLower(strings.TrimSpace(author.EmailAddress))
	state, reason, outcome := StatePending, (*string)(nil), ""
	switch {
	case email == "":
		state, reason, outcome = StateIgnored, ptr(OutcomeNotAllowed), OutcomeNotAllowed
	case strings.TrimSpace(question) == "":
		state, reason, outcome = StateIgnored, ptr(OutcomeEmpty), OutcomeEmpty
	}
	tag, err := w.cfg.Pool.Exec(ctx, `
		INSERT INTO comment_mentions (agent_id, document_id, drive_file_id, comment_id, reply_id, author_email,
			question, state, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
		ON CONFLICT (agent_id, drive_file_id, comment_id, reply_id) DO NOTHING`,
		j.AgentID, j.DocumentID, j.DriveFileID, commentID, replyID, email, question, state, reason)
	if err != nil {
		return fmt.Errorf("record mention: %w", err)
	}
	if tag.RowsAffected() == 1 {
		w.cfg.Logger.Info("comments: mention", "document_id", j.DocumentID, "comment_id", commentID,
			"reply_id", replyID, "state", state)
		if outcome != "" {
			w.mentions.WithLabelValues(outcome).Inc()
		}
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// openMentions: the document's file's mentions not settled yet, oldest first.
func (w *Worker) openMentions(ctx context.Context, j job, _ string) ([]mention, error) {
	rows, err := w.cfg.Pool.Query(ctx, `
		SELECT id, comment_id, reply_id, author_email, author_uid, question, state, reason, answer, attempts
		FROM comment_mentions
		WHERE agent_id = $1 AND drive_file_id = $2 AND state IN ('pending', 'answered')
		ORDER BY id`, j.AgentID, j.DriveFileID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (mention, error) {
		var m mention
		err := r.Scan(&m.ID, &m.CommentID, &m.ReplyID, &m.AuthorEmail, &m.AuthorUID, &m.Question, &m.State,
			&m.Reason, &m.Answer, &m.Attempts)
		return m, err
	})
}

// settle moves one open mention on as far as it goes now; true when it
// reached a final state.
func (w *Worker) settle(ctx context.Context, j job, agent string, m mention, byID map[string]drive.Comment) (bool, error) {
	if m.State == StatePending {
		done, err := w.answer(ctx, j, &m)
		if err != nil || done || m.State != StateAnswered {
			return done, err
		}
	}
	return w.post(ctx, j, agent, m, byID)
}

// answer decides who asks, asks the conversations service and records the
// answer (state answered), or ignores the mention. done: final state reached.
func (w *Worker) answer(ctx context.Context, j job, m *mention) (done bool, err error) {
	uid := ""
	if m.AuthorUID != nil {
		uid = *m.AuthorUID
	}
	if uid == "" {
		uids, err := w.cfg.Directory.UsersByEmail(ctx, m.AuthorEmail)
		if err != nil {
			w.cfg.Logger.Warn("comments: identity unavailable; the mention waits", "mention_id", m.ID, "error", err)
			w.mentions.WithLabelValues(OutcomeRetry).Inc()
			return false, nil
		}
		for _, u := range uids {
			ok, err := w.cfg.Directory.CanUse(ctx, j.AgentID, u)
			if err != nil {
				w.cfg.Logger.Warn("comments: catalog unavailable; the mention waits", "mention_id", m.ID, "error", err)
				w.mentions.WithLabelValues(OutcomeRetry).Inc()
				return false, nil
			}
			if ok {
				uid = u
				break
			}
		}
		if uid == "" {
			// A stranger (or nobody we know): never answered, never told.
			return true, w.ignore(ctx, m, OutcomeNotAllowed)
		}
	}

	// The reply is signed with the agent's name as its owner wrote it (not
	// the Drive account's display name, derived from its address).
	agentName := ""
	if w.cfg.Names != nil {
		n, err := w.cfg.Names.AgentName(ctx, j.AgentID)
		if err != nil {
			w.cfg.Logger.Warn("comments: catalog unavailable; the mention waits", "mention_id", m.ID, "error", err)
			w.mentions.WithLabelValues(OutcomeRetry).Inc()
			return false, nil
		}
		agentName = n
	}

	actx, cancel := context.WithTimeout(ctx, w.cfg.AnswerTimeout)
	defer cancel()
	key := j.DriveFileID + "/" + m.CommentID
	replyKey := m.ReplyID
	if replyKey == "" {
		replyKey = "c"
	}
	content := m.Question + "\n\n(Asked in a comment on the Google Doc \"" + j.Name + "\".)"
	ans, aerr := w.cfg.Answerer.Answer(actx, AnswerRequest{
		AgentID: j.AgentID, UserUID: uid, ThreadKey: key, Title: j.Name, Content: content,
		IdempotencyKey: key + "/" + replyKey,
	})
	var text, reason, convID string
	switch {
	case aerr == nil:
		text, convID = FormatReply(ans.Content, ans.Citations), ans.ConversationID
		if text == "" {
			text, reason = MsgCannotAnswer, "empty_answer"
		}
	case errors.Is(aerr, ErrInsufficientFunds):
		text, reason = MsgCannotAnswer, "insufficient_funds"
	case errors.Is(aerr, ErrAgentUnavailable):
		text, reason = MsgAgentUnavailable, "agent_unavailable"
	case errors.Is(aerr, ErrRejected):
		w.cfg.Logger.Error("comments: the question was refused", "mention_id", m.ID, "error", aerr)
		text, reason = MsgCannotAnswer, "rejected"
	case errors.Is(aerr, ErrNoAccess):
		return true, w.ignore(ctx, m, OutcomeNoAccess)
	default:
		if ctx.Err() != nil {
			return false, ctx.Err() // shutdown: not an attempt
		}
		reason = "unavailable"
		if errors.Is(aerr, ErrModelUnavailable) {
			reason = "model_unavailable"
		}
		m.Attempts++
		if m.Attempts < w.cfg.MaxAttempts {
			w.cfg.Logger.Warn("comments: answer failed; retried at the next poll", "mention_id", m.ID,
				"attempts", m.Attempts, "error", aerr)
			w.mentions.WithLabelValues(OutcomeRetry).Inc()
			_, err := w.cfg.Pool.Exec(ctx, `UPDATE comment_mentions SET attempts = $2, reason = $3, author_uid = $4,
				updated_at = now() WHERE id = $1 AND state = 'pending'`, m.ID, m.Attempts, reason, uid)
			return false, err
		}
		text = MsgCannotAnswer
	}
	text = Sign(text, agentName)
	var rs *string
	if reason != "" {
		rs = &reason
	}
	var cid *string
	if convID != "" {
		cid = &convID
	}
	tag, err := w.cfg.Pool.Exec(ctx, `
		UPDATE comment_mentions SET state = 'answered', answer = $2, reason = $3, conversation_id = $4,
			author_uid = $5, attempts = $6, updated_at = now()
		WHERE id = $1 AND state = 'pending'`, m.ID, text, rs, cid, uid, m.Attempts)
	if err != nil {
		return false, fmt.Errorf("record answer: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return false, errLostLease // someone else settled it meanwhile
	}
	m.State, m.Answer, m.Reason = StateAnswered, &text, rs
	return false, nil
}

func (w *Worker) ignore(ctx context.Context, m *mention, reason string) error {
	_, err := w.cfg.Pool.Exec(ctx, `UPDATE comment_mentions SET state = 'ignored', reason = $2, updated_at = now()
		WHERE id = $1 AND state = 'pending'`, m.ID, reason)
	if err == nil {
		w.mentions.WithLabelValues(reason).Inc()
		w.cfg.Logger.Info("comments: mention ignored", "mention_id", m.ID, "reason", reason)
	}
	return err
}

// post puts the recorded answer in the comment's thread, once: if the
// thread already has the agent's reply with this text that no other mention
// claims (a previous run posted it and stopped before recording it), it is
// recorded instead of posted again.
func (w *Worker) post(ctx context.Context, j job, agent string, m mention, byID map[string]drive.Comment) (bool, error) {
	text := ""
	if m.Answer != nil {
		text = *m.Answer
	}
	c, found := byID[m.CommentID]
	if !found || c.Deleted {
		return true, w.fail(ctx, m, "comment_gone")
	}
	claimed, err := w.claimedReplies(ctx, j, m.CommentID)
	if err != nil {
		return false, err
	}
	for _, r := range c.Replies {
		if !r.Deleted && isAgent(r.Author, agent) && !claimed[r.ID] &&
			strings.TrimSpace(r.Content) == strings.TrimSpace(text) {
			return true, w.replied(ctx, m, r.ID)
		}
	}
	if err := w.renew(ctx, j); err != nil {
		return false, err
	}
	r, err := w.cfg.Drive.CreateReply(ctx, agent, j.DriveFileID, m.CommentID, text)
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if drive.KindOf(err) == drive.KindNotShared {
			return true, w.fail(ctx, m, "comment_gone")
		}
		// Maybe posted after all: the next poll looks at the thread first.
		m.Attempts++
		w.cfg.Logger.Warn("comments: reply failed; checked again at the next poll", "mention_id", m.ID, "error", err)
		if m.Attempts >= 2*w.cfg.MaxAttempts {
			return true, w.fail(ctx, m, "reply_failed")
		}
		w.mentions.WithLabelValues(OutcomeRetry).Inc()
		_, uerr := w.cfg.Pool.Exec(ctx, `UPDATE comment_mentions SET attempts = $2, updated_at = now() WHERE id = $1`,
			m.ID, m.Attempts)
		return false, uerr
	}
	return true, w.replied(ctx, m, r.ID)
}

// claimedReplies: the agent's replies in a thread already recorded for a mention.
func (w *Worker) claimedReplies(ctx context.Context, j job, commentID string) (map[string]bool, error) {
	rows, err := w.cfg.Pool.Query(ctx, `SELECT drive_reply_id FROM comment_mentions
		WHERE agent_id = $1 AND drive_file_id = $2 AND comment_id = $3 AND drive_reply_id IS NOT NULL`,
		j.AgentID, j.DriveFileID, commentID)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, nil
}

func (w *Worker) replied(ctx context.Context, m mention, replyID string) error {
	_, err := w.cfg.Pool.Exec(ctx, `UPDATE comment_mentions SET state = 'replied', drive_reply_id = $2, updated_at = now()
		WHERE id = $1 AND state = 'answered'`, m.ID, replyID)
	if err != nil {
		return fmt.Errorf("record reply: %w", err)
	}
	outcome := OutcomeReplied
	if m.Reason != nil && *m.Reason != "" {
		outcome = OutcomeDeclined
	}
	w.mentions.WithLabelValues(outcome).Inc()
	w.cfg.Logger.Info("comments: replied", "mention_id", m.ID, "comment_id", m.CommentID, "outcome", outcome)
	return nil
}

func (w *Worker) fail(ctx context.Context, m mention, reason string) error {
	_, err := w.cfg.Pool.Exec(ctx, `UPDATE comment_mentions SET state = 'failed', reason = $2, updated_at = now()
		WHERE id = $1 AND state IN ('pending', 'answered')`, m.ID, reason)
	if err == nil {
		w.mentions.WithLabelValues(OutcomeFailed).Inc()
		w.cfg.Logger.Warn("comments: mention failed", "mention_id", m.ID, "reason", reason)
	}
	return err
}
