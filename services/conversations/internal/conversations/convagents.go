package conversations

import (
	"strings"
	"sync"
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
type convAgents struct {
	mu sync.Mutex
	m  map[string]string
}

func newConvAgents() *convAgents { return &convAgents{m: map[string]string{}} }

func convAgentKey(uid, convID string) string { return uid + "\x00" + strings.ToLower(convID) }

func (c *convAgents) get(uid, convID string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	a, ok := c.m[convAgentKey(uid, convID)]
	return a, ok
}

func (c *convAgents) put(uid, convID, agentID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= convAgentsMax {
		clear(c.m)
	}
	c.m[convAgentKey(uid, convID)] = agentID
}
