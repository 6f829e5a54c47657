package inbox

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentic-app/agentic/services/mail/internal/mailtext"
	"github.com/agentic-app/agentic/services/mail/internal/senderauth"
)

// Service is what the SMTP session and the admin API call.
type Service interface {
	// AcceptRecipient decides an RCPT TO: rcpt must be an agent's address
	// (ErrUnknownRecipient) and mailFrom must be the owner's or an active
	// subscriber's address (ErrSenderNotAllowed; ErrNullSender for "<>");
	// the agent must be active (ErrAgentInactive). Directory failures are
	// *UnavailableError.
	AcceptRecipient(ctx context.Context, mailFrom, rcpt string) (Recipient, error)
	// Receive checks the message (one From equal to the envelope sender,
	// else ErrFromMismatch; sender authentication, else
	// ErrNotAuthenticated) and stores it for every recipient before
	// returning nil. Duplicates (same agent, same Message-ID) are accepted
	// and not stored again.
	Receive(ctx context.Context, env Envelope, raw []byte) (Received, error)
	// ListMessages returns the newest messages with their reply (admin).
	ListMessages(ctx context.Context, limit int) ([]MessageView, error)
}

// Received is the outcome of Receive.
type Received struct {
	Stored     int // new rows
	Duplicates int // redeliveries
	MessageID  string
	Auth       string
}

// Authenticator authenticates the sender's domain (senderauth.Verifier).
type Authenticator interface {
	Check(ctx context.Context, in senderauth.Input) (senderauth.Result, error)
}

// ServiceConfig configures NewService.
type ServiceConfig struct {
	Store     *Store
	Directory Directory
	Auth      Authenticator
	// Stored is called after messages were stored (wakes the answer workers).
	Stored func()
	Logger *slog.Logger
}

type service struct {
	store  *Store
	dir    Directory
	auth   Authenticator
	stored func()
	logger *slog.Logger
}

// NewService returns the Service.
func NewService(cfg ServiceConfig) Service {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Stored == nil {
		cfg.Stored = func() {}
	}
	return &service{store: cfg.Store, dir: cfg.Directory, auth: cfg.Auth, stored: cfg.Stored, logger: cfg.Logger}
}

func (s *service) AcceptRecipient(ctx context.Context, mailFrom, rcpt string) (Recipient, error) {
	from := NormalizeAddress(mailFrom)
	if from == "" {
		// Bounces and other null-sender mail: nobody to answer, never
		// answered (no loops with other servers' notifications).
		return Recipient{}, ErrNullSender
	}
	to := NormalizeAddress(rcpt)
	if !validAddress(from) || !validAddress(to) {
		return Recipient{}, ErrBadAddress
	}
	agent, err := s.dir.AgentByEmail(ctx, to)
	if err != nil {
		return Recipient{}, err
	}
	uids, err := s.dir.UsersByEmail(ctx, from)
	if err != nil {
		return Recipient{}, err
	}
	for _, uid := range uids {
		ok, err := s.dir.CanUse(ctx, agent.ID, uid)
		if err != nil {
			return Recipient{}, err
		}
		if !ok {
			continue
		}
		// Only now, to someone who may use the agent, say that it is off.
		if agent.Status != "active" {
			return Recipient{}, ErrAgentInactive
		}
		return Recipient{Agent: agent, SenderUID: uid}, nil
	}
	return Recipient{}, ErrSenderNotAllowed
}

func (s *service) Receive(ctx context.Context, env Envelope, raw []byte) (Received, error) {
	if len(env.Recipients) == 0 {
		return Received{}, ErrNoRecipients
	}
	p, err := mailtext.Parse(raw)
	if err != nil {
		return Received{}, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	from := NormalizeAddress(env.MailFrom)
	if p.From != from {
		return Received{}, ErrFromMismatch
	}
	res, err := s.auth.Check(ctx, senderauth.Input{Raw: raw, IP: env.RemoteIP, HELO: env.HELO, MailFrom: from, From: p.From})
	switch {
	case senderauth.IsTemporary(err):
		return Received{}, &UnavailableError{What: "sender authentication", Err: err}
	case errors.Is(err, senderauth.ErrNotAuthenticated):
		return Received{}, fmt.Errorf("%w: %v", ErrNotAuthenticated, err)
	case err != nil:
		return Received{}, err
	}
	ip := ""
	if env.RemoteIP != nil {
		ip = env.RemoteIP.String()
	}
	in := Inbound{Parsed: p, Raw: raw, RemoteIP: ip, Auth: res.String(), Received: time.Now().UTC()}
	stored, dups, err := s.store.Insert(ctx, in, env.Recipients)
	if err != nil {
		return Received{}, &UnavailableError{What: "database", Err: err}
	}
	if stored > 0 {
		s.stored()
	}
	return Received{Stored: stored, Duplicates: dups, MessageID: p.MessageID, Auth: in.Auth}, nil
}

func (s *service) ListMessages(ctx context.Context, limit int) ([]MessageView, error) {
	if limit <= 0 {
		limit = 50
	}
	return s.store.List(ctx, min(limit, 500))
}
