package app

import (
	"fmt"
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/documents/internal/transport"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
)

// DefaultKnowledgeSearchRate caps the Test retrieval searches per user
// (RATE_LIMIT_KNOWLEDGE_SEARCH; issue 30 item 7). A search costs no money
// but runs full-text queries over the agent's index: far above what a person
// types, the limit stops a script hammering the database. It fails open: a
// search is a read, and Redis being away must not break the agent editor.
const DefaultKnowledgeSearchRate = "60/1m"

// DefaultRedisURL is REDIS_URL when unset (the local stack's Redis).
const DefaultRedisURL = "redis://127.0.0.1:6379/0"

// quotaRules are the documents service's per-user quotas (docs/reliability.md,
// "Rate limits and quotas"); searchRate is "<limit>/<window>" ("0/1m"
// disables it, "" is the default). The count quota (MAX_DOCUMENTS_PER_AGENT)
// is applied in the add's transaction (package documents).
func quotaRules(searchRate string) (ratelimit.Rules, error) {
	if searchRate == "" {
		searchRate = DefaultKnowledgeSearchRate
	}
	limit, window, err := ratelimit.ParseRate(searchRate)
	if err != nil {
		return nil, fmt.Errorf("RATE_LIMIT_KNOWLEDGE_SEARCH: %w", err)
	}
	search := ratelimit.Rule{Class: "knowledge-search", Limit: limit, Window: window, Mode: ratelimit.FailOpen, Env: "RATE_LIMIT_KNOWLEDGE_SEARCH"}
	return ratelimit.Rules{
		http.MethodPost + " " + transport.PathSearch: search,
	}, nil
}

// Timeouts of the quota's Redis calls, and the pool (as the conversations
// service's: a slow or absent Redis must cost a search little, and a
// search is served without its check then).
const (
	redisDialTimeout = 200 * time.Millisecond
	redisIOTimeout   = 100 * time.Millisecond
	redisPoolTimeout = 500 * time.Millisecond
)

// newRedisClient returns a go-redis client for url (redis://[:pass@]host:port/db)
// with short timeouts and no retries; its commands are traced. It connects
// lazily: Redis being down at start-up does not stop the service.
func newRedisClient(url string) (*redis.Client, error) {
	return observability.NewRedis(url, observability.RedisBounds{Dial: redisDialTimeout, IO: redisIOTimeout, Pool: redisPoolTimeout})
}
