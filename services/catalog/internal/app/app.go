// Package app wires the catalog service: configuration, database and
// migrations, outbox relay, identity, usage and review event consumers, identity gRPC
// client, Redis (the per-agent invitation quota), endpoints, HTTP and gRPC
// transports.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"

	"google.golang.org/grpc"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/clients"
	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/catalog/internal/reviews"
	"github.com/agentic-app/agentic/services/catalog/internal/transport"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/platform/service"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "catalog"

// Config is the service configuration (environment only).
type Config struct {
	// Settings are what every service has (service.LoadSettings).
	service.Settings

	// AgentEmailDomain is the domain of the agents' e-mail addresses.
	AgentEmailDomain string
	// IdentityGRPCAddr is identity's gRPC address for invite-time lookups
	// ("" disables them; user.onboarded events still activate invites).
	IdentityGRPCAddr string
	// RedisURL is the Redis of the invitation quota ("": DefaultRedisURL).
	RedisURL string
	// MaxAgentsPerUser bounds each user's agents (MAX_AGENTS_PER_USER;
	// 0: agents.DefaultMaxAgentsPerUser).
	MaxAgentsPerUser int
	// InvitationRate is the invitations per agent (RATE_LIMIT_INVITATIONS,
	// "<limit>/<window>"; "": DefaultInvitationRate; "0/24h" disables it).
	InvitationRate string
	// InvitationResendRate is the resends per invitation
	// (RATE_LIMIT_INVITATION_RESENDS; "": DefaultResendRate; "0/1h"
	// disables it; invitations.go).
	InvitationResendRate string
	// MarketplaceEnabled is the marketplace launch switch
	// (MARKETPLACE_ENABLED, default true). Off: the /api/marketplace/*
	// routes and the review replies answer 404 not_found.
	MarketplaceEnabled bool
	// ReviewRate is the reviews per user (RATE_LIMIT_REVIEWS; "":
	// DefaultReviewRate; "0/24h" disables it); ReportRate the reports per
	// user (RATE_LIMIT_REPORTS; "": DefaultReportRate).
	ReviewRate, ReportRate string
	// DocumentsGRPCAddr is the documents service's gRPC address
	// (DOCUMENTS_GRPC_ADDR): publishing asks it whether the agent has a
	// readable document, the marketplace profile how many ("": publishing
	// answers 503 knowledge_unavailable).
	DocumentsGRPCAddr string
	// MarketplaceRate is the public marketplace routes' rate per client
	// address (RATE_LIMIT_MARKETPLACE; "": DefaultMarketplaceRate; "0/1m"
	// turns it off); TrustedProxyHops how many proxies in front of the
	// gateway append to X-Forwarded-For (TRUSTED_PROXY_HOPS; marketplace.go).
	MarketplaceRate  string
	TrustedProxyHops int
	// EstimateInputPrice and EstimateOutputPrice price the typical answer
	// of an agent without answers yet: the default model's prices in
	// micro-dollars per 1M tokens (MARKETPLACE_ESTIMATE_INPUT_PRICE,
	// MARKETPLACE_ESTIMATE_OUTPUT_PRICE; 0: gpt-4o-mini's).
	EstimateInputPrice, EstimateOutputPrice int64
	// CategoriesTTL overrides how long the marketplace's categories are
	// reused (tests; negative: never).
	CategoriesTTL time.Duration
	// MarketplaceCacheTTL is how long the public marketplace's pages and
	// profiles are served from memory while no change notification dropped
	// them (MARKETPLACE_CACHE_TTL, default 5s; 0 turns the cache off:
	// agents.ListingCache).
	MarketplaceCacheTTL time.Duration
	// WebIndexURL is where the SPA's shell is read for the agent pages
	// (WEB_INDEX_URL; "": no agent pages or sitemap.xml, tests only);
	// AppBaseURL the web app's public origin for their canonical links
	// (APP_BASE_URL); PagesTTL how long the shell and the sitemap are
	// reused (tests; 0: a minute). pages.go.
	WebIndexURL, AppBaseURL string
	PagesTTL                time.Duration
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		Settings:         service.LoadSettings(&l, ServiceName, "127.0.0.1:8102", "127.0.0.1:9102"),
		AgentEmailDomain: l.String("AGENT_EMAIL_DOMAIN", "agents.agentic.local"),
		IdentityGRPCAddr: l.String("IDENTITY_GRPC_ADDR", "127.0.0.1:9101"),
		RedisURL:         l.String("REDIS_URL", DefaultRedisURL),
		MaxAgentsPerUser: l.Int("MAX_AGENTS_PER_USER", agents.DefaultMaxAgentsPerUser),
		InvitationRate:   l.String("RATE_LIMIT_INVITATIONS", DefaultInvitationRate),
	}
	c.MarketplaceEnabled = l.Bool("MARKETPLACE_ENABLED", true)
	c.DocumentsGRPCAddr = l.String("DOCUMENTS_GRPC_ADDR", "127.0.0.1:9103")
	c.MarketplaceRate = l.String("RATE_LIMIT_MARKETPLACE", DefaultMarketplaceRate)
	c.TrustedProxyHops = l.Int("TRUSTED_PROXY_HOPS", 0)
	c.MarketplaceCacheTTL = l.Duration("MARKETPLACE_CACHE_TTL", agents.DefaultListingCacheTTL)
	c.EstimateInputPrice = int64(l.Int("MARKETPLACE_ESTIMATE_INPUT_PRICE", agents.DefaultEstimateInputPrice))
	c.EstimateOutputPrice = int64(l.Int("MARKETPLACE_ESTIMATE_OUTPUT_PRICE", agents.DefaultEstimateOutputPrice))
	l.Check(checkMarketplaceConfig(c))
	c.WebIndexURL = l.String("WEB_INDEX_URL", DefaultWebIndexURL)
	c.AppBaseURL = l.String("APP_BASE_URL", DefaultAppBaseURL)
	l.Check(checkPagesConfig(c))
	c.ReviewRate = l.String("RATE_LIMIT_REVIEWS", DefaultReviewRate)
	c.ReportRate = l.String("RATE_LIMIT_REPORTS", DefaultReportRate)
	if c.MaxAgentsPerUser < 1 {
		l.Check(fmt.Errorf("MAX_AGENTS_PER_USER: %d, want a whole number >= 1", c.MaxAgentsPerUser))
	}
	_, err := invitationRule(c.InvitationRate)
	l.Check(err)
	c.InvitationResendRate = l.String("RATE_LIMIT_INVITATION_RESENDS", DefaultResendRate)
	_, err = resendRule(c.InvitationResendRate)
	l.Check(err)
	_, err = reviewRules(c.ReviewRate, c.ReportRate)
	l.Check(err)
	l.NoAuthEmulator() // APP_ENV=production (the default) refuses unsigned emulator tokens
	return c, l.Err()
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	s, err := service.Start(ctx, ServiceName, service.Config{
		Settings: cfg.Settings, Migrations: agents.Migrations, Outbox: true, Consumes: true, VerifyTokens: true,
	}, logger)
	if err != nil {
		return err
	}
	defer s.Close()
	logger, pool, reg, verifier := s.Logger, s.Pool, s.Registry, s.Verifier

	// Redis: the per-agent invitation quota (quotas.go). Not a readiness
	// check: only inviting needs it (and refuses with 503 without it).
	invitations, err := invitationRule(cfg.InvitationRate)
	if err != nil {
		return err
	}
	resends, err := resendRule(cfg.InvitationResendRate)
	if err != nil {
		return err
	}
	if cfg.RedisURL == "" {
		cfg.RedisURL = DefaultRedisURL
	}
	rdb, err := newRedis(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()

	store := agents.NewPostgresStore(pool, agents.WithAnswerEstimate(answerEstimate(cfg)))
	// The marketplace's estimated typical answers follow the configured price.
	if n, err := store.RefreshEstimates(ctx); err != nil {
		return err
	} else if n > 0 {
		logger.Info("typical answer estimates re-priced", "agents", n)
	}
	if err := s.Consume("identity-events", events.ConsumerConfig{
		GroupID: agents.ConsumerGroup, Topics: []string{topics.Identity}, Handler: agents.IdentityEventHandler(store, nil),
	}); err != nil {
		return err
	}
	if err := s.Consume("usage-events", events.ConsumerConfig{
		GroupID: agents.UsageConsumerGroup, Topics: []string{topics.Usage}, Handler: agents.UsageEventHandler(store, nil),
	}); err != nil {
		return err
	}
	// The marketplace's ratings read model, from the catalog's own review
	// events (reviews.RatingsEventHandler).
	if err := s.Consume("review-events", events.ConsumerConfig{
		GroupID: agents.RatingsConsumerGroup, Topics: []string{agents.Topic}, Handler: reviews.RatingsEventHandler(),
	}); err != nil {
		return err
	}

	svcCfg := agents.Config{EmailDomain: cfg.AgentEmailDomain, MaxAgentsPerUser: cfg.MaxAgentsPerUser, Logger: logger}
	if cfg.IdentityGRPCAddr != "" {
		idc, err := clients.NewIdentity(cfg.IdentityGRPCAddr, s.GRPC)
		if err != nil {
			return err
		}
		defer idc.Close()
		svcCfg.Directory = idc
	}
	// The marketplace (marketplace.go): the switch, and the documents
	// service for the publishing rule and the profiles' counts.
	svcCfg.Marketplace, svcCfg.CategoriesTTL = cfg.MarketplaceEnabled, cfg.CategoriesTTL
	if cfg.MarketplaceEnabled && cfg.MarketplaceCacheTTL > 0 {
		// Served from memory only while its LISTEN holds (its own
		// connection, not one of the pool's).
		svcCfg.Listings = agents.NewListingCache(cfg.MarketplaceCacheTTL, reg)
		connect := func(ctx context.Context) (*pgx.Conn, error) {
			return pgx.ConnectConfig(ctx, pool.Config().ConnConfig.Copy())
		}
		s.AddWorker("listing-cache", func(ctx context.Context) error {
			return svcCfg.Listings.Listen(ctx, connect, logger)
		})
	}
	if cfg.DocumentsGRPCAddr != "" {
		dc, err := clients.NewDocuments(cfg.DocumentsGRPCAddr, s.GRPC)
		if err != nil {
			return err
		}
		defer dc.Close()
		svcCfg.Documents = dc
	}
	marketplaceRate, err := marketplaceRule(cfg.MarketplaceRate)
	if err != nil {
		return err
	}
	svc := agents.NewService(store, svcCfg)
	set := endpoints.New(svc, logger, reg)
	// The marketplace's reviews, replies and reports (internal/reviews).
	endpoints.AddReviews(&set, reviews.NewService(reviews.NewPostgresStore(pool)), logger, reg)

	limiter := ratelimit.New(rdb, ratelimit.Options{Service: ServiceName, Logger: logger, Registerer: reg})
	transport.RegisterHTTP(s.Mux, set, verifier, logger, transport.WithInviteGate(inviteGate(limiter, invitations, svc)),
		transport.WithResendGate(resendGate(limiter, resends, svc)),
		transport.WithMarketplace(cfg.MarketplaceEnabled),
		transport.WithMarketplaceGate(marketplaceGate(limiter, marketplaceRate, cfg.TrustedProxyHops)),
		pagesOption(cfg, logger))
	// Per-user review and report quotas (reviewquotas.go) in front of the
	// mux; none while the marketplace is off (its routes answer 404).
	reviewQuotas, err := reviewRules(cfg.ReviewRate, cfg.ReportRate)
	if err != nil {
		return err
	}
	if !cfg.MarketplaceEnabled {
		reviewQuotas = nil
	}
	httpHandler := limiter.Guard(s.Mux, reviewQuotas, ratelimit.TokenUser(verifier))

	return s.Serve(ctx, httpHandler, GRPCPolicy(), func(g *grpc.Server) {
		catalogv1.RegisterCatalogServiceServer(g, transport.NewGRPCServer(set))
	})
}
