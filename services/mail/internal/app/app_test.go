package app

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
)

const question = `How do I solve x^2 - 5x + 6 = 0?

Thanks,
Alice

On Mon, 1 Jan 2024 at 09:00, Math Tutor <` + agentEmail + `> wrote:
> Earlier answer that must not be sent again.
> More of it.

-- 
Alice Example | +1 555 0100
`

func TestAllowedSenderGetsThreadedReply(t *testing.T) {
	app := start(t, nil)

	raw := message(`"Alice Example" <Alice@Example.org>`, agentEmail, "Quadratic equations", "q1@example.org", nil, question)
	if err := send(t, app.smtp, "Alice@Example.org", []string{strings.ToUpper(agentEmail)}, raw); err != nil {
		t.Fatalf("send: %v", err)
	}
	got := app.sink.Wait(1, 20*time.Second)
	if len(got) != 1 {
		t.Fatalf("replies at the relay: %d", len(got))
	}
	if got[0].From != agentEmail || strings.Join(got[0].To, ",") != "alice@example.org" {
		t.Errorf("envelope: %s → %v", got[0].From, got[0].To)
	}
	r := parse(t, got[0].Data)
	if r.from != agentEmail || r.to != "alice@example.org" || r.subject != "Re: Quadratic equations" ||
		strings.Join(r.inReplyTo, " ") != "q1@example.org" || strings.Join(r.refs, " ") != "q1@example.org" ||
		!strings.HasSuffix(r.id, "@agents.agentic.local") {
		t.Errorf("reply headers: from=%s to=%s subject=%q id=%s irt=%v refs=%v", r.from, r.to, r.subject, r.id, r.inReplyTo, r.refs)
	}
	if from, _ := r.header.AddressList("From"); from[0].Name != "Math Tutor" {
		t.Errorf("From name %q", from[0].Name)
	}
	wantQ := "How do I solve x^2 - 5x + 6 = 0?\n\nThanks,\nAlice"
	if !strings.Contains(r.text, "**Answer** to: "+wantQ) ||
		!strings.Contains(r.text, "[1] Algebra notes <https://docs.google.com/document/d/abc123/edit>") {
		t.Errorf("text part:\n%s", r.text)
	}
	if !strings.Contains(r.html, "<strong>Answer</strong>") ||
		!strings.Contains(r.html, `<a href="https://docs.google.com/document/d/abc123/edit" rel="noopener noreferrer nofollow" target="_blank" title="https://docs.google.com/document/d/abc123/edit">Algebra notes (docs.google.com)</a>`) {
		t.Errorf("html part:\n%s", r.html)
	}

	calls := app.conv.Calls()
	if len(calls) != 1 {
		t.Fatalf("Answer calls: %d", len(calls))
	}
	c := calls[0]
	// Quoted history and signature stripped; one conversation per thread.
	if c.GetAgentId() != agentID || c.GetUserUid() != "alice" || c.GetChannel() != "email" ||
		c.GetThreadKey() != "q1@example.org" || c.GetIdempotencyKey() != "q1@example.org" ||
		c.GetTitle() != "Quadratic equations" || c.GetContent() != wantQ {
		t.Errorf("Answer request: %v", c)
	}

	// The sender answers the agent's reply (References: root, reply): same thread.
	follow := message(owner, agentEmail, "Re: Quadratic equations", "q2@example.org", map[string]string{
		"In-Reply-To": "<" + r.id + ">", "References": "<q1@example.org> <" + r.id + ">",
	}, "And x^2 = 4?\n\n> **Answer** to: How do I solve...\n")
	if err := send(t, app.smtp, owner, []string{agentEmail}, follow); err != nil {
		t.Fatal(err)
	}
	// A client that keeps only In-Reply-To (the agent's reply id) still lands in the thread.
	third := message(owner, agentEmail, "Re: Quadratic equations", "q3@example.org", map[string]string{
		"In-Reply-To": "<" + r.id + ">",
	}, "One more: x^2 = 9?")
	if err := send(t, app.smtp, owner, []string{agentEmail}, third); err != nil {
		t.Fatal(err)
	}
	// The active subscriber may write too; a new subject is a new thread.
	sub := message(subscriber, agentEmail, "Fractions", "f1@example.net", nil, "What is 1/2 + 1/3?")
	if err := send(t, app.smtp, subscriber, []string{agentEmail}, sub); err != nil {
		t.Fatalf("subscriber: %v", err)
	}
	got = app.sink.Wait(4, 20*time.Second)
	if len(got) != 4 {
		t.Fatalf("replies: %d", len(got))
	}
	calls = app.conv.Calls()
	threads := map[string]string{}
	for _, c := range calls {
		threads[c.GetIdempotencyKey()] = c.GetThreadKey() + "/" + c.GetUserUid()
	}
	if threads["q2@example.org"] != "q1@example.org/alice" || threads["q3@example.org"] != "q1@example.org/alice" ||
		threads["f1@example.net"] != "f1@example.net/erin" || len(calls) != 4 {
		t.Errorf("threads: %v (%d calls)", threads, len(calls))
	}
	byTo := map[string][]parsed{}
	for _, m := range got[1:] {
		p := parse(t, m.Data)
		byTo[p.to] = append(byTo[p.to], p)
	}
	for _, p := range byTo["alice@example.org"] {
		// References continue the thread: root, the agent's reply, the follow-up.
		if p.inReplyTo[0] == "q2@example.org" && strings.Join(p.refs, " ") != "q1@example.org "+r.id+" q2@example.org" {
			t.Errorf("follow-up reply References = %v", p.refs)
		}
		if p.inReplyTo[0] == "q3@example.org" && strings.Join(p.refs, " ") != r.id+" q3@example.org" {
			t.Errorf("third reply References = %v", p.refs)
		}
	}
	if len(byTo["erin@example.net"]) != 1 || byTo["erin@example.net"][0].subject != "Re: Fractions" {
		t.Errorf("subscriber's reply: %+v", byTo["erin@example.net"])
	}

	// Events: 4 received, 4 answered, 4 replies sent, keyed by agent.
	recs := eventstest.Consume(t, app.brokers, inbox.Topic, 12, 20*time.Second, 300*time.Millisecond)
	count := map[string]int{}
	for _, rec := range recs {
		count[rec.Headers["ce_type"]]++
		if rec.Key != agentID || rec.Headers["ce_source"] != inbox.Source {
			t.Errorf("event key/source: %s %s", rec.Key, rec.Headers["ce_source"])
		}
		if rec.Headers["ce_type"] == inbox.TypeAnswered {
			var ev eventsv1.MailMessageAnswered
			if err := protojson.Unmarshal(rec.Value, &ev); err != nil || ev.GetConversationId() == "" || ev.GetTotalMicros() != 901 {
				t.Errorf("answered event: %v %v", &ev, err)
			}
		}
	}
	if count[inbox.TypeReceived] != 4 || count[inbox.TypeAnswered] != 4 || count[inbox.TypeSent] != 4 {
		t.Errorf("events: %v", count)
	}
	views := admin(t, app.http)
	if len(views) != 4 {
		t.Fatalf("admin: %d messages", len(views))
	}
	for _, v := range views {
		if v.State != inbox.StateAnswered || v.Reply == nil || v.Reply.State != inbox.ReplySent || v.Reply.Kind != inbox.KindAnswer || v.Auth != "skipped (development mode)" {
			t.Errorf("admin view: %+v %+v", v, v.Reply)
		}
	}
}

func TestRefusedDuringTheSession(t *testing.T) {
	app := start(t, nil)
	body := "Please answer"
	cases := []struct {
		name, from, to, header string
		want                   string
	}{
		{"unknown recipient", owner, "nobody-aaaaaa@agents.agentic.local", owner, "550 5.1.1"},
		{"not our domain (no relaying)", owner, "bob@example.com", owner, "550 5.1.1"},
		{"stranger (a user without access)", stranger, agentEmail, stranger, "550 5.7.1"},
		{"stranger (not a user at all)", "eve@evil.test", agentEmail, "eve@evil.test", "550 5.7.1"},
		{"invited only (no access yet)", "gina@example.org", agentEmail, "gina@example.org", "550 5.7.1"},
		{"owner of one agent writing to another's", subscriber, agent2Email, subscriber, "550 5.7.1"},
		{"null sender (a bounce)", "", agentEmail, owner, "550 5.7.1"},
		{"forged From header", stranger, agentEmail, owner, "550 5.7.1"},
		{"From another allowed user than the envelope", owner, agentEmail, subscriber, "550 5.7.1"},
		{"inactive agent", owner, offEmail, owner, "550 5.2.1"},
	}
	for i, c := range cases {
		raw := message(c.header, c.to, "Hello", "refused-"+string(rune('a'+i))+"@example.org", nil, body)
		if got := code(send(t, app.smtp, c.from, []string{c.to}, raw)); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	// A message with no From header at all.
	noFrom := "To: " + agentEmail + "\r\nSubject: x\r\nMessage-ID: <nofrom@example.org>\r\n\r\nhi\r\n"
	if got := code(send(t, app.smtp, owner, []string{agentEmail}, noFrom)); got != "550 5.6.0" {
		t.Errorf("no From: %s", got)
	}
	// One good and one unknown recipient: the good one is accepted and answered.
	c := dial(t, app.smtp)
	if err := c.Mail(owner, nil); err != nil {
		t.Fatal(err)
	}
	if got := code(c.Rcpt("nobody-bbbbbb@agents.agentic.local", nil)); got != "550 5.1.1" {
		t.Errorf("bad rcpt in a mixed transaction: %s", got)
	}
	if err := c.Rcpt(agentEmail, nil); err != nil {
		t.Fatal(err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte(message(owner, agentEmail, "Mixed", "mixed@example.org", nil, "Still answered?")))
	if err := w.Close(); err != nil {
		t.Fatalf("data: %v", err)
	}
	_ = c.Quit()

	app.sink.Wait(1, 20*time.Second)
	app.settle(t) // nothing more may arrive
	got := app.sink.Messages()
	if len(got) != 1 || parse(t, got[0].Data).subject != "Re: Mixed" {
		t.Fatalf("replies: %d (only the mixed transaction's)", len(got))
	}
	if calls := app.conv.Calls(); len(calls) != 1 {
		t.Errorf("Answer calls: %d", len(calls))
	}
	if views := admin(t, app.http); len(views) != 1 {
		t.Errorf("stored messages: %d; refusals must store nothing", len(views))
	}

	// The catalog being down is a temporary failure (the sender retries), not a bounce.
	app.catalog.mu.Lock()
	app.catalog.down = true
	app.catalog.mu.Unlock()
	if got := code(send(t, app.smtp, owner, []string{agentEmail}, message(owner, agentEmail, "x", "down@example.org", nil, "x"))); got != "451 4.3.0" {
		t.Errorf("catalog down: %s", got)
	}
}

func TestRedeliveryIsAnsweredOnce(t *testing.T) {
	app := start(t, func(c *Config) { c.AnswerConcurrency = 8 })
	app.conv.delay = 200 * time.Millisecond // answers are slow; redeliveries race them
	raw := message(owner, agentEmail, "Once", "once@example.org", nil, "Answer me once")
	// A sending server that did not see our 250 delivers the same message again.
	done := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func() { done <- send(t, app.smtp, owner, []string{agentEmail}, raw) }()
	}
	for i := 0; i < 4; i++ {
		if err := <-done; err != nil {
			t.Fatalf("delivery %d: %v", i, err)
		}
	}
	app.sink.Wait(1, 20*time.Second)
	if err := send(t, app.smtp, owner, []string{agentEmail}, raw); err != nil { // and once more later
		t.Fatal(err)
	}
	app.settle(t)
	if got := app.sink.Messages(); len(got) != 1 {
		t.Fatalf("replies: %d, want 1", len(got))
	}
	if calls := app.conv.Calls(); len(calls) != 1 {
		t.Fatalf("Answer calls: %d, want 1", len(calls))
	}
	// The same message to two agents is one message for each.
	both := message(owner, agentEmail+", "+agent2Email, "Both", "both@example.org", nil, "Hello both")
	if err := send(t, app.smtp, owner, []string{agentEmail, agent2Email, strings.ToUpper(agent2Email)}, both); err != nil {
		t.Fatal(err)
	}
	app.sink.Wait(3, 20*time.Second)
	app.settle(t) // nothing more may arrive
	got := app.sink.Messages()
	if len(got) != 3 {
		t.Fatalf("replies: %d, want 3", len(got))
	}
	froms := map[string]bool{}
	for _, m := range got[1:] {
		froms[m.From] = true
	}
	if !froms[agentEmail] || !froms[agent2Email] {
		t.Errorf("replies from %v", froms)
	}
}

func dial(t *testing.T, addr string) *smtpClient {
	t.Helper()
	c, err := smtpDial(addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Hello("client.example.org"); err != nil {
		t.Fatal(err)
	}
	return c
}
