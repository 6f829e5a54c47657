// Package reviews is the marketplace's reviews, creator replies and reports
// (issue 27): a user who received an answer from a listed agent rates and
// reviews it (never its owner), the owner replies, anyone signed in reports
// an agent or a review for moderation. Service holds the rules; Store
// persists them, keeping the agent's rating aggregates (rating_count,
// rating_sum) and report counts in the transaction of each write.
package reviews

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
)

// Limits (characters after trimming; a page's number of reviews).
const (
	MinRating    = 1
	MaxRating    = 5
	MaxText      = 2000
	MaxReply     = 2000
	MaxReason    = 1000
	DefaultLimit = 20
	MaxLimit     = 50
)

// Sort orders of a review list.
const (
	SortNewest  = "newest"  // created_at desc
	SortHighest = "highest" // rating desc, then newest
	SortLowest  = "lowest"  // rating asc, then newest
)

// Messages (the contract's texts; docs/catalog.md, "Reviews").
const (
	MsgRating         = "Choose a rating from 1 to 5 stars."
	MsgText           = "A review can be at most 2,000 characters."
	MsgReplyEmpty     = "Write a reply first."
	MsgReplyMax       = "A reply can be at most 2,000 characters."
	MsgReasonEmpty    = "Tell us what is wrong."
	MsgReasonMax      = "A reason can be at most 1,000 characters."
	MsgOwnAgent       = "You cannot review your own agent."
	MsgRequiresAnswer = "Only people who got an answer from this agent can review it."
	MsgReviewNotFound = "Review not found"
	MsgReplyNotFound  = "Reply not found"
	MsgSort           = "sort must be newest, highest or lowest"
	MsgLimit          = "limit must be a whole number from 1 to 50"
	MsgCursor         = "cursor is invalid"
	// AnonymousName is the author name of a user whose name is unknown.
	AnonymousName = "A user"
)

// Errors. An unknown or unlisted slug, and an agent that is not the
// caller's (replies), are agents.ErrNotFound (404 "Agent not found").
var (
	ErrReviewNotFound = errors.New("review not found")
	ErrReplyNotFound  = errors.New("reply not found")
	// ErrOwnAgent: the owner may not review their own agent (403 forbidden).
	ErrOwnAgent = errors.New("own agent")
	// ErrRequiresAnswer: the caller never received an answer from the agent
	// (403 review_requires_answer).
	ErrRequiresAnswer = errors.New("review requires an answer")
)

// QueryError is an invalid list query parameter (400: invalid_limit for
// limit, invalid_query for sort and cursor).
type QueryError struct{ Param, Message string }

func (e *QueryError) Error() string { return e.Message }

// Review is one user's review of an agent.
type Review struct {
	ID        string
	AgentID   string
	AuthorUID string // never shown (the JSON has authorName only)
	// AuthorName is the author's display name, else username, else
	// AnonymousName; never a uid or an e-mail address.
	AuthorName string
	Rating     int
	Text       string
	Reply      *Reply // nil: no reply
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Reply is the agent owner's answer to a review.
type Reply struct {
	Text      string
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Target is a listed agent as the review rules see it.
type Target struct {
	AgentID  string
	OwnerUID string
	// Answered: the asking user received at least one answer (agent_users).
	Answered bool
}

// Page is one page of a review list; NextCursor is "" on the last page.
type Page struct {
	Items      []Review
	NextCursor string
}

// ReviewInput is a PUT review body as received. Rating is nil when absent or
// null; RatingInvalid marks a number that is not a whole number.
type ReviewInput struct {
	Rating        *int
	RatingInvalid bool
	Text          string
}

// ListQuery is a GET reviews query as received ("" = default).
type ListQuery struct {
	Sort   string
	Limit  string
	Cursor string
}

// Store persists reviews, replies and reports. An unknown or unlisted slug
// is agents.ErrNotFound.
type Store interface {
	// Listed returns the listed agent slug and whether uid received an
	// answer from it.
	Listed(ctx context.Context, slug, uid string) (Target, error)
	// ReplyTarget checks that agentID is owner's (else agents.ErrNotFound)
	// and reviewID one of its reviews (else ErrReviewNotFound).
	ReplyTarget(ctx context.Context, owner, agentID, reviewID string) error
	// ReviewTarget checks that reviewID is a review of a listed agent (else
	// ErrReviewNotFound).
	ReviewTarget(ctx context.Context, reviewID string) error
	// PutReview creates (created true) or replaces uid's review of the
	// listed agent slug and enqueues ReviewChanged in the same transaction;
	// the ratings consumer (RatingsEventHandler) then recomputes the agent's
	// rating_count and rating_sum. ErrOwnAgent for the owner,
	// ErrRequiresAnswer without an answer (agent_users).
	PutReview(ctx context.Context, uid, slug string, rating int, text string, at time.Time) (Review, bool, error)
	// DeleteReview removes uid's review of the listed agent slug and
	// enqueues ReviewChanged (deleted); ErrReviewNotFound when there is none.
	DeleteReview(ctx context.Context, uid, slug string, at time.Time) error
	// ListReviews returns up to limit reviews of the listed agent slug in
	// sort order after the cursor position (nil: from the start), and
	// whether more follow.
	ListReviews(ctx context.Context, slug, sort string, after *Cursor, limit int) ([]Review, bool, error)
	// PutReply sets the reply to a review of owner's agent; agents.ErrNotFound
	// when the agent is not owner's, ErrReviewNotFound when the review is not
	// the agent's.
	PutReply(ctx context.Context, owner, agentID, reviewID, text string, at time.Time) (Review, error)
	// DeleteReply removes it (ErrReplyNotFound when there is none).
	DeleteReply(ctx context.Context, owner, agentID, reviewID string) error
	// ReportAgent records uid's report of the listed agent slug (a repeat
	// updates the reason; the agent's report_count counts reporters).
	ReportAgent(ctx context.Context, uid, slug, reason string, at time.Time) error
	// ReportReview records uid's report of a review of a listed agent
	// (ErrReviewNotFound otherwise); the review's report_count counts
	// reporters.
	ReportReview(ctx context.Context, uid, reviewID, reason string, at time.Time) error
}

// Service is the reviews API (HTTP routes in internal/transport).
type Service interface {
	// PutReview creates or replaces the caller's review; created reports
	// which (201 or 200).
	PutReview(ctx context.Context, uid, slug string, in ReviewInput) (r Review, created bool, err error)
	DeleteReview(ctx context.Context, uid, slug string) error
	// ListReviews is public: no caller.
	ListReviews(ctx context.Context, slug string, q ListQuery) (Page, error)
	PutReply(ctx context.Context, owner, agentID, reviewID, text string) (Review, error)
	DeleteReply(ctx context.Context, owner, agentID, reviewID string) error
	ReportAgent(ctx context.Context, uid, slug, reason string) error
	ReportReview(ctx context.Context, uid, reviewID, reason string) error
}

type service struct {
	store Store
	now   func() time.Time
}

// NewService returns the Service backed by store.
func NewService(store Store) Service {
	return &service{store: store, now: time.Now}
}

func chars(s string) int { return utf8.RuneCountInString(s) }

func validID(id string) bool {
	_, err := uuid.Parse(id)
	return err == nil && len(id) == 36
}

// validSlug reports whether s can be a slug (lower-case ASCII letters,
// digits and hyphens): anything else is not found without a query.
func validSlug(s string) bool {
	if s == "" || len(s) > 200 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

func fieldError(field, msg string) error {
	return &agents.ValidationError{Fields: []agents.FieldError{{Field: field, Message: msg}}}
}

// ValidateReview trims the text and checks rating, then text.
func ValidateReview(in ReviewInput) (int, string, error) {
	var fields []agents.FieldError
	rating := 0
	if in.Rating == nil || in.RatingInvalid || *in.Rating < MinRating || *in.Rating > MaxRating {
		fields = append(fields, agents.FieldError{Field: "rating", Message: MsgRating})
	} else {
		rating = *in.Rating
	}
	text := strings.TrimSpace(in.Text)
	if chars(text) > MaxText {
		fields = append(fields, agents.FieldError{Field: "text", Message: MsgText})
	}
	if len(fields) > 0 {
		return 0, "", &agents.ValidationError{Fields: fields}
	}
	return rating, text, nil
}

func validateReply(text string) (string, error) {
	text = strings.TrimSpace(text)
	switch n := chars(text); {
	case n == 0:
		return "", fieldError("text", MsgReplyEmpty)
	case n > MaxReply:
		return "", fieldError("text", MsgReplyMax)
	}
	return text, nil
}

func validateReason(reason string) (string, error) {
	reason = strings.TrimSpace(reason)
	switch n := chars(reason); {
	case n == 0:
		return "", fieldError("reason", MsgReasonEmpty)
	case n > MaxReason:
		return "", fieldError("reason", MsgReasonMax)
	}
	return reason, nil
}

// Cursor is a position in a review list: the last item's sort key.
type Cursor struct {
	Sort      string    `json:"s"`
	Rating    int       `json:"r"`
	CreatedAt time.Time `json:"c"`
	ID        string    `json:"i"`
}

// Encode returns the opaque cursor text (base64url of its JSON).
func (c Cursor) Encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

// decodeCursor parses a cursor of a list in sort order.
func decodeCursor(s, sort string) (*Cursor, error) {
	bad := &QueryError{Param: "cursor", Message: MsgCursor}
	if len(s) > 512 {
		return nil, bad
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, bad
	}
	var c Cursor
	if err := json.Unmarshal(b, &c); err != nil || c.Sort != sort || !validID(c.ID) || c.CreatedAt.IsZero() ||
		(sort != SortNewest && (c.Rating < MinRating || c.Rating > MaxRating)) {
		return nil, bad
	}
	return &c, nil
}

// parseQuery checks a list query: sort (default newest), limit (1–50,
// default 20) and cursor.
func parseQuery(q ListQuery) (string, int, *Cursor, error) {
	sort := strings.TrimSpace(q.Sort)
	switch sort {
	case "":
		sort = SortNewest
	case SortNewest, SortHighest, SortLowest:
	default:
		return "", 0, nil, &QueryError{Param: "sort", Message: MsgSort}
	}
	limit := DefaultLimit
	if l := strings.TrimSpace(q.Limit); l != "" {
		n := 0
		for _, r := range l {
			if r < '0' || r > '9' || n > MaxLimit {
				return "", 0, nil, &QueryError{Param: "limit", Message: MsgLimit}
			}
			n = n*10 + int(r-'0')
		}
		if n < 1 || n > MaxLimit {
			return "", 0, nil, &QueryError{Param: "limit", Message: MsgLimit}
		}
		limit = n
	}
	var after *Cursor
	if c := strings.TrimSpace(q.Cursor); c != "" {
		var err error
		if after, err = decodeCursor(c, sort); err != nil {
			return "", 0, nil, err
		}
	}
	return sort, limit, after, nil
}

// checkReviewer refuses the owner (ErrOwnAgent) and a user without an
// answer (ErrRequiresAnswer).
func checkReviewer(t Target, uid string) error {
	if t.OwnerUID == uid {
		return ErrOwnAgent
	}
	if !t.Answered {
		return ErrRequiresAnswer
	}
	return nil
}

func (s *service) PutReview(ctx context.Context, uid, slug string, in ReviewInput) (Review, bool, error) {
	if uid == "" || !validSlug(slug) {
		return Review{}, false, agents.ErrNotFound
	}
	// The agent's listing and the caller's right to review come first (an
	// unlisted agent is 404, the owner 403, whatever the body); the store
	// checks them again in the write's transaction.
	t, err := s.store.Listed(ctx, slug, uid)
	if err != nil {
		return Review{}, false, err
	}
	if err := checkReviewer(t, uid); err != nil {
		return Review{}, false, err
	}
	rating, text, err := ValidateReview(in)
	if err != nil {
		return Review{}, false, err
	}
	return s.store.PutReview(ctx, uid, slug, rating, text, s.now().UTC())
}

func (s *service) DeleteReview(ctx context.Context, uid, slug string) error {
	if uid == "" || !validSlug(slug) {
		return agents.ErrNotFound
	}
	return s.store.DeleteReview(ctx, uid, slug, s.now().UTC())
}

func (s *service) ListReviews(ctx context.Context, slug string, q ListQuery) (Page, error) {
	sort, limit, after, err := parseQuery(q)
	if err != nil {
		return Page{}, err
	}
	if !validSlug(slug) {
		return Page{}, agents.ErrNotFound
	}
	items, more, err := s.store.ListReviews(ctx, slug, sort, after, limit)
	if err != nil {
		return Page{}, err
	}
	p := Page{Items: items}
	if more && len(items) > 0 {
		last := items[len(items)-1]
		p.NextCursor = Cursor{Sort: sort, Rating: last.Rating, CreatedAt: last.CreatedAt, ID: last.ID}.Encode()
	}
	return p, nil
}

func (s *service) PutReply(ctx context.Context, owner, agentID, reviewID, text string) (Review, error) {
	if owner == "" || !validID(agentID) {
		return Review{}, agents.ErrNotFound
	}
	// Ownership before validation: another user's agent is 404 whatever
	// the body.
	if err := s.store.ReplyTarget(ctx, owner, agentID, reviewID); err != nil {
		return Review{}, err
	}
	text, err := validateReply(text)
	if err != nil {
		return Review{}, err
	}
	return s.store.PutReply(ctx, owner, agentID, reviewID, text, s.now().UTC())
}

func (s *service) DeleteReply(ctx context.Context, owner, agentID, reviewID string) error {
	if owner == "" || !validID(agentID) {
		return agents.ErrNotFound
	}
	if err := s.store.ReplyTarget(ctx, owner, agentID, reviewID); err != nil {
		return err
	}
	return s.store.DeleteReply(ctx, owner, agentID, reviewID)
}

func (s *service) ReportAgent(ctx context.Context, uid, slug, reason string) error {
	if uid == "" || !validSlug(slug) {
		return agents.ErrNotFound
	}
	if _, err := s.store.Listed(ctx, slug, uid); err != nil {
		return err
	}
	reason, err := validateReason(reason)
	if err != nil {
		return err
	}
	return s.store.ReportAgent(ctx, uid, slug, reason, s.now().UTC())
}

func (s *service) ReportReview(ctx context.Context, uid, reviewID, reason string) error {
	if uid == "" || !validID(reviewID) {
		return ErrReviewNotFound
	}
	if err := s.store.ReviewTarget(ctx, reviewID); err != nil {
		return err
	}
	reason, err := validateReason(reason)
	if err != nil {
		return err
	}
	return s.store.ReportReview(ctx, uid, reviewID, reason, s.now().UTC())
}

// authorName is what a review shows for its author: the known name unless
// it is empty, the uid or an e-mail address (a display name someone set to
// their address), then AnonymousName.
func authorName(name, uid, email string) string {
	name = strings.TrimSpace(name)
	if name == "" || name == uid || strings.EqualFold(name, email) {
		return AnonymousName
	}
	if _, err := agents.NormalizeEmail(name); err == nil {
		return AnonymousName
	}
	return name
}
