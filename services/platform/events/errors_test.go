package events

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/structpb"
)

func TestIsTransient(t *testing.T) {
	pg := func(code string) error { return fmt.Errorf("insert: %w", &pgconn.PgError{Code: code}) }
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"plain", errors.New("agent_id missing"), false},
		{"marked transient", Transient(errors.New("x")), true},
		{"marked permanent wins", Permanent(context.DeadlineExceeded), false},
		{"deadline", fmt.Errorf("q: %w", context.DeadlineExceeded), true},
		{"canceled", context.Canceled, true},
		{"admin shutdown 57P01", pg("57P01"), true},
		{"cannot connect now 57P03", pg("57P03"), true},
		{"connection exception 08006", pg("08006"), true},
		{"too many connections 53300", pg("53300"), true},
		{"serialization 40001", pg("40001"), true},
		{"deadlock 40P01", pg("40P01"), true},
		{"statement timeout 57014", pg("57014"), true},
		{"unique violation 23505", pg("23505"), false},
		{"invalid text 22P02", pg("22P02"), false},
		{"conn closed", fmt.Errorf("exec: %w", pgconn.ErrConnClosed), true},
		{"refused", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, true},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true},
		{"eof", io.ErrUnexpectedEOF, true},
		{"grpc unavailable", fmt.Errorf("GetUser: %w", status.Error(codes.Unavailable, "down")), true},
		{"grpc deadline", status.Error(codes.DeadlineExceeded, "slow"), true},
		{"grpc not found", status.Error(codes.NotFound, "no"), false},
		{"closed pool", errors.New("closed pool"), true},
	}
	for _, c := range cases {
		if got := IsTransient(c.err); got != c.want {
			t.Errorf("%s: IsTransient(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
	if !IsPermanent(fmt.Errorf("handler: %w", Permanent(errors.New("x")))) || IsPermanent(errors.New("x")) {
		t.Error("IsPermanent")
	}
	if Permanent(nil) != nil || Transient(nil) != nil {
		t.Error("nil must stay nil")
	}
}

func TestUnmarshalPayloadMarksDecodeErrorsPermanent(t *testing.T) {
	var s structpb.Struct
	if err := UnmarshalPayload(Received{Payload: []byte(`{"a":1}`)}, &s); err != nil {
		t.Fatal(err)
	}
	if err := UnmarshalPayload(Received{Payload: []byte(`{not json`)}, &s); !IsPermanent(err) {
		t.Fatalf("decode error %v not permanent", err)
	}
}
