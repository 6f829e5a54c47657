package prompt

import (
	"strings"
	"unicode/utf8"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
)

// Follow-up rewriting (issue 32 item 5): before a message that has history
// is searched for, the model is asked to turn it into a standalone search
// query ("And what about the second one?" → "late submission policy for the
// second problem set"). This file is that request and the reading of its
// answer; the conversations service decides when to send it.

// StandaloneQueryInstruction opens the system message of the request. The
// LLM simulator recognises the request by it (and answers by a rule).
const StandaloneQueryInstruction = "You rewrite the last message of a conversation as a standalone search query."

const standaloneQuerySystem = StandaloneQueryInstruction + `
The query searches the documents an assistant answers from, so it must make sense without the conversation.
Replace what the last message refers back to ("it", "that", "the second one", "what about ...") by what it
stands for in the conversation, keep the message's own names, numbers and key words, and add nothing it does
not ask. If the last message already stands on its own, repeat it unchanged. Never answer the message.
Reply with the query alone: one line, no quotes, no explanation.`

// Tags delimit the quoted conversation and the last message in the request
// (the simulator reads them back).
const (
	conversationOpen  = "<conversation>"
	conversationClose = "</conversation>"
	lastOpen          = "<last_message>"
	lastClose         = "</last_message>"
)

// Bounds of the request: the earlier messages quoted (the latest ones), the
// runes kept of each, and the query's length in tokens and runes.
const (
	StandaloneQueryTurns     = 4
	standaloneQuotedRunes    = 1200
	StandaloneQueryMaxTokens = 64
	standaloneQueryMaxRunes  = 500
)

// StandaloneQueryMessages is the request that rewrites message, given the
// conversation before it (oldest first; only user and assistant messages
// are quoted, the last StandaloneQueryTurns of them).
func StandaloneQueryMessages(earlier []llm.Message, message string) []llm.Message {
	var quoted []llm.Message
	for _, m := range earlier {
		if (m.Role == llm.RoleUser || m.Role == llm.RoleAssistant) && strings.TrimSpace(m.Content) != "" {
			quoted = append(quoted, m)
		}
	}
	quoted = quoted[max(0, len(quoted)-StandaloneQueryTurns):]
	var b strings.Builder
	b.WriteString(conversationOpen + "\n")
	for _, m := range quoted {
		who := "User"
		if m.Role == llm.RoleAssistant {
			who = "Assistant"
		}
		b.WriteString(who + ": " + clip(untag(m.Content), standaloneQuotedRunes) + "\n")
	}
	b.WriteString(conversationClose + "\n" + lastOpen + "\n" + clip(untag(message), standaloneQuotedRunes) + "\n" + lastClose)
	return []llm.Message{{Role: llm.RoleSystem, Content: standaloneQuerySystem}, {Role: llm.RoleUser, Content: b.String()}}
}

// StandaloneQueryRequest reads a request made by StandaloneQueryMessages
// back: the user messages it quotes (oldest first) and the last message.
// ok is false for any other prompt.
func StandaloneQueryRequest(msgs []llm.Message) (earlierUser []string, message string, ok bool) {
	if len(msgs) != 2 || !strings.HasPrefix(msgs[0].Content, StandaloneQueryInstruction) {
		return nil, "", false
	}
	body := msgs[1].Content
	conv, rest, found := strings.Cut(body, conversationClose)
	if !found {
		return nil, "", false
	}
	last, found := strings.CutPrefix(strings.TrimSpace(rest), lastOpen)
	if !found {
		return nil, "", false
	}
	last, _, _ = strings.Cut(last, lastClose)
	for _, line := range strings.Split(strings.TrimPrefix(conv, conversationOpen), "\n") {
		if u, isUser := strings.CutPrefix(line, "User: "); isUser {
			earlierUser = append(earlierUser, u)
		}
	}
	return earlierUser, strings.TrimSpace(last), true
}

// StandaloneQuery reads the model's reply: its first non-empty line, without
// surrounding quotes or a "Query:" label, at most standaloneQueryMaxRunes.
// "" when the reply has no query (the caller searches the message as sent).
func StandaloneQuery(reply string) string {
	for _, line := range strings.Split(reply, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		for _, label := range []string{"Standalone query:", "Search query:", "Query:"} {
			if rest, ok := cutPrefixFold(line, label); ok {
				line = strings.TrimSpace(rest)
			}
		}
		line = strings.Trim(line, "\"'`“”‘’")
		return strings.TrimSpace(clip(line, standaloneQueryMaxRunes))
	}
	return ""
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

// untag keeps a quoted message from closing the request's tags, and puts it
// on one line (one line per quoted message).
func untag(s string) string {
	s = strings.NewReplacer("<", "‹", ">", "›", "\r", " ", "\n", " ").Replace(s)
	return strings.TrimSpace(s)
}

// clip shortens s to at most n runes.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}
