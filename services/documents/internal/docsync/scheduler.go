package docsync

import (
	"context"
	"time"

	"github.com/agentic-app/agentic/services/platform/worker"
)

// schedule queues every document whose periodic check is due, each tick,
// and samples the queue depth. Bumping next_check_at in the same statement
// keeps a document that already has a job from filling every batch.
func (w *Worker) schedule(ctx context.Context) {
	// Often enough for the fast checks of documents waiting to be shared.
	tick := min(max(w.cfg.Interval/4, 200*time.Millisecond), 30*time.Second, max(w.cfg.FastInterval/5, 200*time.Millisecond))
	worker.Every(ctx, tick, func(ctx context.Context) {
		if n, err := w.ScheduleDue(ctx); err != nil && ctx.Err() == nil {
			w.cfg.Logger.Warn("sync: schedule failed", "error", err)
		} else if n > 0 {
			w.cfg.Logger.Debug("sync: scheduled", "documents", n)
		}
		w.sampleDepth(ctx)
	})
}

// ScheduleDue queues a "schedule" job for up to Batch documents whose
// next_check_at has passed and returns how many were due.
func (w *Worker) ScheduleDue(ctx context.Context) (int64, error) {
	tag, err := w.cfg.Pool.Exec(ctx, `
		WITH due AS (
			SELECT id FROM documents WHERE next_check_at <= now()
			ORDER BY next_check_at
			LIMIT $1
			FOR UPDATE SKIP LOCKED
		), bumped AS (
			UPDATE documents d SET next_check_at = now() + $2::interval
			FROM due WHERE d.id = due.id
			RETURNING d.id
		)
		INSERT INTO sync_jobs (document_id, reason)
		SELECT id, 'schedule' FROM bumped
		ON CONFLICT (document_id) DO NOTHING`, w.cfg.Batch, w.cfg.Interval)
	if err != nil {
		return 0, err
	}
	return tag.RowsAffected(), nil
}

func (w *Worker) sampleDepth(ctx context.Context) {
	var n int64
	err := w.cfg.Pool.QueryRow(ctx, `SELECT count(*) FROM sync_jobs
		WHERE run_at <= now() AND (locked_until IS NULL OR locked_until < now())`).Scan(&n)
	if err == nil {
		w.depth.Set(float64(n))
	}
}
