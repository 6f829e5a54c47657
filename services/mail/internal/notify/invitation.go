package notify

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Invitation e-mails (issue 29 item 7): the catalog's
// InvitationEmailRequested (an owner invited an address to an agent, or
// resent the invitation from the Users tab) becomes one e-mail to the
// invitee: who invited them, to which agent, and a link that signs them in
// and opens Shared with me.
const (
	// InvitationConsumerGroup is the mail service's group on the catalog
	// topic (its own: the invitations' lag shows apart); only
	// InvitationEmailRequested is read from it, every other type is ignored.
	InvitationConsumerGroup = "mail-invitations"
	// KindInvitation is the notifications.kind of an invitation e-mail.
	KindInvitation = "invitation"
	// InvitationPath is the link of the e-mail: /auth signs the visitor in
	// (or lets them register) and then opens next, Shared with me.
	InvitationPath = "/auth?next=/dashboard/shared"
	// DefaultInviterName names an owner the catalog knew no name of.
	DefaultInviterName = "An Agentic user"
	// maxNameRunes bounds the names put in a subject.
	maxNameRunes = 100
	// maxDescriptionRunes bounds the agent's description in the body.
	maxDescriptionRunes = 500
)

const invitationFooter = "Agentic. You get this e-mail because an Agentic user shared an agent with this address. " +
	"If you did not expect it, you can ignore it."

// InvitationHandler returns the consumer handler of the catalog topic: one
// e-mail to the invitee per InvitationEmailRequested (a redelivered event id
// is never mailed twice), nothing for any other type.
func InvitationHandler(cfg Config) (events.Handler, error) {
	h, err := newHandler(cfg)
	if err != nil {
		return nil, err
	}
	return h.handleInvitation, nil
}

// handleInvitation handles one event of the catalog topic. Anything but
// InvitationEmailRequested returns at once: no decoding, no I/O.
func (h *handler) handleInvitation(ctx context.Context, tx pgx.Tx, ev events.Received) error {
	if ev.Type != topics.CatalogSubscriberInvitationEmailRequested {
		return nil // agents created, subscribers activated, …: nothing to send
	}
	log := h.cfg.Logger.With("event_id", ev.ID, "event_type", ev.Type)
	if !ev.Time.IsZero() && h.now().Sub(ev.Time) > h.cfg.MaxAge {
		log.Info("invitation too old to e-mail; skipped", "event_time", ev.Time)
		return nil
	}
	var m eventsv1.InvitationEmailRequested
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(ev.Payload, &m); err != nil {
		log.Error("invitation payload unreadable; no e-mail", "error", err)
		return nil
	}
	log = log.With("agent_id", m.GetAgentId(), "subscriber_id", m.GetSubscriberId(), "resend", m.GetResend())
	to, err := mail.ParseAddress(strings.TrimSpace(m.GetEmail()))
	if err != nil || strings.ContainsAny(to.Address, "\r\n") {
		log.Warn("invitation without a usable address; no e-mail", "error", err)
		return nil
	}
	// The catalog names the owner when it knows them; else identity may.
	if clean(m.GetInviterName(), maxNameRunes) == "" && m.GetOwnerUid() != "" {
		u, err := h.cfg.Users.User(ctx, m.GetOwnerUid())
		switch {
		case errors.Is(err, ErrUnknownUser):
		case err != nil:
			return fmt.Errorf("look up inviter %s: %w", m.GetOwnerUid(), err)
		default:
			m.InviterName = u.Name
		}
	}
	n := InvitationText(&m, h.cfg.BaseURL)
	raw, msgID, err := Build(n, h.cfg.From, mail.Address{Address: to.Address}, ev.ID, ev.Time)
	if err != nil {
		return err
	}
	queued, err := inbox.QueueNotification(ctx, tx, inbox.NewNotification{
		EventID: ev.ID, EventType: ev.Type, Kind: n.Kind, UID: "", RFCMessageID: msgID,
		MailFrom: h.cfg.From.Address, RcptTo: to.Address, Subject: n.Subject, Raw: raw,
	})
	if err != nil {
		return err
	}
	if queued {
		log.Info("invitation e-mail queued", "to", to.Address)
	}
	return nil
}

// InvitationText composes the invitee's e-mail of an InvitationEmailRequested.
func InvitationText(m *eventsv1.InvitationEmailRequested, baseURL string) Notification {
	inviter := clean(m.GetInviterName(), maxNameRunes)
	if inviter == "" {
		inviter = DefaultInviterName
	}
	agent := clean(m.GetAgentName(), maxNameRunes)
	if agent == "" {
		agent = "an agent"
	}
	quoted := "“" + agent + "”"
	lines := []string{fmt.Sprintf("%s shared the agent %s with you on Agentic.", inviter, quoted)}
	if m.GetResend() {
		lines[0] = fmt.Sprintf("A reminder: %s shared the agent %s with you on Agentic.", inviter, quoted)
	}
	if d := clean(m.GetAgentDescription(), maxDescriptionRunes); d != "" {
		lines = append(lines, fmt.Sprintf("About %s: %s", quoted, d))
	}
	lines = append(lines,
		fmt.Sprintf("Sign in or create an account with this e-mail address (%s) and verify it: the agent then appears under Shared with me, where you can chat with it. Its owner pays for the answers.",
			strings.TrimSpace(m.GetEmail())))
	return Notification{
		Kind:    KindInvitation,
		Subject: fmt.Sprintf("%s shared the agent %s with you", inviter, quoted),
		Lines:   lines,
		Action:  "Open Shared with me", URL: strings.TrimRight(baseURL, "/") + InvitationPath,
		Footer: invitationFooter,
	}
}

// clean makes user-written text fit a header and a paragraph: control
// characters (line breaks included) become spaces, runs of spaces one, and
// it is cut to max runes (with an ellipsis).
func clean(s string, max int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > max {
		s = strings.TrimSpace(string([]rune(s)[:max-1])) + "…"
	}
	return s
}
