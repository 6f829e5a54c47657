// Package notify turns the wallet's billing events (topic agentic.wallet.v1:
// spend warnings at 80% and 100% of the monthly limit, low balance, declined
// auto-recharges and auto-recharge turned off) into e-mails to the user. The
// handler runs in the platform consumer's transaction, which has already
// recorded the event id in processed_events, and queues the e-mail in the
// notifications table of the same transaction: one e-mail per event, sent
// at least once by a send worker through the relay.
package notify

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/mail"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/platform/events"
)

// The wallet's topic and the event types notified (see wallet_events.proto).
const (
	WalletTopic        = "agentic.wallet.v1"
	TypeSpendWarning   = "agentic.wallet.spend.warning.v1"
	TypeBalanceLow     = "agentic.wallet.balance.low.v1"
	TypeRechargeFailed = "agentic.wallet.recharge.failed.v1"

	// ConsumerGroup is the mail service's own group on the wallet topic.
	ConsumerGroup = "mail-notifications"

	// DefaultFrom is the sender when MAIL_NOTIFY_FROM is not set.
	DefaultFrom = "Agentic <billing@agents.agentic.local>"
	// DefaultBaseURL is the web app's origin when APP_BASE_URL is not set.
	DefaultBaseURL = "http://localhost:8080"
	// WalletPath is the page the e-mails link to.
	WalletPath = "/dashboard/wallet"

	// MaxAttempts of the consumer: a temporary failure (identity down) is
	// retried, 5 s apart once backed off, for about an hour before the event
	// is parked.
	MaxAttempts = 720
	// DefaultMaxAge: older events are not mailed (a new consumer group reads
	// the topic from its start; old warnings are news no more).
	DefaultMaxAge = 24 * time.Hour
)

// Notification kinds (notifications.kind, the kind label of mail_replies_total).
const (
	KindBalanceLow       = "balance_low"
	KindSpend80          = "spend_80"
	KindSpend100         = "spend_100"
	KindRechargeFailed   = "recharge_failed"
	KindRechargeDisabled = "recharge_disabled"
)

// User is the recipient as identity knows them.
type User struct {
	Email, Name string
}

// ErrUnknownUser: identity has no such user; the notification is skipped.
var ErrUnknownUser = errors.New("unknown user")

// Users looks a user up by uid (identity GetUser). Errors other than
// ErrUnknownUser are temporary: the event is retried.
type Users interface {
	User(ctx context.Context, uid string) (User, error)
}

// Config configures the Handler.
type Config struct {
	Users Users
	// From is the sender (name and address), e.g. DefaultFrom.
	From mail.Address
	// BaseURL is the web app's origin, e.g. DefaultBaseURL.
	BaseURL string
	// MaxAge: events older than this (by ce_time) are skipped (default
	// DefaultMaxAge).
	MaxAge time.Duration
	Logger *slog.Logger
}

// Handler returns the consumer handler of the wallet topic.
func Handler(cfg Config) (events.Handler, error) {
	if cfg.Users == nil || cfg.From.Address == "" {
		return nil, errors.New("notify: Users and From are required")
	}
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	cfg.BaseURL = strings.TrimRight(cfg.BaseURL, "/")
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultMaxAge
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	h := &handler{cfg: cfg, now: time.Now}
	return h.handle, nil
}

type handler struct {
	cfg Config
	now func() time.Time
}

func (h *handler) handle(ctx context.Context, tx pgx.Tx, ev events.Received) error {
	log := h.cfg.Logger.With("event_id", ev.ID, "event_type", ev.Type)
	var msg proto.Message
	switch ev.Type {
	case TypeSpendWarning:
		msg = &eventsv1.WalletSpendWarning{}
	case TypeBalanceLow:
		msg = &eventsv1.WalletBalanceLow{}
	case TypeRechargeFailed:
		msg = &eventsv1.WalletRechargeFailed{}
	default:
		return nil // deposits, charges, …: nothing to tell
	}
	if !ev.Time.IsZero() && h.now().Sub(ev.Time) > h.cfg.MaxAge {
		log.Info("wallet event too old to notify; skipped", "event_time", ev.Time)
		return nil
	}
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(ev.Payload, msg); err != nil {
		// Retrying cannot fix a malformed payload.
		log.Error("wallet event payload unreadable; no notification", "error", err)
		return nil
	}
	n, ok := Compose(msg, h.cfg.BaseURL)
	if !ok {
		log.Warn("wallet event not notified (unexpected content)")
		return nil
	}
	uid := n.UID
	if uid == "" {
		uid = ev.Key
	}
	log = log.With("uid", uid, "kind", n.Kind)
	if uid == "" {
		log.Warn("wallet event without a uid; no notification")
		return nil
	}
	u, err := h.cfg.Users.User(ctx, uid)
	if errors.Is(err, ErrUnknownUser) {
		log.Warn("notification skipped: unknown user")
		return nil
	}
	if err != nil {
		return fmt.Errorf("look up user %s: %w", uid, err)
	}
	to, err := mail.ParseAddress(strings.TrimSpace(u.Email))
	if err != nil {
		log.Warn("notification skipped: the user has no usable e-mail address", "error", err)
		return nil
	}
	to.Name = u.Name
	raw, msgID, err := Build(n, h.cfg.From, *to, ev.ID, ev.Time)
	if err != nil {
		return err
	}
	queued, err := inbox.QueueNotification(ctx, tx, inbox.NewNotification{
		EventID: ev.ID, EventType: ev.Type, Kind: n.Kind, UID: uid, RFCMessageID: msgID,
		MailFrom: h.cfg.From.Address, RcptTo: to.Address, Subject: n.Subject, Raw: raw,
	})
	if err != nil {
		return err
	}
	if queued {
		log.Info("billing notification queued", "to", to.Address)
	}
	return nil
}
