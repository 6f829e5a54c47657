package app

import (
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// TestInvitationEmails (issue 29 item 7): inviting an address and resending
// the invitation each emit InvitationEmailRequested (with the inviter's name
// from identity's events, the agent's name and description, the invitee's
// address); a resend is the owner's only (404 otherwise), for a subscriber
// still invited only (400), and rate limited per subscriber (429 stating the
// limit). An unverified invitee counts their pending invitations; once
// verified, the count is 0 (claimed).
func TestInvitationEmails(t *testing.T) {
	app := startWith(t, "", func(c *Config) { c.InvitationResendRate = "2/1h" })
	base := app.http

	// Alice's name comes from identity's user.onboarded.
	publishOnboarded(t, app.brokers, "evt-alice-1", &eventsv1.UserOnboarded{Uid: "alice", Email: "alice@example.com",
		DisplayName: "Alice Owner", Username: "alice", OnboardedAt: timestamppb.Now()})
	testwait.Until(t, "alice recorded", func() bool {
		return strings.Contains(metricsText(t, base), `events_consumed_total{group="catalog",topic="agentic.identity.v1"} 1`)
	}, waitOpts...)

	a := createAgent(t, base, "token-alice", validAgent)
	id := a["id"].(string)
	subs := base + "/api/agents/" + id + "/subscribers"
	invite := func(email string) string {
		t.Helper()
		r := do(t, "POST", subs, "token-alice", `{"email":"`+email+`"}`)
		if r.Status != 201 || r.Obj()["status"] != "invited" {
			t.Fatalf("invite %s: %d %s", email, r.Status, r.Raw)
		}
		return r.Obj()["id"].(string)
	}
	resend := func(token, agentID, subID string) resp {
		t.Helper()
		return do(t, "POST", base+"/api/agents/"+agentID+"/subscribers/"+subID+"/resend-invitation", token, "")
	}
	carol := invite("Carol@Example.org")

	// Not the owner, or unknown ids: 404 (and bob's requests are not counted).
	for _, c := range []struct{ token, agent, sub, msg string }{
		{"token-bob", id, carol, "Agent not found"},
		{"token-bob", id, carol, "Agent not found"},
		{"token-bob", id, carol, "Agent not found"},
		{"token-alice", "00000000-0000-7000-8000-000000000000", carol, "Agent not found"},
		{"token-alice", "junk", carol, "Agent not found"},
		{"token-alice", id, "00000000-0000-7000-8000-000000000000", "Subscriber not found"},
		{"token-alice", id, "junk", "Subscriber not found"},
	} {
		if r := resend(c.token, c.agent, c.sub); r.Status != 404 || r.Obj()["error"] != "not_found" || r.Obj()["message"] != c.msg {
			t.Errorf("%s resend %s/%s: %d %s", c.token, c.agent, c.sub, r.Status, r.Raw)
		}
	}
	if r := resend("", id, carol); r.Status != 401 {
		t.Errorf("resend without a token: %d %s", r.Status, r.Raw)
	}
	// The owner: 202 with the subscriber, twice; the third within the hour
	// is refused with the limit stated.
	for i := 0; i < 2; i++ {
		r := resend("token-alice", id, carol)
		if r.Status != 202 || r.Obj()["id"] != carol || r.Obj()["email"] != "carol@example.org" || r.Obj()["status"] != "invited" {
			t.Fatalf("resend %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	r := resend("token-alice", id, carol)
	if r.Status != 429 || r.Obj()["error"] != "rate_limited" ||
		!strings.HasPrefix(r.Obj()["message"].(string), "Too many requests: at most 2 per hour. Try again in ") {
		t.Errorf("third resend: %d %s", r.Status, r.Raw)
	}
	// Another subscriber has a quota of their own; once they accepted, a
	// resend is refused (400 with the reason).
	dave := invite("dave@example.org")
	if ids, _ := sharedWith(t, base, "token-dave~dave@example.org~verified"); len(ids) != 1 {
		t.Fatalf("dave's shared agents: %v", ids)
	}
	if r := resend("token-alice", id, dave); r.Status != 400 || r.Obj()["error"] != "invalid_request" ||
		r.Obj()["message"] != "This person has already accepted the invitation." {
		t.Errorf("resend to an active subscriber: %d %s", r.Status, r.Raw)
	}

	// Pending invitations of the caller's address: unverified erin has two
	// (another owner's agent too), bob none, and a token without an address
	// none; verified, erin's are claimed and the count is 0.
	invite("erin@example.org")
	b := createAgent(t, base, "token-bob", strings.Replace(validAgent, "Math Tutor", "History Bot", 1))
	if r := do(t, "POST", base+"/api/agents/"+b["id"].(string)+"/subscribers", "token-bob", `{"email":"ERIN@example.org"}`); r.Status != 201 {
		t.Fatalf("bob invites erin: %d %s", r.Status, r.Raw)
	}
	pending := func(token string) resp {
		t.Helper()
		return do(t, "GET", base+"/api/user/pending-invitations", token, "")
	}
	for token, want := range map[string]float64{
		"token-erin~erin@example.org": 2, "token-erin~Erin@Example.org": 2, "token-bob": 0, "token-x~": 0,
	} {
		if r := pending(token); r.Status != 200 || r.Obj()["count"] != want || len(r.Obj()) != 1 {
			t.Errorf("pending for %s: %d %s, want %v", token, r.Status, r.Raw, want)
		}
	}
	if r := pending(""); r.Status != 401 {
		t.Errorf("pending without a token: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "POST", base+"/api/user/pending-invitations", "token-bob", ""); r.Status != 405 {
		t.Errorf("POST pending: %d %s", r.Status, r.Raw)
	}
	if r := pending("token-erin~erin@example.org~verified"); r.Status != 200 || r.Obj()["count"] != float64(0) {
		t.Errorf("pending for verified erin: %d %s", r.Status, r.Raw)
	}
	if st := subscribersOf(t, base, id)["erin@example.org"]["status"]; st != "active" {
		t.Errorf("erin %v after her verified count", st)
	}

	// The events: one invitation e-mail per invitation (4) and per accepted
	// resend (2), none for refused ones. In all: 2 agents created; carol
	// added, e-mailed, e-mailed twice again; dave added, e-mailed, activated;
	// erin added and e-mailed on both agents, activated on both.
	recs := eventstest.Consume(t, app.brokers, agents.Topic, 2+4+3+6, 30*time.Second, time.Second)
	var mails []*eventsv1.InvitationEmailRequested
	for _, rec := range recs {
		if rec.Headers["ce_type"] != agents.TypeInvitationEmailRequested {
			continue
		}
		var m eventsv1.InvitationEmailRequested
		if err := protojson.Unmarshal(rec.Value, &m); err != nil {
			t.Fatal(err)
		}
		if rec.Key != m.GetAgentId() || rec.Headers["ce_source"] != agents.Source {
			t.Errorf("record %v key %s", rec.Headers, rec.Key)
		}
		mails = append(mails, &m)
	}
	if len(mails) != 6 {
		t.Fatalf("%d invitation e-mails, want 6: %v", len(mails), mails)
	}
	bySub := map[string][]*eventsv1.InvitationEmailRequested{}
	for _, m := range mails {
		bySub[m.GetSubscriberId()] = append(bySub[m.GetSubscriberId()], m)
	}
	c := bySub[carol]
	if len(c) != 3 || c[0].GetResend() || !c[1].GetResend() || !c[2].GetResend() {
		t.Fatalf("carol's e-mails: %v", c)
	}
	for _, m := range c {
		if m.GetEmail() != "carol@example.org" || m.GetInviterName() != "Alice Owner" || m.GetAgentName() != "Math Tutor" ||
			m.GetAgentDescription() != "Helps with algebra homework" || m.GetOwnerUid() != "alice" || m.GetAgentId() != id ||
			m.GetIconName() != "ri-brain-line" || m.GetIconColor() != "#10B981" || m.GetOccurredAt() == nil {
			t.Errorf("carol's e-mail: %v", m)
		}
	}
	if d := bySub[dave]; len(d) != 1 || d[0].GetResend() {
		t.Errorf("dave's e-mails: %v", d)
	}
	var bobs int
	for _, m := range mails {
		if m.GetOwnerUid() == "bob" {
			bobs++
			// Bob never onboarded: the catalog knows no name of his.
			if m.GetInviterName() != agents.DefaultInviterName || m.GetAgentName() != "History Bot" || m.GetEmail() != "erin@example.org" {
				t.Errorf("bob's e-mail: %v", m)
			}
		}
	}
	if bobs != 1 {
		t.Errorf("%d e-mails for bob's agent, want 1", bobs)
	}
}

// TestResendRule: RATE_LIMIT_INVITATION_RESENDS (default 5 per hour, per
// subscriber; TestInvitationRateIsDocumented checks the OpenAPI document).
func TestResendRule(t *testing.T) {
	rule, err := resendRule("")
	if err != nil || rule.Limit != 5 || rule.Window != time.Hour || rule.Env != "RATE_LIMIT_INVITATION_RESENDS" {
		t.Fatalf("default rule = %+v, %v", rule, err)
	}
	if _, err := resendRule("five"); err == nil {
		t.Error("a malformed rate was accepted")
	}
	if off, err := resendRule("0/1h"); err != nil || !off.Disabled() {
		t.Errorf("0/1h = %+v, %v", off, err)
	}
}

// An owner who signed up a moment ago (identity's user.onboarded not yet
// consumed) is still named in the invitation e-mail: the catalog asks
// identity for the owner's name before writing it.
func TestInvitationEmailNamesANewOwner(t *testing.T) {
	identityAddr, _ := startIdentity(t,
		&identityv1.User{Uid: "frank", Email: "frank@example.com", DisplayName: "", Username: "frank_f"},
	)
	app := start(t, identityAddr)
	a := createAgent(t, app.http, "token-frank", validAgent)
	r := do(t, "POST", app.http+"/api/agents/"+a["id"].(string)+"/subscribers", "token-frank", `{"email":"gina@example.org"}`)
	if r.Status != 201 {
		t.Fatalf("invite: %d %s", r.Status, r.Raw)
	}
	recs := eventstest.Consume(t, app.brokers, agents.Topic, 3, 30*time.Second, time.Second)
	for _, rec := range recs {
		if rec.Headers["ce_type"] != agents.TypeInvitationEmailRequested {
			continue
		}
		var m eventsv1.InvitationEmailRequested
		if err := protojson.Unmarshal(rec.Value, &m); err != nil {
			t.Fatal(err)
		}
		if m.GetInviterName() != "frank_f" || m.GetEmail() != "gina@example.org" {
			t.Fatalf("invitation e-mail %+v", &m)
		}
		return
	}
	t.Fatalf("no invitation e-mail among %d records", len(recs))
}
