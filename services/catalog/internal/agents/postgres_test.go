package agents

import (
	"context"
	"errors"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
)

func newStore(t *testing.T) *PostgresStore {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "catalog_store")
	ctx := context.Background()
	if err := database.Migrate(ctx, pool, Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	return NewPostgresStore(pool)
}

func agentFor(owner, id string) Agent {
	now := time.Now().UTC()
	return Agent{ID: id, OwnerUID: owner, Name: "Bot", Description: "description", Category: "c", Status: StatusActive,
		IconName: Icons[0], IconColor: Colors[0], Tags: []string{}, CreatedAt: now, UpdatedAt: now}
}

func TestCreateNeverReusesAnIssuedAddress(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	first, err := s.Create(ctx, agentFor("u1", "00000000-0000-7000-8000-000000000001"), func() string { return "bot-aaaaaa@x.test" }, 0)
	if err != nil || first.Email != "bot-aaaaaa@x.test" {
		t.Fatalf("%v %v", first.Email, err)
	}
	// The generator repeats the issued address twice, then offers a new one.
	calls := 0
	second, err := s.Create(ctx, agentFor("u2", "00000000-0000-7000-8000-000000000002"), func() string {
		calls++
		if calls <= 2 {
			return "BOT-aaaaaa@x.test"
		}
		return "bot-bbbbbb@x.test"
	}, 0)
	if err != nil || second.Email != "bot-bbbbbb@x.test" || calls != 3 {
		t.Fatalf("%v %v calls=%d", second.Email, err, calls)
	}
	// Only issued addresses forever: a generator stuck on them fails cleanly.
	_, err = s.Create(ctx, agentFor("u3", "00000000-0000-7000-8000-000000000003"), func() string { return "bot-aaaaaa@x.test" }, 0)
	if err == nil || !strings.Contains(err.Error(), "no free address") {
		t.Fatalf("err = %v", err)
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE type = $1`, TypeAgentCreated).Scan(&n); err != nil || n != 2 {
		t.Fatalf("created events = %d %v", n, err)
	}
}

func TestActivateUserIsIdempotent(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, agentFor("owner", "00000000-0000-7000-8000-000000000001"), func() string { return "bot-cccccc@x.test" }, 0)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC()
	if _, err := s.AddSubscriber(ctx, "owner", a.ID, "pat@example.org", nil, at); err != nil {
		t.Fatal(err)
	}
	// The owner's own address (possible only through old data) stays invited.
	if _, err := s.pool.Exec(ctx, `INSERT INTO subscribers (id, agent_id, email, status) VALUES (gen_random_uuid(), $1, 'owner@example.org', 'invited')`, a.ID); err != nil {
		t.Fatal(err)
	}
	activate := func(u User) int {
		var n int
		if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			var err error
			n, err = s.ActivateUser(ctx, tx, u, time.Now().UTC())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := activate(User{UID: "pat", Email: "PAT@example.org", Name: "Pat"}); n != 1 {
		t.Fatalf("activated %d", n)
	}
	if n := activate(User{UID: "pat", Email: "pat@example.org", Name: "Pat"}); n != 0 {
		t.Fatalf("second activation activated %d", n)
	}
	if n := activate(User{UID: "owner", Email: "owner@example.org"}); n != 0 {
		t.Fatalf("owner activated %d", n)
	}
	got, err := s.Get(ctx, "owner", a.ID)
	if err != nil || got.Subscribers != 1 {
		t.Fatalf("subscribers = %d %v", got.Subscribers, err)
	}
	subs, err := s.ListSubscribers(ctx, "owner", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range subs {
		if sub.Email == "pat@example.org" && (sub.Status != SubscriberActive || sub.UID != "pat" || sub.Name != "Pat" || sub.ActivatedAt.IsZero()) {
			t.Fatalf("pat = %+v", sub)
		}
	}
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE type = $1`, TypeSubscriberActivated).Scan(&n); err != nil || n != 1 {
		t.Fatalf("activated events = %d %v", n, err)
	}
}

func TestAccessAndRecordInteraction(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, agentFor("owner", "00000000-0000-7000-8000-000000000001"), func() string { return "bot-dddddd@x.test" }, 0)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC()
	if _, err := s.AddSubscriber(ctx, "owner", a.ID, "sam@example.org", &User{UID: "sam", Email: "sam@example.org"}, at); err != nil {
		t.Fatal(err)
	}
	if _, err := s.AddSubscriber(ctx, "owner", a.ID, "ivy@example.org", nil, at); err != nil {
		t.Fatal(err)
	}
	for uid, want := range map[string]string{"owner": RoleOwner, "sam": RoleSubscriber, "ivy": "", "": ""} {
		got, role, _, err := s.Access(ctx, a.ID, uid)
		if err != nil || role != want || got.ID != a.ID {
			t.Errorf("Access(%q) = %q %v %v", uid, role, got.ID, err)
		}
	}
	if _, _, _, err := s.Access(ctx, "00000000-0000-7000-8000-000000000009", "owner"); err != ErrNotFound {
		t.Errorf("unknown agent: %v", err)
	}

	record := func(interaction, agent, user string) bool {
		t.Helper()
		var counted bool
		if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			var err error
			counted, err = s.RecordInteraction(ctx, tx, interaction, agent, user, time.Now().UTC())
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return counted
	}
	steps := []struct {
		interaction, agent, user string
		counted                  bool
	}{
		{"i1", a.ID, "sam", true},
		{"i1", a.ID, "sam", false},  // same interaction again
		{"i2", a.ID, "owner", true}, // the owner's own chat: agent only
		{"i3", a.ID, "ivy", true},   // invited, no uid yet: agent only
		{"", a.ID, "sam", true},     // no interaction id: relies on the event dedupe
		{"i4", "not-a-uuid", "sam", false},
		{"i5", "00000000-0000-7000-8000-000000000009", "sam", false},
	}
	for _, st := range steps {
		if got := record(st.interaction, st.agent, st.user); got != st.counted {
			t.Errorf("record %+v = %v", st, got)
		}
	}
	got, err := s.Get(ctx, "owner", a.ID)
	if err != nil || got.TotalInteractions != 4 {
		t.Fatalf("total = %d %v", got.TotalInteractions, err)
	}
	// agent_users (the marketplace's review rule): every asking user with a
	// uid, the owner and a non-subscriber included; counted once per answer.
	users := map[string]int64{}
	rows, err := s.pool.Query(ctx, `SELECT uid, answers FROM agent_users WHERE agent_id = $1 AND first_answer_at <= last_answer_at`, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			uid string
			n   int64
		)
		if err := rows.Scan(&uid, &n); err != nil {
			t.Fatal(err)
		}
		users[uid] = n
	}
	rows.Close()
	if len(users) != 3 || users["sam"] != 2 || users["owner"] != 1 || users["ivy"] != 1 {
		t.Errorf("agent_users = %v, want sam 2, owner 1, ivy 1", users)
	}
	subs, err := s.ListSubscribers(ctx, "owner", a.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, sub := range subs {
		want := map[string]int64{"sam@example.org": 2, "ivy@example.org": 0}[sub.Email]
		if sub.Interactions != want {
			t.Errorf("%s interactions = %d, want %d", sub.Email, sub.Interactions, want)
		}
	}
	// Counting never touches updatedAt (it tracks the owner's edits) nor emits events.
	if !got.UpdatedAt.Equal(a.UpdatedAt) {
		t.Errorf("updatedAt moved: %v → %v", a.UpdatedAt, got.UpdatedAt)
	}
	shared, err := s.ListShared(ctx, "sam")
	if err != nil || len(shared) != 1 || shared[0].Agent.ID != a.ID || shared[0].Interactions != 2 || shared[0].SharedAt.IsZero() {
		t.Fatalf("shared = %+v %v", shared, err)
	}
	if shared, err := s.ListShared(ctx, "ivy"); err != nil || len(shared) != 0 {
		t.Fatalf("ivy shared = %+v %v", shared, err)
	}
}

// An address the catalog knows (identity's event) is still only invited, and
// only ActivateVerified (a verified ID token) activates it.
func TestInviteNeverActivatesKnownUsers(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, agentFor("owner", "00000000-0000-7000-8000-000000000002"), func() string { return "bot-dddddd@x.test" }, 0)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC()
	if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := s.RecordUser(ctx, tx, User{UID: "kim", Email: "kim@example.org", Name: "Kim"}, at); err != nil {
			return err
		}
		return s.RecordUser(ctx, tx, User{UID: "owner", Email: "owner.alt@example.org"}, at)
	}); err != nil {
		t.Fatal(err)
	}
	sub, err := s.AddSubscriber(ctx, "owner", a.ID, "kim@example.org", nil, at)
	if err != nil || sub.Status != SubscriberInvited || sub.UID != "" || sub.Name != "" {
		t.Fatalf("invite a known user: %+v %v", sub, err)
	}
	// The owner's other address (known from identity) is still refused.
	var ve *ValidationError
	if _, err := s.AddSubscriber(ctx, "owner", a.ID, "owner.alt@example.org", nil, at); !errors.As(err, &ve) {
		t.Fatalf("owner's own address: %v", err)
	}
	// No invitation for this address: nothing to do.
	if n, err := s.ActivateVerified(ctx, User{UID: "lee", Email: "lee@example.org"}, at); err != nil || n != 0 {
		t.Fatalf("no invitation: %d %v", n, err)
	}
	// Verified: activated once, with the known name (an empty name in the
	// token does not erase it).
	for want := 1; want >= 0; want-- {
		if n, err := s.ActivateVerified(ctx, User{UID: "kim", Email: "KIM@example.org"}, at); err != nil || n != want {
			t.Fatalf("activate: %d %v, want %d", n, err, want)
		}
	}
	subs, err := s.ListSubscribers(ctx, "owner", a.ID)
	if err != nil || len(subs) != 1 || subs[0].Status != SubscriberActive || subs[0].UID != "kim" || subs[0].Name != "Kim" {
		t.Fatalf("after activation: %+v %v", subs, err)
	}
}

// Item 5: access changes are written in the transaction of the change, at
// clock_timestamp() (not the transaction's start), with the uid of a removed
// active subscriber and none for an invited one; rows older than an hour are
// purged by later writes; AccessChangesSince looks back margin from since.
func TestAccessChangesAreLoggedAndPurged(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, agentFor("owner", "00000000-0000-7000-8000-000000000003"), func() string { return "bot-eeeeee@x.test" }, 0)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC()
	sam, err := s.AddSubscriber(ctx, "owner", a.ID, "sam@example.org", &User{UID: "sam", Email: "sam@example.org"}, at)
	if err != nil {
		t.Fatal(err)
	}
	ivy, err := s.AddSubscriber(ctx, "owner", a.ID, "ivy@example.org", nil, at)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO access_changes (agent_id, uid, at) VALUES ($1, 'old', now() - interval '61 minutes')`, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveSubscriber(ctx, "owner", a.ID, ivy.ID, at); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveSubscriber(ctx, "owner", a.ID, sam.ID, at); err != nil {
		t.Fatal(err)
	}
	rows := func() []string {
		t.Helper()
		var out []string
		if err := s.pool.QueryRow(ctx, `SELECT ARRAY(SELECT COALESCE(uid, '-') FROM access_changes ORDER BY id)`).Scan(&out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := rows(); strings.Join(got, ",") != "sam" {
		t.Fatalf("access changes %v, want [sam] (ivy was only invited; the old row purged)", got)
	}

	// clock_timestamp(): a change recorded 300 ms into its transaction is
	// dated then, not at the transaction's start.
	var started, recorded time.Time
	if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT now() FROM pg_sleep(0.3)`).Scan(&started); err != nil {
			return err
		}
		return recordAccessChange(ctx, tx, a.ID, "")
	}); err != nil {
		t.Fatal(err)
	}
	if err := s.pool.QueryRow(ctx, `SELECT at FROM access_changes WHERE uid IS NULL`).Scan(&recorded); err != nil {
		t.Fatal(err)
	}
	if d := recorded.Sub(started); d < 300*time.Millisecond {
		t.Fatalf("recorded %v after its transaction started, want >= 300ms", d)
	}

	// since/margin: the change at `recorded` is found from since up to
	// margin later, not beyond; without since, from the database's now.
	for _, c := range []struct {
		since  time.Time
		margin time.Duration
		want   string
	}{
		{recorded, 0, "/"},
		{recorded.Add(time.Millisecond), 0, ""},
		{recorded.Add(500 * time.Millisecond), 600 * time.Millisecond, "/"}, // (sam's change is >= 300 ms older)
		{recorded.Add(500 * time.Millisecond), 100 * time.Millisecond, ""},
		{time.Time{}, time.Minute, "/,/sam"},
		{time.Time{}, 0, ""},
	} {
		changes, now, err := s.AccessChangesSince(ctx, c.since, c.margin)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, ch := range changes {
			if ch.AgentID != a.ID {
				t.Errorf("agent %q", ch.AgentID)
			}
			got = append(got, "/"+ch.UID)
		}
		sort.Strings(got)
		if strings.Join(got, ",") != c.want {
			t.Errorf("since %v margin %v: %v, want %q", c.since, c.margin, got, c.want)
		}
		if time.Since(now) > 5*time.Second || time.Until(now) > 5*time.Second {
			t.Errorf("now = %v", now)
		}
	}
}

// Item 6: the effective cap in Access (default, none, custom), for
// subscribers only; SetSubscriberCap records an access change only for a
// subscriber with a uid whose cap changed.
func TestSubscriberCapInAccess(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	a, err := s.Create(ctx, agentFor("owner", "00000000-0000-7000-8000-000000000004"), func() string { return "bot-ffffff@x.test" }, 0)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().UTC()
	sam, err := s.AddSubscriber(ctx, "owner", a.ID, "sam@example.org", &User{UID: "sam", Email: "sam@example.org"}, at)
	if err != nil {
		t.Fatal(err)
	}
	capOf := func(uid string) string {
		t.Helper()
		_, role, c, err := s.Access(ctx, a.ID, uid)
		if err != nil {
			t.Fatal(err)
		}
		if c == nil {
			return role + ":none"
		}
		return role + ":" + strconv.FormatInt(*c, 10)
	}
	setDefault := func(v *int64) {
		t.Helper()
		if _, err := s.Update(ctx, "owner", a.ID, func(cur Agent) (Agent, []string, error) {
			cur.SubscriberMonthlyCapCents = v
			return cur, []string{FieldSubscriberCap}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	five := int64(500)
	two := int64(200)
	setDefault(&five)
	if got := capOf("sam") + " " + capOf("owner") + " " + capOf("stranger"); got != "subscriber:500 owner:none :none" {
		t.Errorf("default: %s", got)
	}
	sub, err := s.SetSubscriberCap(ctx, "owner", a.ID, sam.ID, CapCustom, &two)
	if err != nil || sub.CapMode != CapCustom || *sub.MonthlyCapCents != 200 || *sub.EffectiveCapCents != 200 {
		t.Fatalf("custom: %+v %v", sub, err)
	}
	if got := capOf("sam"); got != "subscriber:200" {
		t.Errorf("custom: %s", got)
	}
	if sub, err = s.SetSubscriberCap(ctx, "owner", a.ID, sam.ID, CapNone, nil); err != nil || sub.EffectiveCapCents != nil {
		t.Fatalf("none: %+v %v", sub, err)
	}
	if got := capOf("sam"); got != "subscriber:none" {
		t.Errorf("none: %s", got)
	}
	if _, err := s.SetSubscriberCap(ctx, "owner", a.ID, sam.ID, CapNone, nil); err != nil { // unchanged
		t.Fatal(err)
	}
	if _, err := s.SetSubscriberCap(ctx, "other", a.ID, sam.ID, CapNone, nil); err != ErrNotFound {
		t.Errorf("another owner: %v", err)
	}
	if _, err := s.SetSubscriberCap(ctx, "owner", a.ID, "00000000-0000-7000-8000-000000000009", CapNone, nil); err != ErrSubscriberNotFound {
		t.Errorf("unknown subscriber: %v", err)
	}
	// The database refuses a custom mode without its amount.
	if _, err := s.SetSubscriberCap(ctx, "owner", a.ID, sam.ID, CapCustom, nil); err == nil {
		t.Error("custom without an amount was stored")
	}
	var changes []string
	if err := s.pool.QueryRow(ctx, `SELECT ARRAY(SELECT COALESCE(uid, '-') FROM access_changes ORDER BY id)`).Scan(&changes); err != nil {
		t.Fatal(err)
	}
	// The default cap (everyone), custom (sam), none (sam); the unchanged one records nothing.
	if strings.Join(changes, ",") != "-,sam,sam" {
		t.Errorf("access changes %v", changes)
	}
}
