package transport

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/mail/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/server"
)

// PathMessages is the admin list of recent inbound messages.
const PathMessages = "/admin/messages"

// RegisterHTTP adds the admin routes to mux. They have no authentication,
// so they answer only requests from a loopback address (a developer on the
// machine, or kubectl port-forward into the pod); anything else gets 404.
// The gateway never routes to this service.
//
//	GET /admin/messages?limit=N   newest N (default 50, at most 500) messages with their reply
func RegisterHTTP(mux *http.ServeMux, set endpoints.Set, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	opts := server.KitOptions(func(_ context.Context, err error, w http.ResponseWriter) {
		var se *server.Error
		if !errors.As(err, &se) {
			logger.Error("admin request failed", "error", err)
		}
		server.WriteError(w, err)
	})
	h := httptransport.NewServer(set.ListMessages, decodeListMessages,
		func(_ context.Context, w http.ResponseWriter, resp any) error {
			server.WriteJSON(w, http.StatusOK, resp.(endpoints.ListMessagesResponse).Messages)
			return nil
		}, opts...)
	server.Route(mux, http.MethodGet, PathMessages, LoopbackOnly(h))
}

func decodeListMessages(_ context.Context, r *http.Request) (any, error) {
	limit := 50
	if v := r.URL.Query().Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 500 {
			return nil, server.BadRequest("invalid_limit", "limit must be an integer from 1 to 500")
		}
		limit = n
	}
	return endpoints.ListMessagesRequest{Limit: limit}, nil
}

// LoopbackOnly answers 404 to any request whose peer is not a loopback
// address (so the route does not even appear to exist from outside).
func LoopbackOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		ip := net.ParseIP(host)
		if err != nil || ip == nil || !ip.IsLoopback() {
			server.WriteError(w, server.ErrNotFound)
			return
		}
		h.ServeHTTP(w, r)
	})
}
