// Package transport exposes the catalog endpoints over HTTP/JSON (the public
// /api/agents routes) and gRPC (the internal CatalogService).
package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"time"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Public routes (net/http patterns).
const (
	PathAgents      = "/api/agents"
	PathAgent       = "/api/agents/{id}"
	PathShared      = "/api/agents/shared"
	PathSubscribers = "/api/agents/{id}/subscribers"
	PathSubscriber  = "/api/agents/{id}/subscribers/{subscriberId}"
)

// Option configures RegisterHTTP.
type Option func(*httpOptions)

type httpOptions struct {
	inviteGate func(http.Handler) http.Handler
	// resendGate is in front of the resend-invitation route (the
	// per-subscriber quota; WithResendGate, invitations.go).
	resendGate func(http.Handler) http.Handler
	// marketplaceOff: MARKETPLACE_ENABLED=false (WithMarketplace, reviews.go).
	marketplaceOff bool
	// marketplaceGate is in front of the public marketplace routes (the
	// per-address rate limit; WithMarketplaceGate, marketplace.go).
	marketplaceGate func(http.Handler) http.Handler
	// pages: the agent pages and sitemap.xml (WithPages, pages.go).
	pages *PagesConfig
}

// WithInviteGate puts gate between the authentication (with its revocation
// check) and the handler of POST /api/agents/{id}/subscribers: the
// per-agent invitation quota (internal/app/quotas.go). The claims are in the
// request's context and the agent id in r.PathValue("id").
func WithInviteGate(gate func(http.Handler) http.Handler) Option {
	return func(o *httpOptions) { o.inviteGate = gate }
}

// RegisterHTTP adds the /api/agents routes to mux, each behind the platform
// auth middleware (verifier).
func RegisterHTTP(mux *http.ServeMux, set endpoints.Set, verifier auth.Verifier, logger *slog.Logger, options ...Option) {
	if logger == nil {
		logger = slog.Default()
	}
	var o httpOptions
	for _, opt := range options {
		opt(&o)
	}
	if o.inviteGate == nil {
		o.inviteGate = func(h http.Handler) http.Handler { return h }
	}
	opts := server.KitOptions(encodeHTTPError(logger))
	protect := auth.Middleware(verifier, logger)
	// Sensitive routes (money, sharing, keys, deletion) also check that the
	// token was not revoked and its user not disabled (docs/identity.md).
	fresh := auth.RequireFresh(verifier, logger)
	route := func(method, path string, e func(context.Context, any) (any, error), dec httptransport.DecodeRequestFunc, enc httptransport.EncodeResponseFunc) {
		server.Route(mux, method, path, protect(httptransport.NewServer(e, dec, enc, opts...)))
	}
	sensitive := func(method, path string, e func(context.Context, any) (any, error), dec httptransport.DecodeRequestFunc, enc httptransport.EncodeResponseFunc) {
		server.Route(mux, method, path, fresh(httptransport.NewServer(e, dec, enc, opts...)))
	}
	route(http.MethodGet, PathAgents, set.ListAgents, decodeListAgents, encodeJSON(http.StatusOK))
	// Writes check revocation too (issue 30 item 1).
	sensitive(http.MethodPost, PathAgents, set.CreateAgent, decodeCreateAgent, encodeJSON(http.StatusCreated))
	route(http.MethodGet, PathAgent, set.GetAgent, decodeAgentRequest, encodeJSON(http.StatusOK))
	sensitive(http.MethodPatch, PathAgent, set.UpdateAgent, decodeUpdateAgent, encodeJSON(http.StatusOK))
	// Deleting an agent (issue 29): 204, or 404 not_found for anyone but the owner.
	sensitive(http.MethodDelete, PathAgent, set.DeleteAgent, decodeAgentRequest, encodeJSON(http.StatusNoContent))
	route(http.MethodGet, PathSubscribers, set.ListSubscribers, decodeAgentRequest, encodeJSON(http.StatusOK))
	server.Route(mux, http.MethodPost, PathSubscribers,
		fresh(o.inviteGate(httptransport.NewServer(set.InviteSubscriber, decodeInvite, encodeJSON(http.StatusCreated), opts...))))
	sensitive(http.MethodPatch, PathSubscriber, set.SetSubscriberCap, decodeSubscriberCap, encodeJSON(http.StatusOK))
	sensitive(http.MethodDelete, PathSubscriber, set.RemoveSubscriber, decodeRemove, encodeJSON(http.StatusNoContent))

	// GET /api/agents/shared: the literal path is more specific than
	// "GET /api/agents/{id}", so the mux prefers it. server.Route cannot be
	// used here: its any-method 405 fallback for this path would conflict
	// with "GET /api/agents/{id}" (net/http panics on such overlaps), so the
	// other methods get explicit 405s instead of reaching the {id} routes.
	mux.Handle(http.MethodGet+" "+PathShared,
		protect(httptransport.NewServer(set.ListSharedAgents, decodeListAgents, encodeJSON(http.StatusOK), opts...)))
	for _, m := range []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete} {
		mux.HandleFunc(m+" "+PathShared, func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Allow", http.MethodGet)
			server.WriteError(w, server.ErrMethodNotAllowed)
		})
	}

	// Invitation e-mails: resend one, count the caller's pending ones (invitations.go).
	registerInvitations(mux, set, protect, fresh, o.resendGate, opts)

	// The marketplace's reviews, replies and reports (reviews.go).
	registerReviews(mux, set, fresh, logger, o.marketplaceOff, o.marketplaceGate)
	// The public marketplace: lists, profiles, categories (marketplace.go).
	registerMarketplace(mux, set, logger, o.marketplaceOff, o.marketplaceGate)
	// The marketplace's pages outside /api: agent pages, sitemap.xml (pages.go).
	if o.pages != nil {
		registerPages(mux, set, logger, o.marketplaceOff, *o.pages)
	}
}

// AgentJSON is an agent as the HTTP API shows it.
type AgentJSON struct {
	ID                string    `json:"id"`
	UserID            string    `json:"userId"`
	Name              string    `json:"name"`
	Description       string    `json:"description"`
	Category          string    `json:"category"`
	Status            string    `json:"status"`
	IsPublic          bool      `json:"isPublic"`
	IconName          string    `json:"iconName"`
	IconColor         string    `json:"iconColor"`
	Instructions      string    `json:"instructions"`
	Tags              []string  `json:"tags"`
	Subscribers       int64     `json:"subscribers"`
	TotalInteractions int64     `json:"totalInteractions"`
	Email             string    `json:"email"`
	CreatedAt         time.Time `json:"createdAt"`
	UpdatedAt         time.Time `json:"updatedAt"`
	// SubscriberMonthlyCapCents is the default monthly cap per subscriber;
	// null = no cap (always null in shared-agent responses).
	SubscriberMonthlyCapCents *int64 `json:"subscriberMonthlyCapCents"`
	// The marketplace fields (issue 27): slug null until the first publish,
	// publishedAt null while not listed.
	Slug              *string    `json:"slug"`
	MarkupPercent     int        `json:"markupPercent"`
	GreetingCostCents int        `json:"greetingCostCents"`
	Greeting          string     `json:"greeting"`
	MemoryTokens      int        `json:"memoryTokens"`
	ShowSources       bool       `json:"showSources"`
	PublishedAt       *time.Time `json:"publishedAt"`
}

// AgentToJSON converts a domain agent.
func AgentToJSON(a agents.Agent) AgentJSON {
	tags := a.Tags
	if tags == nil {
		tags = []string{}
	}
	j := AgentJSON{
		ID: a.ID, UserID: a.OwnerUID, Name: a.Name, Description: a.Description, Category: a.Category,
		Status: a.Status, IsPublic: a.IsPublic, IconName: a.IconName, IconColor: a.IconColor,
		Instructions: a.Instructions, Tags: tags, Subscribers: a.Subscribers,
		TotalInteractions: a.TotalInteractions, Email: a.Email,
		CreatedAt: a.CreatedAt.UTC(), UpdatedAt: a.UpdatedAt.UTC(),
		SubscriberMonthlyCapCents: a.SubscriberMonthlyCapCents,
		MarkupPercent:             a.MarkupPercent, GreetingCostCents: a.GreetingCostCents, Greeting: a.Greeting,
		MemoryTokens: a.MemoryTokens, ShowSources: a.ShowSources,
	}
	if a.Slug != "" {
		slug := a.Slug
		j.Slug = &slug
	}
	if !a.PublishedAt.IsZero() {
		at := a.PublishedAt.UTC()
		j.PublishedAt = &at
	}
	return j
}

// SharedAgentJSON is an agent in GET /api/agents/shared: the AgentJSON shape
// (owner-only fields withheld with empty values, see agents.ForSubscriber)
// plus who shares it and the caller's own subscription.
type SharedAgentJSON struct {
	AgentJSON
	// OwnerName is omitted when the catalog does not know the owner's name.
	OwnerName string `json:"ownerName,omitempty"`
	// SharedAt is when the caller's subscription became active.
	SharedAt time.Time `json:"sharedAt"`
	// Interactions counts the caller's own answers from this agent.
	Interactions int64 `json:"interactions"`
}

// SharedAgentToJSON converts a shared agent. userId is the owner's display
// name (as ownerName; "" when unknown), never the owner's uid, and the
// owner's cap settings are withheld (null).
func SharedAgentToJSON(s agents.SharedAgent) SharedAgentJSON {
	a := agents.ForSubscriber(s.Agent) // (already redacted by the service; kept here so the uid can never leak)
	j := SharedAgentJSON{AgentJSON: AgentToJSON(a), OwnerName: s.OwnerName, SharedAt: s.SharedAt.UTC(), Interactions: s.Interactions}
	j.UserID = s.OwnerName
	return j
}

// SubscriberJSON is a subscriber as the HTTP API shows it.
type SubscriberJSON struct {
	ID           string    `json:"id"`
	Name         string    `json:"name"`
	Email        string    `json:"email"`
	Status       string    `json:"status"`
	JoinedDate   time.Time `json:"joinedDate"`
	Interactions int64     `json:"interactions"`
	// CapMode is "default", "none" or "custom"; MonthlyCapCents the custom
	// amount (null otherwise); EffectiveCapCents the cap that applies (null
	// = no cap).
	CapMode           string `json:"capMode"`
	MonthlyCapCents   *int64 `json:"monthlyCapCents"`
	EffectiveCapCents *int64 `json:"effectiveCapCents"`
}

// SubscriberToJSON converts a domain subscriber.
func SubscriberToJSON(s agents.Subscriber) SubscriberJSON {
	mode := s.CapMode
	if mode == "" {
		mode = agents.CapDefault
	}
	return SubscriberJSON{
		ID: s.ID, Name: s.DisplayName(), Email: s.Email, Status: s.Status,
		JoinedDate: s.JoinedDate().UTC(), Interactions: s.Interactions,
		CapMode: mode, MonthlyCapCents: s.MonthlyCapCents, EffectiveCapCents: s.EffectiveCapCents,
	}
}

func decodeListAgents(ctx context.Context, _ *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.ListAgentsRequest{Claims: c}, nil
}

func decodeAgentRequest(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.AgentRequest{Claims: c, AgentID: r.PathValue("id")}, nil
}

// createBody is the POST /api/agents body. userId is accepted (any JSON) and
// ignored: the owner is the token's uid.
type createBody struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Category     string          `json:"category"`
	IsPublic     bool            `json:"isPublic"`
	IconName     string          `json:"iconName"`
	IconColor    string          `json:"iconColor"`
	UserID       json.RawMessage `json:"userId"`
	Instructions string          `json:"instructions"`
	Tags         []string        `json:"tags"`
}

func decodeCreateAgent(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b createBody
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	return endpoints.CreateAgentRequest{Claims: c, Input: agents.CreateInput{
		Name: b.Name, Description: b.Description, Category: b.Category, IsPublic: b.IsPublic,
		IconName: b.IconName, IconColor: b.IconColor, Instructions: b.Instructions, Tags: b.Tags,
	}}, nil
}

// updateBody is the PATCH body; absent or null fields are left unchanged,
// except subscriberMonthlyCapCents, where null means "no cap".
type updateBody struct {
	Name                      *string         `json:"name"`
	IconName                  *string         `json:"iconName"`
	IconColor                 *string         `json:"iconColor"`
	Instructions              *string         `json:"instructions"`
	Status                    *string         `json:"status"`
	IsPublic                  *bool           `json:"isPublic"`
	Tags                      *[]string       `json:"tags"`
	Description               *string         `json:"description"`
	SubscriberMonthlyCapCents json.RawMessage `json:"subscriberMonthlyCapCents"`
	// The marketplace fields; ignored while the marketplace is off.
	MarkupPercent     json.RawMessage `json:"markupPercent"`
	GreetingCostCents json.RawMessage `json:"greetingCostCents"`
	Greeting          *string         `json:"greeting"`
	MemoryTokens      json.RawMessage `json:"memoryTokens"`
	ShowSources       *bool           `json:"showSources"`
}

// capFromJSON reads a cap in cents: absent → nil; null → no cap; a number
// → its amount (Invalid when it is not a whole number, which validation
// then refuses); any other JSON value → 400 invalid_json, like a wrong type
// in any other field.
func capFromJSON(field string, raw json.RawMessage) (*agents.CapCents, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil, nil
	}
	if string(raw) == "null" {
		return &agents.CapCents{None: true}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, server.InvalidJSON(field + " must be a number or null")
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, server.InvalidJSON(field + " must be a number or null")
	}
	if i, err := n.Int64(); err == nil {
		return &agents.CapCents{Cents: i}, nil
	}
	if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1e15 {
		return &agents.CapCents{Cents: int64(f)}, nil // 1e3
	}
	return &agents.CapCents{Invalid: true}, nil
}

func decodeUpdateAgent(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b updateBody
	if err := server.DecodeJSON(nil, r, &b, server.AllowEmpty()); err != nil {
		return nil, err
	}
	capCents, err := capFromJSON("subscriberMonthlyCapCents", b.SubscriberMonthlyCapCents)
	if err != nil {
		return nil, err
	}
	in := agents.UpdateInput{
		Name: b.Name, IconName: b.IconName, IconColor: b.IconColor,
		Instructions: b.Instructions, Status: b.Status, IsPublic: b.IsPublic, Tags: b.Tags, Description: b.Description,
		SubscriberMonthlyCapCents: capCents, Greeting: b.Greeting, ShowSources: b.ShowSources,
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  **agents.WholeNumber
	}{
		{"markupPercent", b.MarkupPercent, &in.MarkupPercent},
		{"greetingCostCents", b.GreetingCostCents, &in.GreetingCostCents},
		{"memoryTokens", b.MemoryTokens, &in.MemoryTokens},
	} {
		if *f.dst, err = wholeFromJSON(f.name, f.raw); err != nil {
			return nil, err
		}
	}
	return endpoints.UpdateAgentRequest{Claims: c, AgentID: r.PathValue("id"), Input: in}, nil
}

// decodeSubscriberCap decodes PATCH /api/agents/{id}/subscribers/{subscriberId}:
// {"capMode": "default"|"none"|"custom", "monthlyCapCents": n}.
func decodeSubscriberCap(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b struct {
		CapMode         string          `json:"capMode"`
		MonthlyCapCents json.RawMessage `json:"monthlyCapCents"`
	}
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	capCents, err := capFromJSON("monthlyCapCents", b.MonthlyCapCents)
	if err != nil {
		return nil, err
	}
	return endpoints.SetSubscriberCapRequest{Claims: c, AgentID: r.PathValue("id"), SubscriberID: r.PathValue("subscriberId"),
		Input: agents.SubscriberCapInput{Mode: b.CapMode, Cents: capCents}}, nil
}

func decodeInvite(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b struct {
		Email string `json:"email"`
	}
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	return endpoints.InviteSubscriberRequest{Claims: c, AgentID: r.PathValue("id"), Email: b.Email}, nil
}

func decodeRemove(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.RemoveSubscriberRequest{Claims: c, AgentID: r.PathValue("id"), SubscriberID: r.PathValue("subscriberId")}, nil
}

func encodeJSON(status int) httptransport.EncodeResponseFunc {
	return func(_ context.Context, w http.ResponseWriter, resp any) error {
		switch r := resp.(type) {
		case endpoints.AgentsResponse:
			out := make([]AgentJSON, len(r.Agents))
			for i, a := range r.Agents {
				out[i] = AgentToJSON(a)
			}
			server.WriteJSON(w, status, out)
		case endpoints.SharedAgentsResponse:
			out := make([]SharedAgentJSON, len(r.Agents))
			for i, a := range r.Agents {
				out[i] = SharedAgentToJSON(a)
			}
			server.WriteJSON(w, status, out)
		case endpoints.AgentResponse:
			server.WriteJSON(w, status, AgentToJSON(r.Agent))
		case endpoints.SubscribersResponse:
			out := make([]SubscriberJSON, len(r.Subscribers))
			for i, s := range r.Subscribers {
				out[i] = SubscriberToJSON(s)
			}
			server.WriteJSON(w, status, out)
		case endpoints.SubscriberResponse:
			server.WriteJSON(w, status, SubscriberToJSON(r.Subscriber))
		case endpoints.RemovedResponse:
			w.WriteHeader(http.StatusNoContent)
		default:
			return errors.New("unexpected response type")
		}
		return nil
	}
}

// ValidationErrorJSON is the body of a 400 validation_failed response.
type ValidationErrorJSON = server.ValidationErrorJSON

// Errors specific to the catalog.
var (
	ErrAgentNotFound      = &server.Error{Status: http.StatusNotFound, Code: "not_found", Message: agents.MsgAgentNotFound}
	ErrSubscriberNotFound = &server.Error{Status: http.StatusNotFound, Code: "not_found", Message: agents.MsgSubscriberMissing}
	ErrAlreadyInvited     = &server.Error{Status: http.StatusConflict, Code: "conflict", Message: agents.MsgAlreadyInvited}
	// ErrDocumentsUnavailable: publishing could not ask the documents
	// service whether the agent has a readable document.
	ErrDocumentsUnavailable = &server.Error{Status: http.StatusServiceUnavailable, Code: server.CodeKnowledgeUnavailable,
		Message: "The documents service is unavailable. Please try again."}
)

func encodeHTTPError(logger *slog.Logger) httptransport.ErrorEncoder {
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		var (
			se *server.Error
			ve *agents.ValidationError
			le *agents.LimitError
			qe *agents.QueryError
		)
		switch {
		case errors.As(err, &se):
			server.WriteError(w, se)
		case errors.As(err, &le):
			server.WriteError(w, &server.Error{Status: http.StatusBadRequest, Code: server.CodeLimitReached, Message: le.Message})
		case errors.As(err, &ve):
			fields := make(map[string]string, len(ve.Fields))
			for _, f := range ve.Fields {
				fields[f.Field] = f.Message
			}
			server.WriteValidationFailed(w, ve.Message(), fields)
		case errors.Is(err, agents.ErrNotFound):
			server.WriteError(w, ErrAgentNotFound)
		case errors.Is(err, agents.ErrSubscriberNotFound):
			server.WriteError(w, ErrSubscriberNotFound)
		case errors.Is(err, agents.ErrAlreadyInvited):
			server.WriteError(w, ErrAlreadyInvited)
		case errors.Is(err, agents.ErrNotInvited):
			server.WriteError(w, ErrNotInvited)
		case errors.As(err, &qe):
			server.WriteError(w, server.BadRequest(qe.Code, qe.Message))
		case errors.Is(err, agents.ErrDocumentsUnavailable):
			logger.WarnContext(ctx, "documents service unavailable", "error", err)
			server.WriteError(w, ErrDocumentsUnavailable)
		default:
			server.WriteFailure(ctx, logger, w, err)
		}
	}
}
