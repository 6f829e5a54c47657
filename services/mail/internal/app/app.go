// Package app wires the mail service: configuration, database and
// migrations, outbox relay, gRPC clients of the catalog, identity and
// conversations services, the inbound SMTP server, the answer and send
// workers, the admin HTTP API and the gRPC health service.
package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"os"
	"time"

	"blitiri.com.ar/go/spf"

	"github.com/agentic-app/agentic/services/mail/internal/clients"
	"github.com/agentic-app/agentic/services/mail/internal/endpoints"
	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/mail/internal/inflow"
	"github.com/agentic-app/agentic/services/mail/internal/notify"
	"github.com/agentic-app/agentic/services/mail/internal/relay"
	"github.com/agentic-app/agentic/services/mail/internal/senderauth"
	"github.com/agentic-app/agentic/services/mail/internal/transport"
	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/server"
	"github.com/agentic-app/agentic/services/platform/service"
)

// ServiceName is used in logs, traces and metrics.
const ServiceName = "mail"

// Environments (APP_ENV, read by the platform's config.Env).
const (
	EnvProduction  = config.EnvProduction
	EnvDevelopment = config.EnvDevelopment
)

// Config is the service configuration (environment only).
type Config struct {
	// Settings are what every service has (service.LoadSettings); Ready
	// below replaces theirs, as it also reports the SMTP listener.
	service.Settings

	SMTPAddr string

	// Env is APP_ENV: "production" (the default) requires DKIM or SPF;
	// "development" skips sender authentication.
	Env string
	// Hostname is the SMTP server's name (greeting, EHLO to the relay).
	Hostname string
	// TrustSPF accepts an aligned SPF pass instead of DKIM where the From
	// domain publishes DMARC (production; off by default: DKIM only).
	TrustSPF bool
	// TLSCert, TLSKey: PEM files enabling STARTTLS on the inbound server.
	TLSCert, TLSKey string
	// DKIMKey (PEM text or file), DKIMSelector, DKIMDomain: signing of replies.
	DKIMKey, DKIMSelector, DKIMDomain string
	// RelayURL is the outgoing SMTP relay (smtp://, smtps://, ?starttls=true).
	RelayURL string
	// SenderHourlyLimit: answers per sender per hour.
	SenderHourlyLimit int
	MaxMessageBytes   int64
	AnswerConcurrency int
	SendConcurrency   int
	// AnswerTimeout bounds one Answer call (model time included).
	AnswerTimeout time.Duration
	// InflowBacklog bounds the accepted messages waiting for their answer or
	// reply: beyond it a new transaction waits at MAIL FROM, at most
	// InflowMaxWait (package inflow). 0 turns pacing off.
	InflowBacklog int
	InflowMaxWait time.Duration

	CatalogGRPCAddr       string
	IdentityGRPCAddr      string
	ConversationsGRPCAddr string

	// Billing notifications: the sender (MAIL_NOTIFY_FROM) and the web
	// app's origin the e-mails link to (APP_BASE_URL).
	NotifyFrom string
	AppBaseURL string

	// Tests.
	SMTPListener net.Listener
	Ready        func(httpAddr, grpcAddr, smtpAddr net.Addr)
	Resolver     spf.DNSResolver
	RelayTLS     *tls.Config
	// Worker timings (zero: the inbox defaults).
	Poll, RetryBase, RetryMax, SendRetryBase, SendRetryMax, RateWindow time.Duration
	ModelRetries                                                       int
}

// LoadConfig reads the configuration from the environment.
func LoadConfig() (Config, error) {
	var l config.Loader
	host, _ := os.Hostname()
	c := Config{
		Settings:              service.LoadSettings(&l, ServiceName, "127.0.0.1:8107", "127.0.0.1:9107"),
		SMTPAddr:              l.String("MAIL_SMTP_ADDR", "127.0.0.1:2525"),
		Env:                   l.Env(),
		Hostname:              l.String("MAIL_HOSTNAME", host),
		TrustSPF:              l.Bool("MAIL_TRUST_SPF", false),
		TLSCert:               l.String("MAIL_TLS_CERT", ""),
		TLSKey:                l.String("MAIL_TLS_KEY", ""),
		DKIMKey:               l.String("MAIL_DKIM_KEY", ""),
		DKIMSelector:          l.String("MAIL_DKIM_SELECTOR", ""),
		DKIMDomain:            l.String("MAIL_DKIM_DOMAIN", ""),
		RelayURL:              l.String("SMTP_RELAY_URL", "smtp://127.0.0.1:1025"),
		SenderHourlyLimit:     l.Int("MAIL_SENDER_HOURLY_LIMIT", inbox.DefaultHourlyLimit),
		MaxMessageBytes:       int64(l.Int("MAIL_MAX_MESSAGE_BYTES", transport.DefaultMaxMessageBytes)),
		AnswerConcurrency:     l.Int("MAIL_ANSWER_CONCURRENCY", inbox.DefaultAnswerWorkers),
		SendConcurrency:       l.Int("MAIL_SEND_CONCURRENCY", inbox.DefaultSendWorkers),
		AnswerTimeout:         l.Duration("MAIL_ANSWER_TIMEOUT", inbox.DefaultAnswerTimeout),
		InflowBacklog:         l.Int("MAIL_INFLOW_BACKLOG", inflow.DefaultBacklog),
		InflowMaxWait:         l.Duration("MAIL_INFLOW_MAX_WAIT", inflow.DefaultMaxWait),
		CatalogGRPCAddr:       l.String("CATALOG_GRPC_ADDR", "127.0.0.1:9102"),
		IdentityGRPCAddr:      l.String("IDENTITY_GRPC_ADDR", "127.0.0.1:9101"),
		ConversationsGRPCAddr: l.String("CONVERSATIONS_GRPC_ADDR", "127.0.0.1:9106"),
		NotifyFrom:            l.String("MAIL_NOTIFY_FROM", notify.DefaultFrom),
		AppBaseURL:            l.String("APP_BASE_URL", notify.DefaultBaseURL),
	}
	if c.Hostname == "" {
		c.Hostname = "localhost"
	}
	if (c.TLSCert == "") != (c.TLSKey == "") {
		l.Check(errors.New("config: MAIL_TLS_CERT and MAIL_TLS_KEY must be set together"))
	}
	if c.SenderHourlyLimit < 1 {
		l.Check(errors.New("config: MAIL_SENDER_HOURLY_LIMIT must be at least 1"))
	}
	if _, err := mail.ParseAddress(c.NotifyFrom); err != nil {
		l.Check(fmt.Errorf("config: MAIL_NOTIFY_FROM=%q is not an address: %v", c.NotifyFrom, err))
	}
	if u, err := url.Parse(c.AppBaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		l.Check(fmt.Errorf("config: APP_BASE_URL=%q is not an http(s) URL", c.AppBaseURL))
	}
	if c.InflowBacklog < 0 {
		l.Check(errors.New("config: MAIL_INFLOW_BACKLOG must not be negative (0 turns pacing off)"))
	}
	if c.InflowMaxWait <= 0 || c.InflowMaxWait > 4*time.Minute {
		l.Check(errors.New("config: MAIL_INFLOW_MAX_WAIT must be above 0 and at most 4m (RFC 5321 gives MAIL 5 minutes)"))
	}
	if c.MaxMessageBytes < 1024 {
		l.Check(errors.New("config: MAIL_MAX_MESSAGE_BYTES must be at least 1024"))
	}
	return c, l.Err()
}

// Run starts the service and blocks until ctx is cancelled or a SIGINT/SIGTERM arrives.
func Run(ctx context.Context, cfg Config, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	production := cfg.Env != EnvDevelopment
	if production {
		logger.Info("production mode: inbound mail must pass DKIM or SPF aligned with its From domain", "trust_spf", cfg.TrustSPF)
	} else {
		logger.Warn("development mode: sender authentication (DKIM/SPF) is NOT checked; any message whose From matches an allowed user is answered")
	}

	// Everything that can fail on configuration before touching the network.
	dkimKey, err := relay.LoadDKIM(cfg.DKIMKey, cfg.DKIMSelector, cfg.DKIMDomain)
	if err != nil {
		return err
	}
	smtpRelay, err := relay.New(relay.Config{URL: cfg.RelayURL, LocalName: cfg.Hostname, TLS: cfg.RelayTLS, DKIM: dkimKey})
	if err != nil {
		return err
	}
	var inTLS *tls.Config
	if cfg.TLSCert != "" {
		if inTLS, err = transport.LoadTLS(cfg.TLSCert, cfg.TLSKey); err != nil {
			return err
		}
	} else if production {
		logger.Warn("MAIL_TLS_CERT/MAIL_TLS_KEY not set: inbound SMTP offers no STARTTLS")
	}
	logger.Info("outgoing relay", "addr", smtpRelay.Addr(), "dkim", smtpRelay.Signing())
	if cfg.NotifyFrom == "" {
		cfg.NotifyFrom = notify.DefaultFrom
	}
	notifyFrom, err := mail.ParseAddress(cfg.NotifyFrom)
	if err != nil {
		return fmt.Errorf("config: MAIL_NOTIFY_FROM: %w", err)
	}

	// The SMTP listener opens once the database is up; Ready reports it too.
	var smtpLn net.Listener
	var ready func(h, g net.Addr)
	if cfg.Ready != nil {
		ready = func(h, g net.Addr) { cfg.Ready(h, g, smtpLn.Addr()) }
	}
	settings := cfg.Settings
	settings.Ready = ready
	s, err := service.Start(ctx, ServiceName, service.Config{
		Settings: settings, Migrations: inbox.Migrations, Outbox: true, Consumes: true,
	}, logger)
	if err != nil {
		return err
	}
	defer s.Close()
	pool, reg := s.Pool, s.Registry

	catalogConn, err := server.DialGRPC(cfg.CatalogGRPCAddr, s.GRPC)
	if err != nil {
		return err
	}
	defer catalogConn.Close()
	identityConn, err := server.DialGRPC(cfg.IdentityGRPCAddr, s.GRPC)
	if err != nil {
		return err
	}
	defer identityConn.Close()
	conversationsConn, err := server.DialGRPC(cfg.ConversationsGRPCAddr, s.GRPC)
	if err != nil {
		return err
	}
	defer conversationsConn.Close()

	store := inbox.NewStore(pool)
	answerWake, sendWake := inbox.NewWaker(), inbox.NewWaker()
	svc := inbox.NewService(inbox.ServiceConfig{
		Store:     store,
		Directory: clients.NewDirectory(catalogConn, identityConn, 0),
		Auth:      senderauth.New(senderauth.Config{Required: production, TrustSPF: cfg.TrustSPF, Resolver: cfg.Resolver}),
		Stored:    answerWake.Wake,
		Logger:    logger,
	})
	answerer, err := inbox.NewAnswerWorker(inbox.AnswerConfig{
		Store: store, Answerer: clients.NewConversations(conversationsConn),
		HourlyLimit: cfg.SenderHourlyLimit, RateWindow: cfg.RateWindow, Concurrency: cfg.AnswerConcurrency,
		Timeout: cfg.AnswerTimeout, Poll: cfg.Poll, RetryBase: cfg.RetryBase, RetryMax: cfg.RetryMax,
		ModelRetries: cfg.ModelRetries, Wake: answerWake, Replied: sendWake, Logger: logger, Registerer: reg,
	})
	if err != nil {
		return err
	}
	sender, err := inbox.NewSendWorker(inbox.SendConfig{
		Store: store, Relay: smtpRelay, IsPermanent: relay.IsPermanent, Concurrency: cfg.SendConcurrency,
		Poll: cfg.Poll, RetryBase: cfg.SendRetryBase, RetryMax: cfg.SendRetryMax, Wake: sendWake,
		Logger: logger, Registerer: reg,
	})
	if err != nil {
		return err
	}

	// Billing notifications: the wallet's events → e-mails to the user; a
	// subscriber over the owner's cap (usage events) → an e-mail to the owner;
	// an invitation (catalog events) → an e-mail to the invitee.
	notifyCfg := notify.Config{
		Users: clients.NewUsers(identityConn, 0), From: *notifyFrom, BaseURL: cfg.AppBaseURL, Logger: logger,
	}
	notifyHandler, err := notify.Handler(notifyCfg)
	if err != nil {
		return err
	}
	usageHandler, err := notify.UsageHandler(notifyCfg)
	if err != nil {
		return err
	}
	if err := s.Consume("wallet-consumer", events.ConsumerConfig{
		GroupID: notify.ConsumerGroup, Topics: []string{topics.Wallet}, Handler: notifyHandler,
		// Identity being down must not park notifications: retry (5 s apart
		// once backed off) for about an hour before parking the event.
		MaxAttempts: notify.MaxAttempts,
	}); err != nil {
		return err
	}
	if err := s.Consume("usage-consumer", events.ConsumerConfig{
		GroupID: notify.UsageConsumerGroup, Topics: []string{topics.Usage}, Handler: usageHandler,
		MaxAttempts: notify.MaxAttempts,
	}); err != nil {
		return err
	}
	// Invitations (the catalog's InvitationEmailRequested) → an e-mail to
	// the invitee.
	invitationHandler, err := notify.InvitationHandler(notifyCfg)
	if err != nil {
		return err
	}
	if err := s.Consume("invitation-consumer", events.ConsumerConfig{
		GroupID: notify.InvitationConsumerGroup, Topics: []string{topics.Catalog}, Handler: invitationHandler,
		MaxAttempts: notify.MaxAttempts,
	}); err != nil {
		return err
	}
	notifier, err := inbox.NewSendWorker(inbox.SendConfig{
		Store: store, Queue: store.Notifications(), Name: "notify", Relay: smtpRelay, IsPermanent: relay.IsPermanent,
		Concurrency: 1, Poll: cfg.Poll, RetryBase: cfg.SendRetryBase, RetryMax: cfg.SendRetryMax,
		Logger: logger, Registerer: reg,
	})
	if err != nil {
		return err
	}

	set := endpoints.New(svc, logger, reg)
	gate := inflow.New(inflow.Config{
		Backlog: cfg.InflowBacklog, MaxWait: cfg.InflowMaxWait, Count: store.Backlog, Logger: logger, Registerer: reg,
	})
	smtpCfg := transport.SMTPConfig{
		Domain: cfg.Hostname, MaxMessageBytes: cfg.MaxMessageBytes, TLS: inTLS, Logger: logger, Registerer: reg,
	}
	if gate.Enabled() {
		smtpCfg.Inflow = gate
	}
	smtpSrv := transport.NewSMTPServer(set, smtpCfg)
	smtpLn = cfg.SMTPListener
	if smtpLn == nil {
		if smtpLn, err = server.Listen(ctx, logger, cfg.SMTPAddr, server.DefaultListenWait(cfg.ShutdownTimeout)); err != nil {
			return fmt.Errorf("listen smtp %s: %w", cfg.SMTPAddr, err)
		}
	}
	defer smtpLn.Close() // when Run fails before the SMTP worker owns it
	smtpWorker := func(ctx context.Context) error {
		errCh := make(chan error, 1)
		go func() {
			logger.Info("smtp server listening", "addr", smtpLn.Addr().String(), "starttls", inTLS != nil)
			errCh <- smtpSrv.Serve(smtpLn)
		}()
		select {
		case err := <-errCh:
			return fmt.Errorf("smtp server: %w", err)
		case <-ctx.Done():
		}
		// Let sessions in DATA finish (their message is stored or refused),
		// then drop the idle ones.
		sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout/2)
		defer cancel()
		if err := smtpSrv.Shutdown(sctx); err != nil {
			_ = smtpSrv.Close()
		}
		return nil
	}

	transport.RegisterHTTP(s.Mux, set, logger)

	s.AddWorker("smtp", smtpWorker)
	s.AddWorker("inflow", gate.Run)
	s.AddWorker("answer", answerer.Run)
	s.AddWorker("send", sender.Run)
	s.AddWorker("notify", notifier.Run)
	return s.Serve(ctx, s.Mux, nil, nil)
}
