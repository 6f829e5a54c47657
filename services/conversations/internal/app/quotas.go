package app

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/agentic-app/agentic/services/conversations/internal/transport"
	"github.com/agentic-app/agentic/services/platform/auth"
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

// withQuotas puts the per-user quotas in front of mux.
func withQuotas(mux *http.ServeMux, rdb redis.Scripter, verifier auth.Verifier, logger *slog.Logger, reg prometheus.Registerer) (http.Handler, error) {
	rules, err := quotaRules()
	if err != nil {
		return nil, err
	}
	l := quota.New(rdb, quota.Options{Service: ServiceName, Logger: logger, Registerer: reg})
	return l.Guard(mux, rules, quota.TokenUser(verifier)), nil
}
