// Package agents is the catalog service's domain: agents (with their unique
// e-mail addresses) and their subscribers. Service holds the rules; Store
// persists agents and subscribers and enqueues events in the same transaction.
package agents

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// Migrations holds the service's SQL migrations (dir "migrations").
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Statuses.
const (
	StatusActive   = "active"
	StatusInactive = "inactive"
	StatusPending  = "pending"

	SubscriberInvited = "invited"
	SubscriberActive  = "active"
)

// Icon classes and colours from the spec; the first of each is the default.
var (
	Icons = []string{
		"ri-robot-line", "ri-user-line", "ri-brain-line", "ri-code-line",
		"ri-customer-service-line", "ri-file-text-line", "ri-search-line", "ri-chat-3-line",
	}
	Colors = []string{"#FF3E00", "#4076D6", "#6767EC", "#10B981", "#EF4444", "#F59E0B"}
)

// Limits (characters, after trimming).
const (
	MinName         = 2
	MaxName         = 100
	MinDescription  = 10
	MaxDescription  = 1000
	MaxCategory     = 50
	MaxInstructions = 100000
	MaxTags         = 20
	MaxTag          = 40
	MaxEmail        = 254

	// MinCapCents and MaxCapCents bound a monthly cap per subscriber
	// ($0.01 to $100,000.00).
	MinCapCents = 1
	MaxCapCents = 10_000_000
	// MicrosPerCent converts a cap in cents to micro-dollars (gRPC).
	MicrosPerCent = 10_000
	// DefaultMaxAgentsPerUser is MAX_AGENTS_PER_USER's default.
	DefaultMaxAgentsPerUser = 100
	// AccessChangeRetention is how long access changes are kept (and the
	// largest margin AccessChangesSince accepts).
	AccessChangeRetention = time.Hour
)

// Subscriber cap modes.
const (
	CapDefault = "default" // the agent's default cap (subscriberMonthlyCapCents)
	CapNone    = "none"    // no cap
	CapCustom  = "custom"  // the subscriber's own amount
)

// Validation messages (the spec's texts where it has them).
const (
	MsgNameMin           = "Name must be at least 2 characters"
	MsgNameMax           = "Name must be at most 100 characters"
	MsgDescriptionMin    = "Description must be at least 10 characters"
	MsgDescriptionMax    = "Description must be at most 1000 characters"
	MsgCategoryRequired  = "Category is required"
	MsgCategoryMax       = "Category must be at most 50 characters"
	MsgPublicComingSoon  = "Public agents are coming soon"
	MsgIcon              = "Icon must be one of the available icons"
	MsgColor             = "Colour must be one of the available colours"
	MsgInstructionsMax   = "Instructions must be at most 100000 characters"
	MsgTagsMax           = "An agent can have at most 20 tags"
	MsgTagMax            = "Each tag must be at most 40 characters"
	MsgStatus            = "Status must be one of active, inactive, pending"
	MsgEmail             = "Please enter a valid email address"
	MsgOwnEmail          = "You already own this agent."
	MsgAlreadyInvited    = "This person has already been invited."
	MsgAgentNotFound     = "Agent not found"
	MsgSubscriberMissing = "Subscriber not found"
	MsgCapCents          = "Enter a monthly cap between $0.01 and $100,000.00, or leave it empty for no cap."
	MsgCapMode           = "Choose default, none or custom."
)

// MsgMaxAgents is the message of the agents-per-user limit.
func MsgMaxAgents(limit int) string {
	if limit == 1 {
		return "You can have at most 1 agent."
	}
	return fmt.Sprintf("You can have at most %d agents.", limit)
}

// Agent is an agent.
type Agent struct {
	ID                string
	OwnerUID          string
	Name              string
	Description       string
	Category          string
	Status            string
	IsPublic          bool
	IconName          string
	IconColor         string
	Instructions      string
	Tags              []string
	Subscribers       int64 // active subscribers
	TotalInteractions int64
	Email             string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// SubscriberMonthlyCapCents is the default monthly cap per subscriber
	// (cents); nil = no cap.
	SubscriberMonthlyCapCents *int64

	// Marketplace fields (issue 27; marketplace.go). Slug is "" until the
	// first publish, then never changes; PublishedAt is the latest publish,
	// zero while the agent is not listed.
	Slug              string
	PublishedAt       time.Time
	MarkupPercent     int
	GreetingCostCents int
	Greeting          string
	MemoryTokens      int
	ShowSources       bool
	// DocumentsCount is the readable documents counted at the last publish
	// (not part of the owner's JSON).
	DocumentsCount int64
	// Listed is set by the internal gRPC reads (FindAgent, FindAgentByEmail,
	// CheckAccess): the marketplace is enabled and the agent IsListed.
	Listed bool
}

// IsListed reports whether a is on the marketplace as the public lists
// decide it (published: is_public with a publish time) and answering
// (active). Whether the marketplace is enabled is the service's to add.
func IsListed(a Agent) bool {
	return a.IsPublic && !a.PublishedAt.IsZero() && a.Status == StatusActive
}

// Subscriber is a person an owner shared an agent with.
type Subscriber struct {
	ID           string
	AgentID      string
	Email        string
	Status       string // invited | active
	UID          string // set when active
	Name         string
	Interactions int64
	InvitedAt    time.Time
	ActivatedAt  time.Time // zero while invited
	// CapMode is CapDefault, CapNone or CapCustom; MonthlyCapCents is the
	// custom amount (nil unless CapCustom).
	CapMode         string
	MonthlyCapCents *int64
	// EffectiveCapCents is the cap that applies (nil = none): the agent's
	// default, none, or the custom amount. The store sets it.
	EffectiveCapCents *int64
}

// EffectiveCap is the cap that applies to a subscriber with this mode and
// custom amount on an agent whose default is agentDefault (nil = no cap).
func EffectiveCap(mode string, custom, agentDefault *int64) *int64 {
	switch mode {
	case CapNone:
		return nil
	case CapCustom:
		return custom
	default:
		return agentDefault
	}
}

// JoinedDate is the activation time of an active subscriber, else the invitation time.
func (s Subscriber) JoinedDate() time.Time {
	if !s.ActivatedAt.IsZero() {
		return s.ActivatedAt
	}
	return s.InvitedAt
}

// DisplayName is the name shown for the subscriber: the user's name when
// known, else the e-mail address.
func (s Subscriber) DisplayName() string {
	if s.Name != "" {
		return s.Name
	}
	return s.Email
}

// Roles of a user who may use (talk to) an agent.
const (
	RoleOwner      = "owner"
	RoleSubscriber = "subscriber"
	// RoleConsumer is a signed-in user talking to a listed agent they
	// neither own nor subscribe to (issue 28): they pay from their own
	// wallet, with the creator's markup and greeting cost.
	RoleConsumer = "consumer"
)

// Access answers "may this user use the agent, and who pays?".
type Access struct {
	Allowed bool
	Role    string // RoleOwner | RoleSubscriber | RoleConsumer when allowed
	// PayerUID is whose wallet pays for usage: the owner's for the owner and
	// subscribers (SPEC: usage costs on private agents are deducted from the
	// creator's wallet), the caller's own for a consumer.
	PayerUID string
	Agent    Agent // set when allowed
	// SubscriberCapMicros is, for a subscriber, the most the owner pays for
	// their answers per calendar month (UTC), in micro-dollars (the effective
	// cap × MicrosPerCent); 0 = no cap, and always 0 for the owner.
	SubscriberCapMicros int64
}

// AccessChange is one change that may end or alter access to an agent: UID
// "" means every user of the agent (it was edited, deactivated, or its
// default cap changed).
type AccessChange struct {
	AgentID string
	UID     string
}

// SharedAgent is an agent as one of its active subscribers sees it.
type SharedAgent struct {
	// Agent with the owner-only fields withheld (see ForSubscriber).
	Agent Agent
	// OwnerName is the owner's displayName, else username, as learned from
	// identity's user.onboarded events; "" when unknown.
	OwnerName string
	// SharedAt is when the subscription became active.
	SharedAt time.Time
	// Interactions counts the subscriber's own answers from this agent.
	Interactions int64
}

// ForSubscriber withholds what only the owner may see: the instructions (the
// owner's work, the agent's prompt), the agent's e-mail address (mail to it
// would be answered at the owner's expense) and the owner's business figures
// (how many people the agent is shared with, how much it is used). The
// fields stay in the JSON with empty values so the shape matches GET /api/agents.
// The owner's uid and the owner's cap settings are withheld too (the
// transport shows the owner's name instead of the uid).
func ForSubscriber(a Agent) Agent {
	a.OwnerUID = ""
	a.Instructions = ""
	a.Email = ""
	a.Subscribers = 0
	a.TotalInteractions = 0
	a.SubscriberMonthlyCapCents = nil
	return a
}

// User is what the catalog knows about a user of the identity service.
type User struct {
	UID   string
	Email string
	Name  string // displayName, else username, else ""
}

// Claimant is the signed-in caller as their ID token describes them.
type Claimant struct {
	UID           string
	Email         string
	EmailVerified bool
	Name          string
}

// Directory looks users up by e-mail (identity's gRPC FindUsersByEmail). It
// is consulted at invite time only to refuse the owner's own address: an
// invitation is never activated at invite time (that would tell the owner the
// address has an account, and trust an unverified address).
type Directory interface {
	// FindByEmail returns the user with this e-mail (case-insensitive), or
	// nil when there is none.
	FindByEmail(ctx context.Context, email string) (*User, error)
}

// Errors.
var (
	ErrNotFound           = errors.New("agent not found")
	ErrSubscriberNotFound = errors.New("subscriber not found")
	ErrAlreadyInvited     = errors.New("already invited")
)

// LimitError is a count quota reached (400 limit_reached); Message states
// the limit.
type LimitError struct{ Message string }

func (e *LimitError) Error() string { return e.Message }

// FieldError is one invalid field.
type FieldError struct {
	Field   string // JSON name
	Message string
}

// ValidationError lists the invalid fields in a fixed order (HTTP 400).
type ValidationError struct{ Fields []FieldError }

func (e *ValidationError) Error() string { return e.Fields[0].Message }

// Message is the first field's message.
func (e *ValidationError) Message() string { return e.Fields[0].Message }

type validator struct{ errs []FieldError }

func (v *validator) add(field, msg string) {
	for _, f := range v.errs {
		if f.Field == field {
			return // first problem of a field wins
		}
	}
	v.errs = append(v.errs, FieldError{field, msg})
}

func (v *validator) err() error {
	if len(v.errs) == 0 {
		return nil
	}
	return &ValidationError{Fields: v.errs}
}

func chars(s string) int { return utf8.RuneCountInString(s) }

// CreateInput is a create request as received.
type CreateInput struct {
	Name, Description, Category string
	IsPublic                    bool
	IconName, IconColor         string
	Instructions                string
	Tags                        []string
}

// UpdateInput is a partial update; nil means "not given".
type UpdateInput struct {
	// Name, IconName, IconColor: rename, re-icon, re-colour (issue 29),
	// checked like a create's. The e-mail address and the marketplace slug
	// stay as they are.
	Name         *string
	IconName     *string
	IconColor    *string
	Instructions *string
	Status       *string
	IsPublic     *bool
	Tags         *[]string
	Description  *string
	// SubscriberMonthlyCapCents: nil = not given; given as null = no cap.
	SubscriberMonthlyCapCents *CapCents
	// Marketplace fields (nil = not given; ignored while the marketplace is
	// off).
	MarkupPercent     *WholeNumber
	GreetingCostCents *WholeNumber
	Greeting          *string
	MemoryTokens      *WholeNumber
	ShowSources       *bool
}

// CapCents is a monthly cap in cents as a request gives it.
type CapCents struct {
	// None is an explicit null: no cap.
	None bool
	// Cents is the amount (when not None and not Invalid).
	Cents int64
	// Invalid is a number that is not a whole number of cents.
	Invalid bool
}

// value returns the cap (nil = none) and whether it is valid.
func (c CapCents) value() (*int64, bool) {
	if c.None {
		return nil, true
	}
	if c.Invalid || c.Cents < MinCapCents || c.Cents > MaxCapCents {
		return nil, false
	}
	v := c.Cents
	return &v, true
}

// SubscriberCapInput is a PATCH of a subscriber's cap: Mode CapDefault,
// CapNone or CapCustom; Cents (required for CapCustom only, else ignored).
type SubscriberCapInput struct {
	Mode  string
	Cents *CapCents
}

func checkName(v *validator, name string) {
	switch n := chars(name); {
	case n < MinName:
		v.add("name", MsgNameMin)
	case n > MaxName:
		v.add("name", MsgNameMax)
	}
}

func checkDescription(v *validator, d string) {
	switch n := chars(d); {
	case n < MinDescription:
		v.add("description", MsgDescriptionMin)
	case n > MaxDescription:
		v.add("description", MsgDescriptionMax)
	}
}

func checkInstructions(v *validator, s string) {
	if chars(s) > MaxInstructions {
		v.add("instructions", MsgInstructionsMax)
	}
}

// NormalizeTags trims tags, drops blanks and duplicates (first spelling
// wins, compared exactly as the spec says) and checks the limits.
func NormalizeTags(v *validator, in []string) []string {
	out := make([]string, 0, len(in))
	seen := map[string]bool{}
	for _, t := range in {
		t = strings.TrimSpace(t)
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		if chars(t) > MaxTag {
			v.add("tags", MsgTagMax)
		}
		out = append(out, t)
	}
	if len(out) > MaxTags {
		v.add("tags", MsgTagsMax)
	}
	return out
}

func oneOf(s string, list []string) bool {
	for _, x := range list {
		if s == x {
			return true
		}
	}
	return false
}

// ValidateCreate is ValidateCreateFor with the marketplace off.
func ValidateCreate(in CreateInput) (CreateInput, error) { return ValidateCreateFor(in, false) }

// ValidateCreateFor normalises (trims, defaults) and validates a create
// request. Fields are checked in the order name, description, category,
// isPublic, iconName, iconColor, instructions, tags. isPublic true is
// refused either way: "coming soon" while the marketplace is off, and with
// MsgPublishNeedsDocuments while it is on (a new agent has no documents).
func ValidateCreateFor(in CreateInput, marketplace bool) (CreateInput, error) {
	var v validator
	in.Name = strings.TrimSpace(in.Name)
	in.Description = strings.TrimSpace(in.Description)
	in.Category = strings.TrimSpace(in.Category)
	in.IconName = strings.TrimSpace(in.IconName)
	in.IconColor = strings.TrimSpace(in.IconColor)
	checkName(&v, in.Name)
	checkDescription(&v, in.Description)
	switch n := chars(in.Category); {
	case n < 1:
		v.add("category", MsgCategoryRequired)
	case n > MaxCategory:
		v.add("category", MsgCategoryMax)
	}
	if in.IsPublic {
		if marketplace {
			v.add("isPublic", MsgPublishNeedsDocuments)
		} else {
			v.add("isPublic", MsgPublicComingSoon)
		}
	}
	if in.IconName == "" {
		in.IconName = Icons[0]
	} else if !oneOf(in.IconName, Icons) {
		v.add("iconName", MsgIcon)
	}
	if in.IconColor == "" {
		in.IconColor = Colors[0]
	} else if c := strings.ToUpper(in.IconColor); oneOf(c, Colors) {
		in.IconColor = c
	} else {
		v.add("iconColor", MsgColor)
	}
	checkInstructions(&v, in.Instructions)
	in.Tags = NormalizeTags(&v, in.Tags)
	return in, v.err()
}

// ValidateUpdate is ValidateUpdateFor with the marketplace off.
func ValidateUpdate(in UpdateInput) (UpdateInput, error) { return ValidateUpdateFor(in, false) }

// ValidateUpdateFor normalises and validates a partial update. With the
// marketplace off, isPublic true is refused ("coming soon") and the
// marketplace fields are ignored; with it on they are checked
// (checkListingFields) and isPublic true is left to the publishing rules
// (Service.UpdateAgent), which need the agent and its documents.
func ValidateUpdateFor(in UpdateInput, marketplace bool) (UpdateInput, error) {
	var v validator
	if in.Name != nil {
		n := strings.TrimSpace(*in.Name)
		checkName(&v, n)
		in.Name = &n
	}
	if in.IconName != nil {
		n := strings.TrimSpace(*in.IconName)
		if !oneOf(n, Icons) {
			v.add("iconName", MsgIcon)
		}
		in.IconName = &n
	}
	if in.IconColor != nil {
		c := strings.ToUpper(strings.TrimSpace(*in.IconColor))
		if !oneOf(c, Colors) {
			v.add("iconColor", MsgColor)
		}
		in.IconColor = &c
	}
	if in.Description != nil {
		d := strings.TrimSpace(*in.Description)
		checkDescription(&v, d)
		in.Description = &d
	}
	if in.Status != nil {
		s := strings.ToLower(strings.TrimSpace(*in.Status))
		if !oneOf(s, []string{StatusActive, StatusInactive, StatusPending}) {
			v.add("status", MsgStatus)
		}
		in.Status = &s
	}
	if in.IsPublic != nil && *in.IsPublic && !marketplace {
		v.add("isPublic", MsgPublicComingSoon)
	}
	if in.Instructions != nil {
		checkInstructions(&v, *in.Instructions)
	}
	if in.Tags != nil {
		t := NormalizeTags(&v, *in.Tags)
		in.Tags = &t
	}
	if in.SubscriberMonthlyCapCents != nil {
		if _, ok := in.SubscriberMonthlyCapCents.value(); !ok {
			v.add("subscriberMonthlyCapCents", MsgCapCents)
		}
	}
	if marketplace {
		in = checkListingFields(&v, in)
	} else {
		in.MarkupPercent, in.GreetingCostCents, in.Greeting, in.MemoryTokens, in.ShowSources = nil, nil, nil, nil, nil
	}
	return in, v.err()
}

// ValidateSubscriberCap validates a subscriber cap change and returns the
// mode (trimmed, lower-cased) and the custom amount (nil unless custom).
func ValidateSubscriberCap(in SubscriberCapInput) (string, *int64, error) {
	var v validator
	mode := strings.ToLower(strings.TrimSpace(in.Mode))
	var cents *int64
	switch mode {
	case CapDefault, CapNone:
	case CapCustom:
		var ok bool
		if in.Cents != nil {
			cents, ok = in.Cents.value()
		}
		if !ok || cents == nil {
			v.add("monthlyCapCents", MsgCapCents)
		}
	default:
		v.add("capMode", MsgCapMode)
	}
	return mode, cents, v.err()
}

// emailRE is a pragmatic address check: the usual local-part characters and a
// dotted host name with an alphabetic top-level domain.
var emailRE = regexp.MustCompile("^[a-z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*\\.[a-z]{2,}$")

// NormalizeEmail trims and lower-cases an address and checks its shape.
func NormalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) > MaxEmail || !emailRE.MatchString(s) || strings.Contains(s, "..") {
		return "", &ValidationError{Fields: []FieldError{{"email", MsgEmail}}}
	}
	return s, nil
}

// Store persists agents and subscribers. Every mutating method runs one
// transaction and enqueues its events (built with the helpers in events.go)
// in it.
type Store interface {
	List(ctx context.Context, owner string) ([]Agent, error)
	// Create inserts a, taking its e-mail address from newEmail (called again
	// when an address was ever issued before). When maxPerOwner > 0 and the
	// owner already has that many agents it returns a *LimitError; the count
	// is taken under a per-owner lock, so concurrent creates cannot exceed it.
	Create(ctx context.Context, a Agent, newEmail func() string, maxPerOwner int) (Agent, error)
	// Get returns the agent; owner "" means any owner. ErrNotFound otherwise.
	Get(ctx context.Context, owner, id string) (Agent, error)
	// GetByEmail returns the agent whose own address is email (compared in
	// lower case, as addresses are stored); ErrNotFound otherwise.
	GetByEmail(ctx context.Context, email string) (Agent, error)
	// Update locks the owner's agent, applies fn and saves the result (and
	// fn's events, and an access change for every user of the agent) when fn
	// reports a change.
	Update(ctx context.Context, owner, id string, fn func(cur Agent) (next Agent, changed []string, err error)) (Agent, error)
	ListSubscribers(ctx context.Context, owner, agentID string) ([]Subscriber, error)
	// AddSubscriber adds email to the owner's agent: active for user when
	// user is not nil (a user known to have verified that address), else
	// invited. ErrAlreadyInvited when the address is on the list; a
	// ValidationError when the address is the owner's (user, or a user the
	// catalog learned from identity's events).
	AddSubscriber(ctx context.Context, owner, agentID, email string, user *User, at time.Time) (Subscriber, error)
	// RememberUser records (or refreshes) a user identity reported outside
	// its events (an empty name does not replace a known one).
	RememberUser(ctx context.Context, u User, at time.Time) error
	// ActivateVerified activates every invitation of u.Email for u, who has
	// proved the address is theirs (a verified ID token); it returns how
	// many it activated. Cheap when there is none (one indexed lookup).
	ActivateVerified(ctx context.Context, u User, at time.Time) (int, error)
	// RemoveSubscriber deletes the subscriber and, when it had a uid,
	// records an access change for that uid.
	RemoveSubscriber(ctx context.Context, owner, agentID, subscriberID string, at time.Time) error
	// SetSubscriberCap sets a subscriber's cap mode and custom amount (nil
	// unless CapCustom) and, when that changed and the subscriber has a uid,
	// records an access change for that uid. ErrNotFound /
	// ErrSubscriberNotFound otherwise.
	SetSubscriberCap(ctx context.Context, owner, agentID, subscriberID, mode string, cents *int64) (Subscriber, error)
	// Access returns the agent, uid's role on it ("" when none) and, for a
	// subscriber, the effective monthly cap in cents (nil = none) in one
	// indexed query; ErrNotFound for an unknown agent.
	Access(ctx context.Context, agentID, uid string) (Agent, string, *int64, error)
	// AccessChangesSince returns the access changes recorded at or after
	// (since, or the database's now() when since is zero) minus margin, each
	// (agent, uid) once, and the database's now().
	AccessChangesSince(ctx context.Context, since time.Time, margin time.Duration) ([]AccessChange, time.Time, error)
	// ListShared returns the agents uid is an active subscriber of (not
	// redacted), newest subscription first, each agent once.
	ListShared(ctx context.Context, uid string) ([]SharedAgent, error)
	// Delete deletes the owner's agent with its subscribers, reviews and
	// reports, emits AgentDeleted and records an access change of every
	// user of it; its e-mail address stays issued (delete.go). ErrNotFound
	// for another owner's or an unknown agent.
	Delete(ctx context.Context, owner, id string, at time.Time) error
	// ListListed returns up to f.Limit+1 listed agents in f's order after
	// f.After (marketplace_postgres.go).
	ListListed(ctx context.Context, f ListFilter) ([]Listing, error)
	// GetListed returns the listed agent with this slug; ErrNotFound when
	// there is none (unknown, or not listed).
	GetListed(ctx context.Context, slug string) (Listing, error)
	// ListedCategories counts the listed agents per category, most first.
	ListedCategories(ctx context.Context) ([]CategoryCount, error)
	// ListedSitemap returns up to limit listed agents' slugs and last
	// changes, most answered first (pages.go).
	ListedSitemap(ctx context.Context, limit int) ([]SitemapEntry, error)
	// Invitation e-mails (invitations.go).
	InvitationStore
}

// Service is the catalog API.
type Service interface {
	ListAgents(ctx context.Context, owner string) ([]Agent, error)
	CreateAgent(ctx context.Context, owner string, in CreateInput) (Agent, error)
	GetAgent(ctx context.Context, owner, id string) (Agent, error)
	UpdateAgent(ctx context.Context, owner, id string, in UpdateInput) (Agent, error)
	ListSubscribers(ctx context.Context, owner, agentID string) ([]Subscriber, error)
	// InviteSubscriber adds email to the agent; ownerEmail is the caller's
	// own address (from the token) which cannot be invited.
	InviteSubscriber(ctx context.Context, owner, ownerEmail, agentID, email string) (Subscriber, error)
	RemoveSubscriber(ctx context.Context, owner, agentID, subscriberID string) error
	// DeleteAgent deletes the owner's agent (delete.go); another user's or an
	// unknown agent is ErrNotFound.
	DeleteAgent(ctx context.Context, owner, id string) error
	// SetSubscriberCap changes a subscriber's monthly cap (the owner's agent
	// only: another user's agent is ErrNotFound whatever the input).
	SetSubscriberCap(ctx context.Context, owner, agentID, subscriberID string, in SubscriberCapInput) (Subscriber, error)
	// ClaimInvitations activates the caller's pending invitations (to any
	// owner's agents) when, and only when, the caller's ID token says their
	// e-mail address is verified (Firebase email_verified; Google sign-ins
	// are). It returns how many it activated; 0 for an unverified address.
	ClaimInvitations(ctx context.Context, c Claimant) (int, error)
	// Invitation e-mails: resending one, counting the pending ones
	// (invitations.go).
	InvitationService

	// FindAgent returns any agent by id (internal gRPC).
	FindAgent(ctx context.Context, id string) (Agent, error)
	// FindAgentByEmail returns the agent whose own e-mail address is email,
	// case-insensitively (internal gRPC: the mail service routes inbound mail
	// with it). ErrNotFound when no agent has it; a ValidationError when empty.
	FindAgentByEmail(ctx context.Context, email string) (Agent, error)
	// CheckOwnership reports whether the agent exists and whether uid owns it.
	CheckOwnership(ctx context.Context, agentID, uid string) (owned, exists bool, err error)
	// CheckAccess reports whether uid may use the agent (owner, active
	// subscriber, or — the marketplace enabled and the agent listed — any
	// other signed-in user as a consumer who pays for themselves), who pays
	// and, for a subscriber, their monthly cap. No
	// access and unknown agents are Access{Allowed: false}, not errors; empty
	// arguments are a ValidationError.
	CheckAccess(ctx context.Context, agentID, uid string) (Access, error)
	// AccessChangesSince lists the access changes (internal gRPC) recorded
	// since since (zero: the database's now) minus margin (clamped to 0 ..
	// AccessChangeRetention), and the database's now, the next since.
	AccessChangesSince(ctx context.Context, since time.Time, margin time.Duration) ([]AccessChange, time.Time, error)
	// ListSharedAgents returns the agents uid is an active subscriber of,
	// newest subscription first, with the owner-only fields withheld.
	ListSharedAgents(ctx context.Context, uid string) ([]SharedAgent, error)

	// The public marketplace (marketplace.go): listed agents only, nothing
	// owner-only. ErrNotFound while the marketplace is off.
	ListListed(ctx context.Context, q ListQuery) (ListPage, error)
	GetListed(ctx context.Context, slug string) (Listing, error)
	ListCategories(ctx context.Context) ([]CategoryCount, error)
	// The marketplace's pages (pages.go): an agent page's listing (no
	// documents count) and sitemap.xml's agents.
	ListedPreview(ctx context.Context, slug string) (Listing, error)
	Sitemap(ctx context.Context, limit int) ([]SitemapEntry, error)
}

// Config configures the service.
type Config struct {
	// EmailDomain is the domain of agents' addresses, e.g. agents.agentic.local.
	EmailDomain string
	// Directory looks invitees up at invite time (optional).
	Directory Directory
	// DirectoryTimeout bounds one lookup (default 2s).
	DirectoryTimeout time.Duration
	// MaxAgentsPerUser bounds each owner's agents (0:
	// DefaultMaxAgentsPerUser; negative: no limit).
	MaxAgentsPerUser int
	Logger           *slog.Logger

	// Marketplace is the launch switch (MARKETPLACE_ENABLED): off, isPublic
	// true is refused as "coming soon", the marketplace fields are ignored
	// and the public routes answer 404.
	Marketplace bool
	// Documents counts an agent's documents (the documents service): the
	// publishing rule and the profile's documentsCount. nil: publishing
	// answers ErrDocumentsUnavailable.
	Documents Documents
	// DocumentsTimeout bounds one count (default 2s).
	DocumentsTimeout time.Duration
	// CategoriesTTL is how long the marketplace's categories are reused
	// (0: DefaultCategoriesTTL; negative: counted on every request).
	CategoriesTTL time.Duration
	// Listings caches the marketplace's pages and profiles (nil: none);
	// its Listen must run for it to serve.
	Listings *ListingCache
}

type service struct {
	store  Store
	cfg    Config
	now    func() time.Time
	logger *slog.Logger
	// docCounts caches the profile's documentsCount (marketplace.go).
	docCounts *countCache
	// categories caches ListCategories (marketplace.go).
	categories categoriesCache
}

// NewService returns the Service backed by store.
func NewService(store Store, cfg Config) Service {
	if cfg.DirectoryTimeout <= 0 {
		cfg.DirectoryTimeout = 2 * time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxAgentsPerUser == 0 {
		cfg.MaxAgentsPerUser = DefaultMaxAgentsPerUser
	}
	if cfg.DocumentsTimeout <= 0 {
		cfg.DocumentsTimeout = 2 * time.Second
	}
	if cfg.CategoriesTTL == 0 {
		cfg.CategoriesTTL = DefaultCategoriesTTL
	}
	return &service{store: store, cfg: cfg, now: time.Now, logger: cfg.Logger, docCounts: newCountCache(profileCountTTL, 10000)}
}

// validID reports whether id is a UUID (anything else cannot exist).
func validID(id string) bool {
	_, err := uuid.Parse(id)
	return err == nil && len(id) == 36
}

func (s *service) ListAgents(ctx context.Context, owner string) ([]Agent, error) {
	return s.store.List(ctx, owner)
}

func (s *service) CreateAgent(ctx context.Context, owner string, in CreateInput) (Agent, error) {
	if owner == "" {
		return Agent{}, errors.New("create agent: no owner")
	}
	in, err := ValidateCreateFor(in, s.cfg.Marketplace)
	if err != nil {
		return Agent{}, err
	}
	id, err := uuid.NewV7()
	if err != nil {
		return Agent{}, err
	}
	now := s.now().UTC()
	a := Agent{
		ID: id.String(), OwnerUID: owner, Name: in.Name, Description: in.Description, Category: in.Category,
		Status: StatusActive, IsPublic: false, IconName: in.IconName, IconColor: in.IconColor,
		Instructions: in.Instructions, Tags: in.Tags, CreatedAt: now, UpdatedAt: now,
	}
	limit := max(s.cfg.MaxAgentsPerUser, 0)
	return s.store.Create(ctx, a, func() string { return NewEmailAddress(in.Name, s.cfg.EmailDomain) }, limit)
}

func (s *service) GetAgent(ctx context.Context, owner, id string) (Agent, error) {
	if !validID(id) || owner == "" {
		return Agent{}, ErrNotFound
	}
	return s.store.Get(ctx, owner, id)
}

func (s *service) UpdateAgent(ctx context.Context, owner, id string, in UpdateInput) (Agent, error) {
	if !validID(id) || owner == "" {
		return Agent{}, ErrNotFound
	}
	// Ownership before validation: another user's agent is 404 whatever the body.
	cur, err := s.store.Get(ctx, owner, id)
	if err != nil {
		return Agent{}, err
	}
	in, err = ValidateUpdateFor(in, s.cfg.Marketplace)
	if err != nil {
		return Agent{}, err
	}
	// Publishing (marketplace.go): the agent must be active (as the update
	// leaves it) and have a readable document.
	var (
		ready   int64
		checked bool
	)
	if in.IsPublic != nil && *in.IsPublic && !cur.IsPublic {
		if ready, err = s.checkPublish(ctx, cur, in); err != nil {
			return Agent{}, err
		}
		checked = true
	}
	updated, err := s.store.Update(ctx, owner, id, func(cur Agent) (Agent, []string, error) {
		next, changed := applyUpdate(cur, in)
		if len(changed) == 0 {
			return next, changed, nil
		}
		now := s.now().UTC()
		next.UpdatedAt = now
		switch {
		case next.IsPublic && !cur.IsPublic:
			// Re-checked on the locked row: a concurrent PATCH may have
			// deactivated it since checkPublish, or unpublished it since
			// the read that skipped the check (the caller may retry).
			if next.Status != StatusActive {
				return Agent{}, nil, publishRefused(MsgPublishNeedsActive)
			}
			if !checked {
				return Agent{}, nil, publishRefused(MsgPublishNeedsDocuments)
			}
			next.PublishedAt, next.DocumentsCount = now, ready
		case !next.IsPublic:
			next.PublishedAt = time.Time{}
		}
		return next, changed, nil
	})
	if err == nil && (cur.IsPublic || updated.IsPublic) {
		s.listedChanged()
	}
	return updated, err
}

// listedChanged drops this replica's listing cache at once after its own
// change of a listed agent; the other replicas drop theirs on the change's
// notification (listingcache.go).
func (s *service) listedChanged() {
	if s.cfg.Listings != nil {
		s.cfg.Listings.Drop()
	}
}

// applyUpdate applies the given fields and lists (JSON names) those whose
// value actually changed.
func applyUpdate(cur Agent, in UpdateInput) (Agent, []string) {
	next := cur
	next.Tags = append([]string{}, cur.Tags...)
	var changed []string
	if in.Name != nil && *in.Name != cur.Name {
		next.Name = *in.Name
		changed = append(changed, "name")
	}
	if in.IconName != nil && *in.IconName != cur.IconName {
		next.IconName = *in.IconName
		changed = append(changed, "iconName")
	}
	if in.IconColor != nil && *in.IconColor != cur.IconColor {
		next.IconColor = *in.IconColor
		changed = append(changed, "iconColor")
	}
	if in.Description != nil && *in.Description != cur.Description {
		next.Description = *in.Description
		changed = append(changed, "description")
	}
	if in.Instructions != nil && *in.Instructions != cur.Instructions {
		next.Instructions = *in.Instructions
		changed = append(changed, "instructions")
	}
	if in.Tags != nil && !equalStrings(*in.Tags, cur.Tags) {
		next.Tags = append([]string{}, *in.Tags...)
		changed = append(changed, "tags")
	}
	if in.IsPublic != nil && *in.IsPublic != cur.IsPublic {
		next.IsPublic = *in.IsPublic
		changed = append(changed, "isPublic")
	}
	if in.Status != nil && *in.Status != cur.Status {
		next.Status = *in.Status
		changed = append(changed, "status")
	}
	if in.SubscriberMonthlyCapCents != nil {
		if v, ok := in.SubscriberMonthlyCapCents.value(); ok && !equalCents(v, cur.SubscriberMonthlyCapCents) {
			next.SubscriberMonthlyCapCents = v
			changed = append(changed, FieldSubscriberCap)
		}
	}
	return applyListingUpdate(cur, next, in, changed)
}

// FieldSubscriberCap is the changed-field name of the default cap. It is
// not part of AgentUpdated (the event has no such field).
const FieldSubscriberCap = "subscriberMonthlyCapCents"

func equalCents(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (s *service) ListSubscribers(ctx context.Context, owner, agentID string) ([]Subscriber, error) {
	if !validID(agentID) || owner == "" {
		return nil, ErrNotFound
	}
	return s.store.ListSubscribers(ctx, owner, agentID)
}

// rememberInviter makes sure the catalog knows the owner's name before the
// invitation e-mail is written ("Alice shared the agent …"): known_users
// learns it from identity's user.onboarded events, which may not have
// arrived for an owner who signed up a moment ago. Best effort: without it
// the e-mail names "An Agentic user".
func (s *service) rememberInviter(ctx context.Context, owner, ownerEmail string) {
	if s.cfg.Directory == nil || strings.TrimSpace(ownerEmail) == "" {
		return
	}
	lctx, cancel := context.WithTimeout(ctx, s.cfg.DirectoryTimeout)
	u, err := s.cfg.Directory.FindByEmail(lctx, ownerEmail)
	cancel()
	if err != nil || u == nil || u.UID != owner || strings.TrimSpace(u.Name) == "" {
		return
	}
	if err := s.store.RememberUser(ctx, *u, s.now().UTC()); err != nil {
		s.logger.WarnContext(ctx, "remembering the inviter's name failed", "error", err)
	}
}

func (s *service) InviteSubscriber(ctx context.Context, owner, ownerEmail, agentID, email string) (Subscriber, error) {
	if !validID(agentID) || owner == "" {
		return Subscriber{}, ErrNotFound
	}
	if _, err := s.store.Get(ctx, owner, agentID); err != nil {
		return Subscriber{}, err
	}
	email, err := NormalizeEmail(email)
	if err != nil {
		return Subscriber{}, err
	}
	ownEmail := &ValidationError{Fields: []FieldError{{"email", MsgOwnEmail}}}
	if ownerEmail != "" && strings.EqualFold(strings.TrimSpace(ownerEmail), email) {
		return Subscriber{}, ownEmail
	}
	var user *User
	if s.cfg.Directory != nil {
		lctx, cancel := context.WithTimeout(ctx, s.cfg.DirectoryTimeout)
		user, err = s.cfg.Directory.FindByEmail(lctx, email)
		cancel()
		if err != nil {
			// Identity unreachable: the invite still succeeds (invited); the
			// user.onboarded event or known_users activates it later.
			s.logger.WarnContext(ctx, "identity lookup failed; inviting without it", "error", err)
			user = nil
		}
	}
	if user != nil && user.UID == owner {
		return Subscriber{}, ownEmail
	}
	s.rememberInviter(ctx, owner, ownerEmail)
	// Always invited: whether the address has an account is not revealed,
	// and only the address's verified owner activates it (ClaimInvitations).
	return s.store.AddSubscriber(ctx, owner, agentID, email, nil, s.now().UTC())
}

func (s *service) ClaimInvitations(ctx context.Context, c Claimant) (int, error) {
	if !c.EmailVerified || c.UID == "" {
		return 0, nil
	}
	email, err := NormalizeEmail(c.Email)
	if err != nil {
		return 0, nil // no usable address in the token: nothing to claim
	}
	return s.store.ActivateVerified(ctx, User{UID: c.UID, Email: email, Name: strings.TrimSpace(c.Name)}, s.now().UTC())
}

func (s *service) RemoveSubscriber(ctx context.Context, owner, agentID, subscriberID string) error {
	if !validID(agentID) || owner == "" {
		return ErrNotFound
	}
	if !validID(subscriberID) {
		if _, err := s.store.Get(ctx, owner, agentID); err != nil {
			return err
		}
		return ErrSubscriberNotFound
	}
	return s.store.RemoveSubscriber(ctx, owner, agentID, subscriberID, s.now().UTC())
}

func (s *service) SetSubscriberCap(ctx context.Context, owner, agentID, subscriberID string, in SubscriberCapInput) (Subscriber, error) {
	if !validID(agentID) || owner == "" {
		return Subscriber{}, ErrNotFound
	}
	// Ownership before validation: another user's agent is 404 whatever the body.
	if _, err := s.store.Get(ctx, owner, agentID); err != nil {
		return Subscriber{}, err
	}
	if !validID(subscriberID) {
		return Subscriber{}, ErrSubscriberNotFound
	}
	mode, cents, err := ValidateSubscriberCap(in)
	if err != nil {
		return Subscriber{}, err
	}
	return s.store.SetSubscriberCap(ctx, owner, agentID, subscriberID, mode, cents)
}

func (s *service) FindAgent(ctx context.Context, id string) (Agent, error) {
	if strings.TrimSpace(id) == "" {
		return Agent{}, &ValidationError{Fields: []FieldError{{"agentId", "agent_id is required"}}}
	}
	if !validID(id) {
		return Agent{}, ErrNotFound
	}
	return s.withListed(s.store.Get(ctx, "", id))
}

// withListed sets a.Listed (the internal reads).
func (s *service) withListed(a Agent, err error) (Agent, error) {
	if err == nil {
		a.Listed = s.cfg.Marketplace && IsListed(a)
	}
	return a, err
}

func (s *service) FindAgentByEmail(ctx context.Context, email string) (Agent, error) {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return Agent{}, &ValidationError{Fields: []FieldError{{"email", "email is required"}}}
	}
	if chars(email) > MaxEmail || !strings.Contains(email, "@") {
		return Agent{}, ErrNotFound // cannot be an issued address
	}
	return s.withListed(s.store.GetByEmail(ctx, email))
}

func (s *service) CheckOwnership(ctx context.Context, agentID, uid string) (bool, bool, error) {
	if strings.TrimSpace(agentID) == "" || strings.TrimSpace(uid) == "" {
		return false, false, &ValidationError{Fields: []FieldError{{"agentId", "agent_id and uid are required"}}}
	}
	if !validID(agentID) {
		return false, false, nil
	}
	a, err := s.store.Get(ctx, "", agentID)
	if errors.Is(err, ErrNotFound) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	return a.OwnerUID == uid, true, nil
}

func (s *service) CheckAccess(ctx context.Context, agentID, uid string) (Access, error) {
	if strings.TrimSpace(agentID) == "" || strings.TrimSpace(uid) == "" {
		return Access{}, &ValidationError{Fields: []FieldError{{"agentId", "agent_id and uid are required"}}}
	}
	if !validID(agentID) {
		return Access{}, nil
	}
	a, role, capCents, err := s.store.Access(ctx, agentID, uid)
	if errors.Is(err, ErrNotFound) {
		return Access{}, nil
	}
	if err != nil {
		return Access{}, err
	}
	a.Listed = s.cfg.Marketplace && IsListed(a)
	if role == "" {
		// Neither owner nor active subscriber: a consumer of a listed agent
		// (the marketplace enabled; public, published and active, as the
		// marketplace lists decide), paying from their own wallet.
		if !a.Listed {
			return Access{}, nil
		}
		return Access{Allowed: true, Role: RoleConsumer, PayerUID: uid, Agent: a}, nil
	}
	acc := Access{Allowed: true, Role: role, PayerUID: a.OwnerUID, Agent: a}
	if role == RoleSubscriber && capCents != nil {
		acc.SubscriberCapMicros = *capCents * MicrosPerCent
	}
	return acc, nil
}

func (s *service) AccessChangesSince(ctx context.Context, since time.Time, margin time.Duration) ([]AccessChange, time.Time, error) {
	margin = min(max(margin, 0), AccessChangeRetention)
	return s.store.AccessChangesSince(ctx, since, margin)
}

func (s *service) ListSharedAgents(ctx context.Context, uid string) ([]SharedAgent, error) {
	if uid == "" {
		return []SharedAgent{}, nil
	}
	list, err := s.store.ListShared(ctx, uid)
	if err != nil {
		return nil, err
	}
	for i := range list {
		list[i].Agent = ForSubscriber(list[i].Agent)
	}
	return list, nil
}
