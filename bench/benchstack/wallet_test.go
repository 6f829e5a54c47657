package benchstack

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A plaintext dial to a wallet that serves TLS (the bench run outside the
// repository, where it finds no certificate) fails at once with the reason,
// instead of being retried as a restarting wallet for w.Wait per call.
func TestRetryStopsAtAPlaintextDialToATLSWallet(t *testing.T) {
	tlsServer := httptest.NewTLSServer(http.NotFoundHandler())
	defer tlsServer.Close()
	t.Chdir(t.TempDir()) // no .data/certs above it: GRPCTransport dials plaintext
	t.Setenv("GRPC_TLS_CA", "")
	w, err := DialWallet(strings.TrimPrefix(tlsServer.URL, "https://"), "test", "run", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Conn.Close()

	err = w.Credit(context.Background(), "uid", 1, "test")
	if err == nil || !strings.Contains(err.Error(), "dialled plaintext") {
		// Without the check it is retried as a restarting wallet until
		// w.Wait and then returned without the reason.
		t.Fatalf("Credit = %v, want the plaintext-dial reason", err)
	}
}
