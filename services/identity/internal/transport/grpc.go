package transport

import (
	"context"
	"errors"

	grpctransport "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/identity/internal/endpoints"
	"github.com/agentic-app/agentic/services/identity/internal/users"
)

type grpcServer struct {
	identityv1.UnimplementedIdentityServiceServer
	getUser          grpctransport.Handler
	getUsers         grpctransport.Handler
	findUsersByEmail grpctransport.Handler
}

// NewGRPCServer implements identityv1.IdentityServiceServer on top of the endpoints.
func NewGRPCServer(set endpoints.Set) identityv1.IdentityServiceServer {
	return &grpcServer{
		getUser: grpctransport.NewServer(set.GetUser,
			func(_ context.Context, req any) (any, error) {
				return endpoints.GetUserRequest{UID: req.(*identityv1.GetUserRequest).GetUid()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				return &identityv1.GetUserResponse{User: ToProto(resp.(endpoints.UserResponse).User)}, nil
			}),
		getUsers: grpctransport.NewServer(set.GetUsers,
			func(_ context.Context, req any) (any, error) {
				return endpoints.GetUsersRequest{UIDs: req.(*identityv1.GetUsersRequest).GetUids()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				return &identityv1.GetUsersResponse{Users: toProtos(resp.(endpoints.UsersResponse).Users)}, nil
			}),
		findUsersByEmail: grpctransport.NewServer(set.FindUsersByEmail,
			func(_ context.Context, req any) (any, error) {
				return endpoints.FindUsersByEmailRequest{Emails: req.(*identityv1.FindUsersByEmailRequest).GetEmails()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				return &identityv1.FindUsersByEmailResponse{Users: toProtos(resp.(endpoints.UsersResponse).Users)}, nil
			}),
	}
}

func (s *grpcServer) GetUser(ctx context.Context, req *identityv1.GetUserRequest) (*identityv1.GetUserResponse, error) {
	_, resp, err := s.getUser.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*identityv1.GetUserResponse), nil
}

func (s *grpcServer) GetUsers(ctx context.Context, req *identityv1.GetUsersRequest) (*identityv1.GetUsersResponse, error) {
	_, resp, err := s.getUsers.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*identityv1.GetUsersResponse), nil
}

func (s *grpcServer) FindUsersByEmail(ctx context.Context, req *identityv1.FindUsersByEmailRequest) (*identityv1.FindUsersByEmailResponse, error) {
	_, resp, err := s.findUsersByEmail.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*identityv1.FindUsersByEmailResponse), nil
}

func grpcError(err error) error {
	var ve *users.ValidationError
	switch {
	case errors.Is(err, users.ErrNotFound):
		return status.Error(codes.NotFound, "user not found")
	case errors.As(err, &ve):
		return status.Error(codes.InvalidArgument, ve.Message)
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "deadline exceeded")
	default:
		return status.Error(codes.Internal, "internal server error")
	}
}

// ToProto converts a domain user (unset strings become "").
func ToProto(u users.User) *identityv1.User {
	return &identityv1.User{
		Uid: u.UID, Email: u.Email, DisplayName: u.DisplayName, Username: u.Username, Name: u.Name,
		PhotoUrl: u.PhotoURL, InterestedInPublicAgents: u.InterestedInPublicAgents,
		CreatedAt: timestamppb.New(u.CreatedAt),
	}
}

func toProtos(us []users.User) []*identityv1.User {
	out := make([]*identityv1.User, len(us))
	for i, u := range us {
		out[i] = ToProto(u)
	}
	return out
}
