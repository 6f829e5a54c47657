package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/server"
)

// The public marketplace routes (no token; docs/catalog.md, "Marketplace:
// discovery").
const (
	PathMarketplaceAgents     = "/api/marketplace/agents"
	PathMarketplaceAgent      = "/api/marketplace/agents/{slug}"
	PathMarketplaceCategories = "/api/marketplace/categories"
	// PathMarketplaceStatus says whether the marketplace is open
	// (MARKETPLACE_ENABLED): the web app shows the spec's "coming soon"
	// screens while it is not. Answered in both states.
	PathMarketplaceStatus = "/api/marketplace/status"
)

// WithMarketplaceGate puts gate in front of the public marketplace routes
// (the per-client-address rate limit, internal/app/marketplace.go). It is
// not applied while the marketplace is off (the routes answer 404).
func WithMarketplaceGate(gate func(http.Handler) http.Handler) Option {
	return func(o *httpOptions) { o.marketplaceGate = gate }
}

// registerMarketplace adds the public marketplace routes: no authentication
// (a token, if sent, is ignored). Off, they answer 404 not_found.
func registerMarketplace(mux *http.ServeMux, set endpoints.Set, logger *slog.Logger, off bool, gate func(http.Handler) http.Handler) {
	opts := server.KitOptions(encodeHTTPError(logger))
	handle := func(path string, e func(context.Context, any) (any, error), dec httptransport.DecodeRequestFunc) {
		var h http.Handler = httptransport.NewServer(e, dec, encodeMarketplace, opts...)
		switch {
		case off:
			h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { server.WriteError(w, server.ErrNotFound) })
		case gate != nil:
			h = gate(h)
		}
		server.Route(mux, http.MethodGet, path, h)
	}
	handle(PathMarketplaceAgents, set.ListListed, decodeListListed)
	handle(PathMarketplaceAgent, set.GetListed, decodeGetListed)
	handle(PathMarketplaceCategories, set.ListCategories, func(context.Context, *http.Request) (any, error) { return nil, nil })
	status, _ := json.Marshal(MarketplaceStatusJSON{Enabled: !off})
	server.Route(mux, http.MethodGet, PathMarketplaceStatus, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		// Short: a switch flipped by a deploy reaches open tabs soon.
		w.Header().Set("Cache-Control", "public, max-age=60")
		_, _ = w.Write(status)
	}))
}

// MarketplaceStatusJSON is GET /api/marketplace/status.
type MarketplaceStatusJSON struct {
	Enabled bool `json:"enabled"`
}

// RatingJSON is an agent's rating: average to one decimal (0 when none).
type RatingJSON struct {
	Average float64 `json:"average"`
	Count   int64   `json:"count"`
}

// MarketplaceAgentJSON is a listed agent in GET /api/marketplace/agents:
// public fields only (no owner uid or e-mail, instructions, documents or
// subscribers).
type MarketplaceAgentJSON struct {
	ID                  string     `json:"id"`
	Slug                string     `json:"slug"`
	Name                string     `json:"name"`
	Description         string     `json:"description"`
	Category            string     `json:"category"`
	IconName            string     `json:"iconName"`
	IconColor           string     `json:"iconColor"`
	Tags                []string   `json:"tags"`
	CreatorName         string     `json:"creatorName"`
	Rating              RatingJSON `json:"rating"`
	Answers             int64      `json:"answers"`
	MarkupPercent       int        `json:"markupPercent"`
	GreetingCostCents   int        `json:"greetingCostCents"`
	MemoryTokens        int        `json:"memoryTokens"`
	TypicalAnswerMicros int64      `json:"typicalAnswerMicros"`
	// Available: the agent is active (an inactive listed agent is listed
	// but cannot be started).
	Available bool `json:"available"`
}

// MarketplaceProfileJSON is GET /api/marketplace/agents/{slug}: the list
// item plus the greeting, the number of readable documents and createdAt.
type MarketplaceProfileJSON struct {
	MarketplaceAgentJSON
	Greeting       string    `json:"greeting"`
	DocumentsCount int64     `json:"documentsCount"`
	CreatedAt      time.Time `json:"createdAt"`
}

// MarketplacePageJSON is a page of the list; nextCursor null on the last.
type MarketplacePageJSON struct {
	Items      []MarketplaceAgentJSON `json:"items"`
	NextCursor *string                `json:"nextCursor"`
}

// CategoryJSON is a category of listed agents with their number.
type CategoryJSON struct {
	Category string `json:"category"`
	Count    int64  `json:"count"`
}

// ListingToJSON converts a listed agent.
func ListingToJSON(l agents.Listing) MarketplaceAgentJSON {
	tags := l.Tags
	if tags == nil {
		tags = []string{}
	}
	avg := 0.0
	if l.RatingCount > 0 {
		avg = math.Round(float64(l.RatingSum)/float64(l.RatingCount)*10) / 10
	}
	return MarketplaceAgentJSON{
		ID: l.ID, Slug: l.Slug, Name: l.Name, Description: l.Description, Category: l.Category,
		IconName: l.IconName, IconColor: l.IconColor, Tags: tags, CreatorName: l.CreatorName,
		Rating: RatingJSON{Average: avg, Count: l.RatingCount}, Answers: l.Answers,
		MarkupPercent: l.MarkupPercent, GreetingCostCents: l.GreetingCostCents, MemoryTokens: l.MemoryTokens,
		TypicalAnswerMicros: l.TypicalAnswerMicros, Available: l.Available,
	}
}

// ProfileToJSON converts a listed agent's profile.
func ProfileToJSON(l agents.Listing) MarketplaceProfileJSON {
	return MarketplaceProfileJSON{MarketplaceAgentJSON: ListingToJSON(l), Greeting: l.Greeting,
		DocumentsCount: l.DocumentsCount, CreatedAt: l.CreatedAt.UTC()}
}

// queryText is a query parameter's value; text that is not valid UTF-8 or
// holds a NUL (which PostgreSQL cannot take) is 400 invalid_query.
func queryText(r *http.Request, name string) (string, error) {
	v := r.URL.Query().Get(name)
	if !utf8.ValidString(v) || strings.ContainsRune(v, 0) {
		return "", &agents.QueryError{Code: agents.CodeInvalidQuery, Message: name + " is not valid text"}
	}
	return v, nil
}

func decodeListListed(_ context.Context, r *http.Request) (any, error) {
	var q agents.ListQuery
	for _, f := range []struct {
		name string
		dst  *string
	}{{"q", &q.Q}, {"category", &q.Category}, {"tag", &q.Tag}, {"sort", &q.Sort}, {"cursor", &q.Cursor}} {
		v, err := queryText(r, f.name)
		if err != nil {
			return nil, err
		}
		*f.dst = v
	}
	if r.URL.Query().Has("limit") {
		n, err := strconv.Atoi(strings.TrimSpace(r.URL.Query().Get("limit")))
		if err != nil {
			return nil, &agents.QueryError{Code: agents.CodeInvalidLimit, Message: agents.MsgListLimit}
		}
		q.Limit = &n
	}
	return endpoints.ListListedRequest{Query: q}, nil
}

func decodeGetListed(_ context.Context, r *http.Request) (any, error) {
	return endpoints.GetListedRequest{Slug: r.PathValue("slug")}, nil
}

func encodeMarketplace(_ context.Context, w http.ResponseWriter, resp any) error {
	switch r := resp.(type) {
	case endpoints.ListingsResponse:
		out := MarketplacePageJSON{Items: make([]MarketplaceAgentJSON, len(r.Page.Items))}
		for i, l := range r.Page.Items {
			out.Items[i] = ListingToJSON(l)
		}
		if r.Page.NextCursor != "" {
			c := r.Page.NextCursor
			out.NextCursor = &c
		}
		server.WriteJSON(w, http.StatusOK, out)
	case endpoints.ListingResponse:
		server.WriteJSON(w, http.StatusOK, ProfileToJSON(r.Listing))
	case endpoints.CategoriesResponse:
		out := make([]CategoryJSON, len(r.Categories))
		for i, c := range r.Categories {
			out[i] = CategoryJSON{Category: c.Category, Count: c.Count}
		}
		server.WriteJSON(w, http.StatusOK, out)
	default:
		return errors.New("unexpected response type")
	}
	return nil
}

// wholeFromJSON reads an integer field of a PATCH: absent or null → nil
// (unchanged); a number → its value, Invalid when it is not a whole number
// (validation names the field); any other JSON value → 400 invalid_json.
func wholeFromJSON(field string, raw json.RawMessage) (*agents.WholeNumber, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, server.InvalidJSON(field + " must be a number")
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, server.InvalidJSON(field + " must be a number")
	}
	if i, err := n.Int64(); err == nil {
		return &agents.WholeNumber{Value: i}, nil
	}
	if f, err := n.Float64(); err == nil && f == math.Trunc(f) && math.Abs(f) <= 1e15 {
		return &agents.WholeNumber{Value: int64(f)}, nil // 1e2
	}
	return &agents.WholeNumber{Invalid: true}, nil
}
