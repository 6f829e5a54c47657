// Package notify turns the wallet's billing events (topic agentic.wallet.v1:
// spend warnings at 80% and 100% of the monthly limit, low balance, declined
// auto-recharges and auto-recharge turned off) into e-mails to the user, and
// the conversations service's SubscriberCapReached (topic agentic.usage.v1: a
// subscriber's answer was refused over the monthly cap the agent's owner set)
// into an e-mail to the agent's owner. Each handler runs in the platform consumer's transaction, which has already
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
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

const (
	// ConsumerGroup is the mail service's own group on the wallet topic
	// (Handler: spend warnings, low balances and failed recharges are
	// notified, see wallet_events.proto).
	ConsumerGroup = "mail-notifications"

	// UsageConsumerGroup is the mail service's group on the usage topic: a
	// group of its own, so a burst of answers (InteractionRecorded) never
	// delays the wallet's notifications, and each stream's lag shows apart.
	// Only SubscriberCapReached is notified (UsageHandler, see
	// usage_events.proto); every other type on the topic is ignored.
	UsageConsumerGroup = "mail-usage"

	// DefaultFrom is the sender when MAIL_NOTIFY_FROM is not set.
	DefaultFrom = "Agentic <billing@agents.agentic.local>"
	// DefaultBaseURL is the web app's origin when APP_BASE_URL is not set.
	DefaultBaseURL = "http://localhost:8080"
	// WalletPath is the page the wallet's e-mails link to.
	WalletPath = "/dashboard/wallet"
	// AgenticUsersPath is the page the subscriber cap e-mail links to.
	AgenticUsersPath = "/dashboard/agentic-users"

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
	KindSubscriberCap    = "subscriber_cap"
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
	h, err := newHandler(cfg)
	if err != nil {
		return nil, err
	}
	return h.handle, nil
}

// UsageHandler returns the consumer handler of the usage topic: one e-mail
// to the agent's owner per SubscriberCapReached, nothing for any other type.
func UsageHandler(cfg Config) (events.Handler, error) {
	h, err := newHandler(cfg)
	if err != nil {
		return nil, err
	}
	return h.handleUsage, nil
}

func newHandler(cfg Config) (*handler, error) {
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
	return &handler{cfg: cfg, now: time.Now}, nil
}

type handler struct {
	cfg Config
	now func() time.Time
}

func (h *handler) handle(ctx context.Context, tx pgx.Tx, ev events.Received) error {
	log := h.cfg.Logger.With("event_id", ev.ID, "event_type", ev.Type)
	var msg proto.Message
	switch ev.Type {
	case topics.WalletSpendWarning:
		msg = &eventsv1.WalletSpendWarning{}
	case topics.WalletBalanceLow:
		msg = &eventsv1.WalletBalanceLow{}
	case topics.WalletRechargeFailed:
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
	if n.UID == "" {
		n.UID = ev.Key
	}
	return h.queue(ctx, tx, ev, n, log)
}

// handleUsage handles one event of the usage topic. Anything but
// SubscriberCapReached returns at once: no decoding, no I/O.
func (h *handler) handleUsage(ctx context.Context, tx pgx.Tx, ev events.Received) error {
	if ev.Type != topics.UsageSubscriberCapReached {
		return nil // interactions recorded, …: nothing to tell
	}
	log := h.cfg.Logger.With("event_id", ev.ID, "event_type", ev.Type)
	if !ev.Time.IsZero() && h.now().Sub(ev.Time) > h.cfg.MaxAge {
		log.Info("usage event too old to notify; skipped", "event_time", ev.Time)
		return nil
	}
	var m eventsv1.SubscriberCapReached
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(ev.Payload, &m); err != nil {
		log.Error("usage event payload unreadable; no notification", "error", err)
		return nil
	}
	log = log.With("agent_id", m.GetAgentId(), "subscriber_uid", m.GetSubscriberUid())
	// The subscriber's name and address for the text; one identity no longer
	// knows is still worth telling the owner about.
	var sub User
	if uid := m.GetSubscriberUid(); uid != "" {
		u, err := h.cfg.Users.User(ctx, uid)
		switch {
		case errors.Is(err, ErrUnknownUser):
			log.Warn("subscriber unknown to identity; the e-mail names nobody")
		case err != nil:
			return fmt.Errorf("look up subscriber %s: %w", uid, err)
		default:
			sub = u
		}
	}
	return h.queue(ctx, tx, ev, SubscriberCapText(&m, sub, h.cfg.BaseURL), log)
}

// queue looks n's recipient (n.UID) up and queues the e-mail in tx.
func (h *handler) queue(ctx context.Context, tx pgx.Tx, ev events.Received, n Notification, log *slog.Logger) error {
	uid := n.UID
	log = log.With("uid", uid, "kind", n.Kind)
	if uid == "" {
		log.Warn("event without a recipient uid; no notification")
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
		log.Info("notification queued", "to", to.Address)
	}
	return nil
}
