package app

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/conversations/internal/transport"
	"github.com/agentic-app/agentic/services/platform/observability"
	quota "github.com/agentic-app/agentic/services/platform/ratelimit"
)

// DefaultMessageRate is the per-user cap on sending messages in front of the
// service (RATE_LIMIT_MESSAGES). It is looser than CHAT_RATE_LIMIT (20 a
// minute, a fixed window inside the service, fail open), which stays the
// product limit; this one is what still holds, failing closed, while Redis
// is unreachable.
const DefaultMessageRate = "60/1m"

// DefaultConversationRate caps starting conversations per user
// (RATE_LIMIT_CONVERSATIONS; issue 30 item 7): far above what a person
// does, it stops a script filling the database with empty conversations.
const DefaultConversationRate = "30/1m"

// quotaRules are the conversations service's per-user quotas
// (docs/reliability.md, "Rate limits and quotas"): sending a message (it is
// charged) and creating an API key (it spends) fail closed; reads fail open.
// The agent API (/api/v1/*, API keys) has its own per-key and per-owner
// limits (docs/agent-api.md).
func quotaRules() (quota.Rules, error) {
	money, read, err := quota.RatesFromEnv()
	if err != nil {
		return nil, err
	}
	messages, err := quota.RuleFromEnv("RATE_LIMIT_MESSAGES", DefaultMessageRate, quota.FailClosed)
	if err != nil {
		return nil, err
	}
	conversations, err := quota.RuleFromEnv("RATE_LIMIT_CONVERSATIONS", DefaultConversationRate, quota.FailClosed)
	if err != nil {
		return nil, err
	}
	return quota.Rules{
		http.MethodPost + " " + transport.PathMessages:           messages.For("messages"),
		http.MethodPost + " " + transport.PathAPIKeys:            money.For("api-keys"),
		http.MethodPost + " " + transport.PathAgentConversations: conversations.For("conversations"),
		http.MethodGet + " " + transport.PathAgentConversations:  read.For("read"),
		http.MethodGet + " " + transport.PathChatInfo:            read.For("read"),
		http.MethodGet + " " + transport.PathConversation:        read.For("read"),
		http.MethodGet + " " + transport.PathAPIKeys:             read.For("read"),
		http.MethodGet + " " + transport.PathLibrary:             read.For("read"),
	}, nil
}

// The limits the service applies itself, the product limits
// (docs/conversations.md): messages per user (CHAT_RATE_LIMIT; all agents
// and channels together except the agent API) and agent API requests per
// key and per owner (API_KEY_RATE_LIMIT, API_OWNER_RATE_LIMIT;
// docs/agent-api.md). Fixed windows, failing open: Redis is a guard here,
// not a dependency, the wallet still bounds what anyone can spend, and the
// quotas above are what holds while Redis is away.
type serviceLimits struct {
	chat quota.Limit
	api  apiLimits
}

// Limit names, in Redis keys (conversations:{<id>}:rl:<name>:<window
// start>) and in the limit label of the metrics.
const (
	chatLimit     = "chat"
	apiKeyLimit   = "api-key"
	apiOwnerLimit = "api-owner"
)

func newServiceLimits(rdb redis.Scripter, cfg Config, logger *slog.Logger, reg prometheus.Registerer) serviceLimits {
	rejected := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "conversations_rate_limited_total", Help: "Messages refused by the per-user rate limit.",
	}, []string{"limit"})
	errs := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "conversations_rate_limit_errors_total", Help: "Rate-limit checks that failed open (Redis unavailable).",
	}, []string{"limit"})
	if reg != nil {
		rejected = observability.Register(reg, rejected)
		errs = observability.Register(reg, errs)
	}
	l := quota.New(rdb, quota.Options{
		Service: ServiceName, Logger: logger, Now: cfg.RateLimitNow,
		// One attempt of 200 ms: failing open, a late answer costs one
		// unlimited message, and a retry would hold the message longer.
		Timeout: 2 * redisIOTimeout, SlowAttempts: 1,
		Rejected: func(r quota.Rule) prometheus.Counter { return rejected.WithLabelValues(r.Class) },
		Errors:   func(r quota.Rule) prometheus.Counter { return errs.WithLabelValues(r.Class) },
	})
	limit := func(name string, n int, window time.Duration) quota.Limit {
		// Exported from the start, at 0.
		rejected.WithLabelValues(name)
		errs.WithLabelValues(name)
		return l.Limit(quota.Rule{Class: name, Limit: n, Window: window, Mode: quota.FailOpen, Algorithm: quota.FixedWindow})
	}
	return serviceLimits{
		chat: limit(chatLimit, cfg.ChatRateLimit, cfg.ChatRateWindow),
		api: apiLimits{
			key:   limit(apiKeyLimit, cfg.APIKeyRateLimit, cfg.APIRateWindow),
			owner: limit(apiOwnerLimit, cfg.APIOwnerRateLimit, cfg.APIRateWindow),
		},
	}
}

// apiLimits implements conversations.APILimiter: a request must pass its
// key's window and its owner's (all of the owner's keys together).
// Retry-After is the refusing window's end.
type apiLimits struct{ key, owner quota.Limit }

// AllowAPI counts the key's window first: a key over its own limit does not
// use up its owner's.
func (a apiLimits) AllowAPI(ctx context.Context, keyID, ownerUID string) (bool, time.Duration) {
	if ok, retry := a.key.Allow(ctx, keyID); !ok {
		return false, retry
	}
	return a.owner.Allow(ctx, ownerUID)
}

// Timeouts of Redis calls, and the pool.
const (
	redisDialTimeout = 200 * time.Millisecond
	redisIOTimeout   = 100 * time.Millisecond
	// redisPoolTimeout bounds the wait for a free connection. Under a burst
	// (bench/conversations' money phase: 200 messages at once, each with
	// its rate limit and quota checks) every connection is busy for a
	// moment: that is not Redis being down, which the dial and I/O
	// timeouts detect, so the wait may be longer than one command. With
	// the I/O timeout as the bound, 18 of 200 such messages were refused
	// with 503.
	redisPoolTimeout = 500 * time.Millisecond
	// redisPoolSize is the connections per replica (go-redis's default is
	// 10 per CPU: 20 on two cores, too few for that burst).
	redisPoolSize = 64
)

// newRedis returns a go-redis client for url (redis://[:pass@]host:port/db)
// with short timeouts and no retries. Its commands are traced
// (observability.TraceRedis).
func newRedis(url string) (*redis.Client, error) {
	return observability.NewRedis(url, observability.RedisBounds{Dial: redisDialTimeout, IO: redisIOTimeout, Pool: redisPoolTimeout, PoolSize: redisPoolSize})
}
