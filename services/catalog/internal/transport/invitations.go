package transport

import (
	"context"
	"net/http"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Invitation e-mails (issue 29 item 7).
const (
	// PathResendInvitation e-mails a pending invitation again (202; owner
	// only; rate limited per subscriber, internal/app/quotas.go).
	PathResendInvitation = "/api/agents/{id}/subscribers/{subscriberId}/resend-invitation"
	// PathPendingInvitations counts the caller's invitations waiting for
	// their address to be verified ({"count": n}).
	PathPendingInvitations = "/api/user/pending-invitations"
)

// ErrNotInvited: only a pending invitation can be resent.
var ErrNotInvited = server.BadRequest(server.CodeInvalidRequest, agents.MsgNotInvited)

// WithResendGate puts gate between the authentication (with its revocation
// check) and the handler of POST PathResendInvitation: the per-subscriber
// resend quota (internal/app/quotas.go). The claims are in the request's
// context, the ids in r.PathValue("id") and r.PathValue("subscriberId").
func WithResendGate(gate func(http.Handler) http.Handler) Option {
	return func(o *httpOptions) { o.resendGate = gate }
}

// registerInvitations adds the invitation routes: resending is a sharing
// write (fresh: the token must not be revoked), the count a read.
func registerInvitations(mux *http.ServeMux, set endpoints.Set, protect, fresh func(http.Handler) http.Handler,
	gate func(http.Handler) http.Handler, opts []httptransport.ServerOption) {
	if gate == nil {
		gate = func(h http.Handler) http.Handler { return h }
	}
	server.Route(mux, http.MethodPost, PathResendInvitation,
		fresh(gate(httptransport.NewServer(set.ResendInvitation, decodeResendInvitation, encodeInvitation(http.StatusAccepted), opts...))))
	server.Route(mux, http.MethodGet, PathPendingInvitations,
		protect(httptransport.NewServer(set.PendingInvitations, decodePendingInvitations, encodeInvitation(http.StatusOK), opts...)))
}

func decodeResendInvitation(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.ResendInvitationRequest{Claims: c, AgentID: r.PathValue("id"), SubscriberID: r.PathValue("subscriberId")}, nil
}

func decodePendingInvitations(ctx context.Context, _ *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.PendingInvitationsRequest{Claims: c}, nil
}

// PendingInvitationsJSON is GET /api/user/pending-invitations's body.
type PendingInvitationsJSON struct {
	Count int `json:"count"`
}

func encodeInvitation(status int) httptransport.EncodeResponseFunc {
	return func(ctx context.Context, w http.ResponseWriter, resp any) error {
		switch r := resp.(type) {
		case endpoints.ResentResponse:
			server.WriteJSON(w, status, SubscriberToJSON(r.Subscriber))
		case endpoints.PendingInvitationsResponse:
			server.WriteJSON(w, status, PendingInvitationsJSON{Count: r.Count})
		default:
			return encodeJSON(status)(ctx, w, resp)
		}
		return nil
	}
}
