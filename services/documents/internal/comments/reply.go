package comments

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/agentic-app/agentic/services/documents/internal/drive"
)

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
