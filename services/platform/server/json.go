// Package server holds the HTTP and gRPC plumbing every service shares:
// JSON helpers and error shape, health/readiness/metrics endpoints,
// middleware (panic recovery, logging, metrics, tracing), a gRPC server with
// health service, and Run, which serves everything and shuts down gracefully.
package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"reflect"
	"strings"

	"github.com/agentic-app/agentic/services/platform/database"
)

// MaxBodyBytes is the largest request body DecodeJSON accepts (1 MiB).
const MaxBodyBytes = 1 << 20

// Error is an API error: an HTTP status plus the {"error","message"} body
// (and "fields", naming the offending fields, when set). Code is one of the
// Code* constants (codes.go).
type Error struct {
	Status  int               `json:"-"`
	Code    string            `json:"error"`
	Message string            `json:"message"`
	Fields  map[string]string `json:"fields,omitempty"`
}

func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// Common errors.
var (
	ErrInternal         = &Error{Status: http.StatusInternalServerError, Code: CodeInternal, Message: "Internal server error"}
	ErrNotFound         = &Error{Status: http.StatusNotFound, Code: CodeNotFound, Message: "Not found"}
	ErrMethodNotAllowed = &Error{Status: http.StatusMethodNotAllowed, Code: CodeMethodNotAllowed, Message: "Method not allowed"}
	ErrBodyTooLarge     = &Error{Status: http.StatusRequestEntityTooLarge, Code: CodeBodyTooLarge, Message: "Request body must not be larger than 1 MiB"}
)

// InvalidJSON returns a 400 invalid_json error with msg.
func InvalidJSON(msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeInvalidJSON, Message: msg}
}

// BadRequest returns a 400 error with the given code and message.
func BadRequest(code, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: code, Message: msg}
}

// WriteJSON writes v as JSON with status.
func WriteJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// WriteError writes err as {"error","message"}. An *Error (anywhere in the
// chain) is written as is; anything else becomes 500 internal with the
// generic message (log the details yourself).
func WriteError(w http.ResponseWriter, err error) {
	var e *Error
	if !errors.As(err, &e) {
		e = ErrInternal
	}
	WriteJSON(w, e.Status, e)
}

// ErrDatabaseUnavailable is the answer to a request that failed because
// PostgreSQL was away for a moment (restarting, failing over): retryable,
// unlike a 500.
var ErrDatabaseUnavailable = &Error{Status: http.StatusServiceUnavailable, Code: CodeUnavailable,
	Message: "The service is briefly unavailable. Please try again in a moment."}

// WriteUnexpected writes an error no endpoint anticipated: 503 unavailable
// with Retry-After when the database (or the network to it) is away for the
// moment (database.IsUnavailable), else 500 internal. Log it yourself.
func WriteUnexpected(w http.ResponseWriter, err error) {
	if database.IsUnavailable(err) {
		w.Header().Set("Retry-After", "1")
		WriteError(w, ErrDatabaseUnavailable)
		return
	}
	WriteError(w, ErrInternal)
}

// StatusClientClosedRequest is nginx's 499: the client closed the connection
// before the answer was ready. Nobody reads a 499; it exists so that the
// request log and http_requests_total tell an abandoned request (a browser
// navigating away, a Stop) from the service failing.
const StatusClientClosedRequest = 499

// ErrClientClosedRequest is the body written with StatusClientClosedRequest.
var ErrClientClosedRequest = &Error{Status: StatusClientClosedRequest, Code: CodeClientClosedRequest,
	Message: "The client closed the request."}

// ClientGone reports whether err is the request's own cancellation: the
// request's context (ctx, which net/http cancels when the client's
// connection closes) has ended and err is that cancellation, not a timeout
// or a collaborator's own failure.
func ClientGone(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) && errors.Is(ctx.Err(), context.Canceled)
}

// WriteFailure writes an error no endpoint anticipated, for the default case
// of an error encoder: a 499 with no log line of its own when the client went
// away (ClientGone; the request log records it at INFO), otherwise the error
// logged at ERROR as "request failed" and written as WriteUnexpected does.
func WriteFailure(ctx context.Context, logger *slog.Logger, w http.ResponseWriter, err error) {
	if ClientGone(ctx, err) {
		WriteError(w, ErrClientClosedRequest)
		return
	}
	logger.ErrorContext(ctx, "request failed", "error", err)
	WriteUnexpected(w, err)
}

type decodeConfig struct{ allowEmpty bool }

// DecodeOption configures DecodeJSON.
type DecodeOption func(*decodeConfig)

// AllowEmpty makes an empty (or whitespace-only) body valid; dst is left untouched.
func AllowEmpty() DecodeOption { return func(c *decodeConfig) { c.allowEmpty = true } }

// DecodeJSON decodes the request body (at most 1 MiB) into dst, which should
// be a pointer to a struct. Unknown fields are ignored. It returns an *Error:
// 413 body_too_large for an oversized body and 400 invalid_json for an empty
// body (unless AllowEmpty), malformed JSON, a value of the wrong type or
// trailing data; and 400 validation_failed naming the field (CheckJSONText)
// for a string anywhere in the body, known field or not, that holds a NUL
// character or invalid UTF-8, which PostgreSQL would refuse. w may be nil
// (e.g. in a go-kit request decoder).
func DecodeJSON(w http.ResponseWriter, r *http.Request, dst any, opts ...DecodeOption) error {
	var cfg decodeConfig
	for _, o := range opts {
		o(&cfg)
	}
	if r.Body == nil || r.Body == http.NoBody {
		if cfg.allowEmpty {
			return nil
		}
		return InvalidJSON("Request body must not be empty")
	}
	// Read at most MaxBodyBytes+1 so an oversized body is detected before parsing.
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return ErrBodyTooLarge
		}
		return InvalidJSON("Request body could not be read")
	}
	if len(strings.TrimSpace(string(body))) == 0 {
		if cfg.allowEmpty {
			return nil
		}
		return InvalidJSON("Request body must not be empty")
	}

	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(dst); err != nil {
		return decodeError(err, dst)
	}
	if _, err := dec.Token(); err != io.EOF {
		return InvalidJSON("Request body must contain a single JSON value")
	}
	if e := CheckJSONText(body); e != nil {
		return e
	}
	return nil
}

func decodeError(err error, dst any) *Error {
	var (
		syn *json.SyntaxError
		ute *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &syn):
		return InvalidJSON(fmt.Sprintf("Request body contains malformed JSON (at position %d)", syn.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return InvalidJSON("Request body contains malformed JSON")
	case errors.As(err, &ute):
		if ute.Field == "" {
			return InvalidJSON("Request body must be " + jsonKind(reflect.TypeOf(dst)))
		}
		return InvalidJSON(fmt.Sprintf("%s must be %s", ute.Field, jsonKind(ute.Type)))
	default:
		return InvalidJSON("Request body is not valid JSON")
	}
}

// jsonKind names the JSON type a Go type decodes from, with an article.
func jsonKind(t reflect.Type) string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return "a JSON value"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "a JSON object"
	default:
		return "a valid JSON value"
	}
}
