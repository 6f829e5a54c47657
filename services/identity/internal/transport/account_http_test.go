package transport

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/identity/internal/users"
)

func rawCall(t *testing.T, url, method, token string) (int, http.Header, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, b
}

func TestAccountRoutes(t *testing.T) {
	svc := &fakeService{}
	srv := newTestServer(t, svc)

	if st, _, b := rawCall(t, srv.URL+PathRevokeSessions, "POST", "good-token"); st != 204 || len(b) != 0 {
		t.Fatalf("revoke: %d %s", st, b)
	}
	if st, _, b := rawCall(t, srv.URL+PathAccount, "DELETE", "good-token"); st != 204 || len(b) != 0 {
		t.Fatalf("delete: %d %s", st, b)
	}
	if fmt.Sprint(svc.revoked, svc.deleted) != "[uid-1] [uid-1]" {
		t.Fatalf("calls: %v %v", svc.revoked, svc.deleted)
	}
	if st, _, _ := rawCall(t, srv.URL+PathAccount, "DELETE", ""); st != 401 {
		t.Fatalf("no token: %d", st)
	}
	if st, _, _ := rawCall(t, srv.URL+PathRevokeSessions, "GET", "good-token"); st != 405 {
		t.Fatalf("GET revoke: %d", st)
	}

	svc.deleteErr = &users.AccountNotEmptyError{Message: "Your wallet holds $12.34: spend or withdraw it before deleting your account."}
	st, _, b := rawCall(t, srv.URL+PathAccount, "DELETE", "good-token")
	var body map[string]any
	_ = json.Unmarshal(b, &body)
	if st != 409 || body["error"] != "account_not_empty" || body["message"] != svc.deleteErr.Error() {
		t.Fatalf("not empty: %d %s", st, b)
	}

	svc.deleteErr = fmt.Errorf("%w: boom", users.ErrWalletUnavailable)
	st, h, b := rawCall(t, srv.URL+PathAccount, "DELETE", "good-token")
	_ = json.Unmarshal(b, &body)
	if st != 503 || body["error"] != "wallet_unavailable" || h.Get("Retry-After") == "" {
		t.Fatalf("wallet down: %d %s", st, b)
	}
}
