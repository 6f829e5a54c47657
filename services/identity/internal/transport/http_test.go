package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/identity/internal/endpoints"
	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/server"
)

// fakeService records calls and returns canned users.
type fakeService struct {
	mu           sync.Mutex
	onboardCalls []*string
	interest     int
	fail         error
	revoked      []string
	deleted      []string
	deleteErr    error
}

var created = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

func (f *fakeService) Onboard(_ context.Context, c auth.Claims, dn *string) (users.User, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.onboardCalls = append(f.onboardCalls, dn)
	if f.fail != nil {
		return users.User{}, false, f.fail
	}
	if dn != nil && len(*dn) > 100 {
		return users.User{}, false, &users.ValidationError{Message: "displayName must be at most 100 characters"}
	}
	u := users.User{UID: c.UID, Email: c.Email, CreatedAt: created}
	if dn != nil {
		u.DisplayName, u.Username, u.Name = *dn, *dn, *dn
	}
	return u, true, nil
}

func (f *fakeService) RegisterPublicAgentInterest(_ context.Context, c auth.Claims) (users.User, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.interest++
	return users.User{UID: c.UID, Email: c.Email, InterestedInPublicAgents: true, CreatedAt: created}, nil
}

func (f *fakeService) RevokeSessions(_ context.Context, uid string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.revoked = append(f.revoked, uid)
	return f.fail
}

func (f *fakeService) DeleteAccount(_ context.Context, c auth.Claims) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deleteErr != nil {
		return f.deleteErr
	}
	f.deleted = append(f.deleted, c.UID)
	return nil
}

func (f *fakeService) GetUser(context.Context, string) (users.User, error) {
	return users.User{}, users.ErrNotFound
}
func (f *fakeService) GetUsers(context.Context, []string) ([]users.User, error) { return nil, nil }
func (f *fakeService) FindUsersByEmail(context.Context, []string) ([]users.User, error) {
	return nil, nil
}

func newTestServer(t *testing.T, svc users.Service) *httptest.Server {
	t.Helper()
	verifier := auth.VerifierFunc(func(_ context.Context, raw string) (auth.Claims, error) {
		if raw != "good-token" {
			return auth.Claims{}, auth.ErrInvalidToken
		}
		return auth.Claims{UID: "uid-1", Email: "ada@example.com", ExpiresAt: time.Now().Add(time.Hour)}, nil
	})
	mux := server.NewMux(nil)
	RegisterHTTP(mux, endpoints.New(svc, nil, nil), verifier, nil)
	srv := httptest.NewServer(server.Middleware(mux, "identity-test", nil, nil))
	t.Cleanup(srv.Close)
	return srv
}

type result struct {
	status int
	body   map[string]any
}

func call(t *testing.T, srv *httptest.Server, method, path, token string, body []byte) result {
	t.Helper()
	var rd *bytes.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	} else {
		rd = bytes.NewReader(nil)
	}
	req, _ := http.NewRequest(method, srv.URL+path, rd)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s %s: content-type %q", method, path, ct)
	}
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatalf("%s %s: body not JSON: %v", method, path, err)
	}
	return result{resp.StatusCode, m}
}

func TestOnboardingSuccess(t *testing.T) {
	svc := &fakeService{}
	srv := newTestServer(t, svc)

	r := call(t, srv, "POST", PathOnboarding, "good-token", nil)
	if r.status != 200 || r.body["success"] != true {
		t.Fatalf("empty body: %d %v", r.status, r.body)
	}
	user := r.body["data"].(map[string]any)["user"].(map[string]any)
	want := map[string]any{
		"uid": "uid-1", "email": "ada@example.com", "displayName": nil, "username": nil, "name": nil,
		"photoURL": nil, "interestedInPublicAgents": false, "createdAt": "2030-01-02T03:04:05Z",
	}
	if len(user) != len(want) {
		t.Fatalf("user fields = %v", user)
	}
	for k, v := range want {
		if got, ok := user[k]; !ok || got != v {
			t.Errorf("user[%q] = %v, want %v", k, got, v)
		}
	}

	r = call(t, srv, "POST", PathOnboarding, "good-token", []byte(`{"displayName":"ada99","extra":1}`))
	user = r.body["data"].(map[string]any)["user"].(map[string]any)
	if r.status != 200 || user["displayName"] != "ada99" || user["username"] != "ada99" {
		t.Fatalf("with displayName: %d %v", r.status, r.body)
	}
	r = call(t, srv, "POST", PathOnboarding, "good-token", []byte(`{"displayName":null}`))
	if r.status != 200 {
		t.Fatalf("null displayName: %d %v", r.status, r.body)
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	if len(svc.onboardCalls) != 3 || svc.onboardCalls[0] != nil || *svc.onboardCalls[1] != "ada99" || svc.onboardCalls[2] != nil {
		t.Fatalf("calls = %v", svc.onboardCalls)
	}
}

func TestPublicAgentInterest(t *testing.T) {
	svc := &fakeService{}
	srv := newTestServer(t, svc)
	for _, body := range [][]byte{nil, []byte(`{}`), []byte(`{"idToken":"eyJhbGciOi..."}`), []byte(`{"idToken":null}`)} {
		r := call(t, srv, "POST", PathPublicAgentInterest, "good-token", body)
		if r.status != 200 || r.body["success"] != true {
			t.Fatalf("body %s: %d %v", body, r.status, r.body)
		}
		if u := r.body["data"].(map[string]any)["user"].(map[string]any); u["interestedInPublicAgents"] != true {
			t.Fatalf("user = %v", u)
		}
	}
	if svc.interest != 4 {
		t.Fatalf("calls = %d", svc.interest)
	}
}

func TestBadRequests(t *testing.T) {
	svc := &fakeService{}
	srv := newTestServer(t, svc)
	huge := []byte(`{"displayName":"` + strings.Repeat("x", 2<<20) + `"}`)
	cases := []struct {
		name, method, path, token string
		body                      []byte
		status                    int
		code, message             string
	}{
		{"no token", "POST", PathOnboarding, "", nil, 401, "unauthenticated", "Authentication token not available. User must be logged in."},
		{"bad token", "POST", PathOnboarding, "forged", nil, 401, "invalid_token", "Invalid or expired authentication token."},
		{"no token interest", "POST", PathPublicAgentInterest, "", []byte(`{}`), 401, "unauthenticated", "Authentication token not available. User must be logged in."},
		{"bad token interest", "POST", PathPublicAgentInterest, "forged", nil, 401, "invalid_token", "Invalid or expired authentication token."},
		{"malformed", "POST", PathOnboarding, "good-token", []byte(`{"displayName":`), 400, "invalid_json", "Request body contains malformed JSON"},
		{"not json", "POST", PathOnboarding, "good-token", []byte(`displayName=ada`), 400, "invalid_json", "Request body contains malformed JSON (at position 1)"},
		{"number displayName", "POST", PathOnboarding, "good-token", []byte(`{"displayName":5}`), 400, "invalid_json", "displayName must be a string"},
		{"object displayName", "POST", PathOnboarding, "good-token", []byte(`{"displayName":{"a":1}}`), 400, "invalid_json", "displayName must be a string"},
		{"array body", "POST", PathOnboarding, "good-token", []byte(`["ada"]`), 400, "invalid_json", "Request body must be a JSON object"},
		{"array body interest", "POST", PathPublicAgentInterest, "good-token", []byte(`[]`), 400, "invalid_json", "Request body must be a JSON object"},
		{"malformed interest", "POST", PathPublicAgentInterest, "good-token", []byte(`{`), 400, "invalid_json", "Request body contains malformed JSON"},
		{"two values", "POST", PathOnboarding, "good-token", []byte(`{}{}`), 400, "invalid_json", "Request body must contain a single JSON value"},
		{"too long", "POST", PathOnboarding, "good-token", []byte(`{"displayName":"` + strings.Repeat("a", 101) + `"}`), 400, "invalid_request", "displayName must be at most 100 characters"},
		{"too large", "POST", PathOnboarding, "good-token", huge, 413, "body_too_large", "Request body must not be larger than 1 MiB"},
		{"GET onboarding", "GET", PathOnboarding, "good-token", nil, 405, "method_not_allowed", "Method not allowed"},
		{"PUT interest", "PUT", PathPublicAgentInterest, "", nil, 405, "method_not_allowed", "Method not allowed"},
		{"unknown path", "POST", "/api/user/nothing", "good-token", nil, 404, "not_found", "Not found"},
		{"unknown root", "GET", "/whatever", "", nil, 404, "not_found", "Not found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, srv, tc.method, tc.path, tc.token, tc.body)
			if r.status != tc.status || r.body["error"] != tc.code || r.body["message"] != tc.message {
				t.Fatalf("got %d %v, want %d %s %q", r.status, r.body, tc.status, tc.code, tc.message)
			}
		})
	}
	// None of the rejected requests may reach the service except the one the
	// service itself rejected (too long).
	if len(svc.onboardCalls) != 1 || svc.interest != 0 {
		t.Fatalf("service reached: onboard=%d interest=%d", len(svc.onboardCalls), svc.interest)
	}
}

func TestInternalErrorsAreGeneric(t *testing.T) {
	srv := newTestServer(t, &fakeService{fail: errors.New("pq: relation users does not exist")})
	r := call(t, srv, "POST", PathOnboarding, "good-token", nil)
	if r.status != 500 || r.body["error"] != "internal" || r.body["message"] != "Internal server error" {
		t.Fatalf("%d %v", r.status, r.body)
	}
}
