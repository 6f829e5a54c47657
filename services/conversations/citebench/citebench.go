// Package citebench lets benchmarks outside the conversations module drive
// the chat path's citations: it builds an answer's prompt exactly as the
// conversations service does (internal/prompt), has the deterministic LLM
// simulator answer it (internal/llmsim) and reads back which documents the
// answer cites. It exists, like services/documents/knowledgebench, only so
// benches (bench/retrieval) can use the service's internal packages; it is
// not part of the service binary nor of the tests.
package citebench

import (
	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/llmsim"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
)

// The service's defaults (LLM_CONTEXT_WINDOW, LLM_MAX_OUTPUT_TOKENS in
// internal/app; the same in conversations.Config).
const (
	ContextWindow   = 16384
	MaxOutputTokens = 1024
)

// Passage is one retrieved passage, best first (what the knowledge
// service's Search returns).
type Passage struct {
	DocumentID, DocumentName, URL, Text string
	Labels                              []string
}

// Turn is one earlier exchange of the conversation.
type Turn struct{ User, Assistant string }

// CitedDocuments answers question as the chat path does: the prompt is
// built with the passages as Retrieved (no instructions, so no referenced
// passages), the earlier turns as History (user then assistant message
// each; a turn without an assistant text contributes its user message
// only), the service's default context window and output reserve; the LLM
// simulator answers it. cited are the names of the documents the answer
// cites with [n] markers, in order of first citation, each once; nil when
// it cites none.
func CitedDocuments(agentName string, passages []Passage, earlier []Turn, question string) (cited []string, answer string, err error) {
	retrieved := make([]prompt.Passage, 0, len(passages))
	for _, p := range passages {
		retrieved = append(retrieved, prompt.Passage{DocumentID: p.DocumentID, DocumentName: p.DocumentName,
			URL: p.URL, Text: p.Text, Labels: p.Labels})
	}
	var history []llm.Message
	for _, t := range earlier {
		history = append(history, llm.Message{Role: llm.RoleUser, Content: t.User})
		if t.Assistant != "" {
			history = append(history, llm.Message{Role: llm.RoleAssistant, Content: t.Assistant})
		}
	}
	out, err := prompt.Build(prompt.Input{AgentName: agentName, Retrieved: retrieved, History: history,
		Message: question, ContextWindow: ContextWindow, MaxOutputTokens: MaxOutputTokens})
	if err != nil {
		return nil, "", err
	}
	answer = llmsim.Answer(out.Messages)
	seen := map[string]bool{}
	for _, c := range prompt.CitedPassages(answer, out.Passages) {
		if !seen[c.DocumentName] {
			seen[c.DocumentName] = true
			cited = append(cited, c.DocumentName)
		}
	}
	return cited, answer, nil
}
