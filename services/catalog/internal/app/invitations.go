package app

import (
	"net/http"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
)

// DefaultResendRate caps the resends of one invitation
// (RATE_LIMIT_INVITATION_RESENDS; issue 29 item 7): a few reminders, never a
// mail bomb to the invitee.
const DefaultResendRate = "5/1h"

// ResendClass names the resend quota in Redis keys and metrics.
const ResendClass = "invitation-resends"

// resendRule is the per-subscriber resend quota. Like the invitation quota
// it fails closed: while Redis is unreachable resending answers 503.
func resendRule(rate string) (ratelimit.Rule, error) {
	return ratelimit.RuleOf("RATE_LIMIT_INVITATION_RESENDS", rate, DefaultResendRate, ResendClass, ratelimit.FailClosed)
}

// resendGate counts each resend request on the caller's own agent against
// the subscriber ("subscriber:<agent id>:<subscriber id>"). A request for an agent that is not the
// caller's (or whose ownership cannot be checked) is not counted and goes to
// the handler, which answers it (404): nobody can spend another owner's
// quota. Refused requests (429 with Retry-After and ratelimit.LimitMessage,
// "Too many requests: at most 5 per hour. …", or 503 while Redis is
// unreachable) do not reach the handler.
func resendGate(l *ratelimit.Limiter, rule ratelimit.Rule, svc agents.Service) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if rule.Disabled() {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			c, ok := auth.FromContext(r.Context())
			if !ok || c.UID == "" {
				next.ServeHTTP(w, r)
				return
			}
			if _, err := svc.GetAgent(r.Context(), c.UID, r.PathValue("id")); err != nil {
				next.ServeHTTP(w, r)
				return
			}
			// Keyed by agent and subscriber: a made-up subscriber id on one
			// owner's agent never shares a count with another agent's.
			if !l.Check(w, r, rule, "subscriber:"+r.PathValue("id")+":"+r.PathValue("subscriberId")) {
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
