package transport

import (
	"context"
	"errors"
	"strconv"

	grpctransport "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
)

type grpcServer struct {
	conversationsv1.UnimplementedConversationsServiceServer
	answer grpctransport.Handler
}

// NewGRPCServer implements conversationsv1.ConversationsServiceServer on
// top of the endpoints.
func NewGRPCServer(set endpoints.Set) conversationsv1.ConversationsServiceServer {
	return &grpcServer{
		answer: grpctransport.NewServer(set.AnswerThread,
			func(_ context.Context, req any) (any, error) {
				r := req.(*conversationsv1.AnswerRequest)
				return endpoints.AnswerThreadRequest{Request: conversations.ThreadRequest{
					AgentID: r.GetAgentId(), UID: r.GetUserUid(), Channel: r.GetChannel(), ThreadKey: r.GetThreadKey(),
					Title: r.GetTitle(), Content: r.GetContent(), IdempotencyKey: r.GetIdempotencyKey(),
				}}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				a := resp.(endpoints.AnswerThreadResponse).Answer
				m := a.Turn.Assistant
				out := &conversationsv1.AnswerResponse{
					ConversationId: a.ConversationID, MessageId: m.ID, Content: m.Content, Status: m.Status,
					Replayed: a.Turn.Replayed, Model: a.Turn.Model,
				}
				for _, c := range m.Citations {
					out.Citations = append(out.Citations, &conversationsv1.Citation{
						DocumentId: c.DocumentID, DocumentName: c.DocumentName, Url: c.URL, Labels: c.Labels})
				}
				if u := m.Usage; u != nil {
					out.Model, out.InputTokens, out.OutputTokens = u.Model, u.InputTokens, u.OutputTokens
					out.CostMicros, out.FeeMicros, out.TotalMicros = u.CostMicros, u.FeeMicros, u.TotalMicros
				}
				return out, nil
			}),
	}
}

// Answer implements conversationsv1.ConversationsServiceServer.
func (s *grpcServer) Answer(ctx context.Context, req *conversationsv1.AnswerRequest) (*conversationsv1.AnswerResponse, error) {
	_, resp, err := s.answer.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*conversationsv1.AnswerResponse), nil
}

// grpcError maps a service error to the status the proto documents.
func grpcError(err error) error {
	var (
		ve *conversations.ValidationError
		rl *conversations.RateLimitedError
		in *conversations.InsufficientFundsError
		sc *conversations.SubscriberCapError
		au *conversations.AgentUnavailableError
	)
	switch {
	case errors.As(err, &ve):
		return status.Error(codes.InvalidArgument, ve.Message)
	case errors.Is(err, conversations.ErrTooLong):
		return status.Error(codes.InvalidArgument, conversations.MsgTooLong)
	case errors.Is(err, conversations.ErrAgentNotFound), errors.Is(err, conversations.ErrConversationNotFound):
		return status.Error(codes.NotFound, "not_found")
	case errors.As(err, &in):
		return insufficientFundsStatus(in)
	case errors.As(err, &sc), errors.As(err, &au):
		// The subscriber is over the owner's monthly cap for them, or the
		// agent answers no one (its creator has not paid its fee): the
		// channel tells them MsgAgentUnavailable. Nothing was charged.
		return status.Error(codes.FailedPrecondition, "agent_unavailable")
	case errors.As(err, &rl):
		return status.Error(codes.ResourceExhausted, "rate_limited")
	case errors.Is(err, conversations.ErrInProgress):
		return status.Error(codes.Aborted, "in_progress")
	case errors.Is(err, conversations.ErrModelUnavailable):
		return status.Error(codes.Unavailable, "model_unavailable")
	case errors.Is(err, conversations.ErrCatalogUnavailable):
		return status.Error(codes.Unavailable, "catalog_unavailable")
	case errors.Is(err, conversations.ErrWalletUnavailable):
		return status.Error(codes.Unavailable, "wallet_unavailable")
	case errors.Is(err, conversations.ErrKnowledgeUnavailable):
		return status.Error(codes.Unavailable, "knowledge_unavailable")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "deadline exceeded")
	}
	return status.Error(codes.Internal, "internal error")
}

// Reason and metadata keys of the ErrorInfo an insufficient_funds refusal
// carries when the agent's monthly fee is due with the answer (the owner's
// e-mail reply names the fee and what to add).
const (
	ErrorDomain          = "conversations.agentic"
	ReasonAgentFeeDue    = "agent_fee_due"
	MetaFeeMicros        = "fee_micros"
	MetaMissingMicros    = "missing_micros"
	insufficientFundsMsg = "insufficient_funds"
)

// insufficientFundsStatus is FAILED_PRECONDITION "insufficient_funds"; when
// the refusal is the agent's due monthly fee, an ErrorInfo (reason
// agent_fee_due) carries the fee and what is missing (rounded up to the
// cent), in micro-dollars.
func insufficientFundsStatus(in *conversations.InsufficientFundsError) error {
	st := status.New(codes.FailedPrecondition, insufficientFundsMsg)
	fee, missing, ok := in.FeeDue()
	if !ok {
		return st.Err()
	}
	withInfo, err := st.WithDetails(&errdetails.ErrorInfo{Reason: ReasonAgentFeeDue, Domain: ErrorDomain,
		Metadata: map[string]string{MetaFeeMicros: strconv.FormatInt(fee, 10), MetaMissingMicros: strconv.FormatInt(missing, 10)}})
	if err != nil {
		return st.Err()
	}
	return withInfo.Err()
}
