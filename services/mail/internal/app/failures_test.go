package app

import (
	"bytes"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/mail/internal/senderauth"
	"github.com/agentic-app/agentic/services/mail/internal/smtptest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

func TestProductionModeRequiresSenderAuthentication(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	dns := &senderauth.StaticResolver{}
	dns.SetTXT("s1._domainkey.example.org", "v=DKIM1; k=ed25519; p="+base64.StdEncoding.EncodeToString(pub))
	// erin's domain publishes SPF allowing the test client's address.
	dns.SetTXT("example.net", "v=spf1 ip4:127.0.0.1 -all")
	app := start(t, func(c *Config) { c.Env = EnvProduction; c.Resolver = dns })

	sign := func(raw, domain string) string {
		var out bytes.Buffer
		if err := dkim.Sign(&out, strings.NewReader(raw), &dkim.SignOptions{Domain: domain, Selector: "s1", Signer: key}); err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	unsigned := message(owner, agentEmail, "Unsigned", "unsigned@example.org", nil, "Forged or not, no signature")
	if got := code(send(t, app.smtp, owner, []string{agentEmail}, unsigned)); got != "550 5.7.1" {
		t.Errorf("unsigned in production: %s, want 550 5.7.1", got)
	}
	// Signed by another domain (an attacker's own valid signature).
	dns.SetTXT("s1._domainkey.evil.test", "v=DKIM1; k=ed25519; p="+base64.StdEncoding.EncodeToString(pub))
	forged := sign(message(owner, agentEmail, "Forged", "forged@example.org", nil, "I am Alice"), "evil.test")
	if got := code(send(t, app.smtp, owner, []string{agentEmail}, forged)); got != "550 5.7.1" {
		t.Errorf("signed by an unaligned domain: %s", got)
	}
	// Signed, then altered on the way.
	altered := strings.Replace(sign(message(owner, agentEmail, "Altered", "altered@example.org", nil, "Pay 1 dollar"), "example.org"), "Pay 1", "Pay 9", 1)
	if got := code(send(t, app.smtp, owner, []string{agentEmail}, altered)); got != "550 5.7.1" {
		t.Errorf("altered: %s", got)
	}
	// DNS failing: try again later, not a refusal.
	dns.Fail = map[string]bool{"s1._domainkey.example.org": true}
	signed := sign(message(owner, agentEmail, "Signed", "signed@example.org", nil, "Properly signed"), "example.org")
	if got := code(send(t, app.smtp, owner, []string{agentEmail}, signed)); got != "451 4.7.5" {
		t.Errorf("dns failure: %s, want 451 4.7.5", got)
	}
	dns.Fail = nil
	if err := send(t, app.smtp, owner, []string{agentEmail}, signed); err != nil {
		t.Fatalf("DKIM-signed: %v", err)
	}
	// SPF pass for erin's domain from this IP: not enough while the domain
	// publishes no DMARC record (SPF alone proves only the envelope)…
	noDMARC := message(subscriber, agentEmail, "SPF only", "spf-nodmarc@example.net", nil, "SPF without DMARC")
	if got := code(send(t, app.smtp, subscriber, []string{agentEmail}, noDMARC)); got != "550 5.7.1" {
		t.Errorf("SPF pass without DMARC: %s, want 550 5.7.1", got)
	}
	// …and accepted once it does (an aligned SPF pass is a DMARC pass).
	dns.SetTXT("_dmarc.example.net", "v=DMARC1; p=reject")
	spf := message(subscriber, agentEmail, "SPF", "spf@example.net", nil, "Authenticated by SPF")
	if err := send(t, app.smtp, subscriber, []string{agentEmail}, spf); err != nil {
		t.Fatalf("SPF pass: %v", err)
	}
	app.sink.Wait(2, 20*time.Second)
	app.settle(t) // nothing more may arrive
	got := app.sink.Messages()
	if len(got) != 2 {
		t.Fatalf("replies: %d, want 2 (signed, spf)", len(got))
	}
	auth := map[string]string{}
	for _, v := range admin(t, app.http) {
		auth[v.MessageID] = v.Auth
	}
	if auth["signed@example.org"] != "dkim=pass d=example.org" || auth["spf@example.net"] != "spf=pass d=example.net" || len(auth) != 2 {
		t.Errorf("stored: %v", auth)
	}
}

func TestRelayDownReplySentAfterRecoveryExactlyOnce(t *testing.T) {
	app := start(t, nil)
	app.sink.Stop()
	if err := send(t, app.smtp, owner, []string{agentEmail}, message(owner, agentEmail, "While down", "down1@example.org", nil, "Are you there?")); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "delivery attempts to fail", func() bool {
		v := admin(t, app.http)
		return len(v) == 1 && v[0].Reply != nil && v[0].Reply.Attempts >= 2 && v[0].Reply.State == inbox.ReplyPending &&
			v[0].Reply.LastError != ""
	}, waitOpts...)
	if v := admin(t, app.http); v[0].State != inbox.StateAnswered {
		t.Fatalf("message state %s", v[0].State)
	}
	app.sink.Restart()
	got := app.sink.Wait(1, 20*time.Second)
	if len(got) != 1 {
		t.Fatal("no reply after the relay recovered")
	}
	app.settle(t) // retries must have stopped
	if got = app.sink.Messages(); len(got) != 1 {
		t.Fatalf("replies: %d, want exactly 1", len(got))
	}
	if calls := app.conv.Calls(); len(calls) != 1 {
		t.Errorf("Answer calls: %d (a relay outage must not ask again)", len(calls))
	}
	testwait.Until(t, "sent recorded", func() bool { v := admin(t, app.http); return v[0].Reply.State == inbox.ReplySent }, waitOpts...)

	// A relay that refuses for good (5xx) is not retried.
	app.sink.Refuse(smtpRefusal(550))
	if err := send(t, app.smtp, owner, []string{agentEmail}, message(owner, agentEmail, "Refused", "refused@example.org", nil, "Hi")); err != nil {
		t.Fatal(err)
	}
	testwait.Until(t, "reply failed", func() bool {
		for _, v := range admin(t, app.http) {
			if v.MessageID == "refused@example.org" && v.Reply != nil && v.Reply.State == inbox.ReplyFailed {
				return v.Reply.Attempts == 1
			}
		}
		return false
	}, waitOpts...)
}

func TestInsufficientFundsGetsCannotAnswerReply(t *testing.T) {
	app := start(t, nil)
	app.conv.fail = func(int, *conversationsv1.AnswerRequest) error {
		return status.Error(codes.FailedPrecondition, "insufficient_funds")
	}
	if err := send(t, app.smtp, owner, []string{agentEmail}, message(owner, agentEmail, "Broke", "broke@example.org", nil, "Answer please")); err != nil {
		t.Fatal(err)
	}
	got := app.sink.Wait(1, 20*time.Second)
	if len(got) != 1 {
		t.Fatal("no reply")
	}
	r := parse(t, got[0].Data)
	if strings.TrimSpace(r.text) != inbox.MsgCannotAnswer || r.subject != "Re: Broke" || strings.Join(r.inReplyTo, "") != "broke@example.org" ||
		!strings.Contains(r.html, inbox.MsgCannotAnswer) {
		t.Errorf("reply: %q %q %v\n%s", r.text, r.subject, r.inReplyTo, r.html)
	}
	app.settle(t)
	if calls := app.conv.Calls(); len(calls) != 1 {
		t.Errorf("Answer calls: %d, want 1 (no retry of a refusal)", len(calls))
	}
	if n := len(app.sink.Messages()); n != 1 {
		t.Errorf("replies: %d", n)
	}
	v := admin(t, app.http)[0]
	if v.State != inbox.StateRefused || v.RefuseReason != inbox.ReasonInsufficientFunds || v.Reply.Kind != inbox.KindCannotAnswer {
		t.Errorf("stored: %+v %+v", v, v.Reply)
	}
}

// The owner whose agent's monthly fee is due with the answer (and the wallet
// cannot pay it) is told so in the reply, with what to add (rounded up to
// the cent), as in the chat and the API.
func TestAgentFeeDueGetsFeeReply(t *testing.T) {
	app := start(t, nil)
	app.conv.fail = func(int, *conversationsv1.AnswerRequest) error {
		st, err := status.New(codes.FailedPrecondition, "insufficient_funds").WithDetails(&errdetails.ErrorInfo{
			Reason: "agent_fee_due", Domain: "conversations.agentic",
			Metadata: map[string]string{"fee_micros": "10000000", "missing_micros": "7040001"}})
		if err != nil {
			t.Error(err)
		}
		return st.Err()
	}
	if err := send(t, app.smtp, owner, []string{agentEmail}, message(owner, agentEmail, "Fee", "fee@example.org", nil, "Answer please")); err != nil {
		t.Fatal(err)
	}
	got := app.sink.Wait(1, 20*time.Second)
	if len(got) != 1 {
		t.Fatal("no reply")
	}
	const want = "This agent's monthly fee of $10.00 is due: add $7.05 to your wallet to continue."
	if r := parse(t, got[0].Data); strings.TrimSpace(r.text) != want || r.subject != "Re: Fee" || !strings.Contains(r.html, "add $7.05 to your wallet") {
		t.Errorf("reply: %q %q\n%s", r.text, r.subject, r.html)
	}
	if calls := app.conv.Calls(); len(calls) != 1 {
		t.Errorf("Answer calls: %d, want 1 (no retry of a refusal)", len(calls))
	}
	v := admin(t, app.http)[0]
	if v.State != inbox.StateRefused || v.RefuseReason != inbox.ReasonInsufficientFunds || v.Reply.Kind != inbox.KindCannotAnswer {
		t.Errorf("stored: %+v %+v", v, v.Reply)
	}
}

// A subscriber whose monthly cap is spent is told the agent is unavailable
// (the sentence every channel gives them), once, without a retry.
func TestSubscriberOverCapGetsUnavailableReply(t *testing.T) {
	app := start(t, nil)
	app.conv.fail = func(int, *conversationsv1.AnswerRequest) error {
		return status.Error(codes.FailedPrecondition, "agent_unavailable")
	}
	if err := send(t, app.smtp, owner, []string{agentEmail}, message(owner, agentEmail, "Capped", "capped@example.org", nil, "Answer please")); err != nil {
		t.Fatal(err)
	}
	got := app.sink.Wait(1, 20*time.Second)
	if len(got) != 1 {
		t.Fatal("no reply")
	}
	if r := parse(t, got[0].Data); strings.TrimSpace(r.text) != inbox.MsgAgentUnavailable || r.subject != "Re: Capped" {
		t.Errorf("reply: %q %q", r.text, r.subject)
	}
	if calls := app.conv.Calls(); len(calls) != 1 {
		t.Errorf("Answer calls: %d, want 1 (no retry of a refusal)", len(calls))
	}
	v := admin(t, app.http)[0]
	if v.State != inbox.StateRefused || v.RefuseReason != inbox.ReasonAgentUnavailable || v.Reply.Kind != inbox.KindCannotAnswer {
		t.Errorf("stored: %+v %+v", v, v.Reply)
	}
}

func TestModelUnavailableRetriedThenPoliteReply(t *testing.T) {
	app := start(t, func(c *Config) { c.ModelRetries = 3 })
	app.conv.fail = func(n int, req *conversationsv1.AnswerRequest) error {
		switch {
		case req.GetIdempotencyKey() == "flaky@example.org" && n == 1:
			return status.Error(codes.Unavailable, "model_unavailable") // then recovers
		case req.GetIdempotencyKey() == "dead@example.org":
			return status.Error(codes.Unavailable, "model_unavailable")
		}
		return nil
	}
	if err := send(t, app.smtp, owner, []string{agentEmail}, message(owner, agentEmail, "Flaky", "flaky@example.org", nil, "Try again")); err != nil {
		t.Fatal(err)
	}
	if got := app.sink.Wait(1, 20*time.Second); len(got) != 1 || !strings.Contains(parse(t, got[0].Data).text, "**Answer** to: Try again") {
		t.Fatalf("flaky model: %d replies", len(got))
	}
	if err := send(t, app.smtp, owner, []string{agentEmail}, message(owner, agentEmail, "Dead", "dead@example.org", nil, "Never")); err != nil {
		t.Fatal(err)
	}
	got := app.sink.Wait(2, 20*time.Second)
	if len(got) != 2 || strings.TrimSpace(parse(t, got[1].Data).text) != inbox.MsgCannotAnswer {
		t.Fatalf("dead model: %d replies", len(got))
	}
	dead := 0
	for _, c := range app.conv.Calls() {
		if c.GetIdempotencyKey() == "dead@example.org" {
			dead++
		}
	}
	if dead != 3 {
		t.Errorf("Answer calls for the dead model: %d, want 3 (MAIL model retries)", dead)
	}
}

func TestHTMLOnlyMailAndAttachments(t *testing.T) {
	app := start(t, nil)
	raw := message(owner, agentEmail, "HTML", "html@example.org", map[string]string{
		"MIME-Version": "1.0",
		"Content-Type": `multipart/mixed; boundary="b1"`,
	}, `--b1
Content-Type: text/html; charset=utf-8

<html><body><p>What is the <b>derivative</b> of x&sup2;?</p>
<div class="gmail_quote">On Mon, Bot wrote:<blockquote>old</blockquote></div></body></html>
--b1
Content-Type: application/pdf
Content-Disposition: attachment; filename="homework.pdf"
Content-Transfer-Encoding: base64

JVBERi0xLjQK
--b1--
`)
	if err := send(t, app.smtp, owner, []string{agentEmail}, raw); err != nil {
		t.Fatal(err)
	}
	app.sink.Wait(1, 20*time.Second)
	calls := app.conv.Calls()
	if len(calls) != 1 || calls[0].GetContent() != "What is the derivative of x²?\n\n[Attachments not read: homework.pdf]" {
		t.Fatalf("Answer content: %q", calls[0].GetContent())
	}
	v := admin(t, app.http)[0]
	if !v.BodyFromHTML || strings.Join(v.Attachments, ",") != "homework.pdf" {
		t.Errorf("stored: %+v", v)
	}
}

func TestOversizeMessageRefused552(t *testing.T) {
	app := start(t, nil)
	big := message(owner, agentEmail, "Big", "big@example.org", nil, strings.Repeat(strings.Repeat("x", 998)+"\n", 10600)) // ~10.6 MB
	if got := code(send(t, app.smtp, owner, []string{agentEmail}, big)); !strings.HasPrefix(got, "552 5.3.4") {
		t.Fatalf("oversize: %s, want 552 5.3.4", got)
	}
	// The SIZE the client declares is checked before any data.
	c := dial(t, app.smtp)
	if got := code(c.Mail(owner, &smtpMailOptions{Size: 11 << 20})); !strings.HasPrefix(got, "552") {
		t.Errorf("declared size: %s", got)
	}
	// Just under the limit is fine.
	fits := message(owner, agentEmail, "Fits", "fits@example.org", nil, strings.Repeat(strings.Repeat("y", 998)+"\n", 10000)+"\nWhat is this?")
	if err := send(t, app.smtp, owner, []string{agentEmail}, fits); err != nil {
		t.Fatalf("9.5 MB message: %v", err)
	}
	if v := admin(t, app.http); len(v) != 1 || v[0].MessageID != "fits@example.org" {
		t.Fatalf("stored: %d", len(v))
	}
}

func TestTooLongEmptyAndAutomaticMessages(t *testing.T) {
	app := start(t, nil)
	long := message(owner, agentEmail, "Long", "long@example.org", nil, strings.Repeat(strings.Repeat("word ", 99)+"word\n", 17)) // 8,500 characters
	auto := message(owner, agentEmail, "Out of office", "auto@example.org", map[string]string{"Auto-Submitted": "auto-replied"}, "I am away")
	empty := message(owner, agentEmail, "", "empty@example.org", nil, "> only quoted text\n")
	for _, raw := range []string{long, auto, empty} {
		if err := send(t, app.smtp, owner, []string{agentEmail}, raw); err != nil {
			t.Fatal(err)
		}
	}
	// A line over the SMTP limit is refused for good.
	longLine := message(owner, agentEmail, "Line", "line@example.org", nil, strings.Repeat("x", 2500))
	if got := code(send(t, app.smtp, owner, []string{agentEmail}, longLine)); got != "550 5.6.0" {
		t.Errorf("long line: %s", got)
	}
	app.sink.Wait(1, 20*time.Second)
	app.settle(t) // nothing more may arrive
	got := app.sink.Messages()
	if len(got) != 1 || strings.TrimSpace(parse(t, got[0].Data).text) != inbox.MsgTooLong {
		t.Fatalf("replies: %d (only the too-long notice)", len(got))
	}
	if calls := app.conv.Calls(); len(calls) != 0 {
		t.Errorf("Answer calls: %d", len(calls))
	}
	reasons := map[string]string{}
	testwait.Until(t, "all refused", func() bool {
		for _, v := range admin(t, app.http) {
			reasons[v.MessageID] = v.RefuseReason
		}
		return len(reasons) == 3 && reasons["empty@example.org"] != ""
	}, waitOpts...)
	if reasons["long@example.org"] != inbox.ReasonTooLong || reasons["auto@example.org"] != inbox.ReasonAutoSubmitted || reasons["empty@example.org"] != inbox.ReasonEmpty {
		t.Errorf("reasons: %v", reasons)
	}
}

func TestSenderHourlyLimit(t *testing.T) {
	app := start(t, func(c *Config) { c.SenderHourlyLimit = 2 })
	for i := 1; i <= 4; i++ {
		raw := message(owner, agentEmail, fmt.Sprintf("Q%d", i), fmt.Sprintf("rate%d@example.org", i), nil, fmt.Sprintf("Question %d", i))
		if err := send(t, app.smtp, owner, []string{agentEmail}, raw); err != nil {
			t.Fatal(err)
		}
		testwait.Until(t, "processed", func() bool {
			for _, v := range admin(t, app.http) {
				if v.MessageID == fmt.Sprintf("rate%d@example.org", i) {
					return v.State != inbox.StatePending
				}
			}
			return false
		}, waitOpts...)
	}
	app.sink.Wait(3, 20*time.Second)
	app.settle(t) // nothing more may arrive
	got := app.sink.Messages()
	if len(got) != 3 {
		t.Fatalf("replies: %d, want 2 answers and 1 notice", len(got))
	}
	notices := 0
	for _, m := range got {
		if p := parse(t, m.Data); strings.Contains(p.text, "limit of 2 messages per hour") {
			notices++
			if strings.Join(p.inReplyTo, "") != "rate3@example.org" {
				t.Errorf("notice in reply to %v, want the first message over the limit", p.inReplyTo)
			}
		}
	}
	if notices != 1 {
		t.Errorf("rate-limit notices: %d, want 1", notices)
	}
	if calls := app.conv.Calls(); len(calls) != 2 {
		t.Errorf("Answer calls: %d, want 2", len(calls))
	}
	// Another sender is not affected.
	if err := send(t, app.smtp, subscriber, []string{agentEmail}, message(subscriber, agentEmail, "Mine", "erin1@example.net", nil, "My question")); err != nil {
		t.Fatal(err)
	}
	if got := app.sink.Wait(4, 20*time.Second); len(got) != 4 {
		t.Errorf("other sender's reply missing")
	}
}

func TestAdminAndMetrics(t *testing.T) {
	app := start(t, nil)
	resp, err := http.Get(app.http + "/admin/messages?limit=0")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Errorf("limit=0: %d", resp.StatusCode)
	}
	if v := admin(t, app.http); len(v) != 0 {
		t.Errorf("empty inbox: %v", v)
	}
	_ = send(t, app.smtp, stranger, []string{agentEmail}, message(stranger, agentEmail, "x", "m@example.com", nil, "x"))
	_ = send(t, app.smtp, owner, []string{agentEmail}, message(owner, agentEmail, "x", "ok@example.org", nil, "x"))
	app.sink.Wait(1, 20*time.Second)
	resp, err = http.Get(app.http + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(b)
	for _, want := range []string{
		`mail_smtp_replies_total{code="550",command="RCPT"} 1`,
		`mail_smtp_replies_total{code="250",command="DATA"} 1`,
		`mail_answers_total{outcome="answered",reason=""} 1`,
		`mail_requests_total{method="Receive",outcome="success"} 1`,
		`mail_requests_total{method="AcceptRecipient",outcome="client_error"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	testwait.Until(t, "reply metric", func() bool {
		resp, err := http.Get(app.http + "/metrics")
		if err != nil {
			return false
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return strings.Contains(string(b), `mail_replies_total{kind="answer",outcome="sent"} 1`)
	}, waitOpts...)
	for _, p := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(app.http + p)
		if err != nil || resp.StatusCode != 200 {
			t.Errorf("%s: %v %v", p, resp, err)
		}
		if resp != nil {
			resp.Body.Close()
		}
	}
}

func TestInboundSTARTTLS(t *testing.T) {
	certFile, keyFile, clientTLS := smtptest.SelfSignedFiles(t)
	app := start(t, func(c *Config) { c.TLSCert, c.TLSKey = certFile, keyFile })
	c, err := smtpDialStartTLS(app.smtp, clientTLS)
	if err != nil {
		t.Fatalf("STARTTLS: %v", err)
	}
	defer c.Close()
	if _, ok := c.TLSConnectionState(); !ok {
		t.Fatal("not encrypted")
	}
	if err := c.SendMail(owner, []string{agentEmail}, strings.NewReader(message(owner, agentEmail, "TLS", "tls@example.org", nil, "Encrypted question"))); err != nil {
		t.Fatal(err)
	}
	if got := app.sink.Wait(1, 20*time.Second); len(got) != 1 {
		t.Fatal("no reply")
	}
}
