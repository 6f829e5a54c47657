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
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	"github.com/agentic-app/agentic/services/documents/internal/catalogclient"
	"github.com/agentic-app/agentic/services/documents/internal/comments"
	"github.com/agentic-app/agentic/services/documents/internal/docsync"
	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/drive"
	"github.com/agentic-app/agentic/services/documents/internal/endpoints"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/documents/internal/transport"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "documents"

// Config is the service configuration (environment only).
type Config struct {
	HTTPAddr          string
	GRPCAddr          string
	DatabaseURL       string
	DatabaseCreate    bool
	KafkaBrokers      []string
	FirebaseProjectID string
	ShutdownTimeout   time.Duration
	// CatalogGRPCAddr is the catalog's gRPC address (ownership checks).
	CatalogGRPCAddr string
	// OwnershipCacheTTL is how long a positive ownership answer is reused
	// (negative disables the cache).
	OwnershipCacheTTL time.Duration
	// CatalogTimeout bounds one ownership check.
	CatalogTimeout time.Duration
	// ConsumerMaxWait overrides the catalog-event consumer's fetch wait (tests).
	ConsumerMaxWait time.Duration

	// RedisURL is the Redis of the per-user quotas ("" = DefaultRedisURL).
	RedisURL string
	// MaxDocumentsPerAgent bounds an agent's documents
	// (MAX_DOCUMENTS_PER_AGENT; 0 = documents.DefaultMaxDocumentsPerAgent).
	MaxDocumentsPerAgent int
	// KnowledgeSearchRate is the per-user quota of Test retrieval searches,
	// "<limit>/<window>" (RATE_LIMIT_KNOWLEDGE_SEARCH; "" =
	// DefaultKnowledgeSearchRate, "0/1m" = off; fails open).
	KnowledgeSearchRate string

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

	// Verifier replaces the Firebase verifier (tests).
	Verifier auth.Verifier
	// GRPCTLS is the internal gRPC mutual TLS (GRPC_TLS_CA, GRPC_TLS_CERT,
	// GRPC_TLS_KEY); the zero value is plaintext (tests), which LoadConfig
	// refuses in production.
	GRPCTLS server.GRPCTLS

	// HTTPListener / GRPCListener replace the addresses (tests).
	HTTPListener, GRPCListener net.Listener
	// Ready is called once the servers listen (tests).
	Ready func(httpAddr, grpcAddr net.Addr)
	// RelayPollInterval overrides the relay's idle poll (tests).
	RelayPollInterval time.Duration
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	c := Config{
		HTTPAddr:          l.String("HTTP_ADDR", "127.0.0.1:8103"),
		GRPCAddr:          l.String("GRPC_ADDR", "127.0.0.1:9103"),
		DatabaseURL:       l.String("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/agentic_documents?sslmode=disable"),
		DatabaseCreate:    l.Bool("DATABASE_CREATE", false),
		KafkaBrokers:      l.List("KAFKA_BROKERS", []string{"127.0.0.1:9092"}),
		FirebaseProjectID: l.String("FIREBASE_PROJECT_ID", "demo-agentic"),
		ShutdownTimeout:   l.Duration("SHUTDOWN_TIMEOUT", 10*time.Second),
		CatalogGRPCAddr:   l.String("CATALOG_GRPC_ADDR", "127.0.0.1:9102"),
		OwnershipCacheTTL: l.Duration("OWNERSHIP_CACHE_TTL", catalogclient.DefaultCacheTTL),
		CatalogTimeout:    l.Duration("CATALOG_TIMEOUT", catalogclient.DefaultTimeout),
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

		RedisURL:             l.String("REDIS_URL", DefaultRedisURL),
		MaxDocumentsPerAgent: l.Int("MAX_DOCUMENTS_PER_AGENT", documents.DefaultMaxDocumentsPerAgent),
		KnowledgeSearchRate:  l.String("RATE_LIMIT_KNOWLEDGE_SEARCH", DefaultKnowledgeSearchRate),
	}
	l.NoAuthEmulator() // APP_ENV=production (the default) refuses unsigned emulator tokens
	if err := l.Err(); err != nil {
		return c, err
	}
	if c.CatalogGRPCAddr == "" {
		return c, errors.New("CATALOG_GRPC_ADDR must not be empty")
	}
	if c.SyncInterval < time.Second || c.SyncConcurrency < 1 || c.SyncConcurrency > 64 || c.SyncLease < 10*time.Second {
		return c, errors.New("DOCUMENT_SYNC_INTERVAL must be at least 1s, DOCUMENT_SYNC_CONCURRENCY 1–64, DOCUMENT_SYNC_LEASE at least 10s")
	}
	if c.CommentsInterval < time.Second || c.CommentsConcurrency < 1 || c.CommentsConcurrency > 64 {
		return c, errors.New("DOCUMENT_COMMENTS_INTERVAL must be at least 1s, DOCUMENT_COMMENTS_CONCURRENCY 1–64")
	}
	if c.MaxDocumentsPerAgent < 1 {
		return c, errors.New("MAX_DOCUMENTS_PER_AGENT must be at least 1")
	}
	if _, err := quotaRules(c.KnowledgeSearchRate); err != nil {
		return c, err
	}
	grpcTLS, tlsErr := server.LoadGRPCTLS()
	c.GRPCTLS = grpcTLS
	if tlsErr != nil {
		return c, tlsErr
	}
	return c, nil
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
	if logger == nil {
		logger = slog.Default()
	}
	if cfg.CatalogGRPCAddr == "" {
		return errors.New("documents: CatalogGRPCAddr is required")
	}
	stopTracing, err := observability.StartTracing(ctx, ServiceName)
	if err != nil {
		return fmt.Errorf("tracing: %w", err)
	}
	defer stopTracing()
	reg := observability.NewRegistry()
	// Internal gRPC: mutual TLS and per-method authorization (grpcpolicy.go).
	grpcSec, err := server.NewGRPCSecurity(cfg.GRPCTLS, ServiceName, logger, reg)
	if err != nil {
		return err
	}

	// Database: create (local only), connect with retry, migrate.
	pool, err := database.Open(ctx, database.OpenConfig{
		URL: cfg.DatabaseURL, Create: cfg.DatabaseCreate, Logger: logger, Registerer: reg,
		Migrations: documents.Migrations,
		Extra:      []database.MigrateFunc{events.Migrate, events.MigrateConsumer},
	})
	if err != nil {
		return err
	}
	defer pool.Close()

	verifier, err := auth.NewVerifier(ctx, cfg.Verifier, cfg.FirebaseProjectID, logger)
	if err != nil {
		return err
	}

	relay, err := events.NewRelay(events.RelayConfig{
		Pool: pool, Brokers: cfg.KafkaBrokers, Logger: logger, Registerer: reg,
		PollInterval: cfg.RelayPollInterval,
	})
	if err != nil {
		return err
	}
	defer relay.Close()

	purger, err := events.NewPurgerFromEnv(pool, logger, reg) // retention of outbox rows and processed ids
	if err != nil {
		return err
	}

	catalog, err := catalogclient.New(cfg.CatalogGRPCAddr, grpcSec, catalogclient.Config{
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
	svc := documents.NewService(documents.NewPostgresStore(pool), catalog, index,
		documents.Limits{MaxDocumentsPerAgent: cfg.MaxDocumentsPerAgent},
		documents.WithTitles(driveTitles{agents: catalog, drive: driveClient}))
	set := endpoints.New(svc, index, logger, reg)
	syncer, err := docsync.New(docsync.Config{
		Pool: pool, Drive: driveClient, Agents: catalog,
		IsAgentNotFound: func(err error) bool { return errors.Is(err, catalogclient.ErrAgentNotFound) },
		Logger:          logger, Registerer: reg,
		Interval: cfg.SyncInterval, Concurrency: cfg.SyncConcurrency, Lease: cfg.SyncLease,
		Poll: cfg.SyncPoll, RetryBase: cfg.SyncRetryBase, ConfirmDelay: cfg.SyncConfirmDelay,
		MaxAttempts: cfg.SyncMaxAttempts, Grace: cfg.ShutdownTimeout / 2,
	})
	if err != nil {
		return err
	}

	// A deleted agent's documents go with it (the catalog's agent.deleted).
	catalogConsumer, err := events.NewConsumer(events.ConsumerConfig{
		Pool: pool, Brokers: cfg.KafkaBrokers, GroupID: documents.CatalogConsumerGroup,
		Topics: []string{documents.CatalogTopic}, Handler: documents.CatalogEventHandler(),
		MaxWait: cfg.ConsumerMaxWait, Logger: logger, Registerer: reg,
	})
	if err != nil {
		return err
	}
	defer catalogConsumer.Close()

	workers := []server.Worker{
		{Name: "outbox-relay", Run: relay.Run},
		{Name: "events-purger", Run: purger.Run},
		{Name: "document-sync", Run: syncer.Run},
		{Name: "catalog-events", Run: catalogConsumer.Run},
	}
	commenter, closeComments, err := newComments(cfg, pool, driveClient, catalog, grpcSec, reg, logger)
	if err != nil {
		return err
	}
	defer closeComments()
	if commenter != nil {
		workers = append(workers, server.Worker{Name: "document-comments", Run: commenter.Run})
	}

	// The catalog being down does not make the service unready: listing and
	// changing documents fail with 503 until it is back, nothing else.
	mux := server.NewMux(reg,
		server.Check{Name: "database", Fn: database.Check(pool)},
		server.Check{Name: "kafka", Fn: relay.Check, Optional: true},
	)
	transport.RegisterHTTP(mux, set, verifier, logger)
	// Per-user quotas in Redis (quotas.go).
	api, err := withQuotas(mux, rdb, cfg.KnowledgeSearchRate, verifier, logger, reg)
	if err != nil {
		return err
	}

	// gRPC: grpc.health.v1.Health and the internal KnowledgeService.
	grpcSrv, health := server.NewGRPCServer(logger, grpcSec.ServerOptions(GRPCPolicy())...)
	documentsv1.RegisterKnowledgeServiceServer(grpcSrv, transport.NewKnowledgeServer(set))

	return server.Run(ctx, server.RunConfig{
		Logger:          logger,
		HTTPAddr:        cfg.HTTPAddr,
		HTTPListener:    cfg.HTTPListener,
		HTTPHandler:     server.Middleware(api, ServiceName, logger, reg),
		GRPCAddr:        cfg.GRPCAddr,
		GRPCListener:    cfg.GRPCListener,
		GRPCServer:      grpcSrv,
		GRPCHealth:      health,
		Workers:         workers,
		ShutdownTimeout: cfg.ShutdownTimeout,
		Ready:           cfg.Ready,
	})
}

// newComments builds the Google Docs comments worker, or nil (logged) when
// Drive, identity or conversations is not configured: the rest of the
// service works without it. The gRPC connections are lazy, so a service that
// is down only makes mentions wait for the next poll.
func newComments(cfg Config, pool *pgxpool.Pool, d docsync.Drive, catalog *catalogclient.Client,
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
