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
		grpc.ChainUnaryInterceptor(unaryRecover(logger), unaryLog(logger, requestLogConfigFromEnv(logger).slow)),
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

// unaryLog logs each call as "grpc call" (method, code, duration_ms) at the
// level callLogLevel chooses; records below the logger's level cost no
// formatting.
func unaryLog(logger *slog.Logger, slow time.Duration) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		resp, err := handler(ctx, req)
		code := status.Code(err)
		d := time.Since(start)
		if level := callLogLevel(info.FullMethod, code, d, slow); logger.Enabled(ctx, level) {
			logger.Log(ctx, level, "grpc call", "method", info.FullMethod, "code", code.String(), "duration_ms", d.Milliseconds())
		}
		return resp, err
	}
}

// callLogLevel: the server's faults at ERROR; slow calls (REQUEST_LOG_SLOW)
// at WARN; other refusals (invalid argument, not found, permission denied,
// insufficient funds…) at INFO; successful calls and health checks at
// DEBUG. Internal calls succeed several times per user request: they are
// counted and timed by the gRPC metrics and traced, and logging each at
// INFO cost CPU on the answering path for nothing a log reader needs
// (docs/conventions.md, "Request logs").
func callLogLevel(method string, code codes.Code, d, slow time.Duration) slog.Level {
	switch {
	case code == codes.Internal || code == codes.Unknown || code == codes.Unavailable || code == codes.DataLoss:
		return slog.LevelError
	case method == healthpb.Health_Check_FullMethodName:
		return slog.LevelDebug
	case slow > 0 && d >= slow:
		return slog.LevelWarn
	case code != codes.OK:
		return slog.LevelInfo
	default:
		return slog.LevelDebug
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
