// Package endpoints adapts inbox.Service to go-kit endpoints and wraps them
// with the platform's logging, instrumenting and tracing middleware. The
// SMTP session and the admin HTTP API are the transports.
package endpoints

import (
	"context"
	"errors"
	"log/slog"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/platform/endpointmw"
)

// Set holds one endpoint per service method.
type Set struct {
	AcceptRecipient endpoint.Endpoint
	Receive         endpoint.Endpoint
	ListMessages    endpoint.Endpoint
}

// Requests and responses.
type (
	AcceptRecipientRequest struct{ MailFrom, Rcpt string }
	ReceiveRequest         struct {
		Envelope inbox.Envelope
		Raw      []byte
	}
	ListMessagesRequest struct{ Limit int }

	AcceptRecipientResponse struct{ Recipient inbox.Recipient }
	ReceiveResponse         struct{ Received inbox.Received }
	ListMessagesResponse    struct{ Messages []inbox.MessageView }
)

// New builds the endpoint set (tracing outermost, then instrumenting, then logging).
func New(svc inbox.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
	wrap := endpointmw.Chain("mail", logger, reg, Outcome)
	return Set{
		AcceptRecipient: wrap("AcceptRecipient", func(ctx context.Context, req any) (any, error) {
			r := req.(AcceptRecipientRequest)
			rc, err := svc.AcceptRecipient(ctx, r.MailFrom, r.Rcpt)
			if err != nil {
				return nil, err
			}
			return AcceptRecipientResponse{Recipient: rc}, nil
		}),
		Receive: wrap("Receive", func(ctx context.Context, req any) (any, error) {
			r := req.(ReceiveRequest)
			res, err := svc.Receive(ctx, r.Envelope, r.Raw)
			if err != nil {
				return nil, err
			}
			return ReceiveResponse{Received: res}, nil
		}),
		ListMessages: wrap("ListMessages", func(ctx context.Context, req any) (any, error) {
			ms, err := svc.ListMessages(ctx, req.(ListMessagesRequest).Limit)
			if err != nil {
				return nil, err
			}
			return ListMessagesResponse{Messages: ms}, nil
		}),
	}
}

// Outcome classifies an endpoint's error: refusals of the sender's mail are
// the caller's doing ("client_error"), a dependency that failed is
// "unavailable".
func Outcome(err error) string { return outcome(err) }

var outcome = endpointmw.Default(func(err error) string {
	for _, e := range []error{inbox.ErrNullSender, inbox.ErrBadAddress, inbox.ErrUnknownRecipient,
		inbox.ErrSenderNotAllowed, inbox.ErrAgentInactive, inbox.ErrFromMismatch, inbox.ErrNotAuthenticated,
		inbox.ErrMalformed, inbox.ErrNoRecipients} {
		if errors.Is(err, e) {
			return endpointmw.OutcomeClientError
		}
	}
	if inbox.IsUnavailable(err) {
		return endpointmw.OutcomeUnavailable
	}
	return ""
})
