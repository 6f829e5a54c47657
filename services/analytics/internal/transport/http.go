// Package transport exposes the analytics endpoints over HTTP/JSON (the
// public /api/activities, /api/dashboard/stats and /api/usage routes).
package transport

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"time"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/analytics/internal/endpoints"
	"github.com/agentic-app/agentic/services/analytics/readmodel"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Public routes.
const (
	PathActivities = "/api/activities"
	PathStats      = "/api/dashboard/stats"
	PathUsage      = "/api/usage"
)

// ErrInvalidLimit is the 400 answer to a bad ?limit.
var ErrInvalidLimit = &server.Error{Status: http.StatusBadRequest, Code: "invalid_query", Message: "limit must be an integer between 1 and 50"}

// RegisterHTTP adds the routes to mux, each behind the platform auth middleware.
func RegisterHTTP(mux *http.ServeMux, set endpoints.Set, verifier auth.Verifier, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	opts := server.KitOptions(encodeHTTPError(logger))
	protect := auth.Middleware(verifier, logger)
	server.Route(mux, http.MethodGet, PathActivities, protect(httptransport.NewServer(set.Activities, decodeActivities, encodeJSON, opts...)))
	server.Route(mux, http.MethodGet, PathStats, protect(httptransport.NewServer(set.Stats, decodeStats, encodeJSON, opts...)))
	server.Route(mux, http.MethodGet, PathUsage, protect(httptransport.NewServer(set.Usage, decodeUsage, encodeJSON, opts...)))
}

// ActivityJSON is one activity as the API shows it.
type ActivityJSON struct {
	ID           string           `json:"id"`
	ActivityType string           `json:"activityType"`
	Description  string           `json:"description"`
	CreatedAt    time.Time        `json:"createdAt"`
	Metadata     MetadataJSON     `json:"metadata"`
	Agent        ActivityAgentObj `json:"agent"`
}

// MetadataJSON holds the optional extras (absent when empty).
type MetadataJSON struct {
	Details            *string `json:"details,omitempty"`
	DocumentReferences *string `json:"documentReferences,omitempty"`
	FileType           *string `json:"fileType,omitempty"`
}

// ActivityAgentObj is the agent of an activity.
type ActivityAgentObj struct {
	Name      string `json:"name"`
	IconColor string `json:"iconColor"`
}

// StatsJSON is the dashboard statistics body.
type StatsJSON struct {
	AgentCount        int64   `json:"agentCount"`
	AgentGrowth       float64 `json:"agentGrowth"`
	TotalRevenue      int64   `json:"totalRevenue"`
	RevenueGrowth     float64 `json:"revenueGrowth"`
	TotalInteractions int64   `json:"totalInteractions"`
	InteractionGrowth float64 `json:"interactionGrowth"`
	// The total was 0 at the end of last month and is positive now: the
	// dashboard shows "New" rather than "+100%".
	AgentNew       bool `json:"agentNew"`
	RevenueNew     bool `json:"revenueNew"`
	InteractionNew bool `json:"interactionNew"`
}

// UsageJSON is the GET /api/usage body (docs/billing-api.md): amounts in dollars.
type UsageJSON struct {
	From  string  `json:"from"`
	To    string  `json:"to"`
	Total float64 `json:"total"`
	// Fees is the part of Total that is monthly agent fees.
	Fees   float64          `json:"fees"`
	Days   []UsageDayJSON   `json:"days"`
	Agents []AgentUsageJSON `json:"agents"`
}

// UsageDayJSON is one day of the range.
type UsageDayJSON struct {
	Date         string           `json:"date"`
	Total        float64          `json:"total"`
	Interactions int64            `json:"interactions"`
	Agents       []AgentUsageJSON `json:"agents"`
}

// AgentUsageJSON is the spend on one agent.
type AgentUsageJSON struct {
	AgentID      string  `json:"agentId"`
	AgentName    string  `json:"agentName"`
	Amount       float64 `json:"amount"`
	Interactions int64   `json:"interactions"`
	// Fees is the part of Amount that is the agent's monthly fee.
	Fees float64 `json:"fees"`
}

// Dollars converts micro-dollars to dollars (exact to the micro-dollar).
func Dollars(micros int64) float64 { return float64(micros) / 1e6 }

func agentsJSON(as []readmodel.AgentUsage) []AgentUsageJSON {
	out := make([]AgentUsageJSON, len(as))
	for i, a := range as {
		out[i] = AgentUsageJSON{AgentID: a.AgentID, AgentName: a.AgentName, Amount: Dollars(a.AmountMicros), Interactions: a.Interactions,
			Fees: Dollars(a.FeeMicros)}
	}
	return out
}

// usageParam reads one optional query parameter; given more than once is a
// 400 with code.
func usageParam(q url.Values, name, code string) (string, error) {
	vals := q[name]
	switch len(vals) {
	case 0:
		return "", nil
	case 1:
		return vals[0], nil
	}
	return "", &readmodel.UsageError{Code: code, Message: name + " must be given once"}
}

func decodeUsage(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	q := r.URL.Query()
	var req readmodel.UsageRequest
	if req.From, err = usageParam(q, "from", readmodel.CodeInvalidRange); err != nil {
		return nil, err
	}
	if req.To, err = usageParam(q, "to", readmodel.CodeInvalidRange); err != nil {
		return nil, err
	}
	if req.GroupBy, err = usageParam(q, "groupBy", readmodel.CodeInvalidQuery); err != nil {
		return nil, err
	}
	return endpoints.UsageRequest{Claims: c, Query: req}, nil
}

// ParseLimit reads ?limit: absent → DefaultActivityLimit; otherwise a
// decimal integer 1..MaxActivityLimit (given more than once → 400).
func ParseLimit(r *http.Request) (int, error) {
	vals, ok := r.URL.Query()["limit"]
	if !ok {
		return readmodel.DefaultActivityLimit, nil
	}
	if len(vals) != 1 {
		return 0, ErrInvalidLimit
	}
	n, err := strconv.Atoi(vals[0])
	if err != nil || n < 1 || n > readmodel.MaxActivityLimit {
		return 0, ErrInvalidLimit
	}
	return n, nil
}

func decodeActivities(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	limit, err := ParseLimit(r)
	if err != nil {
		return nil, err
	}
	return endpoints.ActivitiesRequest{Claims: c, Limit: limit}, nil
}

func decodeStats(ctx context.Context, _ *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.StatsRequest{Claims: c}, nil
}

func encodeJSON(_ context.Context, w http.ResponseWriter, resp any) error {
	w.Header().Set("Cache-Control", "no-store")
	switch r := resp.(type) {
	case endpoints.ActivitiesResponse:
		out := make([]ActivityJSON, len(r.Activities))
		for i, a := range r.Activities {
			out[i] = ActivityJSON{
				ID: a.ID, ActivityType: a.ActivityType, Description: a.Description, CreatedAt: a.CreatedAt.UTC(),
				Metadata: MetadataJSON{Details: a.Metadata.Details, DocumentReferences: a.Metadata.DocumentReferences, FileType: a.Metadata.FileType},
				Agent:    ActivityAgentObj{Name: a.Agent.Name, IconColor: a.Agent.IconColor},
			}
		}
		server.WriteJSON(w, http.StatusOK, out)
	case endpoints.StatsResponse:
		s := r.Stats
		server.WriteJSON(w, http.StatusOK, StatsJSON{
			AgentCount: s.AgentCount, AgentGrowth: s.AgentGrowth, TotalRevenue: s.TotalRevenue,
			RevenueGrowth: s.RevenueGrowth, TotalInteractions: s.TotalInteractions, InteractionGrowth: s.InteractionGrowth,
			AgentNew: s.AgentNew, RevenueNew: s.RevenueNew, InteractionNew: s.InteractionNew,
		})
	case endpoints.UsageResponse:
		u := r.Usage
		out := UsageJSON{From: u.From, To: u.To, Total: Dollars(u.TotalMicros), Fees: Dollars(u.FeeMicros), Days: make([]UsageDayJSON, len(u.Days)), Agents: agentsJSON(u.Agents)}
		for i, d := range u.Days {
			out.Days[i] = UsageDayJSON{Date: d.Date, Total: Dollars(d.TotalMicros), Interactions: d.Interactions, Agents: agentsJSON(d.Agents)}
		}
		server.WriteJSON(w, http.StatusOK, out)
	default:
		return errors.New("unexpected response type")
	}
	return nil
}

func encodeHTTPError(logger *slog.Logger) httptransport.ErrorEncoder {
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		var (
			se *server.Error
			ue *readmodel.UsageError
		)
		switch {
		case errors.As(err, &se):
			server.WriteError(w, se)
		case errors.As(err, &ue):
			server.WriteError(w, server.BadRequest(ue.Code, ue.Message))
		case errors.Is(err, readmodel.ErrInvalidLimit):
			server.WriteError(w, ErrInvalidLimit)
		default:
			server.WriteFailure(ctx, logger, w, err)
		}
	}
}
