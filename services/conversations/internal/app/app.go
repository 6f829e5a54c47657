// Package app wires the conversations service: configuration, database and
// migrations, outbox relay, the documents-events consumer (document
// directory), gRPC clients of the catalog, wallet and documents, Redis rate
// limiter, the LLM provider, the metering reconciler, endpoints, HTTP
// (JSON + SSE) and gRPC (ConversationsService + health) servers.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"google.golang.org/grpc"

	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/clients"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/metering"
	"github.com/agentic-app/agentic/services/conversations/internal/pricing"
	"github.com/agentic-app/agentic/services/conversations/internal/transport"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/platform/service"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "conversations"

// MaxHoldTTL is the longest hold the wallet grants.
const MaxHoldTTL = time.Hour

// Config is the service configuration (environment only).
type Config struct {
	// Settings are what every service has (service.LoadSettings).
	service.Settings

	RedisURL string

	// Peers' gRPC addresses.
	CatalogGRPCAddr   string
	WalletGRPCAddr    string
	DocumentsGRPCAddr string
	// AccessCacheTTL is how long a positive CheckAccess answer is reused
	// while the access-change watcher is in step (at most 1 s otherwise;
	// negative disables the cache).
	AccessCacheTTL time.Duration

	// The model.
	LLMBaseURL      string
	LLMAPIKey       string
	LLMModel        string
	LLMSimulated    bool
	Prices          pricing.Table
	ContextWindow   int
	MaxOutputTokens int
	// AnswerTimeout bounds one model call (LLM_TIMEOUT).
	AnswerTimeout time.Duration
	// FollowUps: how a message with history is searched for
	// (FOLLOW_UP_SEARCH: "model" rewrites it into a standalone query first,
	// "rule" searches it with the previous message's words; default: rule
	// with the simulator, model otherwise). FollowUpTimeout bounds the
	// rewrite (FOLLOW_UP_TIMEOUT).
	FollowUps       string
	FollowUpTimeout time.Duration
	// LLMRetryBaseDelay is the adapter's first back-off (tests shorten it).
	LLMRetryBaseDelay time.Duration

	// Metering.
	HoldTTL           time.Duration
	ReconcileInterval time.Duration
	// Rate limit: ChatRateLimit messages per ChatRateWindow per user.
	ChatRateLimit  int
	ChatRateWindow time.Duration
	// Agent API: APIKeyRateLimit requests per APIRateWindow per key and
	// APIOwnerRateLimit per owner (all their keys); APIKeyCacheTTL is how
	// long a replica trusts a key it looked up (≤ 1 s: revocation reaches
	// every replica within it).
	APIKeyRateLimit   int
	APIOwnerRateLimit int
	APIRateWindow     time.Duration
	APIKeyCacheTTL    time.Duration
	// MaxAPIKeysPerAgent bounds each agent's live API keys (MAX_API_KEYS_PER_AGENT).
	MaxAPIKeysPerAgent int
	// Knowledge.
	RetrievalLimit       int
	RetrievalTokenBudget int
	ReferenceTokenBudget int

	// Now overrides the service clock (tests of the reconciler).
	Now func() time.Time
	// RateLimitNow overrides the clock of the chat and agent API limits'
	// windows (tests: an instant that stays in one window).
	RateLimitNow func() time.Time
	// Service, when set, receives the built service (tests drive the
	// reconciler and inspect charges through it).
	Service func(*conversations.Service, conversations.Store)
	// WrapStore, if set, wraps the store the answering path uses (tests inject faults).
	WrapStore func(conversations.Store) conversations.Store
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		Settings: service.LoadSettings(&l, ServiceName, "127.0.0.1:8106", "127.0.0.1:9106"),
		RedisURL: l.String("REDIS_URL", "redis://127.0.0.1:6379/0"),

		CatalogGRPCAddr:   l.String("CATALOG_GRPC_ADDR", "127.0.0.1:9102"),
		WalletGRPCAddr:    l.String("WALLET_GRPC_ADDR", "127.0.0.1:9104"),
		DocumentsGRPCAddr: l.String("DOCUMENTS_GRPC_ADDR", "127.0.0.1:9103"),
		AccessCacheTTL:    l.Duration("ACCESS_CACHE_TTL", clients.DefaultAccessCacheTTL),

		LLMBaseURL:      l.String("LLM_BASE_URL", "http://127.0.0.1:8112/v1"),
		LLMAPIKey:       l.String("LLM_API_KEY", ""),
		LLMModel:        l.String("LLM_MODEL", pricing.SimModel),
		ContextWindow:   l.Int("LLM_CONTEXT_WINDOW", 16384),
		MaxOutputTokens: l.Int("LLM_MAX_OUTPUT_TOKENS", 1024),
		AnswerTimeout:   l.Duration("LLM_TIMEOUT", 3*time.Minute),
		FollowUps:       l.String("FOLLOW_UP_SEARCH", ""),
		FollowUpTimeout: l.Duration("FOLLOW_UP_TIMEOUT", 5*time.Second),

		HoldTTL:            l.Duration("HOLD_TTL", 10*time.Minute),
		ReconcileInterval:  l.Duration("RECONCILE_INTERVAL", 5*time.Second),
		ChatRateLimit:      l.Int("CHAT_RATE_LIMIT", 20),
		ChatRateWindow:     l.Duration("CHAT_RATE_WINDOW", time.Minute),
		APIKeyRateLimit:    l.Int("API_KEY_RATE_LIMIT", 120),
		APIOwnerRateLimit:  l.Int("API_OWNER_RATE_LIMIT", 600),
		APIRateWindow:      l.Duration("API_RATE_WINDOW", time.Minute),
		APIKeyCacheTTL:     l.Duration("API_KEY_CACHE_TTL", conversations.MaxAPIKeyCacheTTL),
		MaxAPIKeysPerAgent: l.Int("MAX_API_KEYS_PER_AGENT", conversations.MaxAPIKeysPerAgent),

		RetrievalLimit:       l.Int("RETRIEVAL_LIMIT", 8),
		RetrievalTokenBudget: l.Int("RETRIEVAL_TOKEN_BUDGET", 3000),
		ReferenceTokenBudget: l.Int("REFERENCE_TOKEN_BUDGET", 4000),
	}
	// The simulator is named as such in the UI; a real model is not,
	// unless LLM_SIMULATED says otherwise (e.g. a simulator behind a proxy).
	c.LLMSimulated = l.Bool("LLM_SIMULATED", isSimModel(c.LLMModel))
	l.NoAuthEmulator() // APP_ENV=production (the default) refuses unsigned emulator tokens
	prices, err := pricing.Load(l.String("LLM_PRICES", ""))
	l.Check(err)
	c.Prices = prices
	if c.MaxAPIKeysPerAgent == 0 { // Run's zero value means the default; the variable may not be 0
		l.Check(errors.New("MAX_API_KEYS_PER_AGENT must be positive"))
	}
	l.Check(c.validate()) // Run checks these again: tests build their Config by hand
	return c, l.Err()
}

func isSimModel(model string) bool {
	return model == pricing.SimModel || strings.HasPrefix(model, pricing.SimModel+"+") || strings.HasPrefix(model, pricing.SimModel+":")
}

// validate checks the settings that would make metering unsafe.
func (c *Config) validate() error {
	for name, v := range map[string]string{
		"CATALOG_GRPC_ADDR": c.CatalogGRPCAddr, "WALLET_GRPC_ADDR": c.WalletGRPCAddr,
		"DOCUMENTS_GRPC_ADDR": c.DocumentsGRPCAddr, "LLM_MODEL": c.LLMModel,
	} {
		if strings.TrimSpace(v) == "" {
			return fmt.Errorf("%s must not be empty", name)
		}
	}
	if c.Prices == nil {
		c.Prices = pricing.Default
	}
	if _, err := c.Prices.Lookup(c.LLMModel); err != nil {
		return fmt.Errorf("LLM_MODEL: %w", err) // an unpriced model cannot be metered
	}
	if c.ContextWindow <= 0 || c.MaxOutputTokens <= 0 || c.MaxOutputTokens >= c.ContextWindow {
		return errors.New("LLM_MAX_OUTPUT_TOKENS must be positive and smaller than LLM_CONTEXT_WINDOW")
	}
	if c.FollowUps != "" && c.FollowUps != conversations.FollowUpsModel && c.FollowUps != conversations.FollowUpsRule {
		return fmt.Errorf("FOLLOW_UP_SEARCH must be %q or %q, not %q", conversations.FollowUpsModel, conversations.FollowUpsRule, c.FollowUps)
	}
	if c.AnswerTimeout <= 0 {
		return errors.New("LLM_TIMEOUT must be positive")
	}
	// A live answer's hold must outlive the answer and its capture, or a
	// slow answer would find its hold expired.
	if c.HoldTTL < c.AnswerTimeout+2*time.Minute || c.HoldTTL > MaxHoldTTL {
		return fmt.Errorf("HOLD_TTL must be at least LLM_TIMEOUT + 2m (%s) and at most %s", c.AnswerTimeout+2*time.Minute, MaxHoldTTL)
	}
	if c.ChatRateWindow <= 0 {
		return errors.New("CHAT_RATE_WINDOW must be positive")
	}
	if c.APIRateWindow <= 0 {
		return errors.New("API_RATE_WINDOW must be positive")
	}
	// Revocation must reach every replica within a second.
	if c.APIKeyCacheTTL > conversations.MaxAPIKeyCacheTTL {
		return fmt.Errorf("API_KEY_CACHE_TTL must be at most %s (negative: no cache)", conversations.MaxAPIKeyCacheTTL)
	}
	if c.ReconcileInterval <= 0 {
		return errors.New("RECONCILE_INTERVAL must be positive")
	}
	if c.MaxAPIKeysPerAgent < 0 {
		return errors.New("MAX_API_KEYS_PER_AGENT must be positive")
	}
	return nil
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	if err := cfg.validate(); err != nil {
		return fmt.Errorf("conversations: %w", err)
	}
	s, err := service.Start(ctx, ServiceName, service.Config{
		Settings: cfg.Settings, Migrations: conversations.Migrations, Outbox: true, Consumes: true, VerifyTokens: true,
	}, logger)
	if err != nil {
		return err
	}
	defer s.Close()
	logger, pool, reg, verifier := s.Logger, s.Pool, s.Registry, s.Verifier
	// The API key revocation watcher polls on a connection of its own
	// (docs/agent-api.md): queued behind answers, its polls would lapse and
	// the key cache fall back to its one-second bound under load.
	watchCfg := pool.Config().Copy()
	watchCfg.MaxConns, watchCfg.MinConns = 1, 0
	watchPool, err := pgxpool.NewWithConfig(ctx, watchCfg)
	if err != nil {
		return fmt.Errorf("database: revocation watcher pool: %w", err)
	}
	defer watchPool.Close()

	store := conversations.NewPostgresStore(pool)
	var answerStore conversations.Store = store
	if cfg.WrapStore != nil {
		answerStore = cfg.WrapStore(store)
	}
	// The document directory (names of @Document references) follows the
	// documents service's events.
	if err := s.Consume("document-events", events.ConsumerConfig{
		GroupID: conversations.DirectoryConsumerGroup, Topics: []string{topics.Documents}, Handler: conversations.DirectoryHandler(),
	}); err != nil {
		return err
	}
	// A deleted agent's conversations and API keys go with it (the catalog's
	// agent.deleted), a deleted account's conversations with it (identity's
	// user.deleted).
	if err := s.Consume("catalog-events", events.ConsumerConfig{
		GroupID: conversations.CatalogConsumerGroup, Topics: []string{topics.Catalog, topics.Identity},
		Handler: conversations.CatalogEventHandler(),
	}); err != nil {
		return err
	}

	rdb, err := newRedis(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()

	catalogConn, err := server.DialGRPC(cfg.CatalogGRPCAddr, s.GRPC)
	if err != nil {
		return err
	}
	defer catalogConn.Close()
	walletConn, err := server.DialGRPC(cfg.WalletGRPCAddr, s.GRPC)
	if err != nil {
		return err
	}
	defer walletConn.Close()
	documentsConn, err := server.DialGRPC(cfg.DocumentsGRPCAddr, s.GRPC)
	if err != nil {
		return err
	}
	defer documentsConn.Close()

	provider := llm.NewOpenAI(llm.OpenAIConfig{
		BaseURL: cfg.LLMBaseURL, APIKey: cfg.LLMAPIKey, Model: cfg.LLMModel,
		RetryBaseDelay: cfg.LLMRetryBaseDelay, Logger: logger,
	})
	meter := metering.New(clients.NewWallet(walletConn, 0), metering.Config{
		HoldTTL: cfg.HoldTTL, Logger: logger, Registerer: reg,
	})
	// Positive access answers are cached; the "access-changes" worker keeps
	// the cache in step with the catalog (a removed subscriber stops within
	// a second on every replica).
	catalog := clients.NewCatalog(catalogConn, clients.CatalogConfig{CacheTTL: cfg.AccessCacheTTL, Logger: logger})
	limits := newServiceLimits(rdb, cfg, logger, reg) // quotas.go
	svc := conversations.NewService(conversations.Deps{
		Store:     answerStore,
		Access:    catalog,
		Agents:    catalog, // the Library's agents (GetAgent)
		Knowledge: clients.NewKnowledge(documentsConn, 0),
		Directory: store,
		Limiter:   limits.chat,
		Meter:     meter,
		Provider:  provider,
		Keys:      store,
		Accounts:  verifier, // a disabled owner's keys stop within 5 s
		// The watcher's own connection (see watchPool).
		Revocations: conversations.NewPostgresStore(watchPool),
		APILimiter:  limits.api,
	}, conversations.Config{
		Model: cfg.LLMModel, Simulated: cfg.LLMSimulated, Prices: cfg.Prices,
		ContextWindow: cfg.ContextWindow, MaxOutputTokens: cfg.MaxOutputTokens,
		RetrievalLimit: cfg.RetrievalLimit, RetrievalTokenBudget: cfg.RetrievalTokenBudget,
		ReferenceTokenBudget: cfg.ReferenceTokenBudget, AnswerTimeout: cfg.AnswerTimeout,
		FollowUps: cfg.FollowUps, RewriteTimeout: cfg.FollowUpTimeout,
		APIKeyCacheTTL: cfg.APIKeyCacheTTL, MaxAPIKeysPerAgent: cfg.MaxAPIKeysPerAgent,
		Logger: logger, Registerer: reg, Now: cfg.Now,
	})
	if cfg.Service != nil {
		cfg.Service(svc, store)
	}
	set := endpoints.New(svc, logger, reg)
	logger.Info("conversations configured", "model", cfg.LLMModel, "simulated", cfg.LLMSimulated, "follow_up_search", svc.FollowUps(),
		"llm_base_url", cfg.LLMBaseURL, "max_output_tokens", cfg.MaxOutputTokens, "context_window", cfg.ContextWindow)

	// Peers and Redis are not readiness checks: without them messages are
	// refused (or, for Redis, not rate limited) while reading still works.
	transport.RegisterHTTP(s.Mux, set, verifier, logger)
	transport.RegisterAgentAPI(s.Mux, set, verifier, logger, reg)
	// Per-user quotas in Redis (quotas.go).
	rules, err := quotaRules()
	if err != nil {
		return err
	}
	api := ratelimit.GuardMux(s.Mux, rdb, rules, verifier, ratelimit.Options{Service: ServiceName, Logger: logger, Registerer: reg})

	s.AddWorker("charge-reconciler", func(ctx context.Context) error { return svc.RunReconciler(ctx, cfg.ReconcileInterval) })
	// Keeps the API key cache in step with revocations (docs/agent-api.md).
	s.AddWorker("api-key-revocations", svc.RunKeyRevocationWatcher)
	// Keeps the access cache in step with the catalog's access changes.
	s.AddWorker("access-changes", catalog.Run)

	// gRPC: ConversationsService (the other channels' answers) and health.
	return s.Serve(ctx, api, GRPCPolicy(), func(g *grpc.Server) {
		conversationsv1.RegisterConversationsServiceServer(g, transport.NewGRPCServer(set))
	})
}
