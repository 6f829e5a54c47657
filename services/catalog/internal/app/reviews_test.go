package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/catalog/internal/transport"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// Review rule messages (the contract's texts).
const (
	msgRating         = "Choose a rating from 1 to 5 stars."
	msgReviewText     = "A review can be at most 2,000 characters."
	msgOwnAgent       = "You cannot review your own agent."
	msgRequiresAnswer = "Only people who got an answer from this agent can review it."
)

type marketplace struct {
	running
	pool *pgxpool.Pool
}

// startMarketplace starts the catalog with the marketplace on, the review
// and report quotas off unless configure sets them, and a pool on its
// database (to publish agents: the listing fields are set with SQL here, so
// these tests do not depend on the publishing rules).
func startMarketplace(t *testing.T, configure func(*Config)) marketplace {
	t.Helper()
	var dbURL string
	app := startWith(t, "", func(c *Config) {
		c.MarketplaceEnabled = true
		c.MarketplaceRate = "0/1m" // the per-address limit has its own tests (listing_test.go)
		c.ReviewRate, c.ReportRate = "0/24h", "0/24h"
		c.MarketplaceCacheTTL = agents.DefaultListingCacheTTL
		if configure != nil {
			configure(c)
		}
		dbURL = c.DatabaseURL
	})
	pool, err := pgxpool.New(context.Background(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return marketplace{running: app, pool: pool}
}

func (m marketplace) exec(t *testing.T, sql string, args ...any) {
	t.Helper()
	if _, err := m.pool.Exec(context.Background(), sql, args...); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// listedAgent creates an agent of owner and lists it under slug.
func (m marketplace) listedAgent(t *testing.T, owner, slug string) string {
	t.Helper()
	id := createAgent(t, m.http, "token-"+owner, validAgent)["id"].(string)
	m.exec(t, `UPDATE agents SET is_public = true, slug = $2, published_at = now() WHERE id = $1`, id, slug)
	return id
}

// answered gives uid an answer from the agent without the usage consumer
// (agent_users as RecordInteraction leaves it).
func (m marketplace) answered(t *testing.T, agentID, uid string) {
	t.Helper()
	m.exec(t, `INSERT INTO agent_users (agent_id, uid, answers, first_answer_at, last_answer_at) VALUES ($1, $2, 1, now(), now())
		ON CONFLICT (agent_id, uid) DO UPDATE SET answers = agent_users.answers + 1`, agentID, uid)
}

// aggregates returns the agent's rating read model (count, sum) and what
// its reviews say, once they agree: the ratings consumer recomputes the read
// model from the review.changed events within a second or so here; a read
// model that never catches up fails the test.
func (m marketplace) aggregates(t *testing.T, agentID string) (count, sum, reviews, reviewSum int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := m.pool.QueryRow(context.Background(), `SELECT a.rating_count, a.rating_sum,
				(SELECT count(*) FROM reviews WHERE agent_id = a.id), (SELECT COALESCE(sum(rating), 0) FROM reviews WHERE agent_id = a.id)
			FROM agents a WHERE a.id = $1`, agentID).Scan(&count, &sum, &reviews, &reviewSum); err != nil {
			t.Fatal(err)
		}
		if count == reviews && sum == reviewSum {
			return count, sum, reviews, reviewSum
		}
		if time.Now().After(deadline) {
			t.Fatalf("rating read model of %s: count %d sum %d, reviews %d sum %d after 20 s", agentID, count, sum, reviews, reviewSum)
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func wantError(t *testing.T, what string, r resp, status int, code, msg string) {
	t.Helper()
	if r.Status != status || r.Obj()["error"] != code || (msg != "" && r.Obj()["message"] != msg) {
		t.Errorf("%s: %d %s, want %d %s %q", what, r.Status, truncate(r.Raw), status, code, msg)
	}
}

func wantFieldError(t *testing.T, what string, r resp, field, msg string) {
	t.Helper()
	fields, _ := r.Obj()["fields"].(map[string]any)
	if r.Status != 400 || r.Obj()["error"] != "validation_failed" || fields[field] != msg {
		t.Errorf("%s: %d %s, want 400 validation_failed %s=%q", what, r.Status, truncate(r.Raw), field, msg)
	}
}

// The review rules end to end: unknown and unlisted slugs, the owner, a
// user without an answer (then with one, through the usage events'
// RecordInteraction), validation, create → replace → delete and the
// aggregates, the Review JSON shape and the author's name.
func TestReviewRules(t *testing.T) {
	m := startMarketplace(t, nil)
	base := m.http
	agent := m.listedAgent(t, "alice", "math-tutor")
	unlisted := createAgent(t, base, "token-alice", validAgent)["id"].(string)
	m.exec(t, `UPDATE agents SET slug = 'old-tutor', is_public = false WHERE id = $1`, unlisted) // published once, then unpublished
	m.answered(t, unlisted, "bob")
	publishOnboarded(t, m.brokers, "evt-bob", &eventsv1.UserOnboarded{Uid: "bob", Email: "bob@example.org", DisplayName: "Bob B"})
	review := base + "/api/marketplace/agents/math-tutor/review"

	// Unknown, unlisted (a slug it had), malformed slugs: 404 Agent not found.
	for _, slug := range []string{"no-such-agent", "old-tutor", "Math-Tutor", "x%20y"} {
		u := base + "/api/marketplace/agents/" + slug
		wantError(t, "PUT "+slug, do(t, "PUT", u+"/review", "token-bob", `{"rating":5}`), 404, "not_found", "Agent not found")
		wantError(t, "DELETE "+slug, do(t, "DELETE", u+"/review", "token-bob", ""), 404, "not_found", "Agent not found")
		wantError(t, "GET reviews "+slug, do(t, "GET", u+"/reviews", "", ""), 404, "not_found", "Agent not found")
	}
	// Without a token: 401 (the public list excepted).
	if r := do(t, "PUT", review, "", `{"rating":5}`); r.Status != 401 {
		t.Errorf("no token: %d %s", r.Status, r.Raw)
	}

	// The owner: 403 forbidden, whatever the body and even with answers.
	publishInteraction(t, m.brokers, "use-alice", &eventsv1.InteractionRecorded{InteractionId: "i-alice", AgentId: agent, OwnerUid: "alice",
		UserUid: "alice", PayerUid: "alice", Channel: "chat", TotalMicros: 900, OccurredAt: timestamppb.Now()})
	wantError(t, "owner", do(t, "PUT", review, "token-alice", `{"rating":5}`), 403, "forbidden", msgOwnAgent)
	wantError(t, "owner, bad body", do(t, "PUT", review, "token-alice", `{"rating":9}`), 403, "forbidden", msgOwnAgent)

	// No answer yet: 403 review_requires_answer (before validation too).
	wantError(t, "no answer", do(t, "PUT", review, "token-bob", `{"rating":5,"text":"Great"}`), 403, "review_requires_answer", msgRequiresAnswer)
	wantError(t, "no answer, bad body", do(t, "PUT", review, "token-bob", `{"rating":0}`), 403, "review_requires_answer", msgRequiresAnswer)

	// An answer (the usage event, RecordInteraction's agent_users row).
	publishInteraction(t, m.brokers, "use-bob", &eventsv1.InteractionRecorded{InteractionId: "i-bob", AgentId: agent, OwnerUid: "alice",
		UserUid: "bob", PayerUid: "alice", Channel: "chat", TotalMicros: 900, OccurredAt: timestamppb.Now()})
	testwait.Until(t, "bob's answer counted", func() bool {
		var n int64
		_ = m.pool.QueryRow(context.Background(), `SELECT COALESCE((SELECT answers FROM agent_users WHERE agent_id = $1 AND uid = 'bob'), 0)`, agent).Scan(&n)
		return n == 1
	}, waitOpts...)
	testwait.Until(t, "bob's name known", func() bool {
		var n int
		_ = m.pool.QueryRow(context.Background(), `SELECT count(*) FROM known_users WHERE uid = 'bob'`).Scan(&n)
		return n == 1
	}, waitOpts...)
	wantError(t, "owner after answers", do(t, "PUT", review, "token-alice", `{"rating":5}`), 403, "forbidden", msgOwnAgent)

	// Validation.
	long := strings.Repeat("é", 2001)
	for _, c := range []struct{ body, field, msg string }{
		{`{"text":"no rating"}`, "rating", msgRating},
		{`{"rating":null}`, "rating", msgRating},
		{`{"rating":0}`, "rating", msgRating},
		{`{"rating":6}`, "rating", msgRating},
		{`{"rating":-1}`, "rating", msgRating},
		{`{"rating":4.5}`, "rating", msgRating},
		{`{"rating":1e300}`, "rating", msgRating},
		{`{"rating":4,"text":"` + long + `"}`, "text", msgReviewText},
	} {
		wantFieldError(t, c.body[:min(len(c.body), 40)], do(t, "PUT", review, "token-bob", c.body), c.field, c.msg)
	}
	r := do(t, "PUT", review, "token-bob", `{"rating":0,"text":"`+long+`"}`)
	if fields, _ := r.Obj()["fields"].(map[string]any); r.Status != 400 || r.Obj()["message"] != msgRating || len(fields) != 2 || fields["text"] != msgReviewText {
		t.Errorf("two problems: %d %s", r.Status, truncate(r.Raw))
	}
	for _, body := range []string{`{"rating":"5"}`, `{"rating":true}`, `{"rating":5,"text":7}`, ``, `[]`} {
		wantError(t, "bad JSON "+body, do(t, "PUT", review, "token-bob", body), 400, "invalid_json", "")
	}
	if c, s, _, _ := m.aggregates(t, agent); c != 0 || s != 0 {
		t.Fatalf("aggregates after refusals: %d %d", c, s)
	}

	// Create: 201 Review, exactly the documented keys.
	r = do(t, "PUT", review, "token-bob", `{"rating":5,"text":"  Clear and patient.  "}`)
	if r.Status != 201 {
		t.Fatalf("create: %d %s", r.Status, r.Raw)
	}
	created := r.Obj()
	if keys := strings.Join(mapKeys(created), ","); keys != "authorName,createdAt,id,rating,reply,text,updatedAt" {
		t.Errorf("Review keys = %s", keys)
	}
	if created["rating"] != float64(5) || created["text"] != "Clear and patient." || created["authorName"] != "Bob B" ||
		created["reply"] != nil || created["createdAt"] != created["updatedAt"] {
		t.Errorf("created = %v", created)
	}
	if strings.Contains(r.Raw, `"bob"`) || strings.Contains(r.Raw, "bob@") {
		t.Errorf("review shows the uid or e-mail: %s", r.Raw)
	}
	if c, s, _, _ := m.aggregates(t, agent); c != 1 || s != 5 {
		t.Errorf("after create: count %d sum %d", c, s)
	}
	// Replace (with a text at its limit): 200, same id and createdAt, the aggregates follow.
	time.Sleep(2 * time.Millisecond)
	r = do(t, "PUT", review, "token-bob", `{"rating":2,"text":"`+strings.Repeat("é", 2000)+`"}`)
	if r.Status != 200 || r.Obj()["id"] != created["id"] || r.Obj()["createdAt"] != created["createdAt"] || r.Obj()["updatedAt"] == created["updatedAt"] ||
		r.Obj()["rating"] != float64(2) {
		t.Fatalf("replace: %d %s", r.Status, truncate(r.Raw))
	}
	if c, s, _, _ := m.aggregates(t, agent); c != 1 || s != 2 {
		t.Errorf("after replace: count %d sum %d", c, s)
	}
	// The public list shows it (no token).
	r = do(t, "GET", base+"/api/marketplace/agents/math-tutor/reviews", "", "")
	if items, _ := r.Obj()["items"].([]any); r.Status != 200 || len(items) != 1 || r.Obj()["nextCursor"] != nil {
		t.Errorf("list: %d %s", r.Status, truncate(r.Raw))
	}
	// Delete: 204, then 404; the aggregates go back to zero.
	if r := do(t, "DELETE", review, "token-bob", ""); r.Status != 204 {
		t.Fatalf("delete: %d %s", r.Status, r.Raw)
	}
	wantError(t, "delete again", do(t, "DELETE", review, "token-bob", ""), 404, "not_found", "Review not found")
	if c, s, _, _ := m.aggregates(t, agent); c != 0 || s != 0 {
		t.Errorf("after delete: count %d sum %d", c, s)
	}
	if r := do(t, "PUT", review, "token-bob", `{"rating":4}`); r.Status != 201 || r.Obj()["id"] == created["id"] {
		t.Errorf("create after delete: %d %s", r.Status, r.Raw)
	}
	// Unpublished: the review routes answer 404 at once.
	m.exec(t, `UPDATE agents SET is_public = false WHERE id = $1`, agent)
	wantError(t, "unpublished PUT", do(t, "PUT", review, "token-bob", `{"rating":3}`), 404, "not_found", "Agent not found")
	wantError(t, "unpublished GET", do(t, "GET", base+"/api/marketplace/agents/math-tutor/reviews", "", ""), 404, "not_found", "Agent not found")
}

// The rating read model is the ratings consumer's: a review's write leaves
// the agent row alone and its review.changed event brings the aggregates
// there; any later event of the agent (a re-delivery under a new id, or one
// arriving after a newer one) recomputes them from the reviews, so a read
// model that drifted is repaired rather than counted on.
func TestRatingsReadModelFollowsReviewEvents(t *testing.T) {
	m := startMarketplace(t, nil)
	agent := m.listedAgent(t, "alice", "ratings-model")
	m.answered(t, agent, "bob")
	r := do(t, "PUT", m.http+"/api/marketplace/agents/ratings-model/review", "token-bob", `{"rating":4,"text":"Good"}`)
	if r.Status != 201 {
		t.Fatalf("review: %d %s", r.Status, r.Raw)
	}
	reviewID, _ := r.Obj()["id"].(string)
	if c, s, _, _ := m.aggregates(t, agent); c != 1 || s != 4 {
		t.Fatalf("after the review: count %d sum %d", c, s)
	}
	var events int
	if err := m.pool.QueryRow(context.Background(), `SELECT count(*) FROM outbox WHERE type = $1 AND key = $2`,
		agents.TypeReviewChanged, agent).Scan(&events); err != nil {
		t.Fatal(err)
	}
	if events != 1 {
		t.Errorf("%d review.changed events in the outbox, want 1", events)
	}

	m.exec(t, `UPDATE agents SET rating_count = 7, rating_sum = 30 WHERE id = $1`, agent) // drifted
	stale := &eventsv1.ReviewChanged{AgentId: agent, ReviewId: reviewID, Rating: 1, OccurredAt: timestamppb.New(time.Now().Add(-time.Hour))}
	publishEvent(t, m.brokers, agents.Topic, agent, "evt-review-replayed", agents.TypeReviewChanged, stale)
	testwait.Until(t, "the read model repaired", func() bool {
		var count, sum int64
		if err := m.pool.QueryRow(context.Background(), `SELECT rating_count, rating_sum FROM agents WHERE id = $1`, agent).
			Scan(&count, &sum); err != nil {
			t.Fatal(err)
		}
		return count == 1 && sum == 4
	}, waitOpts...)
	// An event of another type on the topic changes nothing.
	m.exec(t, `UPDATE agents SET rating_count = 7, rating_sum = 30 WHERE id = $1`, agent)
	publishEvent(t, m.brokers, agents.Topic, agent, "evt-other", agents.TypeAgentUpdated, []byte(`{"agentId":"`+agent+`"}`))
	publishEvent(t, m.brokers, agents.Topic, agent, "evt-review-again", agents.TypeReviewChanged, stale)
	testwait.Until(t, "the read model repaired again", func() bool {
		var count int64
		if err := m.pool.QueryRow(context.Background(), `SELECT rating_count FROM agents WHERE id = $1`, agent).Scan(&count); err != nil {
			t.Fatal(err)
		}
		return count == 1
	}, waitOpts...)
}

// Concurrent reviews of one agent (many users, and two racing writes of
// each) make one create per user, and the rating read model converges on
// exactly the reviews' count and sum; the public list pages through them by cursor in each order without
// duplicates or gaps, and shows names, never uids or e-mail addresses.
func TestReviewAggregatesAndPaging(t *testing.T) {
	m := startMarketplace(t, nil)
	base := m.http
	agent := m.listedAgent(t, "alice", "helper")
	const users = 24
	uid := func(i int) string { return fmt.Sprintf("reviewer-%02d", i) }
	for i := range users {
		m.answered(t, agent, uid(i))
		switch i % 4 {
		case 0:
			m.exec(t, `INSERT INTO known_users (uid, email, name) VALUES ($1, $2, $3)`, uid(i), uid(i)+"@example.org", fmt.Sprintf("Person %d", i))
		case 1: // a display name that is the user's own address
			m.exec(t, `INSERT INTO known_users (uid, email, name) VALUES ($1, $2, $2)`, uid(i), uid(i)+"@example.org")
		case 2: // a display name that is the uid
			m.exec(t, `INSERT INTO known_users (uid, email, name) VALUES ($1, $2, $1)`, uid(i), uid(i)+"@example.org")
		} // 3: unknown to the catalog
	}
	var (
		wg      sync.WaitGroup
		mu      sync.Mutex
		creates = map[string]int{}
	)
	for i := range users {
		for j := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rating := (i+j)%5 + 1
				r := do(t, "PUT", base+"/api/marketplace/agents/helper/review", "token-"+uid(i), fmt.Sprintf(`{"rating":%d,"text":"review %d.%d"}`, rating, i, j))
				mu.Lock()
				defer mu.Unlock()
				switch r.Status {
				case 201:
					creates[uid(i)]++
				case 200:
				default:
					t.Errorf("%s: %d %s", uid(i), r.Status, r.Raw)
				}
			}()
		}
	}
	wg.Wait()
	for i := range users {
		if creates[uid(i)] != 1 {
			t.Errorf("%s: %d creates, want 1", uid(i), creates[uid(i)])
		}
	}
	count, sum, n, reviewSum := m.aggregates(t, agent)
	if count != users || n != users || sum != reviewSum {
		t.Fatalf("aggregates: count %d sum %d; reviews %d sum %d", count, sum, n, reviewSum)
	}
	// Concurrent deletes of half of them (and a racing second delete each).
	for i := 0; i < users; i += 2 {
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if r := do(t, "DELETE", base+"/api/marketplace/agents/helper/review", "token-"+uid(i), ""); r.Status != 204 && r.Status != 404 {
					t.Errorf("delete %s: %d %s", uid(i), r.Status, r.Raw)
				}
			}()
		}
	}
	wg.Wait()
	count, sum, n, reviewSum = m.aggregates(t, agent)
	if count != users/2 || n != users/2 || sum != reviewSum {
		t.Fatalf("after deletes: count %d sum %d; reviews %d sum %d", count, sum, n, reviewSum)
	}
	for i := 0; i < users; i += 2 { // back to 24, sequentially (distinct created times)
		if r := do(t, "PUT", base+"/api/marketplace/agents/helper/review", "token-"+uid(i), `{"rating":3}`); r.Status != 201 {
			t.Fatalf("re-create: %d %s", r.Status, r.Raw)
		}
	}

	type item struct {
		id      string
		rating  float64
		created time.Time
	}
	pageAll := func(sortBy string, limit int) []item {
		t.Helper()
		var out []item
		cursor := ""
		for pages := 0; ; pages++ {
			if pages > users {
				t.Fatalf("%s: endless paging", sortBy)
			}
			q := url.Values{"limit": {strconv.Itoa(limit)}}
			if sortBy != "" {
				q.Set("sort", sortBy)
			}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			r := do(t, "GET", base+"/api/marketplace/agents/helper/reviews?"+q.Encode(), "", "")
			if r.Status != 200 {
				t.Fatalf("%s page: %d %s", sortBy, r.Status, r.Raw)
			}
			if strings.Contains(r.Raw, "reviewer-") || strings.Contains(r.Raw, "@") {
				t.Fatalf("a uid or an e-mail address in the list: %s", truncate(r.Raw))
			}
			items, _ := r.Obj()["items"].([]any)
			if len(items) > limit {
				t.Fatalf("%d items, limit %d", len(items), limit)
			}
			for _, it := range items {
				o := it.(map[string]any)
				created, err := time.Parse(time.RFC3339Nano, o["createdAt"].(string))
				if err != nil {
					t.Fatal(err)
				}
				if name, _ := o["authorName"].(string); name != "A user" && !strings.HasPrefix(name, "Person ") {
					t.Errorf("authorName %q", name)
				}
				out = append(out, item{o["id"].(string), o["rating"].(float64), created})
			}
			next, _ := r.Obj()["nextCursor"].(string)
			if next == "" {
				if r.Obj()["nextCursor"] != nil {
					t.Fatalf("nextCursor = %v", r.Obj()["nextCursor"])
				}
				return out
			}
			cursor = next
		}
	}
	newer := func(a, b item) bool { // a before b in "newest" order
		if !a.created.Equal(b.created) {
			return a.created.After(b.created)
		}
		return a.id > b.id
	}
	orders := map[string]func(a, b item) bool{
		"":       newer,
		"newest": newer,
		"highest": func(a, b item) bool {
			if a.rating != b.rating {
				return a.rating > b.rating
			}
			return newer(a, b)
		},
		"lowest": func(a, b item) bool {
			if a.rating != b.rating {
				return a.rating < b.rating
			}
			return newer(a, b)
		},
	}
	for sortBy, before := range orders {
		for _, limit := range []int{1, 5, 24, 50} {
			got := pageAll(sortBy, limit)
			seen := map[string]bool{}
			for _, it := range got {
				if seen[it.id] {
					t.Errorf("sort %q limit %d: %s twice", sortBy, limit, it.id)
				}
				seen[it.id] = true
			}
			if len(got) != users {
				t.Errorf("sort %q limit %d: %d reviews, want %d", sortBy, limit, len(got), users)
			}
			if !sort.SliceIsSorted(got, func(i, j int) bool { return before(got[i], got[j]) }) {
				t.Errorf("sort %q limit %d: out of order", sortBy, limit)
			}
		}
	}
	// The default page is 20.
	if r := do(t, "GET", base+"/api/marketplace/agents/helper/reviews", "", ""); len(r.Obj()["items"].([]any)) != 20 || r.Obj()["nextCursor"] == nil {
		t.Errorf("default page: %s", truncate(r.Raw))
	}
	// Bad queries.
	first := do(t, "GET", base+"/api/marketplace/agents/helper/reviews?limit=2", "", "").Obj()["nextCursor"].(string)
	for q, code := range map[string]string{
		"limit=0":                           "invalid_limit",
		"limit=51":                          "invalid_limit",
		"limit=abc":                         "invalid_limit",
		"limit=-1":                          "invalid_limit",
		"limit=99999999999999999999":        "invalid_limit",
		"sort=best":                         "invalid_query",
		"cursor=not-a-cursor":               "invalid_query",
		"cursor=" + first + "&sort=highest": "invalid_query", // a cursor of another sort
	} {
		if r := do(t, "GET", base+"/api/marketplace/agents/helper/reviews?"+q, "", ""); r.Status != 400 || r.Obj()["error"] != code {
			t.Errorf("%s: %d %s, want 400 %s", q, r.Status, r.Raw, code)
		}
	}
}

// Replies: only the agent's owner, once per review (PUT replaces, DELETE
// removes); another user's agent is 404.
func TestReviewReplies(t *testing.T) {
	m := startMarketplace(t, nil)
	base := m.http
	agent := m.listedAgent(t, "alice", "tutor")
	other := m.listedAgent(t, "mallory", "other")
	m.answered(t, agent, "bob")
	m.answered(t, other, "bob")
	rv := do(t, "PUT", base+"/api/marketplace/agents/tutor/review", "token-bob", `{"rating":4,"text":"Good"}`)
	if rv.Status != 201 {
		t.Fatalf("review: %d %s", rv.Status, rv.Raw)
	}
	reviewID := rv.Obj()["id"].(string)
	otherReview := do(t, "PUT", base+"/api/marketplace/agents/other/review", "token-bob", `{"rating":1}`).Obj()["id"].(string)
	reply := func(agentID, reviewID string) string {
		return base + "/api/agents/" + agentID + "/reviews/" + reviewID + "/reply"
	}

	// Not the owner: 404 Agent not found, whatever the body.
	for _, tok := range []string{"token-mallory", "token-bob"} {
		wantError(t, tok, do(t, "PUT", reply(agent, reviewID), tok, `{"text":"Thanks"}`), 404, "not_found", "Agent not found")
		wantError(t, tok+" empty", do(t, "PUT", reply(agent, reviewID), tok, `{"text":""}`), 404, "not_found", "Agent not found")
		wantError(t, tok+" delete", do(t, "DELETE", reply(agent, reviewID), tok, ""), 404, "not_found", "Agent not found")
	}
	wantError(t, "non-uuid agent", do(t, "PUT", reply("nope", reviewID), "token-alice", `{"text":"x"}`), 404, "not_found", "Agent not found")
	// The owner, but a review of another agent / no such review.
	wantError(t, "other agent's review", do(t, "PUT", reply(agent, otherReview), "token-alice", `{"text":"x"}`), 404, "not_found", "Review not found")
	wantError(t, "mallory on her agent with alice's review", do(t, "PUT", reply(other, reviewID), "token-mallory", `{"text":"x"}`), 404, "not_found", "Review not found")
	wantError(t, "non-uuid review", do(t, "PUT", reply(agent, "nope"), "token-alice", `{"text":"x"}`), 404, "not_found", "Review not found")
	// Validation.
	wantFieldError(t, "empty", do(t, "PUT", reply(agent, reviewID), "token-alice", `{"text":"   "}`), "text", "Write a reply first.")
	wantFieldError(t, "long", do(t, "PUT", reply(agent, reviewID), "token-alice", `{"text":"`+strings.Repeat("x", 2001)+`"}`), "text",
		"A reply can be at most 2,000 characters.")
	wantError(t, "no reply yet", do(t, "DELETE", reply(agent, reviewID), "token-alice", ""), 404, "not_found", "Reply not found")

	r := do(t, "PUT", reply(agent, reviewID), "token-alice", `{"text":" Thank you! "}`)
	rep, _ := r.Obj()["reply"].(map[string]any)
	if r.Status != 200 || r.Obj()["id"] != reviewID || rep["text"] != "Thank you!" || rep["createdAt"] == nil || rep["createdAt"] != rep["updatedAt"] {
		t.Fatalf("reply: %d %s", r.Status, r.Raw)
	}
	time.Sleep(2 * time.Millisecond)
	r = do(t, "PUT", reply(agent, reviewID), "token-alice", `{"text":"Thank you, Bob."}`)
	edited, _ := r.Obj()["reply"].(map[string]any)
	if r.Status != 200 || edited["text"] != "Thank you, Bob." || edited["createdAt"] != rep["createdAt"] || edited["updatedAt"] == rep["updatedAt"] {
		t.Fatalf("edit: %d %s", r.Status, r.Raw)
	}
	list := do(t, "GET", base+"/api/marketplace/agents/tutor/reviews", "", "")
	if items, _ := list.Obj()["items"].([]any); len(items) != 1 || items[0].(map[string]any)["reply"].(map[string]any)["text"] != "Thank you, Bob." {
		t.Errorf("list with reply: %s", list.Raw)
	}
	// The reviewer's replacement keeps the reply.
	if r := do(t, "PUT", base+"/api/marketplace/agents/tutor/review", "token-bob", `{"rating":5}`); r.Status != 200 || r.Obj()["reply"] == nil {
		t.Errorf("replaced review lost the reply: %s", r.Raw)
	}
	if r := do(t, "DELETE", reply(agent, reviewID), "token-alice", ""); r.Status != 204 {
		t.Fatalf("delete reply: %d %s", r.Status, r.Raw)
	}
	wantError(t, "delete again", do(t, "DELETE", reply(agent, reviewID), "token-alice", ""), 404, "not_found", "Reply not found")
	if list := do(t, "GET", base+"/api/marketplace/agents/tutor/reviews", "", ""); list.Obj()["items"].([]any)[0].(map[string]any)["reply"] != nil {
		t.Errorf("reply still shown: %s", list.Raw)
	}
}

// Reports: stored once per reporter and target (a repeat updates the
// reason), counted on the agent and on the review.
func TestReports(t *testing.T) {
	m := startMarketplace(t, nil)
	base := m.http
	agent := m.listedAgent(t, "alice", "tutor")
	m.answered(t, agent, "bob")
	reviewID := do(t, "PUT", base+"/api/marketplace/agents/tutor/review", "token-bob", `{"rating":1,"text":"Spam link"}`).Obj()["id"].(string)
	counts := func() (agentReports, reviewReports int64) {
		t.Helper()
		if err := m.pool.QueryRow(context.Background(), `SELECT (SELECT report_count FROM agents WHERE id = $1),
			(SELECT report_count FROM reviews WHERE id = $2)`, agent, reviewID).Scan(&agentReports, &reviewReports); err != nil {
			t.Fatal(err)
		}
		return
	}
	reason := func(kind, target, uid string) string {
		t.Helper()
		var s string
		if err := m.pool.QueryRow(context.Background(), `SELECT reason FROM reports WHERE target_kind = $1 AND target_id = $2 AND reporter_uid = $3`,
			kind, target, uid).Scan(&s); err != nil {
			t.Fatal(err)
		}
		return s
	}
	reportAgent := base + "/api/marketplace/agents/tutor/report"
	reportReview := base + "/api/marketplace/reviews/" + reviewID + "/report"
	accepted := func(what string, r resp) {
		t.Helper()
		if r.Status != 202 || r.Raw != "{\"status\":\"received\"}\n" {
			t.Errorf("%s: %d %q", what, r.Status, r.Raw)
		}
	}
	accepted("carol reports the agent", do(t, "POST", reportAgent, "token-carol", `{"reason":"Misleading description"}`))
	accepted("carol again", do(t, "POST", reportAgent, "token-carol", `{"reason":" Asks for card numbers "}`))
	accepted("dave", do(t, "POST", reportAgent, "token-dave", `{"reason":"Spam"}`))
	accepted("carol reports the review", do(t, "POST", reportReview, "token-carol", `{"reason":"Spam link"}`))
	accepted("carol reports the review again", do(t, "POST", reportReview, "token-carol", `{"reason":"Spam link in it"}`))
	if a, r := counts(); a != 2 || r != 1 {
		t.Errorf("report counts: agent %d review %d, want 2 1", a, r)
	}
	if got := reason("agent", agent, "carol"); got != "Asks for card numbers" {
		t.Errorf("carol's reason = %q", got)
	}
	if got := reason("review", reviewID, "carol"); got != "Spam link in it" {
		t.Errorf("carol's review reason = %q", got)
	}
	// Concurrent first reports of one reporter count once.
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			accepted("erin racing", do(t, "POST", reportReview, "token-erin", `{"reason":"Rude"}`))
		}()
	}
	wg.Wait()
	if _, r := counts(); r != 2 {
		t.Errorf("review reports after erin's race: %d, want 2", r)
	}

	wantFieldError(t, "empty reason", do(t, "POST", reportAgent, "token-carol", `{"reason":"  "}`), "reason", "Tell us what is wrong.")
	wantFieldError(t, "long reason", do(t, "POST", reportReview, "token-carol", `{"reason":"`+strings.Repeat("x", 1001)+`"}`), "reason",
		"A reason can be at most 1,000 characters.")
	wantError(t, "no body", do(t, "POST", reportAgent, "token-carol", ``), 400, "invalid_json", "")
	wantError(t, "unknown agent", do(t, "POST", base+"/api/marketplace/agents/nope/report", "token-carol", `{"reason":"x"}`), 404, "not_found", "Agent not found")
	wantError(t, "unknown review", do(t, "POST", base+"/api/marketplace/reviews/0190a0a0-0000-7000-8000-000000000001/report", "token-carol",
		`{"reason":"x"}`), 404, "not_found", "Review not found")
	wantError(t, "non-uuid review", do(t, "POST", base+"/api/marketplace/reviews/nope/report", "token-carol", `{"reason":"x"}`), 404, "not_found", "Review not found")
	if r := do(t, "POST", reportAgent, "", `{"reason":"x"}`); r.Status != 401 {
		t.Errorf("no token: %d %s", r.Status, r.Raw)
	}
	// A review of an unlisted agent cannot be reported.
	m.exec(t, `UPDATE agents SET is_public = false WHERE id = $1`, agent)
	wantError(t, "unlisted review", do(t, "POST", reportReview, "token-carol", `{"reason":"x"}`), 404, "not_found", "Review not found")
	wantError(t, "unlisted agent", do(t, "POST", reportAgent, "token-carol", `{"reason":"x"}`), 404, "not_found", "Agent not found")
}

// MARKETPLACE_ENABLED off: every review, reply and report route is 404
// not_found, with or without a token, for a listed agent and a user who may
// review it.
func TestReviewRoutesOffWithTheMarketplace(t *testing.T) {
	m := startMarketplace(t, func(c *Config) { c.MarketplaceEnabled = false })
	base := m.http
	agent := m.listedAgent(t, "alice", "tutor")
	m.answered(t, agent, "bob")
	var reviewID string
	if err := m.pool.QueryRow(context.Background(), `INSERT INTO reviews (id, agent_id, author_uid, rating)
		VALUES ('0190a0a0-0000-7000-8000-0000000000aa', $1, 'carol', 4) RETURNING id::text`, agent).Scan(&reviewID); err != nil {
		t.Fatal(err)
	}
	for _, rt := range []struct{ method, path, body string }{
		{"PUT", "/api/marketplace/agents/tutor/review", `{"rating":5}`},
		{"DELETE", "/api/marketplace/agents/tutor/review", ""},
		{"GET", "/api/marketplace/agents/tutor/reviews", ""},
		{"POST", "/api/marketplace/agents/tutor/report", `{"reason":"x"}`},
		{"POST", "/api/marketplace/reviews/" + reviewID + "/report", `{"reason":"x"}`},
		{"PUT", "/api/agents/" + agent + "/reviews/" + reviewID + "/reply", `{"text":"x"}`},
		{"DELETE", "/api/agents/" + agent + "/reviews/" + reviewID + "/reply", ""},
	} {
		for _, tok := range []string{"token-bob", "token-alice", ""} {
			wantError(t, rt.method+" "+rt.path+" "+tok, do(t, rt.method, base+rt.path, tok, rt.body), 404, "not_found", "")
		}
	}
	var written int
	if err := m.pool.QueryRow(context.Background(), `SELECT count(*) FROM reviews WHERE agent_id = $1 AND author_uid <> 'carol'`, agent).
		Scan(&written); err != nil || written != 0 {
		t.Errorf("a review was written while off: %d %v", written, err)
	}
}

func randomSuffix(t *testing.T) string {
	t.Helper()
	b := make([]byte, 4)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// Issue 30 item 7: reviews and reports per user (RATE_LIMIT_REVIEWS,
// RATE_LIMIT_REPORTS), here at 2 a day: the third write is 429 with
// Retry-After and the limit in its message; another user is unaffected;
// both report routes share one counter. The quota keys are per uid, so
// the uids are new on every run.
func TestReviewAndReportQuotas(t *testing.T) {
	m := startMarketplace(t, func(c *Config) { c.ReviewRate, c.ReportRate = "2/24h", "2/24h" })
	base := m.http
	agent := m.listedAgent(t, "alice", "tutor")
	sfx := randomSuffix(t)
	bob, carol := "bob-"+sfx, "carol-"+sfx
	m.answered(t, agent, bob)
	m.answered(t, agent, carol)
	review := base + "/api/marketplace/agents/tutor/review"
	rules, err := reviewRules("2/24h", "2/24h")
	if err != nil {
		t.Fatal(err)
	}
	limited := func(what string, r resp, rule ratelimit.Rule) {
		t.Helper()
		secs, _ := strconv.Atoi(r.Header.Get("Retry-After"))
		if r.Status != 429 || r.Obj()["error"] != "rate_limited" || secs < 1 || r.Obj()["message"] != ratelimit.LimitMessage(rule, secs) {
			t.Errorf("%s: %d %s (Retry-After %q)", what, r.Status, r.Raw, r.Header.Get("Retry-After"))
		}
	}
	for i, want := range []int{201, 200} {
		if r := do(t, "PUT", review, "token-"+bob, fmt.Sprintf(`{"rating":%d}`, i+3)); r.Status != want {
			t.Fatalf("review %d: %d %s", i+1, r.Status, r.Raw)
		}
	}
	limited("third review", do(t, "PUT", review, "token-"+bob, `{"rating":1}`), rules[http.MethodPut+" "+transport.PathReview])
	if r := do(t, "PUT", review, "token-"+carol, `{"rating":5}`); r.Status != 201 {
		t.Errorf("another user: %d %s", r.Status, r.Raw)
	}
	// Deleting is not counted.
	if r := do(t, "DELETE", review, "token-"+bob, ""); r.Status != 204 {
		t.Errorf("delete: %d %s", r.Status, r.Raw)
	}
	var reviewID string
	if err := m.pool.QueryRow(context.Background(), `SELECT id::text FROM reviews WHERE author_uid = $1`, carol).Scan(&reviewID); err != nil {
		t.Fatal(err)
	}
	if r := do(t, "POST", base+"/api/marketplace/agents/tutor/report", "token-"+bob, `{"reason":"one"}`); r.Status != 202 {
		t.Fatalf("report 1: %d %s", r.Status, r.Raw)
	}
	if r := do(t, "POST", base+"/api/marketplace/reviews/"+reviewID+"/report", "token-"+bob, `{"reason":"two"}`); r.Status != 202 {
		t.Fatalf("report 2: %d %s", r.Status, r.Raw)
	}
	reports := rules[http.MethodPost+" "+transport.PathAgentReport]
	limited("third report (agent)", do(t, "POST", base+"/api/marketplace/agents/tutor/report", "token-"+bob, `{"reason":"three"}`), reports)
	limited("third report (review)", do(t, "POST", base+"/api/marketplace/reviews/"+reviewID+"/report", "token-"+bob, `{"reason":"three"}`), reports)
	if r := do(t, "POST", base+"/api/marketplace/agents/tutor/report", "token-"+carol, `{"reason":"mine"}`); r.Status != 202 {
		t.Errorf("another user's report: %d %s", r.Status, r.Raw)
	}
	// The public list is not limited here.
	for range 5 {
		if r := do(t, "GET", base+"/api/marketplace/agents/tutor/reviews", "token-"+bob, ""); r.Status != 200 {
			t.Fatalf("list: %d %s", r.Status, r.Raw)
		}
	}
}

// The settings: MARKETPLACE_ENABLED (default on), RATE_LIMIT_REVIEWS and
// RATE_LIMIT_REPORTS (default 20/24h, fail closed); a malformed value stops
// the service at start, naming the variable.
func TestReviewQuotaSettings(t *testing.T) {
	t.Setenv("APP_ENV", "development")
	for _, k := range []string{"MARKETPLACE_ENABLED", "RATE_LIMIT_REVIEWS", "RATE_LIMIT_REPORTS"} {
		t.Setenv(k, "")
	}
	c, err := LoadConfig()
	if err != nil {
		t.Fatal(err)
	}
	if !c.MarketplaceEnabled || c.ReviewRate != "20/24h" || c.ReportRate != "20/24h" {
		t.Errorf("defaults: %v %q %q", c.MarketplaceEnabled, c.ReviewRate, c.ReportRate)
	}
	rules, err := reviewRules(c.ReviewRate, c.ReportRate)
	if err != nil || len(rules) != 3 {
		t.Fatalf("rules %v %v", rules, err)
	}
	for route, r := range rules {
		wantClass := "reports"
		if strings.HasPrefix(route, "PUT ") {
			wantClass = "reviews"
		}
		if r.Limit != 20 || r.Window != 24*time.Hour || r.Mode != ratelimit.FailClosed || r.Class != wantClass {
			t.Errorf("%s: %+v", route, r)
		}
	}
	for v, want := range map[string]bool{"false": false, "0": false, "true": true, "1": true} {
		t.Setenv("MARKETPLACE_ENABLED", v)
		if c, err := LoadConfig(); err != nil || c.MarketplaceEnabled != want {
			t.Errorf("MARKETPLACE_ENABLED=%s: %v %v", v, c.MarketplaceEnabled, err)
		}
	}
	for k, v := range map[string]string{"MARKETPLACE_ENABLED": "maybe", "RATE_LIMIT_REVIEWS": "20 a day", "RATE_LIMIT_REPORTS": "x/1m"} {
		t.Run(k, func(t *testing.T) {
			t.Setenv(k, v)
			if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), k) {
				t.Errorf("%s=%q: %v", k, v, err)
			}
		})
	}
}

// Redis unreachable: writing a review and reporting answer 503 unavailable
// (the quotas fail closed) without reaching the handlers; the public list
// and deleting a review are not limited.
func TestReviewQuotasFailClosed(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	rdb := redis.NewClient(&redis.Options{Addr: addr, DialTimeout: 100 * time.Millisecond, MaxRetries: -1})
	t.Cleanup(func() { _ = rdb.Close() })
	rules, err := reviewRules("", "")
	if err != nil {
		t.Fatal(err)
	}
	var set endpoints.Set
	authtest.StubEndpoints(&set)
	mux := http.NewServeMux()
	transport.RegisterHTTP(mux, set, authtest.TokenIsUID, nil)
	h := ratelimit.New(rdb, ratelimit.Options{Service: ServiceName}).Guard(mux, rules, ratelimit.TokenUser(authtest.TokenIsUID))
	const id = "0190a0a0-0000-7000-8000-000000000001"
	for _, rt := range []struct {
		method, path string
		limited      bool
	}{
		{http.MethodPut, "/api/marketplace/agents/tutor/review", true},
		{http.MethodPost, "/api/marketplace/agents/tutor/report", true},
		{http.MethodPost, "/api/marketplace/reviews/" + id + "/report", true},
		{http.MethodDelete, "/api/marketplace/agents/tutor/review", false},
		{http.MethodGet, "/api/marketplace/agents/tutor/reviews", false},
		{http.MethodPut, "/api/agents/" + id + "/reviews/" + id + "/reply", false},
	} {
		req := httptest.NewRequest(rt.method, rt.path, strings.NewReader(`{"rating":5,"reason":"x","text":"x"}`))
		req.Header.Set("Authorization", "Bearer alice")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rt.limited && (rec.Code != 503 || !strings.Contains(rec.Body.String(), `"unavailable"`) || rec.Header().Get("Retry-After") == "") {
			t.Errorf("%s %s with Redis down: %d %s, want 503 unavailable", rt.method, rt.path, rec.Code, rec.Body)
		}
		if !rt.limited && rec.Code != 500 { // the stub endpoint's answer
			t.Errorf("%s %s: %d %s, want the handler's answer", rt.method, rt.path, rec.Code, rec.Body)
		}
	}
}
