package main

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The seed: n agents in all 50 categories, unique valid slugs and e-mail
// addresses under the bench's owner prefix, bounded fields, deterministic
// for a seed, and no word the Playwright tests search or name agents with.
func TestGenerateSeed(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	set := generateSeed("abc123", 10_000, 300, 27, now)
	if len(set.Agents) != 10_000 || len(set.Creators) != 300 || len(categories) != 50 {
		t.Fatalf("%d agents, %d creators, %d categories", len(set.Agents), len(set.Creators), len(categories))
	}
	slugRE := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	forbidden := regexp.MustCompile(`(?i)\b(agent|capped|market|listing|herbarium|nothing)`)
	perCategory := map[string]int{}
	slugs, emails, ids := map[string]bool{}, map[string]bool{}, map[[16]byte]bool{}
	creators := map[string]bool{}
	for _, c := range set.Creators {
		creators[c.UID] = true
		if !strings.HasPrefix(c.UID, OwnerPrefix+"abc123-") {
			t.Fatalf("creator %q", c.UID)
		}
	}
	rare := 0
	for _, a := range set.Agents {
		perCategory[a.Category]++
		if !slugRE.MatchString(a.Slug) || len(a.Slug) > 52 || slugs[a.Slug] {
			t.Fatalf("slug %q (duplicate: %v)", a.Slug, slugs[a.Slug])
		}
		slugs[a.Slug] = true
		if emails[a.Email] || ids[a.ID] {
			t.Fatalf("duplicate e-mail or id: %s", a.Email)
		}
		emails[a.Email], ids[a.ID] = true, true
		if !creators[a.Owner] {
			t.Fatalf("owner %q is not a creator", a.Owner)
		}
		text := strings.Join(append([]string{a.Name, a.Description, a.Category, a.Greeting}, a.Tags...), " ")
		if forbidden.MatchString(text) {
			t.Fatalf("%q holds a word of the e2e tests", text)
		}
		if len([]rune(a.Name)) > 100 || len([]rune(a.Description)) > 500 || len(a.Category) > 50 || len(a.Greeting) > 500 {
			t.Fatalf("too long: %+v", a)
		}
		for _, tag := range a.Tags {
			if tag == "" || len(tag) > 40 {
				t.Fatalf("tag %q", tag)
			}
		}
		if a.Markup < 0 || a.Markup > 300 || a.GreetingCents < 0 || a.GreetingCents > 500 || a.MemoryTokens > 32000 ||
			a.RatingSum > 5*a.RatingCount || a.RatingSum < a.RatingCount || a.TypicalMicros <= 0 || a.Answers < 0 {
			t.Fatalf("out of bounds: %+v", a)
		}
		if a.PublishedAt.After(now) || a.PublishedAt.Before(now.AddDate(-1, 0, 0)) || a.CreatedAt.After(a.PublishedAt) {
			t.Fatalf("dates: %+v", a)
		}
		if strings.Contains(a.Description, "Includes notes on") {
			rare++
		}
	}
	if len(perCategory) != 50 {
		t.Fatalf("%d categories used", len(perCategory))
	}
	biggest, smallest := 0, 10_000
	for _, n := range perCategory {
		biggest, smallest = max(biggest, n), min(smallest, n)
	}
	if biggest < 5*smallest || smallest < 10 {
		t.Errorf("categories from %d to %d agents: not skewed as intended", smallest, biggest)
	}
	if rare != 10_000/rareEvery {
		t.Errorf("%d agents with a rare word", rare)
	}
	again := generateSeed("abc123", 10_000, 300, 27, now)
	if again.Agents[1234].Name != set.Agents[1234].Name || again.Agents[1234].ID != set.Agents[1234].ID {
		t.Error("not deterministic")
	}
}

func TestSlugifyAndTSQuery(t *testing.T) {
	for in, want := range map[string]string{
		"ISO 9001 Reviewer":                         "iso-9001-reviewer",
		"A/B Testing  Coach":                        "a-b-testing-coach",
		"Tax & Accounting":                          "tax-accounting",
		"Advanced Private Pilot Training Companion": "advanced-private-pilot-trainin",
	} {
		if got := slugify(in); got != want {
			t.Errorf("slugify(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"python tut": "'python' & 'tut':*",
		"A/B":        "'a' & 'b':*",
		"!!!":        "",
	} {
		if got := tsQuery(in); got != want {
			t.Errorf("tsQuery(%q) = %q, want %q", in, got, want)
		}
	}
}

// The workload draws every group and operation, in about the intended
// shares, and only valid requests.
func TestWorkloadMix(t *testing.T) {
	w := newWorkload([]benchAgent{{"algebra-tutor-b1", "Mathematics"}}, map[string][]string{
		"popular": {"c1"}, "rating": {"c2"}, "newest": {"c3"}, "price": {"c4"}})
	rng := rand.New(rand.NewPCG(1, 2))
	groups, ops := map[string]int{}, map[string]int{}
	const n = 20_000
	for range n {
		r := w.next(rng)
		groups[r.group]++
		ops[r.op]++
		if !strings.HasPrefix(r.path, "/api/marketplace/") {
			t.Fatalf("path %q", r.path)
		}
	}
	for _, g := range groupWeights {
		share := float64(groups[g.group]) / n * 100
		if share < float64(g.weight)-2 || share > float64(g.weight)+2 {
			t.Errorf("%s: %.1f%%, want about %d%%", g.group, share, g.weight)
		}
	}
	if len(ops) != 2*len(sorts)+1+len(searchClasses)+2 {
		t.Errorf("%d operations: %v", len(ops), ops)
	}
}

func TestSpreadOf(t *testing.T) {
	if lo, med, hi := spreadOf([]int{9, 1, 5, 3}); lo != 1 || med != 3 || hi != 9 {
		t.Errorf("got %d %d %d", lo, med, hi)
	}
}
