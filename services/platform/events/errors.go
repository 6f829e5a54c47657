package events

import (
	"context"
	"errors"
	"io"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/agentic-app/agentic/services/platform/database"
)

// permanentError marks a failure that will not go away by retrying.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// transientError marks a failure that goes away by waiting.
type transientError struct{ err error }

func (e transientError) Error() string { return e.err.Error() }
func (e transientError) Unwrap() error { return e.err }

// Permanent marks err as a deterministic failure of the message itself (a
// payload that does not decode, an id that does not exist and never will):
// a Consumer parks the message at once instead of retrying it. nil stays nil.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// Transient marks err as a temporary failure (a dependency is away): a
// Consumer retries the message with back-off for as long as it takes and
// never parks it. Errors that IsTransient recognises need no marking; use
// Transient for a dependency whose errors it does not know. nil stays nil.
func Transient(err error) error {
	if err == nil {
		return nil
	}
	return transientError{err}
}

// IsPermanent reports whether err (or an error it wraps) was marked with
// Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

// IsTransient reports whether err is a temporary failure of something the
// handler depends on rather than a fault of the message: marked with
// Transient; a context deadline or cancellation; a network error (refused,
// reset, EOF, timeout); a pgx connection error or a closed connection or
// pool; a PostgreSQL error of class 08 (connection exception), 53
// (insufficient resources), 57P01–57P03 (admin/crash shutdown, cannot connect
// now), 57014 (statement timeout), 55P03 (lock not available), 40001
// (serialization failure) or 40P01 (deadlock); a gRPC status Unavailable,
// DeadlineExceeded, ResourceExhausted or Aborted. An error marked Permanent is
// never transient. Anything else (a constraint violation, a decoding error, a
// bug) is treated as deterministic.
func IsTransient(err error) bool {
	if err == nil || IsPermanent(err) {
		return false
	}
	var t transientError
	if errors.As(err, &t) {
		return true
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		code := pgErr.Code
		switch {
		case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"):
			return true
		}
		switch code {
		case "40001", "40P01", "57P01", "57P02", "57P03", "57014", "55P03":
			return true
		}
		return false // any other answer from the server is deterministic
	}
	if database.IsUnavailable(err) || errors.Is(err, io.EOF) {
		return true
	}
	if s, ok := status.FromError(err); ok && s != nil {
		switch s.Code() {
		case codes.Unavailable, codes.DeadlineExceeded, codes.ResourceExhausted, codes.Aborted:
			return true
		}
	}
	return false
}

// UnmarshalPayload decodes ev's payload (protobuf JSON, unknown fields
// allowed) into m. A payload that does not decode is the message's fault: the
// error is marked Permanent, so the consumer parks the message at once.
func UnmarshalPayload(ev Received, m proto.Message) error {
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(ev.Payload, m); err != nil {
		return Permanent(err)
	}
	return nil
}
