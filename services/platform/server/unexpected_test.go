package server

import (
	"errors"
	"fmt"
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
