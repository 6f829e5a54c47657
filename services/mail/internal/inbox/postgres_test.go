package inbox

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/agentic-app/agentic/services/mail/internal/mailtext"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "mail_store")
	ctx := context.Background()
	if err := database.Migrate(ctx, pool, Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	return NewStore(pool)
}

var (
	agentA = Agent{ID: "00000000-0000-7000-8000-0000000000a1", Email: "bot@agents.test", Name: "Bot", Status: "active"}
	alice  = Recipient{Agent: agentA, SenderUID: "alice"}
)

func inbound(id string, inReplyTo []string, refs []string) Inbound {
	return Inbound{Parsed: mailtext.Parsed{MessageID: id, InReplyTo: inReplyTo, References: refs, From: "alice@example.org",
		Subject: "s", Text: "q " + id}, Raw: []byte("raw " + id), Received: time.Now().UTC()}
}

func insert(t *testing.T, s *Store, in Inbound, rcpts ...Recipient) {
	t.Helper()
	if len(rcpts) == 0 {
		rcpts = []Recipient{alice}
	}
	if _, _, err := s.Insert(context.Background(), in, rcpts); err != nil {
		t.Fatal(err)
	}
}

func claim(t *testing.T, s *Store, lease time.Duration) (Message, bool) {
	t.Helper()
	m, ok, err := s.ClaimMessage(context.Background(), lease)
	if err != nil {
		t.Fatal(err)
	}
	return m, ok
}

func newReply(m Message) NewReply {
	id := uuid.New()
	return NewReply{ID: id, Kind: KindAnswer, RFCMessageID: id.String() + "@agents.test", MailFrom: m.AgentEmail, RcptTo: m.SenderEmail, Raw: []byte("reply")}
}

func TestThreadKeysAndPerThreadOrder(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	insert(t, s, inbound("root@x", nil, nil))
	first, ok := claim(t, s, time.Minute)
	if !ok || first.RFCMessageID != "root@x" || first.ThreadKey != "root@x" || first.Attempts != 1 {
		t.Fatalf("first claim: %+v %v", first, ok)
	}
	r := newReply(first)
	if err := s.FinishAnswered(ctx, first, Answer{ConversationID: "c1"}, r); err != nil {
		t.Fatal(err)
	}
	// Replies to the agent's reply continue the thread, however the client
	// builds its headers; an unknown parent's thread is keyed by its root.
	insert(t, s, inbound("a@x", []string{r.RFCMessageID}, nil))
	insert(t, s, inbound("b@x", []string{"a@x"}, []string{"root@x", r.RFCMessageID, "a@x"}))
	insert(t, s, inbound("other@x", []string{"elsewhere@y"}, []string{"human-root@y", "elsewhere@y"}))
	// A second agent keeps its own thread for the same ids.
	agentB := Recipient{Agent: Agent{ID: "00000000-0000-7000-8000-0000000000b2", Email: "b@agents.test"}, SenderUID: "alice"}
	insert(t, s, inbound("b2@x", []string{r.RFCMessageID}, nil), agentB)

	var got []string
	keys := map[string]string{}
	for {
		m, ok := claim(t, s, time.Minute)
		if !ok {
			break
		}
		got = append(got, m.RFCMessageID)
		keys[m.RFCMessageID+"/"+m.AgentID[len(m.AgentID)-2:]] = m.ThreadKey
	}
	// a@x is claimable; b@x waits behind it (same thread, same sender);
	// other@x and b2@x are other threads.
	if len(got) != 3 || got[0] != "a@x" {
		t.Fatalf("claimable now: %v", got)
	}
	if keys["a@x/a1"] != "root@x" || keys["other@x/a1"] != "human-root@y" || keys["b2@x/b2"] != r.RFCMessageID {
		t.Errorf("thread keys: %v", keys)
	}
	var a Message
	for _, id := range got {
		if id == "a@x" {
			a, _ = s.messageForTest(ctx, agentA.ID, "a@x")
		}
	}
	if err := s.FinishRefused(ctx, a, ReasonEmpty, nil); err != nil {
		t.Fatal(err)
	}
	b, ok := claim(t, s, time.Minute)
	if !ok || b.RFCMessageID != "b@x" || b.ThreadKey != "root@x" {
		t.Fatalf("after a@x finished: %+v %v", b, ok)
	}
}

func TestLostLeaseAndRedelivery(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	in := inbound("m@x", nil, nil)
	insert(t, s, in)
	stored, dups, err := s.Insert(ctx, in, []Recipient{alice})
	if err != nil || stored != 0 || dups != 1 {
		t.Fatalf("redelivery: stored %d dups %d %v", stored, dups, err)
	}
	slow, ok := claim(t, s, 50*time.Millisecond)
	if !ok {
		t.Fatal("no claim")
	}
	if _, ok := claim(t, s, time.Minute); ok {
		t.Fatal("claimed twice while leased")
	}
	time.Sleep(100 * time.Millisecond) // the slow worker's lease expires
	fast, ok := claim(t, s, time.Minute)
	if !ok || fast.Attempts != 2 || fast.Lease == slow.Lease {
		t.Fatalf("takeover: %+v %v", fast, ok)
	}
	if err := s.FinishAnswered(ctx, fast, Answer{ConversationID: "c"}, newReply(fast)); err != nil {
		t.Fatal(err)
	}
	// The slow worker's late result is dropped: one reply, one answer.
	if err := s.FinishAnswered(ctx, slow, Answer{ConversationID: "c"}, newReply(slow)); !errors.Is(err, ErrLostLease) {
		t.Fatalf("late finish: %v", err)
	}
	if err := s.Retry(ctx, slow, "late", time.Now(), false); !errors.Is(err, ErrLostLease) {
		t.Fatalf("late retry: %v", err)
	}
	var replies, answered int
	if err := s.pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM replies), (SELECT count(*) FROM outbox WHERE type = $1)`, TypeAnswered).
		Scan(&replies, &answered); err != nil || replies != 1 || answered != 1 {
		t.Fatalf("replies %d answered events %d %v", replies, answered, err)
	}
	// Sending: MarkSent twice records (and announces) once.
	rp, ok, err := s.ClaimReply(ctx, time.Minute)
	if err != nil || !ok || rp.SenderUID != "alice" {
		t.Fatalf("claim reply: %+v %v %v", rp, ok, err)
	}
	for i := 0; i < 2; i++ {
		if err := s.MarkSent(ctx, rp); err != nil {
			t.Fatal(err)
		}
	}
	var sent int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE type = $1`, TypeSent).Scan(&sent); err != nil || sent != 1 {
		t.Fatalf("sent events %d %v", sent, err)
	}
	if _, ok, _ := s.ClaimReply(ctx, time.Minute); ok {
		t.Fatal("a sent reply was claimed again")
	}
}

func TestTakeRateNoticesOncePerWindow(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	for _, id := range []string{"r1@x", "r2@x", "r3@x", "r4@x"} {
		insert(t, s, inbound(id, nil, nil))
	}
	var allowed, notices int
	for i := 0; i < 4; i++ {
		m, ok := claim(t, s, time.Minute)
		if !ok {
			t.Fatalf("claim %d", i)
		}
		ok, err := s.TakeRate(ctx, m, 2, time.Hour, func(first bool) (*NewReply, error) {
			if !first {
				return nil, nil
			}
			notices++
			r := newReply(m)
			r.Kind = KindRateLimited
			return &r, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if ok {
			allowed++
			// Counted once: asking again for the same message is still allowed.
			if again, err := s.TakeRate(ctx, m, 2, time.Hour, nil); err != nil || !again {
				t.Fatalf("second TakeRate: %v %v", again, err)
			}
			if err := s.FinishAnswered(ctx, m, Answer{}, newReply(m)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if allowed != 2 || notices != 1 {
		t.Fatalf("allowed %d notices %d", allowed, notices)
	}
}

// messageForTest reads a leased message back (the claim loop above drops them).
func (s *Store) messageForTest(ctx context.Context, agentID, rfcID string) (Message, error) {
	return scanMessage(s.pool.QueryRow(ctx, `SELECT `+messageColumns+` FROM messages m WHERE agent_id = $1 AND rfc_message_id = $2`, agentID, rfcID))
}
