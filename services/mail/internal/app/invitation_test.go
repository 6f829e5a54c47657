package app

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/mail/internal/notify"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/events/topics"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// invitationEvents are an invitation, its resend, a redelivery of the
// invitation and a catalog event of another type (ignored).
func invitationEvents(invitee string) []busEvent {
	invite := busEvent{id: "ev-invite-" + invitee, typ: topics.CatalogSubscriberInvitationEmailRequested, key: agentID,
		payload: &eventsv1.InvitationEmailRequested{AgentId: agentID, OwnerUid: "alice", AgentName: "Tax Helper",
			AgentDescription: "Answers questions about\r\nyour tax return.", SubscriberId: "sub-1", Email: invitee,
			InviterName: "Alice", OccurredAt: timestamppb.Now()}}
	resend := busEvent{id: "ev-resend-" + invitee, typ: topics.CatalogSubscriberInvitationEmailRequested, key: agentID,
		payload: &eventsv1.InvitationEmailRequested{AgentId: agentID, OwnerUid: "alice", AgentName: "Tax Helper",
			SubscriberId: "sub-1", Email: invitee, InviterName: "Alice", Resend: true, OccurredAt: timestamppb.Now()}}
	return []busEvent{
		invite,
		{id: "ev-added-" + invitee, typ: "agentic.catalog.subscriber.added.v1", key: agentID, payload: &eventsv1.SubscriberAdded{
			AgentId: agentID, OwnerUid: "alice", Email: invitee, Status: "invited"}},
		{id: "ev-created-" + invitee, typ: "agentic.catalog.agent.created.v1", key: agentID, raw: []byte("not json")},
		invite, // redelivered
		resend,
	}
}

// TestInvitationEmail: the catalog's InvitationEmailRequested gives the
// invitee exactly one e-mail per event through the relay (a redelivered
// event id sends nothing more, also after it was sent), from the platform's
// address, naming the inviter and the agent, with a link that signs them in
// and opens Shared with me, in plain text and HTML; the catalog topic's
// other events give nothing and are never an error.
func TestInvitationEmail(t *testing.T) {
	r := start(t, func(c *Config) {
		c.AppBaseURL = "https://app.example.test"
		c.ConsumerMaxWait = 100 * time.Millisecond
	})
	const invitee = "carol@example.org"
	evs := invitationEvents(invitee)
	produce(t, r.brokers, topics.Catalog, "/agentic/catalog", evs...)

	pool, err := pgxpool.New(context.Background(), r.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	count := func(q string, args ...any) int {
		var n int
		if err := pool.QueryRow(context.Background(), q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	testwait.Until(t, "4 distinct catalog events processed", func() bool {
		return count(`SELECT count(*) FROM processed_events WHERE consumer_group = $1`, notify.InvitationConsumerGroup) == 4
	}, waitOpts...)
	r.sink.Wait(2, 20*time.Second)
	r.settle(t) // nothing more may arrive
	msgs := r.sink.Messages()
	if len(msgs) != 2 {
		t.Fatalf("relay got %d messages, want 2 (the invitation and its resend)", len(msgs))
	}
	const subject = "Alice shared the agent “Tax Helper” with you"
	link := "https://app.example.test/auth?next=/dashboard/shared"
	var reminders int
	for _, m := range msgs {
		if m.From != "billing@agents.agentic.local" || len(m.To) != 1 || m.To[0] != invitee {
			t.Fatalf("envelope %s → %v, want → %s", m.From, m.To, invitee)
		}
		p := parse(t, m.Data)
		if p.subject != subject || p.to != invitee || p.from != "billing@agents.agentic.local" {
			t.Errorf("From %s To %s Subject %q", p.from, p.to, p.subject)
		}
		if strings.HasPrefix(p.text, "A reminder: ") {
			reminders++
		}
		for _, want := range []string{
			"Alice shared the agent “Tax Helper” with you on Agentic.",
			"Sign in or create an account with this e-mail address (carol@example.org) and verify it",
			"Open Shared with me: " + link,
		} {
			if !strings.Contains(p.text, want) {
				t.Errorf("text lacks %q:\n%s", want, p.text)
			}
		}
		if !strings.Contains(p.html, `href="`+link+`"`) || !strings.Contains(p.html, "Alice shared the agent “Tax Helper” with you on Agentic.") {
			t.Errorf("html:\n%s", p.html)
		}
		if v := p.header.Get("Auto-Submitted"); v != "auto-generated" {
			t.Errorf("Auto-Submitted %q", v)
		}
	}
	if reminders != 1 {
		t.Errorf("%d reminders, want 1 (the resend)", reminders)
	}
	// The invitation has the agent's description, on one line (the owner's
	// line break is not carried into the e-mail); the resend is shorter.
	var described int
	for _, m := range msgs {
		if strings.Contains(parse(t, m.Data).text, "About “Tax Helper”: Answers questions about your tax return.") {
			described++
		}
	}
	if described != 1 {
		t.Errorf("%d e-mails describe the agent, want 1 (the invitation)", described)
	}
	if n := count(`SELECT count(*) FROM notifications WHERE kind = $1 AND rcpt_to = $2 AND event_type = $3`,
		notify.KindInvitation, invitee, topics.CatalogSubscriberInvitationEmailRequested); n != 2 {
		t.Errorf("%d invitation notifications, want 2", n)
	}
	if n := count(`SELECT count(*) FROM parked_events`); n != 0 {
		t.Errorf("%d events parked, want 0", n)
	}
	testwait.Until(t, "both recorded sent", func() bool {
		return count(`SELECT count(*) FROM notifications WHERE state = 'sent'`) == 2
	}, waitOpts...)

	// A redelivery after it was sent is still nothing.
	produce(t, r.brokers, topics.Catalog, "/agentic/catalog", evs[0])
	eventstest.WaitConsumed(t, r.brokers, notify.InvitationConsumerGroup, topics.Catalog, waitOpts...)
	r.settle(t)
	if n := len(r.sink.Messages()); n != 2 {
		t.Errorf("after a redelivery the relay has %d messages, want 2", n)
	}
}

// TestInvitationEmailThroughMaildev runs where a maildev is (the local
// stack: MAILDEV_URL=http://127.0.0.1:1080, its SMTP at MAILDEV_SMTP,
// default 127.0.0.1:1025): the invitation goes through the real relay and
// arrives once in maildev's REST API. Skipped when MAILDEV_URL is not set.
func TestInvitationEmailThroughMaildev(t *testing.T) {
	api := strings.TrimRight(os.Getenv("MAILDEV_URL"), "/")
	if api == "" {
		t.Skip("MAILDEV_URL not set (e.g. http://127.0.0.1:1080 with the local stack)")
	}
	smtpAddr := os.Getenv("MAILDEV_SMTP")
	if smtpAddr == "" {
		smtpAddr = "127.0.0.1:1025"
	}
	r := start(t, func(c *Config) {
		c.AppBaseURL = "https://app.example.test"
		c.ConsumerMaxWait = 100 * time.Millisecond
		c.RelayURL = "smtp://" + smtpAddr
	})
	invitee := fmt.Sprintf("invitee-%d@example.org", time.Now().UnixNano())
	evs := invitationEvents(invitee)
	for i := range evs {
		evs[i].id += "-maildev"
	}
	produce(t, r.brokers, topics.Catalog, "/agentic/catalog", evs...)

	type maildevEmail struct {
		Subject string `json:"subject"`
		Text    string `json:"text"`
		To      []struct {
			Address string `json:"address"`
		} `json:"to"`
	}
	received := func() []maildevEmail {
		var out []maildevEmail
		for _, path := range []string{"/email", "/api/email"} { // maildev 2 and 3
			res, err := http.Get(api + path)
			if err != nil {
				t.Fatalf("maildev: %v", err)
			}
			var all []maildevEmail
			err = json.NewDecoder(res.Body).Decode(&all)
			res.Body.Close()
			if res.StatusCode != http.StatusOK || err != nil {
				continue
			}
			for _, m := range all {
				for _, to := range m.To {
					if strings.EqualFold(to.Address, invitee) {
						out = append(out, m)
					}
				}
			}
			return out
		}
		t.Fatalf("maildev at %s has no e-mail API", api)
		return nil
	}
	testwait.Until(t, "two e-mails in maildev", func() bool { return len(received()) >= 2 }, waitOpts...)
	r.settle(t) // nothing more may arrive
	got := received()
	if len(got) != 2 {
		t.Fatalf("maildev has %d e-mails to %s, want 2", len(got), invitee)
	}
	for _, m := range got {
		if m.Subject != "Alice shared the agent “Tax Helper” with you" ||
			!strings.Contains(m.Text, "https://app.example.test/auth?next=/dashboard/shared") {
			t.Errorf("maildev e-mail: %q\n%s", m.Subject, m.Text)
		}
	}
}

// InvitationText is the e-mail's content: subject and body name the inviter
// and the agent; an unknown inviter is "An Agentic user"; names are cleaned.
func TestInvitationText(t *testing.T) {
	n := notify.InvitationText(&eventsv1.InvitationEmailRequested{AgentName: "Tax\r\nHelper", Email: "x@example.org"}, "https://a.test/")
	if n.Subject != "An Agentic user shared the agent “Tax Helper” with you" || n.URL != "https://a.test/auth?next=/dashboard/shared" ||
		n.Kind != notify.KindInvitation || len(n.Lines) != 2 {
		t.Errorf("%+v", n)
	}
	long := strings.Repeat("é", 300)
	n = notify.InvitationText(&eventsv1.InvitationEmailRequested{AgentName: "A", InviterName: long, Resend: true}, "https://a.test")
	if !strings.HasPrefix(n.Lines[0], "A reminder: ") || !strings.Contains(n.Subject, "…") || len([]rune(n.Subject)) > 140 {
		t.Errorf("%+v", n)
	}
}
