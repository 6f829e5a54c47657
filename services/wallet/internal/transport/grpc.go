package transport

import (
	"context"
	"errors"

	grpctransport "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/wallet/internal/endpoints"
	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

type grpcServer struct {
	walletv1.UnimplementedWalletServiceServer
	charge     grpctransport.Handler
	credit     grpctransport.Handler
	getBalance grpctransport.Handler
}

// NewGRPCServer implements walletv1.WalletServiceServer on top of the endpoints.
func NewGRPCServer(set endpoints.Set) walletv1.WalletServiceServer {
	encodeTransfer := func(_ context.Context, resp any) (any, error) {
		r := resp.(endpoints.TransferResponse).Result
		return &walletv1.TransferResponse{Transfer: ToProto(r.Transfer), Replayed: r.Replayed, BalanceMicros: r.BalanceMicros}, nil
	}
	return &grpcServer{
		charge: grpctransport.NewServer(set.Charge,
			func(_ context.Context, req any) (any, error) {
				r := req.(*walletv1.ChargeRequest)
				return endpoints.TransferRequest{Request: wallet.TransferRequest{
					UID: r.GetUid(), AmountMicros: r.GetAmountMicros(), IdempotencyKey: r.GetIdempotencyKey(),
					Description: r.GetDescription(), Metadata: r.GetMetadata(),
				}}, nil
			}, encodeTransfer),
		credit: grpctransport.NewServer(set.Credit,
			func(_ context.Context, req any) (any, error) {
				r := req.(*walletv1.CreditRequest)
				return endpoints.TransferRequest{Request: wallet.TransferRequest{
					UID: r.GetUid(), AmountMicros: r.GetAmountMicros(), IdempotencyKey: r.GetIdempotencyKey(),
					Description: r.GetDescription(), Metadata: r.GetMetadata(),
				}}, nil
			}, encodeTransfer),
		getBalance: grpctransport.NewServer(set.GetBalance,
			func(_ context.Context, req any) (any, error) {
				return endpoints.BalanceRequest{UID: req.(*walletv1.GetBalanceRequest).GetUid()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				return &walletv1.GetBalanceResponse{BalanceMicros: resp.(endpoints.BalanceResponse).BalanceMicros}, nil
			}),
	}
}

func (s *grpcServer) Charge(ctx context.Context, req *walletv1.ChargeRequest) (*walletv1.TransferResponse, error) {
	_, resp, err := s.charge.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*walletv1.TransferResponse), nil
}

func (s *grpcServer) Credit(ctx context.Context, req *walletv1.CreditRequest) (*walletv1.TransferResponse, error) {
	_, resp, err := s.credit.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*walletv1.TransferResponse), nil
}

func (s *grpcServer) GetBalance(ctx context.Context, req *walletv1.GetBalanceRequest) (*walletv1.GetBalanceResponse, error) {
	_, resp, err := s.getBalance.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*walletv1.GetBalanceResponse), nil
}

func grpcError(err error) error {
	var ve *wallet.ValidationError
	switch {
	case errors.Is(err, wallet.ErrInsufficientFunds):
		return status.Error(codes.FailedPrecondition, "insufficient funds")
	case errors.Is(err, wallet.ErrIdempotencyConflict):
		return status.Error(codes.AlreadyExists, "idempotency key already used with different parameters")
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

// ToProto converts a transfer.
func ToProto(t wallet.Transfer) *walletv1.Transfer {
	return &walletv1.Transfer{
		Id: t.ID, Seq: t.Seq, Uid: t.UID, AmountMicros: t.AmountMicros, Type: string(t.Type),
		Description: t.Description, Provider: t.Provider, Metadata: t.Metadata,
		IdempotencyKey: t.IdempotencyKey, CreatedAt: timestamppb.New(t.CreatedAt),
	}
}
