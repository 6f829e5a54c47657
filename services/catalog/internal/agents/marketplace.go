package agents

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
)

// The marketplace (issue 27): publishing (the owner's PATCH) and discovery
// (the public lists and profiles). docs/catalog.md, "Marketplace".

// Bounds and defaults of the listing fields (migration 00004 has the same
// CHECK constraints and defaults).
const (
	MaxMarkupPercent     = 300
	MaxGreetingCostCents = 500
	MaxGreeting          = 500
	MaxMemoryTokens      = 32000
	DefaultMarkupPercent = 20
	DefaultMemoryTokens  = 4000
)

// Messages of the listing fields and of the publishing rules.
const (
	MsgMarkup                = "Markup must be a whole number from 0 to 300 percent."
	MsgGreetingCost          = "Greeting cost must be a whole number of cents from 0 to 500."
	MsgGreeting              = "The greeting can be at most 500 characters."
	MsgMemoryTokens          = "Memory must be a whole number of tokens from 0 to 32,000."
	MsgPublishNeedsActive    = "Activate the agent before publishing."
	MsgPublishNeedsDocuments = "Link and share at least one document before publishing."
)

// Changed-field names (JSON) of the listing fields, as AgentUpdated lists them.
const (
	FieldMarkupPercent     = "markupPercent"
	FieldGreetingCostCents = "greetingCostCents"
	FieldGreeting          = "greeting"
	FieldMemoryTokens      = "memoryTokens"
	FieldShowSources       = "showSources"
	FieldIsPublic          = "isPublic"
)

// WholeNumber is an integer field as a request gave it: Invalid when it was
// a number but not a whole one (1.5), which validation refuses with the
// field's message.
type WholeNumber struct {
	Value   int64
	Invalid bool
}

func (n *WholeNumber) within(lo, hi int64) bool {
	return n != nil && !n.Invalid && n.Value >= lo && n.Value <= hi
}

// checkListingFields validates and normalises the listing fields of a PATCH.
func checkListingFields(v *validator, in UpdateInput) UpdateInput {
	if in.MarkupPercent != nil && !in.MarkupPercent.within(0, MaxMarkupPercent) {
		v.add(FieldMarkupPercent, MsgMarkup)
	}
	if in.GreetingCostCents != nil && !in.GreetingCostCents.within(0, MaxGreetingCostCents) {
		v.add(FieldGreetingCostCents, MsgGreetingCost)
	}
	if in.Greeting != nil {
		g := strings.TrimSpace(*in.Greeting)
		if chars(g) > MaxGreeting {
			v.add(FieldGreeting, MsgGreeting)
		}
		in.Greeting = &g
	}
	if in.MemoryTokens != nil && !in.MemoryTokens.within(0, MaxMemoryTokens) {
		v.add(FieldMemoryTokens, MsgMemoryTokens)
	}
	return in
}

// applyListingUpdate applies the (validated) listing fields to next.
func applyListingUpdate(cur, next Agent, in UpdateInput, changed []string) (Agent, []string) {
	if in.MarkupPercent != nil && int(in.MarkupPercent.Value) != cur.MarkupPercent {
		next.MarkupPercent = int(in.MarkupPercent.Value)
		changed = append(changed, FieldMarkupPercent)
	}
	if in.GreetingCostCents != nil && int(in.GreetingCostCents.Value) != cur.GreetingCostCents {
		next.GreetingCostCents = int(in.GreetingCostCents.Value)
		changed = append(changed, FieldGreetingCostCents)
	}
	if in.Greeting != nil && *in.Greeting != cur.Greeting {
		next.Greeting = *in.Greeting
		changed = append(changed, FieldGreeting)
	}
	if in.MemoryTokens != nil && int(in.MemoryTokens.Value) != cur.MemoryTokens {
		next.MemoryTokens = int(in.MemoryTokens.Value)
		changed = append(changed, FieldMemoryTokens)
	}
	if in.ShowSources != nil && *in.ShowSources != cur.ShowSources {
		next.ShowSources = *in.ShowSources
		changed = append(changed, FieldShowSources)
	}
	return next, changed
}

func publishRefused(msg string) error {
	return &ValidationError{Fields: []FieldError{{FieldIsPublic, msg}}}
}

// DocumentCounts is an agent's linked documents and, of those, the ones it
// can read (shared and synced).
type DocumentCounts struct{ Total, Ready int64 }

// Documents counts an agent's documents (documents' KnowledgeService.CountDocuments).
type Documents interface {
	CountDocuments(ctx context.Context, agentID string) (DocumentCounts, error)
}

// ErrDocumentsUnavailable: the documents service could not be asked whether
// the agent has a readable document (publishing answers 503).
var ErrDocumentsUnavailable = errors.New("documents service unavailable")

// checkPublish applies the publishing rules to cur as in would leave it and
// returns the readable documents' count: the agent must be active, then have
// at least one readable document.
func (s *service) checkPublish(ctx context.Context, cur Agent, in UpdateInput) (int64, error) {
	status := cur.Status
	if in.Status != nil {
		status = *in.Status
	}
	if status != StatusActive {
		return 0, publishRefused(MsgPublishNeedsActive)
	}
	c, err := s.countDocuments(ctx, cur.ID)
	if err != nil {
		return 0, err
	}
	if c.Ready == 0 {
		return 0, publishRefused(MsgPublishNeedsDocuments)
	}
	return c.Ready, nil
}

func (s *service) countDocuments(ctx context.Context, agentID string) (DocumentCounts, error) {
	if s.cfg.Documents == nil {
		return DocumentCounts{}, fmt.Errorf("%w: no documents client", ErrDocumentsUnavailable)
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.DocumentsTimeout)
	defer cancel()
	c, err := s.cfg.Documents.CountDocuments(cctx, agentID)
	if err != nil {
		return DocumentCounts{}, fmt.Errorf("%w: %w", ErrDocumentsUnavailable, err)
	}
	return c, nil
}

// ---- the typical answer ----

// Estimate of a first answer, before an agent has any (typicalAnswerMicros):
// EstimateInputTokens in and EstimateOutputTokens out at the default model's
// price, plus the platform fee and the agent's markup.
const (
	EstimateInputTokens  = 1500
	EstimateOutputTokens = 300
	// FeePercent is the platform fee on the model cost (the conversations
	// service's pricing.FeePercent, SPEC "Business constants").
	FeePercent = 3
	// AnswerCostSamples is how many of an agent's last answers the median
	// is taken over.
	AnswerCostSamples = 50
	// DefaultEstimateInputPrice and DefaultEstimateOutputPrice are the
	// default model's prices in micro-dollars per 1M tokens (gpt-4o-mini,
	// the chart's LLM_MODEL).
	DefaultEstimateInputPrice  = 150_000
	DefaultEstimateOutputPrice = 600_000
)

// AnswerEstimate is the model cost and fee of the estimated first answer.
type AnswerEstimate struct{ CostMicros, FeeMicros int64 }

// NewAnswerEstimate prices EstimateInputTokens + EstimateOutputTokens at
// inputPrice / outputPrice (micro-dollars per 1M tokens), each rounded up
// like the conversations service's pricing.
func NewAnswerEstimate(inputPrice, outputPrice int64) AnswerEstimate {
	cost := ceilDiv(EstimateInputTokens*max(inputPrice, 0)+EstimateOutputTokens*max(outputPrice, 0), 1_000_000)
	return AnswerEstimate{CostMicros: cost, FeeMicros: ceilDiv(cost*FeePercent, 100)}
}

// ForMarkup is what a user would pay for the estimated answer on an agent
// with this markup (percent of the model cost, rounded up).
func (e AnswerEstimate) ForMarkup(markupPercent int) int64 {
	return e.CostMicros + e.FeeMicros + ceilDiv(e.CostMicros*int64(markupPercent), 100)
}

func ceilDiv(a, b int64) int64 {
	if a <= 0 {
		return 0
	}
	return (a + b - 1) / b
}

// ---- discovery ----

// Listing is a listed agent as the public sees it: no owner uid, e-mail,
// instructions, documents or subscribers.
type Listing struct {
	ID, Slug, Name, Description, Category, IconName, IconColor string
	Tags                                                       []string
	// CreatorName is the owner's display name, else username (known_users),
	// else UnknownCreator.
	CreatorName         string
	RatingCount         int64
	RatingSum           int64
	Answers             int64
	MarkupPercent       int
	GreetingCostCents   int
	MemoryTokens        int
	TypicalAnswerMicros int64
	// Available: the agent is active (an inactive listed agent stays listed).
	Available bool
	// Profile only.
	Greeting       string
	DocumentsCount int64
	CreatedAt      time.Time

	// Sort keys (the cursor).
	PublishedAt   time.Time
	RatingAverage float64
	Rank          float32
}

// UnknownCreator is the creatorName of an owner whose name the catalog does not know.
const UnknownCreator = "A creator"

// Sorts of the marketplace list.
const (
	SortPopular   = "popular"   // answers, most first
	SortRating    = "rating"    // average rating, then number of ratings
	SortNewest    = "newest"    // latest publish first
	SortPrice     = "price"     // typical answer, cheapest first
	SortRelevance = "relevance" // full-text rank (the default when q is set)
)

// List bounds.
const (
	DefaultListLimit = 20
	MaxListLimit     = 50
	MaxQuery         = 200
	maxQueryWords    = 16
)

// Query errors (HTTP 400 with Code).
const (
	CodeInvalidLimit = "invalid_limit"
	CodeInvalidQuery = "invalid_query"

	MsgListLimit    = "limit must be a whole number from 1 to 50"
	MsgListSort     = "sort must be one of popular, rating, newest, price"
	MsgListQuery    = "The search can be at most 200 characters."
	MsgListFilter   = "category can be at most 50 characters and tag at most 40"
	MsgListCursor   = "cursor is not valid for this list"
	MsgRelevanceNoQ = "sort=relevance needs a search (q)"
)

// QueryError is a bad list request (HTTP 400 with Code).
type QueryError struct{ Code, Message string }

func (e *QueryError) Error() string { return e.Message }

// ListQuery is a list request as received. Limit nil = DefaultListLimit.
type ListQuery struct {
	Q, Category, Tag, Sort, Cursor string
	Limit                          *int
}

// ListPage is one page; NextCursor "" when it is the last.
type ListPage struct {
	Items      []Listing
	NextCursor string
}

// CategoryCount is a category of listed agents and how many there are.
type CategoryCount struct {
	Category string
	Count    int64
}

// ListFilter is a validated list request for the store: Limit+1 rows are
// asked for (the extra one says whether there is a next page).
type ListFilter struct {
	// TSQuery is the to_tsquery('english', …) text ("" = no search).
	TSQuery  string
	Category string
	Tag      string
	Sort     string
	Limit    int
	After    *Cursor
}

// Cursor is the position after the last row of a page: its sort key and id.
type Cursor struct {
	Sort  string
	Int   int64     // popular: answers; price: typical answer; rating: count
	Float float64   // rating: average; relevance: rank
	Time  time.Time // newest: published at
	ID    string
}

// cursor wire form: base64url(JSON ["v1", sort, key..., id]).
const cursorVersion = "v1"

// Encode returns the opaque cursor.
func (c Cursor) Encode() string {
	parts := []string{cursorVersion, c.Sort}
	switch c.Sort {
	case SortPopular, SortPrice:
		parts = append(parts, strconv.FormatInt(c.Int, 10))
	case SortRating:
		parts = append(parts, strconv.FormatFloat(c.Float, 'g', -1, 64), strconv.FormatInt(c.Int, 10))
	case SortRelevance:
		parts = append(parts, strconv.FormatFloat(c.Float, 'g', -1, 32))
	case SortNewest:
		parts = append(parts, c.Time.UTC().Format(time.RFC3339Nano))
	}
	parts = append(parts, c.ID)
	b, _ := json.Marshal(parts)
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor parses a cursor of sort; an error for anything else.
func DecodeCursor(s, sort string) (*Cursor, error) {
	bad := &QueryError{Code: CodeInvalidQuery, Message: MsgListCursor}
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(s) > 512 {
		return nil, bad
	}
	var parts []string
	if err := json.Unmarshal(raw, &parts); err != nil || len(parts) < 4 || parts[0] != cursorVersion || parts[1] != sort {
		return nil, bad
	}
	c := &Cursor{Sort: sort, ID: parts[len(parts)-1]}
	if !validID(c.ID) {
		return nil, bad
	}
	keys := parts[2 : len(parts)-1]
	switch sort {
	case SortPopular, SortPrice:
		if len(keys) != 1 {
			return nil, bad
		}
		if c.Int, err = strconv.ParseInt(keys[0], 10, 64); err != nil {
			return nil, bad
		}
	case SortRating:
		if len(keys) != 2 {
			return nil, bad
		}
		var e2 error
		c.Float, err = strconv.ParseFloat(keys[0], 64)
		c.Int, e2 = strconv.ParseInt(keys[1], 10, 64)
		if err != nil || e2 != nil {
			return nil, bad
		}
	case SortRelevance:
		if len(keys) != 1 {
			return nil, bad
		}
		if c.Float, err = strconv.ParseFloat(keys[0], 32); err != nil {
			return nil, bad
		}
	case SortNewest:
		if len(keys) != 1 {
			return nil, bad
		}
		if c.Time, err = time.Parse(time.RFC3339Nano, keys[0]); err != nil {
			return nil, bad
		}
	default:
		return nil, bad
	}
	return c, nil
}

// cursorAfter is the cursor that continues after l in sort.
func cursorAfter(l Listing, sort string) Cursor {
	c := Cursor{Sort: sort, ID: l.ID}
	switch sort {
	case SortPopular:
		c.Int = l.Answers
	case SortPrice:
		c.Int = l.TypicalAnswerMicros
	case SortRating:
		c.Float, c.Int = l.RatingAverage, l.RatingCount
	case SortRelevance:
		c.Float = float64(l.Rank)
	case SortNewest:
		c.Time = l.PublishedAt
	}
	return c
}

// TSQuery turns a search box's text into to_tsquery('english', …) input:
// its words (letters and digits) ANDed, the last one a prefix (search as
// you type: "math tut" finds "Math Tutor"). "" when q has no word.
func TSQuery(q string) string {
	words := strings.FieldsFunc(strings.ToLower(q), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	if len(words) > maxQueryWords {
		words = words[:maxQueryWords]
	}
	if len(words) == 0 {
		return ""
	}
	for i, w := range words {
		// Letters and digits only: nothing for to_tsquery to parse as an
		// operator; the quotes keep it one lexeme.
		words[i] = "'" + w + "'"
	}
	return strings.Join(words, " & ") + ":*"
}

// ValidateList checks a list request and returns the store's filter.
func ValidateList(q ListQuery) (ListFilter, error) {
	f := ListFilter{Limit: DefaultListLimit}
	if q.Limit != nil {
		if *q.Limit < 1 || *q.Limit > MaxListLimit {
			return ListFilter{}, &QueryError{Code: CodeInvalidLimit, Message: MsgListLimit}
		}
		f.Limit = *q.Limit
	}
	text := strings.TrimSpace(q.Q)
	if chars(text) > MaxQuery {
		return ListFilter{}, &QueryError{Code: CodeInvalidQuery, Message: MsgListQuery}
	}
	f.TSQuery = TSQuery(text)
	f.Category, f.Tag = strings.TrimSpace(q.Category), strings.TrimSpace(q.Tag)
	if chars(f.Category) > MaxCategory || chars(f.Tag) > MaxTag {
		return ListFilter{}, &QueryError{Code: CodeInvalidQuery, Message: MsgListFilter}
	}
	switch sort := strings.ToLower(strings.TrimSpace(q.Sort)); sort {
	case "":
		f.Sort = SortPopular
		if f.TSQuery != "" {
			f.Sort = SortRelevance
		}
	case SortPopular, SortRating, SortNewest, SortPrice:
		f.Sort = sort
	case SortRelevance:
		if f.TSQuery == "" {
			return ListFilter{}, &QueryError{Code: CodeInvalidQuery, Message: MsgRelevanceNoQ}
		}
		f.Sort = sort
	default:
		return ListFilter{}, &QueryError{Code: CodeInvalidQuery, Message: MsgListSort}
	}
	if q.Cursor != "" {
		c, err := DecodeCursor(q.Cursor, f.Sort)
		if err != nil {
			return ListFilter{}, err
		}
		f.After = c
	}
	return f, nil
}

// slugPattern is what a slug can look like (Slug's output, with a -N suffix).
var slugPattern = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// ValidSlug reports whether s can be a slug (anything else is not found).
func ValidSlug(s string) bool { return len(s) <= MaxSlug+12 && slugPattern.MatchString(s) }

func (s *service) ListListed(ctx context.Context, q ListQuery) (ListPage, error) {
	if !s.cfg.Marketplace {
		return ListPage{}, ErrNotFound
	}
	f, err := ValidateList(q)
	if err != nil {
		return ListPage{}, err
	}
	cache := s.cfg.Listings
	var gen uint64
	if cache != nil {
		if page, ok := cache.page(f); ok {
			return page, nil
		}
		gen, _ = cache.generation()
	}
	rows, err := s.store.ListListed(ctx, f)
	if err != nil {
		return ListPage{}, err
	}
	page := ListPage{Items: rows}
	if len(rows) > f.Limit {
		page.Items = rows[:f.Limit]
		page.NextCursor = cursorAfter(page.Items[f.Limit-1], f.Sort).Encode()
	}
	if cache != nil {
		cache.putPage(gen, f, page)
	}
	return page, nil
}

// profileCountTTL is how long a profile's documentsCount is reused.
const profileCountTTL = time.Minute

// profileCountTimeout bounds the profile's count: a slow documents service
// must not hold a public page (the count taken at publish is shown instead).
const profileCountTimeout = 300 * time.Millisecond

func (s *service) GetListed(ctx context.Context, slug string) (Listing, error) {
	if !s.cfg.Marketplace || !ValidSlug(slug) {
		return Listing{}, ErrNotFound
	}
	cache := s.cfg.Listings
	var gen uint64
	if cache != nil {
		if l, ok := cache.profile(slug); ok {
			return l, nil
		}
		gen, _ = cache.generation()
	}
	l, err := s.store.GetListed(ctx, slug)
	if err != nil {
		return Listing{}, err
	}
	if cache != nil {
		defer func() { cache.putProfile(gen, slug, l) }()
	}
	// documentsCount: the documents service's current count, cached for a
	// minute; the count taken at publish while it cannot answer.
	if n, ok := s.docCounts.get(l.ID); ok {
		l.DocumentsCount = n
	} else if s.cfg.Documents != nil {
		cctx, cancel := context.WithTimeout(ctx, profileCountTimeout)
		c, err := s.cfg.Documents.CountDocuments(cctx, l.ID)
		cancel()
		if err != nil {
			s.logger.WarnContext(ctx, "profile: documents count unavailable; showing the count at publish", "agent_id", l.ID, "error", err)
		} else {
			l.DocumentsCount = c.Ready
			s.docCounts.put(l.ID, c.Ready)
		}
	}
	return l, nil
}

// DefaultCategoriesTTL is how long the categories' counts are reused
// (Config.CategoriesTTL): counting them reads every listed agent (6 ms at
// 10,000), and a count a few seconds old is good enough for a filter.
const DefaultCategoriesTTL = 5 * time.Second

func (s *service) ListCategories(ctx context.Context) ([]CategoryCount, error) {
	if !s.cfg.Marketplace {
		return nil, ErrNotFound
	}
	if s.cfg.CategoriesTTL < 0 {
		return s.store.ListedCategories(ctx)
	}
	s.categories.mu.Lock()
	defer s.categories.mu.Unlock()
	if s.categories.list != nil && s.now().Before(s.categories.exp) {
		return s.categories.list, nil
	}
	list, err := s.store.ListedCategories(ctx)
	if err != nil {
		return nil, err
	}
	s.categories.list, s.categories.exp = list, s.now().Add(s.cfg.CategoriesTTL)
	return list, nil
}

// categoriesCache holds the last categories' counts (ListCategories).
type categoriesCache struct {
	mu   sync.Mutex
	list []CategoryCount
	exp  time.Time
}

// countCache is a small TTL cache of counts by agent id.
type countCache struct {
	mu      sync.Mutex
	ttl     time.Duration
	max     int
	now     func() time.Time
	entries map[string]countEntry
}

type countEntry struct {
	n   int64
	exp time.Time
}

func newCountCache(ttl time.Duration, maxEntries int) *countCache {
	return &countCache{ttl: ttl, max: maxEntries, now: time.Now, entries: map[string]countEntry{}}
}

func (c *countCache) get(id string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[id]
	if !ok || !c.now().Before(e.exp) {
		return 0, false
	}
	return e.n, true
}

func (c *countCache) put(id string, n int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= c.max {
		clear(c.entries)
	}
	c.entries[id] = countEntry{n: n, exp: c.now().Add(c.ttl)}
}
