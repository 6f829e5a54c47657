// Package docsync keeps the agents' copies of their Google Docs in sync:
// a durable job queue in the documents database (sync_jobs: one job per
// document, leased with FOR UPDATE SKIP LOCKED, retried with back-off), a
// bounded pool of workers that read each document from Drive as its agent,
// chunk and index the text, and a scheduler that queues every document again
// every interval.
package docsync

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/drive"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// Defaults of Config.
const (
	DefaultInterval     = 5 * time.Minute
	DefaultConcurrency  = 4
	DefaultLease        = 2 * time.Minute
	DefaultPoll         = time.Second
	DefaultMaxAttempts  = 5
	DefaultRetryBase    = 30 * time.Second
	DefaultRetryMax     = 30 * time.Minute
	DefaultConfirmDelay = time.Minute
	DefaultBatch        = 500
	DefaultGrace        = 5 * time.Second
	DefaultFastInterval = 5 * time.Second
	DefaultFastFor      = 10 * time.Minute
)

// Drive reads documents as an agent (drive.Client).
type Drive interface {
	Get(ctx context.Context, agent, fileID string) (drive.Meta, error)
	Export(ctx context.Context, agent, fileID string) (string, error)
}

// Agents gives an agent's e-mail address (the catalog).
type Agents interface {
	// AgentEmail returns the address; ErrAgentNotFound (as returned by
	// IsAgentNotFound) when the agent does not exist.
	AgentEmail(ctx context.Context, agentID string) (string, error)
}

// Config configures the Worker.
type Config struct {
	Pool   *pgxpool.Pool
	Drive  Drive
	Agents Agents
	// IsAgentNotFound tells an unknown agent from a catalog failure.
	IsAgentNotFound func(error) bool
	Logger          *slog.Logger
	Registerer      prometheus.Registerer

	// Interval: every document is checked this often (DOCUMENT_SYNC_INTERVAL).
	Interval time.Duration
	// Concurrency: at most this many syncs at once (DOCUMENT_SYNC_CONCURRENCY).
	Concurrency int
	// Lease: a claimed job belongs to its worker this long; a job whose
	// worker died is claimed again after it (DOCUMENT_SYNC_LEASE). One sync is
	// bounded to 3/4 of it.
	Lease time.Duration
	// Poll: how often an idle worker looks for due jobs.
	Poll time.Duration
	// MaxAttempts: a job failing with a retryable error is tried this many
	// times, RetryBase·2^(n−1) apart (capped at RetryMax, with jitter), then
	// the error stays until the next scheduled check.
	MaxAttempts int
	RetryBase   time.Duration
	RetryMax    time.Duration
	// ConfirmDelay: a first "not shared" answer for a document with indexed
	// text is checked again this soon.
	ConfirmDelay time.Duration
	// FastInterval: a document the agent cannot open yet (never read: not
	// shared with it) is checked this often for FastFor after it was linked
	// or last changed, so that it turns Shared within seconds of the owner
	// sharing it; then every Interval. (In production Drive's change
	// notifications could replace this polling.)
	FastInterval time.Duration
	FastFor      time.Duration
	// Batch: the scheduler queues at most this many documents per tick.
	Batch int
	// Grace: on shutdown, running syncs get this long to finish before they
	// are cancelled (and their jobs released for the next worker).
	Grace time.Duration
	// Chunking of the exported text.
	Chunk knowledge.ChunkConfig
	// Embedder, when set, embeds the chunks a sync indexes (those whose
	// heading path and text are new: unchanged chunks keep their embedding)
	// and those of an unchanged document that have none yet (indexed before
	// a provider was configured, or while it failed). A failure leaves them
	// lexical only until the next sync; the text is indexed regardless.
	Embedder Embedder
}

// Embedder embeds chunk texts (embeddings.Client).
type Embedder interface {
	Model() string
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	CountChunks(outcome string, n int)
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
	if c.MaxAttempts <= 0 {
		c.MaxAttempts = DefaultMaxAttempts
	}
	if c.RetryBase <= 0 {
		c.RetryBase = DefaultRetryBase
	}
	if c.RetryMax <= 0 {
		c.RetryMax = DefaultRetryMax
	}
	if c.ConfirmDelay <= 0 {
		c.ConfirmDelay = DefaultConfirmDelay
	}
	if c.FastInterval <= 0 {
		c.FastInterval = DefaultFastInterval
	}
	if c.FastFor <= 0 {
		c.FastFor = DefaultFastFor
	}
	if c.Batch <= 0 {
		c.Batch = DefaultBatch
	}
	if c.Grace <= 0 {
		c.Grace = DefaultGrace
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.IsAgentNotFound == nil {
		c.IsAgentNotFound = func(error) bool { return false }
	}
}

// Outcomes of a job (metric label).
const (
	OutcomeIndexed   = "indexed"    // new or changed text indexed
	OutcomeUnchanged = "unchanged"  // readable, nothing new
	OutcomeNotShared = "not_shared" // 403/404 (text kept until confirmed, or none)
	OutcomeRemoved   = "removed"    // second 403/404 in a row: text left retrieval
	OutcomeError     = "error"      // a lasting failure (type, size, refusal)
	OutcomeRetry     = "retry"      // a passing failure; the job runs again later
	OutcomeLostLease = "lost_lease" // another worker took the job over
	OutcomeReleased  = "released"   // shutdown: the job was handed back
)

// Worker runs the queue and the scheduler.
type Worker struct {
	cfg    Config
	outbox *events.Outbox

	jobs     *prometheus.CounterVec
	duration *prometheus.HistogramVec
	depth    prometheus.Gauge
	running  prometheus.Gauge
	now      func() time.Time
}

// New returns a Worker.
func New(cfg Config) (*Worker, error) {
	if cfg.Pool == nil || cfg.Drive == nil || cfg.Agents == nil {
		return nil, errors.New("docsync: Pool, Drive and Agents are required")
	}
	cfg.defaults()
	w := &Worker{cfg: cfg, outbox: events.NewOutbox(documents.Source), now: time.Now}
	w.jobs = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "documents_sync_jobs_total",
		Help: "Document sync jobs by outcome (indexed, unchanged, not_shared, removed, error, retry, lost_lease, released).",
	}, []string{"outcome"})
	w.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "documents_sync_duration_seconds",
		Help:    "Time of one document sync (Drive calls, chunking, indexing) by outcome.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 14), // 10 ms … ~80 s
	}, []string{"outcome"})
	w.depth = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "documents_sync_queue_depth",
		Help: "Sync jobs that are due and not leased (sampled by the scheduler).",
	})
	w.running = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "documents_sync_running",
		Help: "Syncs running in this process.",
	})
	if cfg.Registerer != nil {
		w.jobs = observability.Register(cfg.Registerer, w.jobs)
		w.duration = observability.Register(cfg.Registerer, w.duration)
		w.depth = observability.Register(cfg.Registerer, w.depth)
		w.running = observability.Register(cfg.Registerer, w.running)
	}
	return w, nil
}

// Run runs the scheduler and the workers until ctx is cancelled, then
// waits for the running syncs (at most Grace, after which they are cancelled
// and their jobs released).
func (w *Worker) Run(ctx context.Context) error {
	schedDone := make(chan struct{})
	go func() {
		defer close(schedDone)
		w.schedule(ctx)
	}()
	w.dispatch(ctx)
	<-schedDone
	return nil
}

// dispatch claims due jobs while a slot is free and runs each in its own
// goroutine. Shutdown: stop claiming; give running syncs Grace, then cancel
// them.
func (w *Worker) dispatch(ctx context.Context) {
	worker.RunJobs(ctx, worker.JobLoop{Name: "sync", Concurrency: w.cfg.Concurrency, Poll: w.cfg.Poll,
		Grace: w.cfg.Grace, Logger: w.cfg.Logger}, w.claim, w.process)
}

// job is a claimed sync job.
type job struct {
	DocumentID string
	Lease      string
	Attempts   int
	Reason     string
}

// claim leases the oldest due job (FOR UPDATE SKIP LOCKED: concurrent
// workers, in this process or another, never take the same one) and marks
// its document syncing.
func (w *Worker) claim(ctx context.Context) (job, bool, error) {
	var j job
	err := pgx.BeginFunc(ctx, w.cfg.Pool, func(tx pgx.Tx) error {
		// A lost claim (crash before the WAL flush) is only a job not taken
		// yet: no need to wait for the flush.
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		err := tx.QueryRow(ctx, `
			WITH next AS (
				SELECT document_id FROM sync_jobs
				WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())
				ORDER BY run_at, document_id
				LIMIT 1
				FOR UPDATE SKIP LOCKED
			)
			UPDATE sync_jobs j SET locked_until = now() + $1::interval, lease_token = gen_random_uuid(),
				attempts = j.attempts + 1, rerun = false
			FROM next WHERE j.document_id = next.document_id
			RETURNING j.document_id::text, j.lease_token::text, j.attempts, j.reason`, w.cfg.Lease).
			Scan(&j.DocumentID, &j.Lease, &j.Attempts, &j.Reason)
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return job{}, false, nil
	}
	if err != nil {
		return job{}, false, err
	}
	// After the claim's commit, not inside it: locks go document first, job
	// second everywhere else (see finish).
	err = pgx.BeginFunc(ctx, w.cfg.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE documents SET sync_state = 'syncing' WHERE id = $1`, j.DocumentID)
		return err
	})
	if err != nil {
		w.cfg.Logger.Warn("sync: mark syncing", "document_id", j.DocumentID, "error", err)
	}
	return j, true, nil
}

// doc is what a sync needs of a document.
type doc struct {
	documents.Document
	ContentHash     *string
	DriveVersion    *int64
	NotSharedChecks int
}

// NextCheck is when a document is checked again after a sync at now: every
// FastInterval while the agent has never been able to read it (not shared
// with it yet) and it was linked or last changed (since) less than FastFor
// ago; otherwise every Interval (±10% jitter either way).
func (w *Worker) NextCheck(now time.Time, sharing string, hasText bool, since time.Time) time.Time {
	if sharing == documents.SharingNotShared && !hasText && now.Sub(since) < w.cfg.FastFor {
		return now.Add(w.jitter(w.cfg.FastInterval))
	}
	return now.Add(w.jitter(w.cfg.Interval))
}

const docColumns = `id::text, agent_id::text, owner_uid, name, labels, drive_file_id, sharing_status,
	content_hash, modified_time, drive_version, not_shared_checks, drive_title, token_count, created_at, updated_at`

func scanDoc(row pgx.Row) (doc, error) {
	var d doc
	err := row.Scan(&d.ID, &d.AgentID, &d.OwnerUID, &d.Name, &d.Labels, &d.DriveFileID, &d.SharingStatus,
		&d.ContentHash, &d.ModifiedTime, &d.DriveVersion, &d.NotSharedChecks, &d.DriveTitle, &d.TokenCount,
		&d.CreatedAt, &d.UpdatedAt)
	if d.Labels == nil {
		d.Labels = []string{}
	}
	return d, err
}

// result is what talking to the catalog and Drive found out.
type result struct {
	agentEmail string
	meta       *drive.Meta
	exported   bool
	text       string
	hash       string
	chunks     []knowledge.Chunk
	chunked    bool // chunks is the new index of the text
	tokens     int
	err        error // nil: readable

	// embedded: hashes[i] ↔ vecs[i] of model are to be saved (embed).
	embedded bool
	model    string
	hashes   []string
	vecs     [][]float32
}

func (w *Worker) process(ctx context.Context, j job) {
	start := w.now()
	w.running.Inc()
	defer w.running.Dec()
	outcome := w.run(ctx, j)
	w.jobs.WithLabelValues(outcome).Inc()
	w.duration.WithLabelValues(outcome).Observe(time.Since(start).Seconds())
}

func (w *Worker) run(ctx context.Context, j job) string {
	log := w.cfg.Logger.With("document_id", j.DocumentID, "attempt", j.Attempts)
	d, err := scanDoc(w.cfg.Pool.QueryRow(ctx, `SELECT `+docColumns+` FROM documents WHERE id = $1`, j.DocumentID))
	if errors.Is(err, pgx.ErrNoRows) {
		return OutcomeUnchanged // deleted meanwhile; the job went with it
	}
	if err != nil {
		return w.release(j, log, err)
	}
	// One sync never outlives its lease: past it another worker may run it.
	sctx, cancel := context.WithTimeout(ctx, w.cfg.Lease*3/4)
	defer cancel()
	var res result
	if j.Attempts > w.cfg.MaxAttempts {
		res = result{err: errAbandoned}
	} else {
		res = w.read(sctx, d)
		if res.err == nil && w.cfg.Embedder != nil {
			w.embed(sctx, d, &res, log)
		}
	}
	if ctx.Err() != nil {
		return w.release(j, log, ctx.Err())
	}
	outcome, err := w.finish(context.WithoutCancel(ctx), j, d, res)
	if err != nil {
		return w.release(j, log, err)
	}
	if res.err != nil {
		log.Info("sync finished", "outcome", outcome, "reason", res.err)
	} else {
		log.Debug("sync finished", "outcome", outcome)
	}
	return outcome
}

// read asks the catalog for the agent's address, then Drive for the file's
// metadata and, when it changed or nothing is indexed, its text.
func (w *Worker) read(ctx context.Context, d doc) result {
	email, err := w.cfg.Agents.AgentEmail(ctx, d.AgentID)
	if err != nil {
		return result{err: err}
	}
	r := result{agentEmail: email}
	meta, err := w.cfg.Drive.Get(ctx, email, d.DriveFileID)
	if err != nil {
		r.err = err
		return r
	}
	r.meta = &meta
	if err := drive.CheckReadable(meta); err != nil {
		r.err = err
		return r
	}
	unchanged := d.ContentHash != nil && d.ModifiedTime != nil && d.ModifiedTime.Equal(meta.ModifiedTime) &&
		d.DriveVersion != nil && *d.DriveVersion == meta.Version
	if unchanged {
		return r
	}
	text, err := w.cfg.Drive.Export(ctx, email, d.DriveFileID)
	if err != nil {
		r.err = err
		return r
	}
	r.exported, r.text, r.hash = true, text, contentHash(text)
	if d.ContentHash == nil || *d.ContentHash != r.hash {
		chunking := w.cfg.Chunk
		chunking.Title = meta.Title
		r.chunks, r.chunked = knowledge.Split(text, chunking), true
		r.tokens = knowledge.CountTokens(text)
	}
	return r
}

// embed embeds, outside the transaction, the chunks the sync is about to
// index that have no embedding of the model yet (a chunk whose heading path
// and text are unchanged keeps its own), or, when the text is unchanged,
// the indexed chunks that have none. A failure is logged and counted; the
// chunks are then lexical only until a later sync embeds them.
func (w *Worker) embed(ctx context.Context, d doc, r *result, log *slog.Logger) {
	e := w.cfg.Embedder
	model := e.Model()
	var todo []embeddings.Pending
	if r.chunked {
		all := make([]string, 0, len(r.chunks))
		seen := map[string]bool{}
		var fresh []embeddings.Pending
		for _, c := range r.chunks {
			h := embeddings.TextHash(c.HeadingPath, c.Text)
			if !seen[h] {
				seen[h] = true
				all = append(all, h)
				fresh = append(fresh, embeddings.Pending{Hash: h, HeadingPath: c.HeadingPath, Body: c.Text})
			}
		}
		stored, err := embeddings.Stored(ctx, w.cfg.Pool, d.ID, model, all)
		if err != nil {
			log.Warn("sync: stored embeddings", "error", err)
			stored = map[string]bool{}
		}
		for _, p := range fresh {
			if !stored[p.Hash] {
				todo = append(todo, p)
			}
		}
		e.CountChunks(embeddings.ChunksReused, len(fresh)-len(todo))
	} else {
		var err error
		if todo, err = embeddings.Missing(ctx, w.cfg.Pool, d.ID, model); err != nil {
			log.Warn("sync: missing embeddings", "error", err)
			return
		}
		if len(todo) == 0 {
			return
		}
	}
	r.embedded, r.model = true, model
	if len(todo) == 0 {
		return
	}
	texts := make([]string, len(todo))
	for i, p := range todo {
		texts[i] = embeddings.Input(p.HeadingPath, p.Body)
	}
	vecs, err := e.Embed(ctx, texts)
	if err != nil {
		e.CountChunks(embeddings.ChunksFailed, len(todo))
		log.Warn("sync: embedding failed; the new chunks are searched by their words only until the next sync",
			"chunks", len(todo), "error", err)
		return
	}
	e.CountChunks(embeddings.ChunksEmbedded, len(todo))
	r.hashes, r.vecs = make([]string, len(todo)), vecs
	for i, p := range todo {
		r.hashes[i] = p.Hash
	}
}

// contentHash identifies an indexed text: sha256 of the chunker's version
// and the text, so that a document indexed by an older chunker is chunked
// again at its next sync even when its text has not changed.
func contentHash(text string) string {
	h := sha256.New()
	fmt.Fprintf(h, "chunker %d\n", knowledge.ChunkerVersion)
	h.Write([]byte(text))
	return hex.EncodeToString(h.Sum(nil))
}

// Messages shown as syncError.
const (
	msgRetrying      = " Retrying automatically."
	msgAgentGone     = "The agent no longer exists."
	msgCatalogDown   = "The agent service is unavailable."
	msgFirstDenied   = "Google Drive refused the agent (%s) access to this document. The last synced text is still used until the next check confirms it."
	msgRemoved       = "The document is no longer shared with the agent (%s): its text was removed from the agent's knowledge. Share it with that address and press Sync now."
	msgNotShared     = "The agent (%s) cannot open this document. Share it with that address in Google Docs, then press Sync now."
	msgAbandoned     = "The sync did not finish after several attempts."
	msgKeptTextSufix = " The last synced text is still used."
)

// errAbandoned: the job was claimed more than MaxAttempts times without
// finishing (its workers kept dying); it is given up until the next check.
var errAbandoned = errors.New(msgAbandoned)

// finish records the result in one transaction, provided the job's lease
// is still ours: the document's state, the index, the event, and the job
// (done, retried later, or run again if a sync was asked for meanwhile).
//
//	lock document, then job (lease still ours?) → decide the new state
//	→ complete the job → document, event, index.
func (w *Worker) finish(ctx context.Context, j job, d doc, r result) (string, error) {
	f := &finishing{j: j, r: r}
	err := pgx.BeginFunc(ctx, w.cfg.Pool, func(tx pgx.Tx) error {
		f.tx = tx
		owned, err := w.lockForFinish(ctx, f)
		if err != nil || !owned {
			return err
		}
		if err := w.decide(ctx, f); err != nil {
			return err
		}
		return w.record(ctx, f)
	})
	return f.outcome, err
}

// finishing is one result on its way through finish's steps, inside one
// transaction (tx): what each step read or decided, for the steps after it.
type finishing struct {
	j  job
	r  result
	tx pgx.Tx

	// lockForFinish
	cur   doc
	rerun bool

	// decide
	now       time.Time
	retryAt   *time.Time
	index     func() error // the index change, run last
	embed     func() error // the embeddings, after the index
	reason    string
	emit      bool
	st        doc
	syncError *string

	outcome string
}

// lockForFinish is finish's first step: it locks the document, then its
// job, and reports whether the job's lease is still ours (if not, the
// outcome says why).
func (w *Worker) lockForFinish(ctx context.Context, f *finishing) (bool, error) {
	tx, j := f.tx, f.j
	// A sync's result is derived data: Drive can be read again. Committing
	// it without waiting for the WAL flush keeps the agent's shared lexeme
	// count rows locked for microseconds rather than an fsync, so syncs of
	// one agent's documents do not queue behind each other's commits. A
	// crash may lose the last results, atomically (document, chunks,
	// event and job together): the job and the periodic check redo them.
	if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = off`); err != nil {
		return false, err
	}
	// Locks are always taken document first, then its job (as the API's
	// Sync now, the scheduler and a document's deletion do), so that they
	// cannot deadlock. The document is read again: name and labels may
	// have changed while Drive was being read.
	cur, err := scanDoc(tx.QueryRow(ctx, `SELECT `+docColumns+` FROM documents WHERE id = $1 FOR UPDATE`, j.DocumentID))
	if errors.Is(err, pgx.ErrNoRows) {
		f.outcome = OutcomeLostLease // deleted meanwhile (its job went with it)
		return false, nil
	}
	if err != nil {
		return false, err
	}
	f.cur = cur
	var lease string
	err = tx.QueryRow(ctx, `SELECT coalesce(lease_token::text, ''), rerun FROM sync_jobs WHERE document_id = $1 FOR UPDATE`,
		j.DocumentID).Scan(&lease, &f.rerun)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && lease != j.Lease) {
		f.outcome = OutcomeLostLease // the lease expired and another worker took the job
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// decide turns the result into the document's new state, the outcome, and
// when (if at all) the job runs again.
func (w *Worker) decide(ctx context.Context, f *finishing) error {
	tx, j, r, cur := f.tx, f.j, f.r, f.cur
	f.now = w.now().UTC()
	now := f.now
	f.reason = documents.ReasonRetry
	f.st = cur
	st := &f.st
	str := func(s string) *string { return &s }
	de := &drive.Error{}
	isDrive := errors.As(r.err, &de)
	switch {
	case r.err == nil:
		st.SharingStatus = documents.SharingShared
		st.DriveTitle = &r.meta.Title
		st.NotSharedChecks = 0
		mt := r.meta.ModifiedTime
		f.outcome = OutcomeUnchanged
		if r.exported {
			st.ModifiedTime, st.DriveVersion = &mt, &r.meta.Version
			if cur.ContentHash == nil || *cur.ContentHash != r.hash {
				f.index = func() error { return knowledge.ReplaceChunks(ctx, tx, cur.AgentID, cur.ID, r.chunks) }
				st.ContentHash, st.TokenCount = &r.hash, &r.tokens
				f.outcome, f.emit = OutcomeIndexed, true
			}
		}
		if r.embedded {
			// In a savepoint: a failure to store embeddings never costs the
			// text its index (those chunks stay lexical only).
			f.embed = func() error {
				sp, err := tx.Begin(ctx)
				if err != nil {
					return err
				}
				if err := embeddings.Save(ctx, sp, cur.ID, r.model, r.hashes, r.vecs); err != nil {
					w.cfg.Logger.Warn("sync: storing embeddings failed", "document_id", cur.ID, "error", err)
					return sp.Rollback(ctx)
				}
				return sp.Commit(ctx)
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE documents SET synced_at = $2 WHERE id = $1`, cur.ID, now); err != nil {
			return err
		}
	case isDrive && de.Kind == drive.KindNotShared:
		st.SharingStatus = documents.SharingNotShared
		st.NotSharedChecks = cur.NotSharedChecks + 1
		f.outcome = OutcomeNotShared
		switch {
		case cur.ContentHash == nil:
			f.syncError = str(fmt.Sprintf(msgNotShared, r.agentEmail))
		case st.NotSharedChecks < 2:
			// One refusal may be a glitch or a sharing change in progress:
			// keep the text and look again soon.
			f.syncError = str(fmt.Sprintf(msgFirstDenied, r.agentEmail))
			t := now.Add(w.cfg.ConfirmDelay)
			f.retryAt, f.reason = &t, documents.ReasonConfirm
		default:
			f.index = func() error { return knowledge.RemoveChunks(ctx, tx, cur.AgentID, cur.ID) }
			f.syncError = str(fmt.Sprintf(msgRemoved, r.agentEmail))
			st.ContentHash, st.TokenCount, st.ModifiedTime, st.DriveVersion = nil, nil, nil, nil
			f.outcome, f.emit = OutcomeRemoved, true
		}
	default:
		msg, retryable, after := describe(r.err, w.cfg.IsAgentNotFound)
		st.SharingStatus = documents.SharingError
		if isDrive && (de.Kind == drive.KindUnsupported || de.Kind == drive.KindTooLarge) {
			st.NotSharedChecks = 0 // Drive did let the agent see the file
			if r.meta != nil {
				st.DriveTitle = &r.meta.Title
			}
		}
		f.outcome = OutcomeError
		if retryable && j.Attempts < w.cfg.MaxAttempts {
			t := now.Add(max(w.retryDelay(j.Attempts), after))
			f.retryAt, f.outcome = &t, OutcomeRetry
			msg += msgRetrying
		}
		if cur.ContentHash != nil {
			msg += msgKeptTextSufix
		}
		f.syncError = &msg
	}
	return nil
}

// record is finish's last step: the job (done, retried later, or run
// again), the document's new state, the event, and the index.
func (w *Worker) record(ctx context.Context, f *finishing) error {
	tx, j, cur, now := f.tx, f.j, f.cur, f.now
	st := &f.st
	var err error
	st.SyncError = f.syncError
	// The periodic check is counted from now, with ±10% jitter so that
	// documents linked together do not stay in lockstep; sooner while a
	// newly linked document waits to be shared (NextCheck).
	next := w.NextCheck(now, st.SharingStatus, st.ContentHash != nil, cur.UpdatedAt)
	state := documents.SyncSynced
	switch {
	case f.rerun:
		state = documents.SyncQueued
		_, err = tx.Exec(ctx, `UPDATE sync_jobs SET rerun = false, locked_until = NULL, lease_token = NULL,
			attempts = 0, run_at = now(), reason = $2 WHERE document_id = $1`, cur.ID, documents.ReasonManual)
	case f.retryAt != nil:
		if f.reason == documents.ReasonRetry {
			state = documents.SyncQueued
		}
		attempts := j.Attempts
		if f.reason == documents.ReasonConfirm {
			attempts = 0
		}
		_, err = tx.Exec(ctx, `UPDATE sync_jobs SET locked_until = NULL, lease_token = NULL, run_at = $2,
			reason = $3, attempts = $4 WHERE document_id = $1`, cur.ID, *f.retryAt, f.reason, attempts)
	default:
		_, err = tx.Exec(ctx, `DELETE FROM sync_jobs WHERE document_id = $1`, cur.ID)
	}
	if err != nil {
		return fmt.Errorf("complete job: %w", err)
	}
	_, err = tx.Exec(ctx, `
		UPDATE documents SET sharing_status = $2, sync_state = $3, sync_error = $4, drive_title = $5,
			modified_time = $6, drive_version = $7, token_count = $8, content_hash = $9,
			not_shared_checks = $10, next_check_at = $11
		WHERE id = $1`,
		cur.ID, st.SharingStatus, state, st.SyncError, st.DriveTitle, st.ModifiedTime, st.DriveVersion,
		st.TokenCount, st.ContentHash, st.NotSharedChecks, next)
	if err != nil {
		return fmt.Errorf("update document: %w", err)
	}
	if f.emit {
		if _, err := w.outbox.Enqueue(ctx, tx, documents.SyncedEvent(st.Document, now)); err != nil {
			return err
		}
	}
	// The index last: it locks the agent's shared lexeme count rows, which
	// are then held only until the commit that follows.
	if f.index != nil {
		if err := f.index(); err != nil {
			return err
		}
	}
	if f.embed != nil {
		if err := f.embed(); err != nil {
			return err
		}
	}
	return nil
}

// describe turns a failure into the creator's message, whether it is worth
// retrying soon, and the delay the server asked for.
func describe(err error, agentNotFound func(error) bool) (msg string, retryable bool, after time.Duration) {
	var de *drive.Error
	switch {
	case errors.As(err, &de):
		return sentence(de.Message), de.Kind == drive.KindRetryable, de.RetryAfter
	case errors.Is(err, errAbandoned):
		return msgAbandoned, false, 0
	case agentNotFound(err):
		return msgAgentGone, false, 0
	case errors.Is(err, context.DeadlineExceeded):
		return "Reading the document from Google Drive took too long.", true, 0
	default:
		return msgCatalogDown, true, 0
	}
}

// sentence ends msg with a full stop.
func sentence(msg string) string {
	if msg == "" || strings.ContainsAny(msg[len(msg)-1:], ".!?") {
		return msg
	}
	return msg + "."
}

// retryDelay is the back-off after the n-th failed attempt: exponential,
// capped, with jitter.
func (w *Worker) retryDelay(n int) time.Duration {
	d := w.cfg.RetryBase << max(n-1, 0)
	if d > w.cfg.RetryMax || d <= 0 {
		d = w.cfg.RetryMax
	}
	return d/2 + rand.N(d/2+1)
}

// jitter spreads d by ±10%.
func (w *Worker) jitter(d time.Duration) time.Duration {
	span := d / 5
	if span <= 0 {
		return d
	}
	return d - d/10 + rand.N(span+1)
}

// release hands a job back without a result (shutdown, or the database
// failed): its lease is dropped so another worker can take it at once, and
// the attempt does not count.
func (w *Worker) release(j job, log *slog.Logger, cause error) string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := pgx.BeginFunc(ctx, w.cfg.Pool, func(tx pgx.Tx) error {
		// Document first, then job (see finish).
		if _, err := tx.Exec(ctx, `UPDATE documents SET sync_state = 'queued' WHERE id = $1
			AND EXISTS (SELECT 1 FROM sync_jobs WHERE document_id = $1 AND lease_token = $2)`, j.DocumentID, j.Lease); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `UPDATE sync_jobs SET locked_until = NULL, lease_token = NULL,
			attempts = greatest(attempts - 1, 0), run_at = now() + $3::interval
			WHERE document_id = $1 AND lease_token = $2`, j.DocumentID, j.Lease, w.cfg.Poll)
		return err
	})
	if err != nil {
		log.Warn("sync: release failed; the lease will expire", "error", err)
	}
	if !errors.Is(cause, context.Canceled) {
		log.Warn("sync: job released", "error", cause)
	}
	return OutcomeReleased
}
