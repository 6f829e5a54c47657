package transport

import (
	"context"
	"log/slog"
	"net/http"
	"regexp"
	"time"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/server"
)

// The agent API's OpenAI-compatible routes (docs/agent-api.md). They are
// authenticated by an agent API key ("Authorization: Bearer agk_…"), never
// by a Firebase token, and every answer under /api/v1 — unknown paths and
// methods included — has OpenAI's error shape.
const (
	PathAgentAPI        = "/api/v1/"
	PathChatCompletions = "/api/v1/chat/completions"
	PathModels          = "/api/v1/models"
	PathResponses       = "/api/v1/responses"
)

// agentAPIRoutes are the routes' paths (as regular expressions) and methods:
// a known path with another method is a 405, any other path a 404.
var agentAPIRoutes = []struct {
	path    *regexp.Regexp
	methods string
}{
	{regexp.MustCompile(`^/api/v1/chat/completions/?$`), "POST"},
	{regexp.MustCompile(`^/api/v1/models/?$`), "GET"},
	{regexp.MustCompile(`^/api/v1/models/.+$`), "GET"},
	{regexp.MustCompile(`^/api/v1/responses/?$`), "POST"},
	{regexp.MustCompile(`^/api/v1/responses/[^/]+$`), "GET"},
}

// agentAPI serves the OpenAI-compatible routes.
type agentAPI struct {
	authenticate endpoint.Endpoint
	complete     endpoint.Endpoint
	models       endpoint.Endpoint
	respond      endpoint.Endpoint
	saveResponse endpoint.Endpoint
	getResponse  endpoint.Endpoint
	log          *slog.Logger
	keyCheck     prometheus.Histogram
}

// RegisterAgentAPI adds the agent API: key management behind the Firebase
// middleware (verifier) and the OpenAI-compatible routes behind the key
// check. reg receives conversations_api_key_check_seconds (may be nil).
func RegisterAgentAPI(mux *http.ServeMux, set endpoints.Set, verifier auth.Verifier, logger *slog.Logger, reg prometheus.Registerer) {
	if logger == nil {
		logger = slog.Default()
	}
	registerAPIKeyRoutes(mux, set, auth.Middleware(verifier, logger), auth.RequireFresh(verifier, logger), server.KitOptions(encodeHTTPError(logger)))
	a := &agentAPI{
		authenticate: set.AuthenticateAPIKey, complete: set.ChatCompletion, models: set.ListModels,
		respond: set.Respond, saveResponse: set.SaveResponse, getResponse: set.GetResponse, log: logger,
		keyCheck: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "conversations_api_key_check_seconds", Help: "Time to authenticate an agent API key (cache or database).",
			Buckets: []float64{.00005, .0001, .00025, .0005, .001, .002, .005, .01, .025, .05, .1},
		}),
	}
	if reg != nil {
		a.keyCheck = observability.Register(reg, a.keyCheck)
	}
	// server.Handle, not Route: other methods get OpenAI's 405 from
	// unknownAgentAPIRoute, not the platform's.
	server.Handle(mux, http.MethodPost, PathChatCompletions, http.HandlerFunc(a.chatCompletions))
	server.Handle(mux, http.MethodGet, PathModels, http.HandlerFunc(a.listModels))
	// {model...}: SDKs escape the slash of "agentic/<id>" (models/agentic%2F…),
	// others do not (models/agentic/…); both name one model.
	server.Handle(mux, http.MethodGet, PathModels+"/{model...}", http.HandlerFunc(a.getModel))
	server.Handle(mux, http.MethodPost, PathResponses, http.HandlerFunc(a.createResponse))
	server.Handle(mux, http.MethodGet, PathResponses+"/{id}", http.HandlerFunc(a.retrieveResponse))
	mux.HandleFunc(PathAgentAPI, unknownAgentAPIRoute)
}

// unknownAgentAPIRoute answers every other request under /api/v1 in
// OpenAI's shape: 405 with Allow for a known path, 404 otherwise.
func unknownAgentAPIRoute(w http.ResponseWriter, r *http.Request) {
	for _, rt := range agentAPIRoutes {
		if rt.path.MatchString(r.URL.Path) {
			w.Header().Set("Allow", rt.methods)
			writeAPIError(w, errMethodNotAllowed(r))
			return
		}
	}
	writeAPIError(w, errUnknownURL(r))
}

// key authenticates the request's API key. On success the context carries
// the owner as the caller (so endpoint logs name the uid, never the key)
// and the response a Server-Timing entry with the check's duration. On
// failure the error has been written.
func (a *agentAPI) key(w http.ResponseWriter, r *http.Request) (conversations.APIKey, context.Context, bool) {
	start := time.Now()
	ctx := r.Context()
	raw, ok := auth.BearerToken(r)
	switch {
	case !ok:
		writeAPIError(w, errMissingKey)
		return conversations.APIKey{}, ctx, false
	case !conversations.LooksLikeAPIKey(raw):
		// Most likely a Firebase ID token: the agent API does not take them.
		writeAPIError(w, errNotAKey)
		return conversations.APIKey{}, ctx, false
	}
	resp, err := a.authenticate(ctx, endpoints.AuthenticateAPIKeyRequest{Token: raw})
	elapsed := time.Since(start)
	a.keyCheck.Observe(elapsed.Seconds())
	if err != nil {
		a.fail(ctx, w, err)
		return conversations.APIKey{}, ctx, false
	}
	key := resp.(endpoints.APIKeyResponse).Key
	w.Header().Set("Server-Timing", serverTiming("key", "API key check", elapsed))
	return key, auth.NewContext(ctx, auth.Claims{UID: key.OwnerUID}), true
}

// fail writes err as an API error (a 500 for unexpected ones, logged).
func (a *agentAPI) fail(ctx context.Context, w http.ResponseWriter, err error) {
	writeAPIError(w, a.apiError(ctx, err))
}

// apiError is err as the API's error; unexpected ones are logged and
// become a 500, a client that left a 499.
func (a *agentAPI) apiError(ctx context.Context, err error) *APIError {
	e := apiErrorOf(err)
	switch {
	case e == nil && server.ClientGone(ctx, err):
		e = errClientClosed
	case e == nil:
		a.log.ErrorContext(ctx, "agent api request failed", "error", err)
		e = errInternalAPI
	case e.Status >= 500:
		a.log.WarnContext(ctx, "agent api request failed", "error", err)
	}
	return e
}

// ModelJSON is one model object (GET /api/v1/models, /api/v1/models/{model}).
type ModelJSON struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
	// Name is the agent's name (an extension, as OpenRouter's).
	Name string `json:"name"`
}

// modelList is the models the key may use.
func (a *agentAPI) modelList(ctx context.Context, key conversations.APIKey) ([]ModelJSON, error) {
	resp, err := a.models(ctx, endpoints.ListModelsRequest{Key: key})
	if err != nil {
		return nil, err
	}
	ms := resp.(endpoints.ModelsResponse).Models
	data := make([]ModelJSON, len(ms))
	for i, m := range ms {
		data[i] = ModelJSON{ID: m.ID, Object: "model", Created: m.Created.Unix(), OwnedBy: "agentic", Name: m.Name}
	}
	return data, nil
}

func (a *agentAPI) listModels(w http.ResponseWriter, r *http.Request) {
	key, ctx, ok := a.key(w, r)
	if !ok {
		return
	}
	data, err := a.modelList(ctx, key)
	if err != nil {
		a.fail(ctx, w, err)
		return
	}
	server.WriteJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// getModel is GET /api/v1/models/{model}: the key's agent as a model object
// (by "agentic/<id>" or the bare id), 404 model_not_found for anything else.
func (a *agentAPI) getModel(w http.ResponseWriter, r *http.Request) {
	key, ctx, ok := a.key(w, r)
	if !ok {
		return
	}
	agentID := conversations.AgentOfModel(r.PathValue("model"))
	data, err := a.modelList(ctx, key)
	if err != nil {
		a.fail(ctx, w, err)
		return
	}
	for _, m := range data {
		if agentID != "" && m.ID == conversations.ModelID(agentID) {
			server.WriteJSON(w, http.StatusOK, m)
			return
		}
	}
	writeAPIError(w, errModelNotFound)
}
