package transport

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Key management routes (Firebase token, the agent's owner only).
const (
	PathAPIKeys = "/api/agents/{agentId}/api-keys"
	PathAPIKey  = "/api/agents/{agentId}/api-keys/{keyId}"
)

// APIKeyJSON is a key as the management API shows it. Key (the secret) is
// set only in the response that created it.
type APIKeyJSON struct {
	ID           string     `json:"id"`
	AgentID      string     `json:"agentId"`
	Name         string     `json:"name"`
	Prefix       string     `json:"prefix"`
	Key          string     `json:"key,omitempty"`
	CreatedAt    time.Time  `json:"createdAt"`
	ExpiresAt    *time.Time `json:"expiresAt"`
	MonthlyLimit *float64   `json:"monthlyLimit"`
	LastUsedAt   *time.Time `json:"lastUsedAt"`
	MonthSpend   float64    `json:"monthSpend"`
}

// Dollars converts micro-dollars for the API (amounts are shown in dollars).
func Dollars(micros int64) float64 { return float64(micros) / 1e6 }

// APIKeyToJSON converts a stored key (never with its secret).
func APIKeyToJSON(k conversations.APIKey) APIKeyJSON {
	out := APIKeyJSON{ID: k.ID, AgentID: k.AgentID, Name: k.Name, Prefix: k.Prefix, CreatedAt: k.CreatedAt.UTC(),
		ExpiresAt: utcPtr(k.ExpiresAt), LastUsedAt: utcPtr(k.LastUsedAt), MonthSpend: Dollars(k.MonthSpendMicros)}
	if k.MonthlyLimitMicros > 0 {
		d := Dollars(k.MonthlyLimitMicros)
		out.MonthlyLimit = &d
	}
	return out
}

// registerAPIKeyRoutes: listing behind protect; creating and revoking keys
// behind fresh (the token's revocation is checked, docs/identity.md).
func registerAPIKeyRoutes(mux *http.ServeMux, set endpoints.Set, protect, fresh func(http.Handler) http.Handler, opts []httptransport.ServerOption) {
	route := func(mw func(http.Handler) http.Handler, method, path string, e func(context.Context, any) (any, error), dec httptransport.DecodeRequestFunc, enc httptransport.EncodeResponseFunc) {
		server.Route(mux, method, path, mw(httptransport.NewServer(e, dec, enc, opts...)))
	}
	route(fresh, http.MethodPost, PathAPIKeys, set.CreateAPIKey, decodeCreateAPIKey, encodeAPIKeys(http.StatusCreated))
	route(protect, http.MethodGet, PathAPIKeys, set.ListAPIKeys, decodeListAPIKeys, encodeAPIKeys(http.StatusOK))
	route(fresh, http.MethodDelete, PathAPIKey, set.RevokeAPIKey, decodeRevokeAPIKey, encodeAPIKeys(http.StatusNoContent))
}

// parseExpiry reads expiresAt: an RFC 3339 date-time, or a date
// (YYYY-MM-DD), which means "valid through that day" (UTC).
func parseExpiry(s string) (time.Time, bool) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t, true
	}
	if d, err := time.Parse(time.DateOnly, s); err == nil {
		return d.AddDate(0, 0, 1), true
	}
	return time.Time{}, false
}

func decodeCreateAPIKey(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b struct {
		Name         *string  `json:"name"`
		ExpiresAt    *string  `json:"expiresAt"`
		MonthlyLimit *float64 `json:"monthlyLimit"`
	}
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	var in conversations.NewAPIKeyInput
	if b.Name != nil {
		in.Name = *b.Name
	}
	if b.ExpiresAt != nil {
		t, ok := parseExpiry(*b.ExpiresAt)
		if !ok {
			return nil, server.BadRequest("invalid_expires_at", conversations.MsgInvalidExpiresAt)
		}
		in.ExpiresAt = &t
	}
	if b.MonthlyLimit != nil {
		m, ok := conversations.DollarsToMicros(*b.MonthlyLimit)
		if !ok {
			return nil, server.BadRequest("invalid_monthly_limit", conversations.MsgInvalidLimit)
		}
		in.MonthlyLimitMicros = &m
	}
	return endpoints.CreateAPIKeyRequest{Claims: c, AgentID: r.PathValue("agentId"), Input: in}, nil
}

func decodeListAPIKeys(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.ListAPIKeysRequest{Claims: c, AgentID: r.PathValue("agentId")}, nil
}

func decodeRevokeAPIKey(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.RevokeAPIKeyRequest{Claims: c, AgentID: r.PathValue("agentId"), KeyID: r.PathValue("keyId")}, nil
}

func encodeAPIKeys(status int) httptransport.EncodeResponseFunc {
	return func(_ context.Context, w http.ResponseWriter, resp any) error {
		switch r := resp.(type) {
		case endpoints.CreatedAPIKeyResponse:
			out := APIKeyToJSON(r.Key.APIKey)
			out.Key = r.Key.Secret
			// The secret is in this body only: nobody may keep a copy.
			w.Header().Set("Cache-Control", "no-store")
			server.WriteJSON(w, status, out)
		case endpoints.APIKeysResponse:
			out := make([]APIKeyJSON, len(r.Keys))
			for i, k := range r.Keys {
				out[i] = APIKeyToJSON(k)
			}
			server.WriteJSON(w, status, out)
		case endpoints.DeletedResponse:
			w.WriteHeader(http.StatusNoContent)
		default:
			return errors.New("unexpected response type")
		}
		return nil
	}
}
