package app

import (
	"net/http"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
)

// DefaultRedisURL is REDIS_URL's default.
const DefaultRedisURL = "redis://127.0.0.1:6379/0"

// DefaultInvitationRate caps invitations per agent (RATE_LIMIT_INVITATIONS;
// issue 30 item 7): far above what an owner does by hand, it stops a script
// filling an agent's list (and the database) with addresses.
const DefaultInvitationRate = "50/24h"

// InvitationClass names the invitation quota in Redis keys and metrics.
const InvitationClass = "invitations"

// invitationRule is the per-agent invitation quota (docs/reliability.md,
// "Rate limits and quotas"). It fails closed like the other quotas on what
// a user creates: while Redis is unreachable inviting answers 503.
func invitationRule(rate string) (ratelimit.Rule, error) {
	return ratelimit.RuleOf("RATE_LIMIT_INVITATIONS", rate, DefaultInvitationRate, InvitationClass, ratelimit.FailClosed)
}

// inviteGate counts each invitation request on the caller's own agent
// against that agent ("agent:<id>"), not against the user: the quota is per
// agent. It runs after authentication (claims in the context) and before the
// invite handler. A request for an agent that is not the caller's (or whose
// ownership cannot be checked) is not counted and goes to the handler, which
// answers it (404): nobody can spend another owner's quota. Refused requests
// (429 with Retry-After and ratelimit.LimitMessage, or 503 while Redis is
// unreachable) do not reach the handler.
func inviteGate(l *ratelimit.Limiter, rule ratelimit.Rule, svc agents.Service) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if rule.Disabled() {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, ok := auth.FromContext(r.Context())
			id := r.PathValue("id")
			if !ok || c.UID == "" {
				next.ServeHTTP(w, r)
				return
			}
			if _, err := svc.GetAgent(r.Context(), c.UID, id); err != nil {
				next.ServeHTTP(w, r)
				return
			}
			if !l.Check(w, r, rule, "agent:"+id) {
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// Redis client bounds: a quota check is one short script; a slow Redis is
// treated as a failed one (the limiter's own 150 ms bound applies on top).
const (
	redisDialTimeout = time.Second
	redisIOTimeout   = 500 * time.Millisecond
)

// newRedis returns a go-redis client for url (redis://[:pass@]host:port/db)
// with short timeouts and no retries; its commands are traced.
func newRedis(url string) (*redis.Client, error) {
	return observability.NewRedis(url, observability.RedisBounds{Dial: redisDialTimeout, IO: redisIOTimeout, Pool: redisIOTimeout})
}
