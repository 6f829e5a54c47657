package server

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
)

// NewGRPCServer returns a gRPC server with OpenTelemetry (otelgrpc stats
// handler), panic recovery (codes.Internal), call logging and the standard
// health service (registered and returned so Run can flip it to NOT_SERVING
// on shutdown). Extra server options are appended.
func NewGRPCServer(logger *slog.Logger, opts ...grpc.ServerOption) (*grpc.Server, *health.Server) {
	if logger == nil {
		logger = slog.Default()
	}
	base := []grpc.ServerOption{
		grpc.StatsHandler(otelgrpc.NewServerHandler()),
		grpc.ChainUnaryInterceptor(unaryRecover(logger), unaryLog(logger)),
		grpc.ChainStreamInterceptor(streamRecover(logger)),
	}
	srv := grpc.NewServer(append(base, opts...)...)
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	return srv, hs
}

func unaryRecover(logger *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if v := recover(); v != nil {
				logger.ErrorContext(ctx, "panic in grpc handler", "method", info.FullMethod, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				err = status.Error(codes.Internal, "internal server error")
			}
		}()
		return handler(ctx, req)
	}
}

func streamRecover(logger *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		defer func() {
			if v := recover(); v != nil {
				logger.ErrorContext(ss.Context(), "panic in grpc stream", "method", info.FullMethod, "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				err = status.Error(codes.Internal, "internal server error")
			}
		}()
		return handler(srv, ss)
	}
}

func unaryLog(logger *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		code := status.Code(err)
		level := slog.LevelInfo
		switch {
		case code == codes.Internal || code == codes.Unknown || code == codes.Unavailable || code == codes.DataLoss:
			level = slog.LevelError
		case info.FullMethod == healthpb.Health_Check_FullMethodName:
			level = slog.LevelDebug
		}
		logger.Log(ctx, level, "grpc call", "method", info.FullMethod, "code", code.String(), "duration_ms", time.Since(start).Milliseconds())
		return resp, err
	}
}

// DialGRPC returns a client connection to another service's internal gRPC
// API at addr (host:port): mutual TLS with sec's certificate (plaintext when
// sec is nil: development and tests only, see LoadGRPCTLS), traced (otelgrpc
// propagates the caller's span), and lazy, so an unreachable peer only fails
// the calls and never the caller's start-up.
func DialGRPC(addr string, sec *GRPCSecurity) (*grpc.ClientConn, error) {
	opts := append(sec.DialOptions(), grpc.WithStatsHandler(otelgrpc.NewClientHandler()))
	conn, err := grpc.NewClient(addr, opts...)
	if err != nil {
		return nil, fmt.Errorf("grpc client %s: %w", addr, err)
	}
	return conn, nil
}
