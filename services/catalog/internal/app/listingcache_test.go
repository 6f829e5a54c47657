package app

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/platform/testwait"
)

// cacheHits reads the catalog's catalog_listing_cache_hits_total.
func cacheHits(t *testing.T, base string) int {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^catalog_listing_cache_hits_total (\d+)`).FindSubmatch(body)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// The marketplace's listing cache as deployed: pages and profiles come from
// memory (an answer's counters may be up to the TTL old), and every change a
// visitor could see, by the API or by an operator's SQL, is seen at once
// through the PostgreSQL notification, not after the TTL (an hour here).
func TestListingCacheSeesChangesAtOnce(t *testing.T) {
	l := startListing(t, func(c *Config) { c.MarketplaceCacheTTL = time.Hour })
	base := l.http
	a := l.publishNew(t, "alice", agentBody("Herbal Tutor", "Plants and their uses.", "Botany", "plants"))
	id, slug := a["id"].(string), a["slug"].(string)
	list := base + "/api/marketplace/agents?sort=popular"
	profile := base + "/api/marketplace/agents/" + slug

	// Wait until the listener is live: the same page read twice is a hit.
	testwait.Until(t, "the listing cache live", func() bool {
		before := cacheHits(t, base)
		do(t, "GET", list, "", "")
		do(t, "GET", list, "", "")
		return cacheHits(t, base) > before
	}, waitOpts...)
	do(t, "GET", profile, "", "")

	// An answer's counter does not notify: the cached page and profile stand.
	l.exec(t, `UPDATE agents SET total_interactions = 42 WHERE id = $1`, id)
	time.Sleep(200 * time.Millisecond) // a notification, were there one, would have arrived
	if it := listItems(t, do(t, "GET", list, "", "")); len(it) != 1 || it[0]["answers"] != float64(0) {
		t.Fatalf("cached page: %v", it)
	}
	if p := do(t, "GET", profile, "", "").Obj(); p["answers"] != float64(0) {
		t.Fatalf("cached profile: %v", p)
	}

	// A rename through the API: this replica's next read has it.
	if r := l.patch(t, "token-alice", id, `{"name":"Herbal Mentor"}`); r.Status != 200 {
		t.Fatalf("rename: %d %s", r.Status, r.Raw)
	}
	if it := listItems(t, do(t, "GET", list, "", "")); len(it) != 1 || it[0]["name"] != "Herbal Mentor" || it[0]["answers"] != float64(42) {
		t.Fatalf("after the rename: %v", it)
	}
	do(t, "GET", profile, "", "")

	// An operator's SQL (the notification trigger): the creator's new name,
	// then the agent taken off the marketplace.
	l.exec(t, `INSERT INTO known_users (uid, email, name) VALUES ('alice', 'alice@example.com', 'Alice Gardener')
		ON CONFLICT (uid) DO UPDATE SET name = EXCLUDED.name`)
	testwait.Until(t, "the creator's new name", func() bool {
		it := listItems(t, do(t, "GET", list, "", ""))
		return len(it) == 1 && it[0]["creatorName"] == "Alice Gardener"
	}, waitOpts...)
	l.exec(t, `UPDATE agents SET is_public = false WHERE id = $1`, id)
	// Well within the hour's TTL, however loaded the machine.
	testwait.Until(t, "the unpublished agent gone from the cached page and profile", func() bool {
		return len(listItems(t, do(t, "GET", list, "", ""))) == 0 && do(t, "GET", profile, "", "").Status == 404
	}, waitOpts...)
}
