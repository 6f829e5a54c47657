package database

import (
	"errors"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5/pgconn"
)

// IsUnavailable reports whether err means PostgreSQL (or the network to it)
// is away for the moment rather than that the statement is wrong: a
// connection that could not be made or was lost, a closed connection or
// pool, a server shutting down or starting (57P01–57P03), a connection
// exception (class 08) or a lack of resources (class 53). Such a failure is
// worth retrying shortly: HTTP answers it with 503 and Retry-After
// (server.WriteUnexpected), event consumers retry it without parking.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch code := pgErr.Code; {
		case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"):
			return true
		case code == "57P01", code == "57P02", code == "57P03":
			return true
		}
		return false // any other answer from the server is about the statement
	}
	var connErr *pgconn.ConnectError
	if errors.As(err, &connErr) || pgconn.Timeout(err) || pgconn.SafeToRetry(err) || errors.Is(err, pgconn.ErrConnClosed) {
		return true
	}
	var netErr net.Error
	if errors.As(err, &netErr) || errors.Is(err, net.ErrClosed) {
		return true
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	// pgxpool (puddle) reports a closed pool with an error pgx does not export.
	return strings.Contains(err.Error(), "closed pool")
}
