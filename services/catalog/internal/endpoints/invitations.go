package endpoints

import (
	"context"

	"github.com/go-kit/kit/endpoint"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/auth"
)

// Invitation e-mails (issue 29 item 7): resending an invitation, counting
// the caller's pending invitations.
type (
	ResendInvitationRequest struct {
		Claims       auth.Claims
		AgentID      string
		SubscriberID string
	}
	// ResentResponse is the subscriber whose invitation was queued (202).
	ResentResponse struct{ Subscriber agents.Subscriber }
	// PendingInvitationsRequest is the caller (their token's address).
	PendingInvitationsRequest struct{ Claims auth.Claims }
	// PendingInvitationsResponse counts the caller's pending invitations.
	PendingInvitationsResponse struct{ Count int }
)

func resendInvitation(svc agents.Service) endpoint.Endpoint {
	return func(ctx context.Context, req any) (any, error) {
		r := req.(ResendInvitationRequest)
		sub, err := svc.ResendInvitation(ctx, r.Claims.UID, r.AgentID, r.SubscriberID)
		if err != nil {
			return nil, err
		}
		return ResentResponse{Subscriber: sub}, nil
	}
}

func pendingInvitations(svc agents.Service) endpoint.Endpoint {
	return func(ctx context.Context, req any) (any, error) {
		c := req.(PendingInvitationsRequest).Claims
		n, err := svc.PendingInvitations(ctx, agents.Claimant{UID: c.UID, Email: c.Email, EmailVerified: c.EmailVerified, Name: c.Name})
		if err != nil {
			return nil, err
		}
		return PendingInvitationsResponse{Count: n}, nil
	}
}
