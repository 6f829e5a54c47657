package transport

import (
	"context"
	"errors"
	"strconv"
	"time"

	grpctransport "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
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
	reserve    grpctransport.Handler
	capture    grpctransport.Handler
	release    grpctransport.Handler
}

// NewGRPCServer implements walletv1.WalletServiceServer on top of the endpoints.
func NewGRPCServer(set endpoints.Set) walletv1.WalletServiceServer {
	encodeTransfer := func(_ context.Context, resp any) (any, error) {
		r := resp.(endpoints.TransferResponse).Result
		return &walletv1.TransferResponse{Transfer: ToProto(r.Transfer), Replayed: r.Replayed, BalanceMicros: r.BalanceMicros}, nil
	}
	encodeHold := func(_ context.Context, resp any) (any, error) {
		r := resp.(endpoints.HoldResponse).Result
		return &walletv1.HoldResponse{Hold: HoldToProto(r.Hold), Replayed: r.Replayed,
			BalanceMicros: r.Balance.Micros, HeldMicros: r.Balance.HeldMicros}, nil
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
				r := req.(*walletv1.GetBalanceRequest)
				return endpoints.BalanceRequest{UID: r.GetUid(), IncludeEarningsAndDebt: r.GetIncludeEarningsAndDebt()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				r := resp.(endpoints.BalanceResponse)
				return &walletv1.GetBalanceResponse{BalanceMicros: r.Balance.Micros, HeldMicros: r.Balance.HeldMicros,
					EarningsMicros: r.EarningsMicros, DebtMicros: r.DebtMicros}, nil
			}),
		reserve: grpctransport.NewServer(set.Reserve,
			func(_ context.Context, req any) (any, error) {
				r := req.(*walletv1.ReserveRequest)
				if r.GetTtlSeconds() > int64(wallet.MaxHoldTTL/time.Second) {
					// Checked here too: a huge value would overflow the Duration.
					return nil, &wallet.ValidationError{Message: "ttl_seconds must be at most 3600 (1 hour)"}
				}
				return endpoints.ReserveRequest{Request: wallet.ReserveRequest{
					UID: r.GetUid(), AmountMicros: r.GetAmountMicros(), IdempotencyKey: r.GetIdempotencyKey(),
					TTL: time.Duration(r.GetTtlSeconds()) * time.Second, Metadata: r.GetMetadata(),
				}}, nil
			}, encodeHold),
		capture: grpctransport.NewServer(set.Capture,
			func(_ context.Context, req any) (any, error) {
				r := req.(*walletv1.CaptureRequest)
				return endpoints.CaptureRequest{Request: wallet.CaptureRequest{
					HoldID: r.GetHoldId(), AmountMicros: r.GetAmountMicros(), Description: r.GetDescription(), Metadata: r.GetMetadata(),
				}}, nil
			}, encodeHold),
		release: grpctransport.NewServer(set.Release,
			func(_ context.Context, req any) (any, error) {
				return endpoints.ReleaseRequest{HoldID: req.(*walletv1.ReleaseRequest).GetHoldId()}, nil
			}, encodeHold),
	}
}

func (s *grpcServer) Reserve(ctx context.Context, req *walletv1.ReserveRequest) (*walletv1.HoldResponse, error) {
	_, resp, err := s.reserve.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*walletv1.HoldResponse), nil
}

func (s *grpcServer) Capture(ctx context.Context, req *walletv1.CaptureRequest) (*walletv1.HoldResponse, error) {
	_, resp, err := s.capture.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*walletv1.HoldResponse), nil
}

func (s *grpcServer) Release(ctx context.Context, req *walletv1.ReleaseRequest) (*walletv1.HoldResponse, error) {
	_, resp, err := s.release.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*walletv1.HoldResponse), nil
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

// ErrorDomain is the ErrorInfo domain of the wallet's gRPC errors.
const ErrorDomain = "wallet.agentic"

// Reasons (google.rpc.ErrorInfo.reason) that let a caller tell the
// FAILED_PRECONDITION / NOT_FOUND / ALREADY_EXISTS cases apart.
const (
	ReasonInsufficientFunds   = "insufficient_funds"
	ReasonHoldExpired         = "hold_expired"
	ReasonHoldReleased        = "hold_released"
	ReasonHoldCaptured        = "hold_captured"
	ReasonHoldNotFound        = "hold_not_found"
	ReasonIdempotencyConflict = "idempotency_conflict"
	// Reserve refusals by money rules (issue 16); conversations answers 402
	// for these as for insufficient_funds.
	ReasonMonthlyLimitReached = "monthly_limit_reached"
	ReasonDebtOutstanding     = "debt_outstanding"
	ReasonAgentPaused         = "agent_paused"
	// A consumer's Reserve for an agent that is paused or whose creator
	// cannot pay its monthly fee (issue 28); conversations answers 403
	// agent_unavailable.
	ReasonAgentUnavailable = "agent_unavailable"
)

// ErrorInfo metadata of an insufficient_funds refusal of Reserve (decimal
// micro-dollars): what the reservation needed (the hold plus a due agent
// fee), what was available, and the fee's part of it (0 when none was due).
const (
	MetaNeededMicros    = "needed_micros"
	MetaAvailableMicros = "available_micros"
	MetaFeeMicros       = "fee_micros"
)

// withReason builds a status whose message is msg and whose details carry an
// ErrorInfo with reason and the metadata pairs (key, value, …).
func withReason(code codes.Code, msg, reason string, meta ...string) error {
	st := status.New(code, msg)
	info := &errdetails.ErrorInfo{Reason: reason, Domain: ErrorDomain}
	if len(meta) > 0 {
		info.Metadata = map[string]string{}
		for i := 0; i+1 < len(meta); i += 2 {
			info.Metadata[meta[i]] = meta[i+1]
		}
	}
	if d, err := st.WithDetails(info); err == nil {
		st = d
	}
	return st.Err()
}

func grpcError(err error) error {
	var (
		ve    *wallet.ValidationError
		short *wallet.FundsShortError
	)
	switch {
	case errors.As(err, &short):
		// A Reserve refused for funds: the amounts go with the reason, so
		// the caller can say what to add and whether a due fee is why.
		return withReason(codes.FailedPrecondition, ReasonInsufficientFunds, ReasonInsufficientFunds,
			MetaNeededMicros, strconv.FormatInt(short.NeededMicros, 10),
			MetaAvailableMicros, strconv.FormatInt(short.AvailableMicros, 10),
			MetaFeeMicros, strconv.FormatInt(short.FeeMicros, 10))
	case errors.Is(err, wallet.ErrInsufficientFunds):
		// Reserve and Charge alike: the message is the reason itself, so a
		// caller can match it without decoding the details.
		return withReason(codes.FailedPrecondition, ReasonInsufficientFunds, ReasonInsufficientFunds)
	case errors.Is(err, wallet.ErrMonthlyLimit):
		return withReason(codes.FailedPrecondition, ReasonMonthlyLimitReached, ReasonMonthlyLimitReached)
	case errors.Is(err, wallet.ErrDebtOutstanding):
		return withReason(codes.FailedPrecondition, ReasonDebtOutstanding, ReasonDebtOutstanding)
	case errors.Is(err, wallet.ErrAgentPaused):
		return withReason(codes.FailedPrecondition, ReasonAgentPaused, ReasonAgentPaused)
	case errors.Is(err, wallet.ErrAgentUnavailable):
		return withReason(codes.FailedPrecondition, ReasonAgentUnavailable, ReasonAgentUnavailable)
	case errors.Is(err, wallet.ErrIdempotencyConflict):
		return withReason(codes.AlreadyExists, "idempotency key already used with different parameters", ReasonIdempotencyConflict)
	case errors.Is(err, wallet.ErrHoldNotFound):
		return withReason(codes.NotFound, ReasonHoldNotFound, ReasonHoldNotFound)
	case errors.Is(err, wallet.ErrHoldExpired):
		return withReason(codes.FailedPrecondition, ReasonHoldExpired, ReasonHoldExpired)
	case errors.Is(err, wallet.ErrHoldReleased):
		return withReason(codes.FailedPrecondition, ReasonHoldReleased, ReasonHoldReleased)
	case errors.Is(err, wallet.ErrHoldCaptured):
		return withReason(codes.FailedPrecondition, ReasonHoldCaptured, ReasonHoldCaptured)
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

// HoldToProto converts a hold.
func HoldToProto(h wallet.Hold) *walletv1.Hold {
	return &walletv1.Hold{
		Id: h.ID, Uid: h.UID, AmountMicros: h.AmountMicros, Status: string(h.Status),
		CapturedMicros: h.CapturedMicros, TransferId: h.TransferID, IdempotencyKey: h.IdempotencyKey,
		ExpiresAt: timestamppb.New(h.ExpiresAt), CreatedAt: timestamppb.New(h.CreatedAt),
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
