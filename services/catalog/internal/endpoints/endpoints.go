// Package endpoints adapts the agents.Service to go-kit endpoints and wraps
// them with logging, instrumenting and tracing middleware.
package endpoints

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/endpointmw"
)

// Set holds one endpoint per service method.
type Set struct {
	ListAgents       endpoint.Endpoint
	CreateAgent      endpoint.Endpoint
	GetAgent         endpoint.Endpoint
	UpdateAgent      endpoint.Endpoint
	ListSubscribers  endpoint.Endpoint
	InviteSubscriber endpoint.Endpoint
	RemoveSubscriber endpoint.Endpoint
	SetSubscriberCap endpoint.Endpoint
	// DeleteAgent: DELETE /api/agents/{id} (issue 29), AgentRequest → RemovedResponse.
	DeleteAgent      endpoint.Endpoint
	FindAgent        endpoint.Endpoint
	FindAgentByEmail endpoint.Endpoint
	CheckOwnership   endpoint.Endpoint
	CheckAccess      endpoint.Endpoint
	ListSharedAgents endpoint.Endpoint
	// Invitation e-mails (invitations.go): resend one, count the caller's
	// pending ones.
	ResendInvitation   endpoint.Endpoint
	PendingInvitations endpoint.Endpoint
	// AccessChangesSince is internal gRPC (conversations' access cache).
	AccessChangesSince endpoint.Endpoint
	// The public marketplace (marketplace.go): no caller identity.
	ListListed     endpoint.Endpoint
	GetListed      endpoint.Endpoint
	ListCategories endpoint.Endpoint
	// The marketplace's pages (pages.go): an agent page, sitemap.xml.
	ListedPreview endpoint.Endpoint
	Sitemap       endpoint.Endpoint

	// Reviews, replies and reports (the marketplace; reviews.go, filled by
	// AddReviews).
	PutReview    endpoint.Endpoint
	DeleteReview endpoint.Endpoint
	ListReviews  endpoint.Endpoint
	PutReply     endpoint.Endpoint
	DeleteReply  endpoint.Endpoint
	ReportAgent  endpoint.Endpoint
	ReportReview endpoint.Endpoint
}

// Requests and responses. Claims are the verified caller (HTTP routes).
type (
	ListAgentsRequest  struct{ Claims auth.Claims }
	CreateAgentRequest struct {
		Claims auth.Claims
		Input  agents.CreateInput
	}
	AgentRequest struct {
		Claims  auth.Claims
		AgentID string
	}
	UpdateAgentRequest struct {
		Claims  auth.Claims
		AgentID string
		Input   agents.UpdateInput
	}
	InviteSubscriberRequest struct {
		Claims  auth.Claims
		AgentID string
		Email   string
	}
	RemoveSubscriberRequest struct {
		Claims       auth.Claims
		AgentID      string
		SubscriberID string
	}
	SetSubscriberCapRequest struct {
		Claims       auth.Claims
		AgentID      string
		SubscriberID string
		Input        agents.SubscriberCapInput
	}
	AccessChangesSinceRequest struct {
		Since  time.Time // zero: from the database's now
		Margin time.Duration
	}
	FindAgentRequest        struct{ AgentID string }
	FindAgentByEmailRequest struct{ Email string }
	CheckOwnershipRequest   struct{ AgentID, UID string }
	CheckAccessRequest      struct{ AgentID, UID string }

	AgentsResponse         struct{ Agents []agents.Agent }
	AgentResponse          struct{ Agent agents.Agent }
	SubscribersResponse    struct{ Subscribers []agents.Subscriber }
	SubscriberResponse     struct{ Subscriber agents.Subscriber }
	RemovedResponse        struct{}
	CheckOwnershipResponse struct{ Owned, Exists bool }
	CheckAccessResponse    struct{ Access agents.Access }
	SharedAgentsResponse   struct{ Agents []agents.SharedAgent }
	AccessChangesResponse  struct {
		Changes []agents.AccessChange
		Now     time.Time
	}
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc agents.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
	if logger == nil {
		logger = slog.Default()
	}
	wrap := endpointmw.Chain("catalog", logger, reg, Outcome)
	return Set{
		ListAgents: wrap("ListAgents", func(ctx context.Context, req any) (any, error) {
			claimInvitations(ctx, svc, logger, req.(ListAgentsRequest).Claims)
			as, err := svc.ListAgents(ctx, req.(ListAgentsRequest).Claims.UID)
			if err != nil {
				return nil, err
			}
			return AgentsResponse{Agents: as}, nil
		}),
		CreateAgent: wrap("CreateAgent", func(ctx context.Context, req any) (any, error) {
			r := req.(CreateAgentRequest)
			a, err := svc.CreateAgent(ctx, r.Claims.UID, r.Input)
			if err != nil {
				return nil, err
			}
			return AgentResponse{Agent: a}, nil
		}),
		GetAgent: wrap("GetAgent", func(ctx context.Context, req any) (any, error) {
			r := req.(AgentRequest)
			a, err := svc.GetAgent(ctx, r.Claims.UID, r.AgentID)
			if err != nil {
				return nil, err
			}
			return AgentResponse{Agent: a}, nil
		}),
		UpdateAgent: wrap("UpdateAgent", func(ctx context.Context, req any) (any, error) {
			r := req.(UpdateAgentRequest)
			a, err := svc.UpdateAgent(ctx, r.Claims.UID, r.AgentID, r.Input)
			if err != nil {
				return nil, err
			}
			return AgentResponse{Agent: a}, nil
		}),
		ListSubscribers: wrap("ListSubscribers", func(ctx context.Context, req any) (any, error) {
			r := req.(AgentRequest)
			subs, err := svc.ListSubscribers(ctx, r.Claims.UID, r.AgentID)
			if err != nil {
				return nil, err
			}
			return SubscribersResponse{Subscribers: subs}, nil
		}),
		InviteSubscriber: wrap("InviteSubscriber", func(ctx context.Context, req any) (any, error) {
			r := req.(InviteSubscriberRequest)
			sub, err := svc.InviteSubscriber(ctx, r.Claims.UID, r.Claims.Email, r.AgentID, r.Email)
			if err != nil {
				return nil, err
			}
			return SubscriberResponse{Subscriber: sub}, nil
		}),
		RemoveSubscriber: wrap("RemoveSubscriber", func(ctx context.Context, req any) (any, error) {
			r := req.(RemoveSubscriberRequest)
			if err := svc.RemoveSubscriber(ctx, r.Claims.UID, r.AgentID, r.SubscriberID); err != nil {
				return nil, err
			}
			return RemovedResponse{}, nil
		}),
		DeleteAgent: wrap("DeleteAgent", func(ctx context.Context, req any) (any, error) {
			r := req.(AgentRequest)
			if err := svc.DeleteAgent(ctx, r.Claims.UID, r.AgentID); err != nil {
				return nil, err
			}
			return RemovedResponse{}, nil
		}),
		SetSubscriberCap: wrap("SetSubscriberCap", func(ctx context.Context, req any) (any, error) {
			r := req.(SetSubscriberCapRequest)
			sub, err := svc.SetSubscriberCap(ctx, r.Claims.UID, r.AgentID, r.SubscriberID, r.Input)
			if err != nil {
				return nil, err
			}
			return SubscriberResponse{Subscriber: sub}, nil
		}),
		AccessChangesSince: wrap("AccessChangesSince", func(ctx context.Context, req any) (any, error) {
			r := req.(AccessChangesSinceRequest)
			changes, now, err := svc.AccessChangesSince(ctx, r.Since, r.Margin)
			if err != nil {
				return nil, err
			}
			return AccessChangesResponse{Changes: changes, Now: now}, nil
		}),
		FindAgent: wrap("FindAgent", func(ctx context.Context, req any) (any, error) {
			a, err := svc.FindAgent(ctx, req.(FindAgentRequest).AgentID)
			if err != nil {
				return nil, err
			}
			return AgentResponse{Agent: a}, nil
		}),
		FindAgentByEmail: wrap("FindAgentByEmail", func(ctx context.Context, req any) (any, error) {
			a, err := svc.FindAgentByEmail(ctx, req.(FindAgentByEmailRequest).Email)
			if err != nil {
				return nil, err
			}
			return AgentResponse{Agent: a}, nil
		}),
		CheckOwnership: wrap("CheckOwnership", func(ctx context.Context, req any) (any, error) {
			r := req.(CheckOwnershipRequest)
			owned, exists, err := svc.CheckOwnership(ctx, r.AgentID, r.UID)
			if err != nil {
				return nil, err
			}
			return CheckOwnershipResponse{Owned: owned, Exists: exists}, nil
		}),
		CheckAccess: wrap("CheckAccess", func(ctx context.Context, req any) (any, error) {
			r := req.(CheckAccessRequest)
			acc, err := svc.CheckAccess(ctx, r.AgentID, r.UID)
			if err != nil {
				return nil, err
			}
			return CheckAccessResponse{Access: acc}, nil
		}),
		ListSharedAgents: wrap("ListSharedAgents", func(ctx context.Context, req any) (any, error) {
			claimInvitations(ctx, svc, logger, req.(ListAgentsRequest).Claims)
			as, err := svc.ListSharedAgents(ctx, req.(ListAgentsRequest).Claims.UID)
			if err != nil {
				return nil, err
			}
			return SharedAgentsResponse{Agents: as}, nil
		}),
		ResendInvitation:   wrap("ResendInvitation", resendInvitation(svc)),
		PendingInvitations: wrap("PendingInvitations", pendingInvitations(svc)),

		ListListed:     wrap("ListListed", listListed(svc)),
		GetListed:      wrap("GetListed", getListed(svc)),
		ListCategories: wrap("ListCategories", listCategories(svc)),
		ListedPreview:  wrap("ListedPreview", listedPreview(svc)),
		Sitemap:        wrap("Sitemap", sitemap(svc)),
	}
}

// claimInvitations activates the caller's pending invitations when their
// token says the e-mail address is verified: the dashboard's lists (My
// agents, Shared with me) are the visits after which a verified invitee sees
// what was shared. A failure is logged and does not fail the list (the next
// visit tries again).
func claimInvitations(ctx context.Context, svc agents.Service, logger *slog.Logger, c auth.Claims) {
	if !c.EmailVerified {
		return
	}
	n, err := svc.ClaimInvitations(ctx, agents.Claimant{UID: c.UID, Email: c.Email, EmailVerified: c.EmailVerified, Name: c.Name})
	if err != nil {
		logger.WarnContext(ctx, "activating invitations failed", "uid", c.UID, "error", err)
		return
	}
	if n > 0 {
		logger.InfoContext(ctx, "invitations activated", "uid", c.UID, "count", n)
	}
}

// Outcome classifies an endpoint result: "success", "client_error" (the
// caller's fault: validation, not found, already invited, a count quota,
// bad input),
// "canceled" or "error".
func Outcome(err error) string { return outcome(err) }

var outcome = endpointmw.Default(func(err error) string {
	var (
		ve *agents.ValidationError
		le *agents.LimitError
		qe *agents.QueryError
	)
	if errors.As(err, &ve) || errors.As(err, &le) || errors.Is(err, agents.ErrNotFound) || errors.Is(err, agents.ErrSubscriberNotFound) ||
		errors.Is(err, agents.ErrAlreadyInvited) || errors.Is(err, agents.ErrNotInvited) || errors.As(err, &qe) {
		return endpointmw.OutcomeClientError
	}
	if errors.Is(err, agents.ErrDocumentsUnavailable) {
		return endpointmw.OutcomeUnavailable
	}
	return ""
})
