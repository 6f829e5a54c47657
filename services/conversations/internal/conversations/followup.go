package conversations

import (
	"context"
	"strings"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
)

// How a message that has history is searched for (Config.FollowUps,
// FOLLOW_UP_SEARCH).
const (
	// FollowUpsModel: the answering model first rewrites the message into
	// a standalone query from the conversation ("And the second one?" →
	// what "the second one" is); that query is searched. Its tokens are
	// part of the answer's metered usage.
	FollowUpsModel = "model"
	// FollowUpsRule: the documents service's deterministic rule — a
	// message that reads as a follow-up is searched with the previous
	// message's words at half weight. No extra model call; the LLM
	// simulator's default (it cannot read a conversation).
	FollowUpsRule = "rule"
)

// Outcomes of a rewrite (the "outcome" label of
// conversations_follow_up_rewrites_total).
const (
	rewriteRewritten = "rewritten" // the model's query differs from the message
	rewriteUnchanged = "unchanged" // the message stands on its own
	rewriteFailed    = "failed"    // no query (error, timeout, empty reply): the rule was used
)

// FollowUps is how follow-ups are searched for (FollowUpsModel or
// FollowUpsRule).
func (s *Service) FollowUps() string { return s.cfg.FollowUps }

// rewritesFollowUps reports whether a message whose caller's previous
// message is previous is rewritten by the model before it is searched for:
// in FollowUpsModel mode, when there is a previous message.
func (s *Service) rewritesFollowUps(previous string) bool {
	return s.cfg.FollowUps == FollowUpsModel && previous != ""
}

// startRewrittenKnowledge is startKnowledge for a message that has
// history, in FollowUpsModel mode: the model rewrites message into a
// standalone query from history (what the prompt will quote too), and the
// query is searched. If the rewrite fails the message is searched by the
// rule (with previous), as in FollowUpsRule mode. It is started after
// access and the rate limit are granted: the rewrite is a paid call.
func (s *Service) startRewrittenKnowledge(ctx context.Context, agentID string, history []Message, previous, message string) *knowledgeFetch {
	kctx, cancel := context.WithTimeout(ctx, s.cfg.RewriteTimeout+s.cfg.KnowledgeTimeout)
	k := &knowledgeFetch{ctx: kctx, stop: cancel}
	k.run(&k.retrieved, func() ([]prompt.Passage, error) {
		q := SearchQuery{AgentID: agentID, Query: message, Earlier: earlierOf(previous), RelevantOnly: true,
			Limit: s.cfg.RetrievalLimit, TokenBudget: s.cfg.RetrievalTokenBudget}
		if query, usage, ok := s.standaloneQuery(kctx, history, message); ok {
			q.Query, q.Earlier = query, nil
			k.setRewrite(usage)
		}
		return s.knowledge.Search(kctx, q)
	})
	return k
}

// standaloneQuery asks the model for message as a standalone query, with
// what the call used. ok is false when it gave none (an error, the
// timeout, an empty reply: logged and counted); such a call is not billed
// to the caller — the platform bears it, as it bears a refused answer.
func (s *Service) standaloneQuery(ctx context.Context, history []Message, message string) (string, llm.Usage, bool) {
	rctx, cancel := context.WithTimeout(ctx, s.cfg.RewriteTimeout)
	defer cancel()
	earlier := make([]llm.Message, 0, len(history))
	for _, m := range history {
		earlier = append(earlier, llm.Message{Role: m.Role, Content: m.Content})
	}
	res, err := s.provider.Complete(rctx, llm.Request{
		Model: s.cfg.Model, Messages: prompt.StandaloneQueryMessages(earlier, message),
		MaxTokens: prompt.StandaloneQueryMaxTokens,
	}, func(string) error { return nil })
	query := prompt.StandaloneQuery(res.Text)
	if err != nil || query == "" {
		s.m.rewrites.WithLabelValues(rewriteFailed).Inc()
		s.log.WarnContext(ctx, "follow-up rewrite failed, searching by the rule", "error", err, "empty", query == "")
		return "", res.Usage, false
	}
	outcome := rewriteRewritten
	if strings.EqualFold(strings.TrimSpace(query), strings.TrimSpace(message)) {
		outcome = rewriteUnchanged
	}
	s.m.rewrites.WithLabelValues(outcome).Inc()
	return query, res.Usage, true
}

// setRewrite records what a rewrite whose query is searched used.
func (k *knowledgeFetch) setRewrite(usage llm.Usage) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.rewrite = usage
}

// rewriteUsage is what the answer's rewrite used (zero without one), read
// once the fetch is waited for. Only a rewrite whose query was searched is
// billed with the answer.
func (k *knowledgeFetch) rewriteUsage() llm.Usage {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.rewrite
}
