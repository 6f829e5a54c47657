package prompt

import (
	"sync"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/platform/tokens"
)

// Tokenizing is most of Build's time (tiktoken-go runs ~1-2 µs per token),
// and most of what it counts recurs from one message to the next: the
// passages of the documents the instructions reference are in every prompt
// of the agent, retrieved passages come back, and the history is the same
// plus one turn. So counts of passage blocks and history messages are
// remembered, keyed by the exact text (a count is a pure function of it).
// The cache is bounded by entries and by bytes and simply starts over when
// full, which keeps it free of bookkeeping; a miss only costs a recount.
const (
	cacheMaxEntries = 8192
	cacheMaxBytes   = 32 << 20
)

var countCache = struct {
	sync.Mutex
	m     map[string]int
	bytes int
}{m: map[string]int{}}

func cachedCount(s string) int {
	countCache.Lock()
	n, ok := countCache.m[s]
	countCache.Unlock()
	if ok {
		return n
	}
	n = tokens.Count(s)
	countCache.Lock()
	if len(countCache.m) >= cacheMaxEntries || countCache.bytes+len(s) > cacheMaxBytes {
		clear(countCache.m)
		countCache.bytes = 0
	}
	if len(s) <= cacheMaxBytes/64 {
		countCache.m[s] = n
		countCache.bytes += len(s)
	}
	countCache.Unlock()
	return n
}

// messageTokens is llm.MessageTokens with the content count cached.
func messageTokens(m llm.Message) int {
	return llm.MessageOverhead + cachedCount(m.Role) + cachedCount(m.Content)
}
