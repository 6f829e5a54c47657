package transport

import (
	"context"
	"errors"
	"time"

	grpctransport "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
)

type grpcServer struct {
	catalogv1.UnimplementedCatalogServiceServer
	getAgent       grpctransport.Handler
	checkOwnership grpctransport.Handler
	checkAccess    grpctransport.Handler
	findByEmail    grpctransport.Handler
	accessChanges  grpctransport.Handler
}

// NewGRPCServer implements catalogv1.CatalogServiceServer on top of the endpoints.
func NewGRPCServer(set endpoints.Set) catalogv1.CatalogServiceServer {
	return &grpcServer{
		getAgent: grpctransport.NewServer(set.FindAgent,
			func(_ context.Context, req any) (any, error) {
				return endpoints.FindAgentRequest{AgentID: req.(*catalogv1.GetAgentRequest).GetAgentId()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				return &catalogv1.GetAgentResponse{Agent: AgentToProto(resp.(endpoints.AgentResponse).Agent)}, nil
			}),
		findByEmail: grpctransport.NewServer(set.FindAgentByEmail,
			func(_ context.Context, req any) (any, error) {
				return endpoints.FindAgentByEmailRequest{Email: req.(*catalogv1.FindAgentByEmailRequest).GetEmail()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				return &catalogv1.GetAgentResponse{Agent: AgentToProto(resp.(endpoints.AgentResponse).Agent)}, nil
			}),
		checkOwnership: grpctransport.NewServer(set.CheckOwnership,
			func(_ context.Context, req any) (any, error) {
				r := req.(*catalogv1.CheckOwnershipRequest)
				return endpoints.CheckOwnershipRequest{AgentID: r.GetAgentId(), UID: r.GetUid()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				r := resp.(endpoints.CheckOwnershipResponse)
				return &catalogv1.CheckOwnershipResponse{Owned: r.Owned, Exists: r.Exists}, nil
			}),
		checkAccess: grpctransport.NewServer(set.CheckAccess,
			func(_ context.Context, req any) (any, error) {
				r := req.(*catalogv1.CheckAccessRequest)
				return endpoints.CheckAccessRequest{AgentID: r.GetAgentId(), UID: r.GetUid()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				acc := resp.(endpoints.CheckAccessResponse).Access
				if !acc.Allowed {
					// Nothing about an agent the caller may not use.
					return &catalogv1.CheckAccessResponse{}, nil
				}
				return &catalogv1.CheckAccessResponse{
					Allowed: true, Role: acc.Role, PayerUid: acc.PayerUID, Agent: AgentToProto(acc.Agent),
					SubscriberCapMicros: acc.SubscriberCapMicros,
				}, nil
			}),
		accessChanges: grpctransport.NewServer(set.AccessChangesSince,
			func(_ context.Context, req any) (any, error) {
				r := req.(*catalogv1.AccessChangesSinceRequest)
				var since time.Time
				if r.GetSince() != nil {
					since = r.GetSince().AsTime()
				}
				// Clamped here too, so a huge margin_ms cannot overflow the Duration.
				ms := min(max(r.GetMarginMs(), 0), agents.AccessChangeRetention.Milliseconds())
				return endpoints.AccessChangesSinceRequest{Since: since, Margin: time.Duration(ms) * time.Millisecond}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				r := resp.(endpoints.AccessChangesResponse)
				out := &catalogv1.AccessChangesSinceResponse{Now: timestamppb.New(r.Now)}
				for _, c := range r.Changes {
					out.Changes = append(out.Changes, &catalogv1.AccessChange{AgentId: c.AgentID, Uid: c.UID})
				}
				return out, nil
			}),
	}
}

func (s *grpcServer) GetAgent(ctx context.Context, req *catalogv1.GetAgentRequest) (*catalogv1.GetAgentResponse, error) {
	_, resp, err := s.getAgent.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*catalogv1.GetAgentResponse), nil
}

func (s *grpcServer) CheckOwnership(ctx context.Context, req *catalogv1.CheckOwnershipRequest) (*catalogv1.CheckOwnershipResponse, error) {
	_, resp, err := s.checkOwnership.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*catalogv1.CheckOwnershipResponse), nil
}

func (s *grpcServer) CheckAccess(ctx context.Context, req *catalogv1.CheckAccessRequest) (*catalogv1.CheckAccessResponse, error) {
	_, resp, err := s.checkAccess.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*catalogv1.CheckAccessResponse), nil
}

func (s *grpcServer) AccessChangesSince(ctx context.Context, req *catalogv1.AccessChangesSinceRequest) (*catalogv1.AccessChangesSinceResponse, error) {
	_, resp, err := s.accessChanges.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*catalogv1.AccessChangesSinceResponse), nil
}

func (s *grpcServer) FindAgentByEmail(ctx context.Context, req *catalogv1.FindAgentByEmailRequest) (*catalogv1.GetAgentResponse, error) {
	_, resp, err := s.findByEmail.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*catalogv1.GetAgentResponse), nil
}

func grpcError(err error) error {
	var ve *agents.ValidationError
	switch {
	case errors.Is(err, agents.ErrNotFound):
		return status.Error(codes.NotFound, "agent not found")
	case errors.As(err, &ve):
		return status.Error(codes.InvalidArgument, ve.Message())
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "deadline exceeded")
	default:
		return status.Error(codes.Internal, "internal server error")
	}
}

// AgentToProto converts a domain agent.
func AgentToProto(a agents.Agent) *catalogv1.Agent {
	return &catalogv1.Agent{
		Id: a.ID, OwnerUid: a.OwnerUID, Name: a.Name, Description: a.Description, Category: a.Category,
		Status: a.Status, IsPublic: a.IsPublic, IconName: a.IconName, IconColor: a.IconColor,
		Instructions: a.Instructions, Tags: a.Tags, Subscribers: a.Subscribers,
		TotalInteractions: a.TotalInteractions, Email: a.Email,
		CreatedAt: timestamppb.New(a.CreatedAt), UpdatedAt: timestamppb.New(a.UpdatedAt),
		MarkupPercent: int32(a.MarkupPercent), GreetingCostCents: int32(a.GreetingCostCents), //nolint:gosec // bounded (0..300, 0..500)
		Greeting: a.Greeting, MemoryTokens: int32(a.MemoryTokens), ShowSources: a.ShowSources, //nolint:gosec // bounded (0..32000)
		Slug: a.Slug, Listed: a.Listed,
	}
}
