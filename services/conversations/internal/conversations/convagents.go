package conversations

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// convAgentsMax bounds the remembered conversations; the map starts over
// when full (a miss only costs the overlap, never correctness).
const convAgentsMax = 1 << 16

// convAgents remembers which agent a caller's conversation is with, so that
// the next message's knowledge search and access check can start while the
// conversation is read (Answer). A conversation never changes agent, so an
// entry cannot go stale; it is only a hint: Answer uses what it started only
// when the conversation it then reads is the caller's, with that agent. The
// key includes the caller, so nobody else's request ever starts work for a
// conversation that is not theirs.
//
// It also remembers the beginning of the caller's last message in the
// conversation, which the next message's early search uses as the message
// a follow-up follows up; Answer starts the search again when the history
// it reads says otherwise (another replica took a message in between).
type convAgents struct {
	mu sync.Mutex
	m  map[string]convHint
}

type convHint struct {
	agentID string
	last    string // the start of the caller's last message (lastMessageRunes)
}

// lastMessageRunes bounds the remembered text of a last message: the search
// needs its words, not all of it, and the map holds up to convAgentsMax.
const lastMessageRunes = 300

func newConvAgents() *convAgents { return &convAgents{m: map[string]convHint{}} }

func convAgentKey(uid, convID string) string { return uid + "\x00" + strings.ToLower(convID) }

func (c *convAgents) get(uid, convID string) (agentID, last string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h, ok := c.m[convAgentKey(uid, convID)]
	return h.agentID, h.last, ok
}

func (c *convAgents) put(uid, convID, agentID, last string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= convAgentsMax {
		clear(c.m)
	}
	c.m[convAgentKey(uid, convID)] = convHint{agentID: agentID, last: messageStart(last)}
}

// messageStart is the first lastMessageRunes of a message.
func messageStart(s string) string {
	if utf8.RuneCountInString(s) <= lastMessageRunes {
		return s
	}
	return string([]rune(s)[:lastMessageRunes])
}

// lastUserMessage is the start of the newest user message of history
// (oldest first), "" when there is none.
func lastUserMessage(history []Message) string {
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == RoleUser {
			return messageStart(history[i].Content)
		}
	}
	return ""
}
