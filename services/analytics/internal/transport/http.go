// Package transport exposes the analytics endpoints over HTTP/JSON (the
// public /api/activities and /api/dashboard/stats routes).
package transport

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
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
		})
	default:
		return errors.New("unexpected response type")
	}
	return nil
}

func encodeHTTPError(logger *slog.Logger) httptransport.ErrorEncoder {
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		var se *server.Error
		switch {
		case errors.As(err, &se):
			server.WriteError(w, se)
		case errors.Is(err, readmodel.ErrInvalidLimit):
			server.WriteError(w, ErrInvalidLimit)
		default:
			logger.ErrorContext(ctx, "request failed", "error", err)
			server.WriteError(w, server.ErrInternal)
		}
	}
}
