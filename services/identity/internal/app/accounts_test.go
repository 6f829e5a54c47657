package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// The Admin SDK client of the account routes talks to the Auth emulator
// without credentials: revoking sets validSince (accounts:update), deleting
// calls accounts:delete, and an unknown user's deletion is not an error.
func TestFirebaseAccountsAgainstEmulatorStandIn(t *testing.T) {
	var (
		mu    sync.Mutex
		calls []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		_ = json.NewDecoder(r.Body).Decode(&body)
		mu.Lock()
		calls = append(calls, r.URL.Path+" "+body["localId"].(string))
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "accounts:update") && body["validSince"] == nil {
			t.Errorf("revoke without validSince: %v", body)
		}
		w.Header().Set("Content-Type", "application/json")
		if body["localId"] == "ghost" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"code":400,"message":"USER_NOT_FOUND"}}`))
			return
		}
		_, _ = w.Write([]byte(`{"localId":"` + body["localId"].(string) + `"}`))
	}))
	defer srv.Close()
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", strings.TrimPrefix(srv.URL, "http://"))

	a, err := newFirebaseAccounts(context.Background(), "demo-agentic")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := a.RevokeRefreshTokens(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteUser(ctx, "u1"); err != nil {
		t.Fatal(err)
	}
	if err := a.DeleteUser(ctx, "ghost"); err != nil {
		t.Fatalf("unknown user: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{
		"/identitytoolkit.googleapis.com/v1/projects/demo-agentic/accounts:update u1",
		"/identitytoolkit.googleapis.com/v1/projects/demo-agentic/accounts:delete u1",
		"/identitytoolkit.googleapis.com/v1/projects/demo-agentic/accounts:delete ghost",
	}
	if strings.Join(calls, "\n") != strings.Join(want, "\n") {
		t.Fatalf("calls:\n%s", strings.Join(calls, "\n"))
	}
}
