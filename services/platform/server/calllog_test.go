package server

import (
	"log/slog"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

func TestCallLogLevel(t *testing.T) {
	const method = "/agentic.wallet.v1.WalletService/Reserve"
	cases := []struct {
		name   string
		method string
		code   codes.Code
		d      time.Duration
		want   slog.Level
	}{
		{"success", method, codes.OK, time.Millisecond, slog.LevelDebug},
		{"slow success", method, codes.OK, 2 * time.Second, slog.LevelWarn},
		{"refusal", method, codes.FailedPrecondition, time.Millisecond, slog.LevelInfo},
		{"not found", method, codes.NotFound, time.Millisecond, slog.LevelInfo},
		{"server fault", method, codes.Internal, time.Millisecond, slog.LevelError},
		{"slow fault", method, codes.Unavailable, 2 * time.Second, slog.LevelError},
		{"health check", healthpb.Health_Check_FullMethodName, codes.OK, 2 * time.Second, slog.LevelDebug},
	}
	for _, c := range cases {
		if got := callLogLevel(c.method, c.code, c.d, time.Second); got != c.want {
			t.Errorf("%s: level %v, want %v", c.name, got, c.want)
		}
	}
	if got := callLogLevel(method, codes.OK, time.Hour, 0); got != slog.LevelDebug {
		t.Errorf("slow detection off: level %v, want DEBUG", got)
	}
}
