package comments

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentic-app/agentic/services/documents/internal/drive"
)

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
