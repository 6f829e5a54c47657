package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// OwnerPrefix starts the owner_uid of every agent (and the uid of every
// known_users row) the bench seeds: bench-marketplace-<run>-c<n>. Cleanup
// deletes exactly the rows with this prefix.
const OwnerPrefix = "bench-marketplace-"

// category is one of the 50 categories: its topics (an agent is about one)
// and tags. No word here starts with "agent", "capped", "market", "listing"
// or "herbarium" (the Playwright tests' names), and no category is one the
// web app suggests ("Education", …), so the e2e tests running against the
// same stack never find a bench agent (seed_test.go checks).
type category struct {
	name   string
	topics []string
	tags   []string
}

var categories = []category{
	{"Mathematics", []string{"Algebra", "Calculus", "Statistics", "Geometry", "Linear Algebra"}, []string{"math", "homework", "exam-prep"}},
	{"Physics", []string{"Mechanics", "Thermodynamics", "Electromagnetism", "Quantum Physics", "Optics"}, []string{"physics", "science", "exam-prep"}},
	{"Chemistry", []string{"Organic Chemistry", "Biochemistry", "Stoichiometry", "Lab Safety", "Polymers"}, []string{"chemistry", "science", "lab"}},
	{"Biology", []string{"Genetics", "Cell Biology", "Ecology", "Microbiology", "Botany"}, []string{"biology", "science", "revision"}},
	{"Health", []string{"Nutrition", "First Aid", "Sleep Hygiene", "Physiotherapy", "Diabetes Care"}, []string{"health", "wellbeing", "nutrition"}},
	{"Law", []string{"Contract Law", "Tenancy Law", "Employment Law", "Copyright", "Small Claims"}, []string{"legal", "contracts", "rights"}},
	{"Tax & Accounting", []string{"Income Tax", "VAT", "Bookkeeping", "Payroll", "Audit Preparation"}, []string{"tax", "accounting", "finance"}},
	{"Personal Finance", []string{"Budgeting", "Retirement Planning", "Mortgages", "Credit Scores", "Index Funds"}, []string{"money", "finance", "savings"}},
	{"Programming", []string{"Python", "JavaScript", "Go", "Rust", "SQL"}, []string{"code", "programming", "debugging"}},
	{"Data Science", []string{"Pandas", "Machine Learning", "Data Visualization", "A/B Testing", "Forecasting"}, []string{"data", "analytics", "ml"}},
	{"DevOps", []string{"Kubernetes", "Terraform", "CI Pipelines", "Docker", "Observability"}, []string{"devops", "cloud", "infrastructure"}},
	{"Cybersecurity", []string{"Phishing Awareness", "Penetration Testing", "Password Hygiene", "Incident Response", "Threat Modeling"}, []string{"security", "privacy", "it"}},
	{"Languages", []string{"Spanish", "French", "Japanese", "German", "Mandarin"}, []string{"language", "vocabulary", "grammar"}},
	{"Writing", []string{"Essay Writing", "Copyediting", "Grant Writing", "Screenwriting", "Poetry"}, []string{"writing", "editing", "style"}},
	{"History", []string{"Ancient Rome", "World War II", "Medieval Europe", "Industrial Revolution", "Cold War"}, []string{"history", "timeline", "sources"}},
	{"Philosophy", []string{"Ethics", "Logic", "Stoicism", "Epistemology", "Existentialism"}, []string{"philosophy", "ideas", "debate"}},
	{"Music", []string{"Guitar", "Piano", "Music Theory", "Songwriting", "Jazz Improvisation"}, []string{"music", "practice", "theory"}},
	{"Art & Design", []string{"Watercolor", "Typography", "Logo Design", "Figure Drawing", "Color Theory"}, []string{"design", "art", "portfolio"}},
	{"Photography", []string{"Portrait Photography", "Lightroom", "Night Photography", "Composition", "Film Cameras"}, []string{"photography", "editing", "gear"}},
	{"Cooking", []string{"Baking", "Vegan Cooking", "Meal Prep", "Fermentation", "Knife Skills"}, []string{"recipes", "kitchen", "food"}},
	{"Fitness", []string{"Strength Training", "Running", "Yoga", "Mobility", "Cycling"}, []string{"fitness", "training", "workouts"}},
	{"Gardening", []string{"Vegetable Gardening", "Composting", "Houseplants", "Pruning", "Permaculture"}, []string{"garden", "plants", "outdoors"}},
	{"Travel", []string{"Backpacking", "Rail Travel", "Visa Rules", "Budget Travel", "Road Trips"}, []string{"travel", "itineraries", "planning"}},
	{"Parenting", []string{"Toddler Sleep", "Screen Time", "Picky Eaters", "Teen Communication", "Potty Training"}, []string{"parenting", "family", "kids"}},
	{"Careers", []string{"Resume Writing", "Interview Preparation", "Salary Negotiation", "Career Change", "LinkedIn Profiles"}, []string{"career", "jobs", "interviews"}},
	{"Human Resources", []string{"Onboarding", "Performance Reviews", "Leave Policy", "Hiring", "Workplace Conflict"}, []string{"hr", "people", "policy"}},
	{"Sales", []string{"Cold Email", "Sales Pitches", "Negotiation", "CRM Hygiene", "Lead Qualification"}, []string{"sales", "pipeline", "outreach"}},
	{"Advertising", []string{"Social Media Ads", "SEO", "Brand Voice", "Newsletter Growth", "Landing Pages"}, []string{"ads", "growth", "brand"}},
	{"Product Management", []string{"Roadmaps", "User Interviews", "Prioritization", "Product Specs", "OKRs"}, []string{"product", "strategy", "discovery"}},
	{"Project Management", []string{"Scrum", "Kanban", "Risk Registers", "Gantt Charts", "Stakeholder Updates"}, []string{"projects", "delivery", "agile"}},
	{"Real Estate", []string{"Home Buying", "Property Valuation", "Renovation Budgets", "Landlording", "Zoning"}, []string{"property", "housing", "homes"}},
	{"Insurance", []string{"Car Insurance", "Health Insurance", "Claims", "Life Insurance", "Home Insurance"}, []string{"insurance", "policies", "claims"}},
	{"Quality Management", []string{"ISO 9001", "Root Cause Analysis", "Six Sigma", "Supplier Audits", "Lean Manufacturing"}, []string{"quality", "audits", "iso"}},
	{"Environment", []string{"Carbon Accounting", "Recycling", "Solar Power", "Water Conservation", "Biodiversity"}, []string{"climate", "sustainability", "energy"}},
	{"Engineering", []string{"Structural Analysis", "CAD Drafting", "Tolerances", "Welding", "HVAC"}, []string{"engineering", "design", "standards"}},
	{"Electronics", []string{"Arduino", "Soldering", "Circuit Design", "Raspberry Pi", "PCB Layout"}, []string{"electronics", "maker", "hardware"}},
	{"Automotive", []string{"Car Maintenance", "Electric Vehicles", "Diagnostics", "Tyres", "Detailing"}, []string{"cars", "repair", "ev"}},
	{"Aviation", []string{"Private Pilot Training", "Weather Briefings", "Drone Rules", "Navigation", "Radio Phraseology"}, []string{"aviation", "flying", "pilots"}},
	{"Astronomy", []string{"Stargazing", "Telescopes", "Exoplanets", "Astrophotography", "Planetary Science"}, []string{"space", "astronomy", "night-sky"}},
	{"Geography", []string{"Map Reading", "Climate Zones", "Capitals", "Plate Tectonics", "Rivers"}, []string{"geography", "maps", "earth"}},
	{"Psychology", []string{"Habits", "Motivation", "Cognitive Biases", "Memory Techniques", "Stress Management"}, []string{"psychology", "mind", "habits"}},
	{"Mythology & Religion", []string{"Greek Mythology", "Norse Mythology", "World Religions", "Scripture Study", "Folklore"}, []string{"mythology", "religion", "stories"}},
	{"Games", []string{"Chess", "Bridge", "Board Games", "Speedrunning", "Tabletop Roleplaying"}, []string{"games", "strategy", "rules"}},
	{"Sports", []string{"Football Tactics", "Tennis", "Swimming", "Golf", "Basketball"}, []string{"sports", "coaching", "tactics"}},
	{"Pets", []string{"Dog Training", "Cat Behaviour", "Aquariums", "Bird Care", "Horse Riding"}, []string{"pets", "animals", "care"}},
	{"Crafts", []string{"Knitting", "Woodworking", "Pottery", "Sewing", "Embroidery"}, []string{"crafts", "diy", "patterns"}},
	{"Home Improvement", []string{"Plumbing", "Interior Painting", "Tiling", "Insulation", "Electrical Wiring"}, []string{"diy", "home", "repairs"}},
	{"Events", []string{"Wedding Planning", "Conferences", "Birthday Parties", "Catering", "Venue Booking"}, []string{"events", "planning", "hosting"}},
	{"Nonprofits", []string{"Fundraising", "Volunteering", "Grant Reporting", "Board Governance", "Impact Measurement"}, []string{"nonprofit", "charity", "community"}},
	{"Public Sector", []string{"Procurement", "Public Records", "Building Permits", "Council Meetings", "Benefits Claims"}, []string{"government", "public", "forms"}},
}

// roles end every name ("Python Tutor"): the common search words, each in
// about 1 name of 12.
var roles = []string{"Tutor", "Coach", "Advisor", "Assistant", "Expert", "Guide", "Mentor", "Reviewer", "Planner",
	"Explainer", "Consultant", "Companion"}

var qualifiers = []string{"Friendly", "Practical", "Advanced", "Beginner", "Quick", "Patient", "Pocket", "Everyday"}

var audiences = []string{"students", "beginners", "small businesses", "professionals", "parents", "hobbyists", "retirees",
	"teams", "freelancers", "newcomers"}

var sources = []string{"its creator's notes", "a curated handbook", "a set of worked examples", "official guidance",
	"a library of checklists", "years of course material"}

// templates of descriptions: the words "questions" (template 0),
// "explanations" (1), "helps" (2) and "plain"/"language" each come up in
// about a quarter of the agents — the broad searches.
var templates = []string{
	"Answers questions about %[1]s for %[2]s, based on %[3]s.",
	"%[4]s for %[1]s: step-by-step explanations for %[2]s, drawn from %[3]s.",
	"Helps %[2]s with %[1]s in plain language, using %[3]s.",
	"Explains %[1]s and related %[5]s topics to %[2]s; built on %[3]s.",
}

// rareWords: one agent in 25 mentions one of them ("Includes notes on
// kintsugi."), so each is in about 10 agents of 10,000: the rare searches.
var rareWords = []string{"axolotl", "zither", "quokka", "marzipan", "falconry", "kombucha", "bonsai", "calligraphy",
	"beekeeping", "sommelier", "glassblowing", "dulcimer", "tardigrade", "bioluminescence", "lichen", "meteorite",
	"sundial", "harpsichord", "origami", "cartography", "mahjong", "archery", "fjord", "geocaching", "hieroglyphs",
	"kintsugi", "letterpress", "macrame", "narwhal", "obsidian", "papyrus", "quilting", "runestones", "saffron",
	"terrarium", "ukulele", "vermicompost", "woodturning", "yodeling", "ziggurat"}

const rareEvery = 25

var firstNames = []string{"Ada", "Bruno", "Chiara", "Dmitri", "Elif", "Farah", "Goran", "Hana", "Ivo", "Jonas", "Kaia",
	"Luis", "Mira", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Sven", "Tomas", "Uma", "Viktor", "Wen", "Yara", "Zoltan"}

var lastNames = []string{"Abbott", "Byrne", "Castillo", "Dufresne", "Eklund", "Ferreira", "Gallagher", "Haddad", "Ito",
	"Janssen", "Kowalski", "Lindqvist", "Moreau", "Nakamura", "Okafor", "Petrov"}

var icons = []string{"ri-robot-line", "ri-brain-line", "ri-book-open-line", "ri-lightbulb-line", "ri-graduation-cap-line",
	"ri-chat-smile-2-line", "ri-compass-3-line", "ri-flask-line"}

var colors = []string{"#4076D6", "#6767EC", "#10B981", "#EF4444", "#F59E0B", "#FF3E00"}

// seedAgent is one row of agents the bench inserts.
type seedAgent struct {
	ID                          [16]byte
	Owner, Name, Description    string
	Category, Slug, Email, Icon string
	Color, Greeting             string
	Tags                        []string
	Answers, RatingCount        int64
	RatingSum, TypicalMicros    int64
	Markup, GreetingCents       int
	MemoryTokens, Documents     int
	PublishedAt, CreatedAt      time.Time
}

// seedCreator is a known_users row: the creators' names on the cards.
type seedCreator struct{ UID, Email, Name string }

// seedSet is what a run inserts.
type seedSet struct {
	Agents   []seedAgent
	Creators []seedCreator
}

// categoryWeights skews the categories (Zipf, s = 0.8): of 10,000 agents
// the largest category holds about 1,500, the smallest about 60.
func categoryWeights() []float64 {
	w := make([]float64, len(categories))
	var sum float64
	for i := range w {
		w[i] = 1 / math.Pow(float64(i+1), 0.8)
		sum += w[i]
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// pick draws an index from cumulative weights.
func pick(rng *rand.Rand, cum []float64) int {
	x := rng.Float64()
	for i, c := range cum {
		if x < c {
			return i
		}
	}
	return len(cum) - 1
}

// generateSeed builds n listed agents of creators owners (owner uids
// bench-marketplace-<run>-c<k>), deterministically from seed; now anchors
// the publication dates (the last 365 days). Pure: no database.
func generateSeed(run string, n, creators int, seed uint64, now time.Time) seedSet {
	rng := rand.New(rand.NewPCG(seed, 0x6d61726b6574))
	var set seedSet
	for k := range creators {
		set.Creators = append(set.Creators, seedCreator{
			UID:   fmt.Sprintf("%s%s-c%d", OwnerPrefix, run, k),
			Email: fmt.Sprintf("%s%s-c%d@bench.invalid", OwnerPrefix, run, k),
			Name:  firstNames[rng.IntN(len(firstNames))] + " " + lastNames[rng.IntN(len(lastNames))],
		})
	}
	w := categoryWeights()
	cum := make([]float64, len(w))
	var acc float64
	for i, x := range w {
		acc += x
		cum[i] = acc
	}
	for i := range n {
		// Every category gets at least one agent; the rest follow the weights.
		ci := i
		if i >= len(categories) {
			ci = pick(rng, cum)
		}
		c := categories[ci]
		topic := c.topics[rng.IntN(len(c.topics))]
		role := roles[rng.IntN(len(roles))]
		name := topic + " " + role
		if rng.IntN(10) < 3 {
			name = qualifiers[rng.IntN(len(qualifiers))] + " " + name
		}
		audience := audiences[rng.IntN(len(audiences))]
		desc := fmt.Sprintf(templates[rng.IntN(len(templates))], topic, audience, sources[rng.IntN(len(sources))],
			withArticle(strings.ToLower(role)), c.name)
		if i%rareEvery == 0 {
			desc += " Includes notes on " + rareWords[(i/rareEvery)%len(rareWords)] + "."
		}
		tags := []string{slugify(topic), c.tags[rng.IntN(len(c.tags))]}
		if rng.IntN(3) == 0 {
			tags = append(tags, []string{"beginner", "advanced", "quick-answers", "in-depth"}[rng.IntN(4)])
		}
		var a seedAgent
		for j := range a.ID {
			a.ID[j] = byte(rng.Uint32())
		}
		a.ID[6] = a.ID[6]&0x0f | 0x40 // version 4
		a.ID[8] = a.ID[8]&0x3f | 0x80 // variant
		a.Owner = set.Creators[rng.IntN(len(set.Creators))].UID
		a.Name, a.Description, a.Category, a.Tags = name, desc, c.name, tags
		a.Slug = slugify(name) + "-b" + strconv.Itoa(i+1)
		a.Email = fmt.Sprintf("%s%s-%d@bench.invalid", OwnerPrefix, run, i+1)
		a.Icon, a.Color = icons[rng.IntN(len(icons))], colors[rng.IntN(len(colors))]
		a.Greeting = "Hi! Ask me anything about " + topic + "."
		// Answers: heavy-tailed (most agents have a few, some thousands).
		a.Answers = int64(math.Exp(rng.Float64()*10)) - 1
		if rng.IntN(10) >= 3 {
			a.RatingCount = 1 + int64(math.Exp(rng.Float64()*5))
			a.RatingSum = int64(math.Round(float64(a.RatingCount) * (2.5 + 2.5*rng.Float64())))
		}
		a.Markup = 20
		if rng.IntN(3) == 0 {
			a.Markup = rng.IntN(301)
		}
		// Model cost log-uniform from 0.1 to 10 m$, plus the 3% fee and the markup.
		cost := int64(100 * math.Pow(100, rng.Float64()))
		a.TypicalMicros = cost + (cost*3+99)/100 + (cost*int64(a.Markup)+99)/100
		if rng.IntN(5) == 0 {
			a.GreetingCents = 10 * (1 + rng.IntN(20))
		}
		a.MemoryTokens = []int{2000, 4000, 4000, 8000, 16000}[rng.IntN(5)]
		a.Documents = 1 + rng.IntN(12)
		a.PublishedAt = now.Add(-time.Duration(rng.Int64N(int64(365 * 24 * time.Hour)))).Truncate(time.Microsecond)
		a.CreatedAt = a.PublishedAt.Add(-time.Duration(rng.Int64N(int64(30 * 24 * time.Hour))))
		set.Agents = append(set.Agents, a)
	}
	return set
}

// withArticle is "A tutor", "An expert".
func withArticle(w string) string {
	if w != "" && strings.ContainsRune("aeiou", rune(w[0])) {
		return "An " + w
	}
	return "A " + w
}

// slugify is the catalog's slug shape for ASCII names: lower-case letters
// and digits, single hyphens, at most 30 characters (the bench appends
// "-b<n>", so slugs stay unique and never look like a slug the catalog
// assigns: those end in a number without a letter).
func slugify(s string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
			continue
		}
		hyphen = true
	}
	out := b.String()
	if len(out) > 30 {
		out = strings.TrimRight(out[:30], "-")
	}
	return out
}

// --- database -----------------------------------------------------------------

// benchCount is how many listed bench agents the catalog holds.
func benchCount(ctx context.Context, db *pgxpool.Pool) (int, error) {
	var n int
	err := db.QueryRow(ctx, `SELECT count(*) FROM agents WHERE owner_uid LIKE $1 || '%' AND is_public`, OwnerPrefix).Scan(&n)
	return n, err
}

// insertSeed writes the set in one transaction (COPY), then ANALYZE (the
// local PostgreSQL runs without autovacuum: without it the planner keeps
// the statistics of the table before the 10,000 rows).
func insertSeed(ctx context.Context, db *pgxpool.Pool, set seedSet) error {
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"known_users"}, []string{"uid", "email", "name"},
			pgx.CopyFromSlice(len(set.Creators), func(i int) ([]any, error) {
				c := set.Creators[i]
				return []any{c.UID, c.Email, c.Name}, nil
			})); err != nil {
			return fmt.Errorf("known_users: %w", err)
		}
		cols := []string{"id", "owner_uid", "name", "description", "category", "status", "is_public", "icon_name",
			"icon_color", "tags", "email", "total_interactions", "rating_count", "rating_sum", "slug", "published_at",
			"markup_percent", "greeting_cost_cents", "greeting", "memory_tokens", "typical_answer_micros",
			"typical_answer_estimated", "documents_count", "created_at", "updated_at"}
		if _, err := tx.CopyFrom(ctx, pgx.Identifier{"agents"}, cols,
			pgx.CopyFromSlice(len(set.Agents), func(i int) ([]any, error) {
				a := set.Agents[i]
				return []any{a.ID, a.Owner, a.Name, a.Description, a.Category, "active", true, a.Icon, a.Color, a.Tags,
					a.Email, a.Answers, a.RatingCount, a.RatingSum, a.Slug, a.PublishedAt, a.Markup, a.GreetingCents,
					a.Greeting, a.MemoryTokens, a.TypicalMicros, false, a.Documents, a.CreatedAt, a.PublishedAt}, nil
			})); err != nil {
			return fmt.Errorf("agents: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	_, err = db.Exec(ctx, `ANALYZE agents`)
	return err
}

// deleteSeed removes every bench agent (their reviews, users and answer
// costs go with them: ON DELETE CASCADE) and bench creator, then VACUUM
// ANALYZE agents so the dead rows and statistics do not outlive the run.
func deleteSeed(ctx context.Context, db *pgxpool.Pool) (int64, error) {
	var n int64
	err := pgx.BeginFunc(ctx, db, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM agents WHERE owner_uid LIKE $1 || '%'`, OwnerPrefix)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		_, err = tx.Exec(ctx, `DELETE FROM known_users WHERE uid LIKE $1 || '%'`, OwnerPrefix)
		return err
	})
	if err != nil {
		return 0, err
	}
	if n > 0 {
		_, err = db.Exec(ctx, `VACUUM (ANALYZE) agents`)
	}
	return n, err
}

// benchAgent is what the load needs of a seeded agent.
type benchAgent struct{ Slug, Category string }

// loadBenchAgents reads the listed bench agents back (a reused seed has
// another run's slugs).
func loadBenchAgents(ctx context.Context, db *pgxpool.Pool) ([]benchAgent, error) {
	rows, err := db.Query(ctx, `SELECT slug, category FROM agents WHERE owner_uid LIKE $1 || '%' AND is_public ORDER BY slug`, OwnerPrefix)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (benchAgent, error) {
		var a benchAgent
		err := r.Scan(&a.Slug, &a.Category)
		return a, err
	})
}

// matchCount is how many listed agents (all, not only the bench's) a search
// of q matches, as the catalog searches (tsQuery).
func matchCount(ctx context.Context, db *pgxpool.Pool, q, category string) (int, error) {
	var n int
	err := db.QueryRow(ctx, `SELECT count(*) FROM agents WHERE is_public AND search_tsv @@ to_tsquery('english'::regconfig, $1)
		AND ($2 = '' OR category = $2)`, tsQuery(q), category).Scan(&n)
	return n, err
}

// tsQuery is the catalog's agents.TSQuery (internal to the service): the
// words of q, letters and digits, ANDed, the last one a prefix.
func tsQuery(q string) string {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) == 0 {
		return ""
	}
	for i, w := range words {
		words[i] = "'" + w + "'"
	}
	return strings.Join(words, " & ") + ":*"
}
