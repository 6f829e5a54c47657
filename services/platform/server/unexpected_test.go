package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// A database that is away for a moment is a retryable 503, anything else
// unexpected a 500.
func TestWriteUnexpected(t *testing.T) {
	for _, c := range []struct {
		err        error
		status     int
		code       string
		retryAfter string
	}{
		{fmt.Errorf("list agents: %w", &pgconn.PgError{Code: "57P01"}), 503, CodeUnavailable, "1"},
		{fmt.Errorf("begin: %w", pgconn.ErrConnClosed), 503, CodeUnavailable, "1"},
		{&pgconn.PgError{Code: "23505"}, 500, CodeInternal, ""},
		{errors.New("bug"), 500, CodeInternal, ""},
	} {
		rec := httptest.NewRecorder()
		WriteUnexpected(rec, c.err)
		if rec.Code != c.status || rec.Header().Get("Retry-After") != c.retryAfter {
			t.Errorf("%v: %d Retry-After %q, want %d %q", c.err, rec.Code, rec.Header().Get("Retry-After"), c.status, c.retryAfter)
		}
		if want := `"error":"` + c.code + `"`; !strings.Contains(rec.Body.String(), want) {
			t.Errorf("%v: body %s lacks %s", c.err, rec.Body.String(), want)
		}
	}
}

// A request whose client left is a 499 without an ERROR line; a cancellation
// that is not the request's own (its context still live) is still a failure.
func TestWriteFailureTellsAClientThatLeftFromAFailure(t *testing.T) {
	gone, cancel := context.WithCancel(context.Background())
	cancel()
	live := context.Background()
	for _, c := range []struct {
		name   string
		ctx    context.Context
		err    error
		status int
		logged bool
	}{
		{"client left", gone, fmt.Errorf("list agents: %w", context.Canceled), StatusClientClosedRequest, false},
		{"a collaborator's own cancellation", live, fmt.Errorf("search: %w", context.Canceled), 500, true},
		{"a failure after the client left", gone, errors.New("bug"), 500, true},
		{"a deadline (a timeout, retryable)", gone, context.DeadlineExceeded, 503, true},
		{"database away", live, pgconn.ErrConnClosed, 503, true},
	} {
		var logs strings.Builder
		logger := slog.New(slog.NewTextHandler(&logs, nil))
		rec := httptest.NewRecorder()
		WriteFailure(c.ctx, logger, rec, c.err)
		if rec.Code != c.status {
			t.Errorf("%s: status %d, want %d", c.name, rec.Code, c.status)
		}
		if got := strings.Contains(logs.String(), "level=ERROR msg=\"request failed\""); got != c.logged {
			t.Errorf("%s: logged %v, want %v (%s)", c.name, got, c.logged, logs.String())
		}
	}
}
