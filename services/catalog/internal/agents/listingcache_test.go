package agents

import (
	"testing"
	"time"
)

func TestListingCacheServesOnlyWhileLiveAndWithinTTL(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	c := NewListingCache(5*time.Second, nil)
	c.now = func() time.Time { return now }
	f := ListFilter{Sort: SortPopular, Limit: 20}
	page := ListPage{Items: []Listing{{ID: "a1", Name: "Tutor"}}, NextCursor: "next"}

	// Not live (the listener has not LISTENed yet): nothing is stored or served.
	gen, live := c.generation()
	if live {
		t.Fatal("a new cache is live")
	}
	c.putPage(gen, f, page)
	if _, ok := c.page(f); ok {
		t.Fatal("served before the listener was live")
	}

	c.setLive(false, true)
	gen, _ = c.generation()
	c.putPage(gen, f, page)
	got, ok := c.page(f)
	if !ok || got.NextCursor != "next" || len(got.Items) != 1 {
		t.Fatalf("live: %v %v", got, ok)
	}
	// Another filter is another entry (the cursor included).
	other := f
	other.After = &Cursor{Sort: SortPopular, Int: 3, ID: "a9"}
	if _, ok := c.page(other); ok {
		t.Error("a cursor page was served the first page")
	}
	now = now.Add(5 * time.Second)
	if _, ok := c.page(f); ok {
		t.Error("served after its TTL")
	}
}

func TestListingCacheDropAndGeneration(t *testing.T) {
	c := NewListingCache(time.Minute, nil)
	c.setLive(false, true)
	f := ListFilter{TSQuery: "tutor:*", Sort: SortRelevance, Limit: 20}

	gen, _ := c.generation()
	c.putPage(gen, f, ListPage{NextCursor: "a"})
	c.putProfile(gen, "math-tutor", Listing{ID: "a1"})
	c.Drop()
	if _, ok := c.page(f); ok {
		t.Error("page served after a drop")
	}
	if _, ok := c.profile("math-tutor"); ok {
		t.Error("profile served after a drop")
	}
	// A read that started before the drop cannot store its (stale) result.
	c.putPage(gen, f, ListPage{NextCursor: "stale"})
	c.putProfile(gen, "math-tutor", Listing{ID: "stale"})
	if _, ok := c.page(f); ok {
		t.Error("a result read before the drop was stored after it")
	}
	if _, ok := c.profile("math-tutor"); ok {
		t.Error("a profile read before the drop was stored after it")
	}
	gen, _ = c.generation()
	c.putProfile(gen, "math-tutor", Listing{ID: "a1"})
	if l, ok := c.profile("math-tutor"); !ok || l.ID != "a1" {
		t.Errorf("profile after the drop: %v %v", l, ok)
	}
	// The listener lost: nothing is served, and what was cached is gone
	// for good (it may have missed notifications meanwhile).
	c.setLive(false, false)
	if _, ok := c.profile("math-tutor"); ok {
		t.Error("served while the listener was down")
	}
	c.setLive(false, true)
	if _, ok := c.profile("math-tutor"); ok {
		t.Error("an entry from before the outage was served after it")
	}
}

func TestListingCacheBounded(t *testing.T) {
	c := NewListingCache(time.Minute, nil)
	c.max = 3
	c.setLive(false, true)
	gen, _ := c.generation()
	for i := range 10 {
		c.putPage(gen, ListFilter{Sort: SortNewest, Limit: i + 1}, ListPage{})
		c.putProfile(gen, string(rune('a'+i)), Listing{})
	}
	if len(c.lists) > 3 || len(c.profiles) > 3 {
		t.Errorf("%d pages and %d profiles kept, max 3", len(c.lists), len(c.profiles))
	}
}
