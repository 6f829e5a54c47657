package comments

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentic-app/agentic/services/documents/internal/drive"
)

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
