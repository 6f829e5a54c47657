package tokens

import "sync"

// Tokenizing costs tiktoken-go about 1–2 µs per token, and most of what a
// chat service counts recurs from one request to the next: the passages of
// the documents an agent's instructions reference are in every prompt of the
// agent, retrieved passages come back, and the history is the same plus one
// turn. CountCached remembers counts keyed by the exact text (a count is a
// pure function of it). The cache is bounded by entries and by bytes and
// simply starts over when full, which keeps it free of bookkeeping; a miss
// only costs a recount.
const (
	cacheMaxEntries = 8192
	cacheMaxBytes   = 32 << 20
	// cacheMaxText: longer texts are counted but not kept.
	cacheMaxText = cacheMaxBytes / 64
)

var countCache = struct {
	sync.Mutex
	m     map[string]int
	bytes int
}{m: map[string]int{}}

// CountCached is Count, remembered for texts that recur (see above).
func CountCached(text string) int {
	countCache.Lock()
	n, ok := countCache.m[text]
	countCache.Unlock()
	if ok {
		return n
	}
	n = Count(text)
	if len(text) > cacheMaxText {
		return n
	}
	countCache.Lock()
	if len(countCache.m) >= cacheMaxEntries || countCache.bytes+len(text) > cacheMaxBytes {
		clear(countCache.m)
		countCache.bytes = 0
	}
	countCache.m[text] = n
	countCache.bytes += len(text)
	countCache.Unlock()
	return n
}
