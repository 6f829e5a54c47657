// Package app wires the documents service: configuration, database and
// migrations, outbox relay, catalog gRPC client, Drive adapter, the sync
// worker and scheduler, endpoints, the per-user quotas in Redis, HTTP and
// gRPC (health, KnowledgeService) servers.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	"github.com/agentic-app/agentic/services/documents/internal/clients"
	"github.com/agentic-app/agentic/services/documents/internal/comments"
	"github.com/agentic-app/agentic/services/documents/internal/docsync"
	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/drive"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings"
	"github.com/agentic-app/agentic/services/documents/internal/endpoints"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge/wordnet"
	"github.com/agentic-app/agentic/services/documents/internal/transport"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/platform/service"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "documents"

// Config is the service configuration (environment only).
type Config struct {
	// Settings are what every service has (service.LoadSettings).
	service.Settings

	// CatalogGRPCAddr is the catalog's gRPC address (ownership checks).
	CatalogGRPCAddr string
	// OwnershipCacheTTL is how long a positive ownership answer is reused
	// (negative disables the cache).
	OwnershipCacheTTL time.Duration
	// CatalogTimeout bounds one ownership check.
	CatalogTimeout time.Duration

	// RedisURL is the Redis of the per-user quotas ("" = DefaultRedisURL).
	RedisURL string
	// MaxDocumentsPerAgent bounds an agent's documents
	// (MAX_DOCUMENTS_PER_AGENT; 0 = documents.DefaultMaxDocumentsPerAgent).
	MaxDocumentsPerAgent int
	// KnowledgeSearchRate is the per-user quota of Test retrieval searches,
	// "<limit>/<window>" (RATE_LIMIT_KNOWLEDGE_SEARCH; "" =
	// DefaultKnowledgeSearchRate, "0/1m" = off; fails open).
	KnowledgeSearchRate string
	// RetrievalMinRelevance: passages less relevant than this are not used
	// for answers (RETRIEVAL_MIN_RELEVANCE, 0–1; knowledge.Relevant).
	RetrievalMinRelevance float64
	// Embeddings provider (any OpenAI-compatible /v1/embeddings): with a base
	// URL, chunks are embedded at sync time and searches are hybrid
	// (EMBEDDINGS_BASE_URL, EMBEDDINGS_MODEL, EMBEDDINGS_API_KEY); without
	// one, lexical only.
	EmbeddingsBaseURL string
	EmbeddingsModel   string
	EmbeddingsAPIKey  string

	// DriveEndpoint is the Drive API base URL ("" = Google's; locally the
	// simulator, http://127.0.0.1:8111/drive/v3/).
	DriveEndpoint string
	// DriveDevTokens reads as "Bearer dev:<agent address>" (simulator only).
	DriveDevTokens bool
	// DriveCredentials is the service account key file with domain-wide
	// delegation (production).
	DriveCredentials string
	// SyncInterval, SyncConcurrency, SyncLease: see docsync.Config.
	SyncInterval    time.Duration
	SyncConcurrency int
	SyncLease       time.Duration

	// IdentityGRPCAddr and ConversationsGRPCAddr: the services the comments
	// worker asks (FindUsersByEmail; Answer). Empty: the worker is off.
	IdentityGRPCAddr      string
	ConversationsGRPCAddr string
	// CommentsInterval, CommentsConcurrency: see comments.Config
	// (DOCUMENT_COMMENTS_INTERVAL, DOCUMENT_COMMENTS_CONCURRENCY).
	CommentsInterval    time.Duration
	CommentsConcurrency int
	// CommentsPoll overrides the comments worker's idle poll (tests).
	CommentsPoll time.Duration

	// Tests: faster sync polling, back-offs and confirmation.
	SyncPoll         time.Duration
	SyncRetryBase    time.Duration
	SyncConfirmDelay time.Duration
	SyncMaxAttempts  int
	DriveBaseDelay   time.Duration
	DriveMaxAttempts int
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		Settings:          service.LoadSettings(&l, ServiceName, "127.0.0.1:8103", "127.0.0.1:9103"),
		CatalogGRPCAddr:   l.String("CATALOG_GRPC_ADDR", "127.0.0.1:9102"),
		OwnershipCacheTTL: l.Duration("OWNERSHIP_CACHE_TTL", clients.DefaultOwnershipCacheTTL),
		CatalogTimeout:    l.Duration("CATALOG_TIMEOUT", clients.DefaultCatalogTimeout),
		DriveEndpoint:     l.String("GOOGLE_DRIVE_ENDPOINT", ""),
		DriveDevTokens:    l.Bool("GOOGLE_DRIVE_DEV_IDENTITY", false),
		DriveCredentials:  l.String("GOOGLE_APPLICATION_CREDENTIALS", ""),
		SyncInterval:      l.Duration("DOCUMENT_SYNC_INTERVAL", docsync.DefaultInterval),
		SyncConcurrency:   l.Int("DOCUMENT_SYNC_CONCURRENCY", docsync.DefaultConcurrency),
		SyncLease:         l.Duration("DOCUMENT_SYNC_LEASE", docsync.DefaultLease),

		IdentityGRPCAddr:      l.String("IDENTITY_GRPC_ADDR", "127.0.0.1:9101"),
		ConversationsGRPCAddr: l.String("CONVERSATIONS_GRPC_ADDR", "127.0.0.1:9106"),
		CommentsInterval:      l.Duration("DOCUMENT_COMMENTS_INTERVAL", comments.DefaultInterval),
		CommentsConcurrency:   l.Int("DOCUMENT_COMMENTS_CONCURRENCY", comments.DefaultConcurrency),

		RedisURL:              l.String("REDIS_URL", DefaultRedisURL),
		MaxDocumentsPerAgent:  l.Int("MAX_DOCUMENTS_PER_AGENT", documents.DefaultMaxDocumentsPerAgent),
		KnowledgeSearchRate:   l.String("RATE_LIMIT_KNOWLEDGE_SEARCH", DefaultKnowledgeSearchRate),
		RetrievalMinRelevance: l.Float("RETRIEVAL_MIN_RELEVANCE", knowledge.DefaultMinRelevance),
		EmbeddingsBaseURL:     l.String("EMBEDDINGS_BASE_URL", ""),
		EmbeddingsModel:       l.String("EMBEDDINGS_MODEL", ""),
		EmbeddingsAPIKey:      l.String("EMBEDDINGS_API_KEY", ""),
	}
	if c.EmbeddingsBaseURL != "" && c.EmbeddingsModel == "" {
		l.Check(errors.New("EMBEDDINGS_MODEL is required with EMBEDDINGS_BASE_URL"))
	}
	if c.RetrievalMinRelevance < 0 || c.RetrievalMinRelevance > 1 {
		l.Check(errors.New("RETRIEVAL_MIN_RELEVANCE must be between 0 and 1"))
	}
	l.NoAuthEmulator() // APP_ENV=production (the default) refuses unsigned emulator tokens
	if c.CatalogGRPCAddr == "" {
		l.Check(errors.New("CATALOG_GRPC_ADDR must not be empty"))
	}
	if c.SyncInterval < time.Second || c.SyncConcurrency < 1 || c.SyncConcurrency > 64 || c.SyncLease < 10*time.Second {
		l.Check(errors.New("DOCUMENT_SYNC_INTERVAL must be at least 1s, DOCUMENT_SYNC_CONCURRENCY 1–64, DOCUMENT_SYNC_LEASE at least 10s"))
	}
	if c.CommentsInterval < time.Second || c.CommentsConcurrency < 1 || c.CommentsConcurrency > 64 {
		l.Check(errors.New("DOCUMENT_COMMENTS_INTERVAL must be at least 1s, DOCUMENT_COMMENTS_CONCURRENCY 1–64"))
	}
	if c.MaxDocumentsPerAgent < 1 {
		l.Check(errors.New("MAX_DOCUMENTS_PER_AGENT must be at least 1"))
	}
	_, err := quotaRules(c.KnowledgeSearchRate)
	l.Check(err)
	return c, l.Err()
}

// newDrive builds the Drive adapter. Without dev tokens or credentials the
// service still runs, and every sync ends in a clear error: linking and
// listing documents does not depend on Drive.
func newDrive(cfg Config, reg prometheus.Registerer, logger *slog.Logger) (docsync.Drive, error) {
	if !cfg.DriveDevTokens && cfg.DriveCredentials == "" {
		logger.Warn("Google Drive access is not configured (GOOGLE_APPLICATION_CREDENTIALS or GOOGLE_DRIVE_DEV_IDENTITY): documents cannot be read")
		return unconfiguredDrive{}, nil
	}
	return drive.New(drive.Config{
		Endpoint: cfg.DriveEndpoint, DevTokens: cfg.DriveDevTokens, CredentialsFile: cfg.DriveCredentials,
		MaxAttempts: cfg.DriveMaxAttempts, BaseDelay: cfg.DriveBaseDelay, Registerer: reg,
	})
}

type unconfiguredDrive struct{}

var errDriveUnconfigured = &drive.Error{Kind: drive.KindFailed,
	Message: "Reading Google Docs is not configured on this server (GOOGLE_APPLICATION_CREDENTIALS)"}

func (unconfiguredDrive) Get(context.Context, string, string) (drive.Meta, error) {
	return drive.Meta{}, errDriveUnconfigured
}

func (unconfiguredDrive) Export(context.Context, string, string) (string, error) {
	return "", errDriveUnconfigured
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	if cfg.CatalogGRPCAddr == "" {
		return errors.New("documents: CatalogGRPCAddr is required")
	}
	s, err := service.Start(ctx, ServiceName, service.Config{
		Settings: cfg.Settings, Migrations: documents.Migrations, Outbox: true, Consumes: true, VerifyTokens: true,
	}, logger)
	if err != nil {
		return err
	}
	defer s.Close()
	logger, pool, reg := s.Logger, s.Pool, s.Registry
	// The related words searches expand queries with: loaded once per
	// version of the embedded WordNet relations (about ten seconds).
	start := time.Now()
	if loaded, err := wordnet.Load(ctx, pool); err != nil {
		return fmt.Errorf("load word relations: %w", err)
	} else if loaded {
		logger.InfoContext(ctx, "word relations loaded", "version", wordnet.Version(), "took", time.Since(start).String())
	}

	catalog, err := clients.NewCatalog(cfg.CatalogGRPCAddr, s.GRPC, clients.CatalogConfig{
		Timeout: cfg.CatalogTimeout, CacheTTL: cfg.OwnershipCacheTTL,
	})
	if err != nil {
		return err
	}
	defer catalog.Close()

	// Redis holds the per-user quotas (quotas.go); it connects lazily, and a
	// search is served unchecked while it is away (fail open).
	redisURL := cfg.RedisURL
	if redisURL == "" {
		redisURL = DefaultRedisURL
	}
	rdb, err := newRedisClient(redisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()

	driveClient, err := newDrive(cfg, reg, logger)
	if err != nil {
		return err
	}
	index := knowledge.NewIndex(pool)
	index.MinRelevance = cfg.RetrievalMinRelevance
	embedder, err := newEmbedder(ctx, cfg, pool, index, reg, logger)
	if err != nil {
		return err
	}
	svc := documents.NewService(documents.NewPostgresStore(pool), catalog, index,
		documents.Limits{MaxDocumentsPerAgent: cfg.MaxDocumentsPerAgent},
		documents.WithTitles(driveTitles{agents: catalog, drive: driveClient}))
	set := endpoints.New(svc, index, logger, reg)
	syncer, err := docsync.New(docsync.Config{
		Pool: pool, Drive: driveClient, Agents: catalog,
		IsAgentNotFound: func(err error) bool { return errors.Is(err, clients.ErrAgentNotFound) },
		Logger:          logger, Registerer: reg,
		Interval: cfg.SyncInterval, Concurrency: cfg.SyncConcurrency, Lease: cfg.SyncLease,
		Poll: cfg.SyncPoll, RetryBase: cfg.SyncRetryBase, ConfirmDelay: cfg.SyncConfirmDelay,
		MaxAttempts: cfg.SyncMaxAttempts, Grace: cfg.ShutdownTimeout / 2,
		Embedder: embedder,
	})
	if err != nil {
		return err
	}

	s.AddWorker("document-sync", syncer.Run)
	// A deleted agent's documents go with it (the catalog's agent.deleted).
	if err := s.Consume("catalog-events", events.ConsumerConfig{
		GroupID: documents.CatalogConsumerGroup, Topics: []string{topics.Catalog}, Handler: documents.CatalogEventHandler(),
	}); err != nil {
		return err
	}
	commenter, closeComments, err := newComments(cfg, pool, driveClient, catalog, s.GRPC, reg, logger)
	if err != nil {
		return err
	}
	defer closeComments()
	if commenter != nil {
		s.AddWorker("document-comments", commenter.Run)
	}

	// The catalog being down does not make the service unready: listing and
	// changing documents fail with 503 until it is back, nothing else.
	transport.RegisterHTTP(s.Mux, set, s.Verifier, logger)
	// Per-user quotas in Redis (quotas.go).
	rules, err := quotaRules(cfg.KnowledgeSearchRate)
	if err != nil {
		return err
	}
	api := ratelimit.GuardMux(s.Mux, rdb, rules, s.Verifier, ratelimit.Options{Service: ServiceName, Logger: logger, Registerer: reg})

	// gRPC: grpc.health.v1.Health and the internal KnowledgeService.
	return s.Serve(ctx, api, GRPCPolicy(), func(g *grpc.Server) {
		documentsv1.RegisterKnowledgeServiceServer(g, transport.NewKnowledgeServer(set))
	})
}

// newEmbedder builds the embeddings client and makes index hybrid, or
// returns nil (lexical only) when EMBEDDINGS_BASE_URL is empty. Where the
// database offers pgvector, the extension and an HNSW index for the model's
// dimension are created (the dimension from one probe request, at most 10 s;
// on failure searches score the arrays exactly, which always works).
func newEmbedder(ctx context.Context, cfg Config, pool *pgxpool.Pool, index *knowledge.Index,
	reg prometheus.Registerer, logger *slog.Logger) (docsync.Embedder, error) {
	if cfg.EmbeddingsBaseURL == "" {
		logger.InfoContext(ctx, "retrieval: lexical only (no EMBEDDINGS_BASE_URL)")
		return nil, nil
	}
	c, err := embeddings.New(embeddings.Config{BaseURL: cfg.EmbeddingsBaseURL, Model: cfg.EmbeddingsModel,
		APIKey: cfg.EmbeddingsAPIKey, Registerer: reg})
	if err != nil {
		return nil, err
	}
	index.Embedder = c
	logger.InfoContext(ctx, "retrieval: hybrid (embeddings and full text)", "model", c.Model(), "simulated", c.Simulated())
	if ok, err := embeddings.VectorAvailable(ctx, pool); err != nil || !ok {
		logger.InfoContext(ctx, "retrieval: pgvector is not available; embeddings are scored exactly per agent", "error", err)
		return c, nil
	}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := c.Embed(pctx, []string{"dimension probe"})
	if err != nil {
		logger.WarnContext(ctx, "retrieval: embeddings provider unreachable at start-up; no HNSW index this run", "error", err)
		return c, nil
	}
	if ok, err := embeddings.SetupVector(ctx, pool, c.Model(), len(v[0])); err != nil || !ok {
		logger.WarnContext(ctx, "retrieval: no HNSW index; embeddings are scored exactly per agent", "error", err)
		return c, nil
	}
	index.VectorDims = len(v[0])
	if index.VectorIterative, err = embeddings.IterativeScan(ctx, pool); err != nil {
		logger.WarnContext(ctx, "retrieval: pgvector's version unknown; HNSW scans are not iterative", "error", err)
	}
	logger.InfoContext(ctx, "retrieval: pgvector HNSW index in place", "dimensions", index.VectorDims,
		"iterative_scan", index.VectorIterative)
	return c, nil
}

// newComments builds the Google Docs comments worker, or nil (logged) when
// Drive, identity or conversations is not configured: the rest of the
// service works without it. The gRPC connections are lazy, so a service that
// is down only makes mentions wait for the next poll.
func newComments(cfg Config, pool *pgxpool.Pool, d docsync.Drive, catalog *clients.Catalog,
	grpcSec *server.GRPCSecurity, reg prometheus.Registerer, logger *slog.Logger) (*comments.Worker, func(), error) {
	noop := func() {}
	dc, ok := d.(*drive.Client)
	switch {
	case !ok:
		logger.Warn("comments: Google Drive is not configured; comments mentioning agents are not answered")
		return nil, noop, nil
	case cfg.IdentityGRPCAddr == "" || cfg.ConversationsGRPCAddr == "":
		logger.Warn("comments: IDENTITY_GRPC_ADDR or CONVERSATIONS_GRPC_ADDR is empty; comments mentioning agents are not answered")
		return nil, noop, nil
	}
	var conns []*grpc.ClientConn
	closeAll := func() {
		for _, c := range conns {
			_ = c.Close()
		}
	}
	for _, addr := range []string{cfg.IdentityGRPCAddr, cfg.CatalogGRPCAddr, cfg.ConversationsGRPCAddr} {
		c, err := server.DialGRPC(addr, grpcSec)
		if err != nil {
			closeAll()
			logger.Warn("comments: cannot set up a gRPC client; comments mentioning agents are not answered", "error", err)
			return nil, noop, nil
		}
		conns = append(conns, c)
	}
	w, err := comments.New(comments.Config{
		Pool: pool, Drive: dc, Agents: catalog, Names: catalog,
		Directory: comments.NewDirectory(conns[0], conns[1], cfg.CatalogTimeout),
		Answerer:  comments.NewAnswerer(conns[2]),
		Logger:    logger, Registerer: reg,
		Interval: cfg.CommentsInterval, Concurrency: cfg.CommentsConcurrency, Poll: cfg.CommentsPoll,
		Grace: cfg.ShutdownTimeout / 2,
	})
	if err != nil {
		closeAll()
		return nil, noop, err
	}
	return w, closeAll, nil
}

// driveTitles reads a document's title as the agent (the add form's
// pre-filled name): the agent's address from the catalog, then Drive's
// files.get. A document the agent cannot open is no title, not an error.
type driveTitles struct {
	agents interface {
		AgentEmail(ctx context.Context, agentID string) (string, error)
	}
	drive docsync.Drive
}

func (t driveTitles) DocumentTitle(ctx context.Context, agentID, fileID string) (string, bool, error) {
	email, err := t.agents.AgentEmail(ctx, agentID)
	if err != nil {
		return "", false, err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	m, err := t.drive.Get(ctx, email, fileID)
	if err != nil {
		if drive.KindOf(err) == drive.KindNotShared {
			return "", false, nil
		}
		return "", false, err
	}
	return m.Title, true, nil
}
