package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events/eventstest"
	"github.com/agentic-app/agentic/services/platform/service/servicetest"
)

// testAccounts stands in for the Firebase Admin SDK.
var testAccounts = &recordingAccounts{}

type recordingAccounts struct {
	mu               sync.Mutex
	revoked, deleted []string
}

func (a *recordingAccounts) RevokeRefreshTokens(_ context.Context, uid string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.revoked = append(a.revoked, uid)
	return nil
}

func (a *recordingAccounts) DeleteUser(_ context.Context, uid string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.deleted = append(a.deleted, uid)
	return nil
}

// testWallet holds $12.34 for "rich" and nothing for everyone else.
type testWallet struct{}

func (testWallet) Balance(_ context.Context, uid string) (users.Balance, error) {
	if uid == "rich" {
		return users.Balance{Micros: 12_340_000}, nil
	}
	return users.Balance{}, nil
}

type running struct {
	http    string
	grpc    string
	brokers []string
	stop    func() error
}

func start(t testing.TB) running {
	t.Helper()
	dbURL := dbtest.NewURL(t, "identity")
	brokers := eventstest.StartKafka(t)
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan [2]net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Run(ctx, Config{
			Settings: servicetest.Settings(dbURL, brokers, func(h, g net.Addr) { ready <- [2]net.Addr{h, g} }),
			Accounts: testAccounts,
			Wallet:   testWallet{},
		}, nil)
	}()
	var addrs [2]net.Addr
	select {
	case addrs = <-ready:
	case err := <-done:
		t.Fatalf("app exited: %v", err)
	case <-time.After(60 * time.Second):
		t.Fatal("app did not start")
	}
	stopped := false
	stop := func() error {
		if stopped {
			return nil
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(15 * time.Second):
			t.Error("app did not shut down")
			return nil
		}
	}
	t.Cleanup(func() { _ = stop() })
	return running{http: "http://" + addrs[0].String(), grpc: addrs[1].String(), brokers: brokers, stop: stop}
}

func post(t *testing.T, url, token, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewBufferString(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, m
}

func TestIdentityServiceEndToEnd(t *testing.T) {
	app := start(t)

	resp, err := http.Get(app.http + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("readyz: %v %v", resp, err)
	}
	resp.Body.Close()

	// Onboarding right after sign-up (no displayName yet), then with one.
	code, body := post(t, app.http+"/api/user/onboarding", "token-alice", "")
	if code != 200 || body["success"] != true {
		t.Fatalf("onboarding: %d %v", code, body)
	}
	user := body["data"].(map[string]any)["user"].(map[string]any)
	if user["uid"] != "alice" || user["email"] != "alice@example.com" || user["username"] != nil {
		t.Fatalf("user = %v", user)
	}
	code, body = post(t, app.http+"/api/user/onboarding", "token-alice", `{"displayName":"alice_w"}`)
	user = body["data"].(map[string]any)["user"].(map[string]any)
	if code != 200 || user["username"] != "alice_w" || user["displayName"] != "alice_w" || user["name"] != "alice_w" {
		t.Fatalf("second onboarding: %d %v", code, body)
	}
	if code, body := post(t, app.http+"/api/user/public-agent-interest", "token-alice", `{"idToken":"x"}`); code != 200 ||
		body["data"].(map[string]any)["user"].(map[string]any)["interestedInPublicAgents"] != true {
		t.Fatalf("interest: %d %v", code, body)
	}
	if code, body := post(t, app.http+"/api/user/onboarding", "", ""); code != 401 || body["error"] != "unauthenticated" {
		t.Fatalf("no token: %d %v", code, body)
	}
	if code, body := post(t, app.http+"/api/user/onboarding", "token-bob", `{"displayName":5}`); code != 400 || body["error"] != "invalid_json" {
		t.Fatalf("bad body: %d %v", code, body)
	}
	if code, _ := post(t, app.http+"/api/user/onboarding", "token-bob", `{}`); code != 200 {
		t.Fatalf("bob: %d", code)
	}

	// One onboarded event per user and one more for alice's username (the
	// catalog learns names from it), and one interest event.
	recs := eventstest.Consume(t, app.brokers, users.Topic, 4, 20*time.Second, time.Second)
	byType := map[string][]eventstest.Record{}
	for _, r := range recs {
		byType[r.Headers["ce_type"]] = append(byType[r.Headers["ce_type"]], r)
	}
	if len(recs) != 4 || len(byType[users.TypeUserOnboarded]) != 3 || len(byType[users.TypePublicAgentInterestRegistered]) != 1 {
		t.Fatalf("records: %+v", recs)
	}
	var named eventsv1.UserOnboarded
	if err := protojson.Unmarshal(byType[users.TypeUserOnboarded][1].Value, &named); err != nil || named.GetUid() != "alice" || named.GetUsername() != "alice_w" {
		t.Fatalf("alice's second onboarded event: %v %v", &named, err)
	}
	for _, r := range byType[users.TypeUserOnboarded] {
		var ev eventsv1.UserOnboarded
		if err := protojson.Unmarshal(r.Value, &ev); err != nil || ev.GetUid() != r.Key || ev.GetEmail() != r.Key+"@example.com" {
			t.Fatalf("event %s under key %s: %v", r.Value, r.Key, err)
		}
		if r.Headers["ce_source"] != users.Source || r.Headers["ce_subject"] != r.Key || r.Headers["content-type"] != "application/json" || r.Headers["ce_specversion"] != "1.0" {
			t.Fatalf("headers %v", r.Headers)
		}
	}

	// gRPC.
	conn, err := grpc.NewClient(app.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := identityv1.NewIdentityServiceClient(conn)
	ctx := context.Background()

	got, err := client.GetUser(ctx, &identityv1.GetUserRequest{Uid: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	u := got.GetUser()
	if u.GetUid() != "alice" || u.GetEmail() != "alice@example.com" || u.GetUsername() != "alice_w" || !u.GetInterestedInPublicAgents() || u.GetCreatedAt() == nil {
		t.Fatalf("GetUser = %v", u)
	}
	if _, err := client.GetUser(ctx, &identityv1.GetUserRequest{Uid: "nobody"}); status.Code(err) != codes.NotFound {
		t.Fatalf("GetUser(nobody) err = %v", err)
	}
	if _, err := client.GetUser(ctx, &identityv1.GetUserRequest{}); status.Code(err) != codes.InvalidArgument {
		t.Fatalf("GetUser(\"\") err = %v", err)
	}
	many, err := client.GetUsers(ctx, &identityv1.GetUsersRequest{Uids: []string{"bob", "alice", "nobody"}})
	if err != nil || len(many.GetUsers()) != 2 || many.GetUsers()[0].GetUid() != "alice" || many.GetUsers()[1].GetUid() != "bob" {
		t.Fatalf("GetUsers = %v %v", many, err)
	}
	found, err := client.FindUsersByEmail(ctx, &identityv1.FindUsersByEmailRequest{Emails: []string{"BOB@example.com", "x@example.com"}})
	if err != nil || len(found.GetUsers()) != 1 || found.GetUsers()[0].GetUid() != "bob" {
		t.Fatalf("FindUsersByEmail = %v %v", found, err)
	}

	// Metrics include the endpoint instrumentation.
	mresp, err := http.Get(app.http + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(mresp.Body)
	mresp.Body.Close()
	for _, want := range []string{
		`identity_requests_total{method="Onboard",outcome="success"} 3`,
		`identity_requests_total{method="GetUser",outcome="client_error"} 2`,
		`outbox_events_published_total{topic="agentic.identity.v1"} 4`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("metrics missing %q", want)
		}
	}

	if err := app.stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

func del(t *testing.T, url, token string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var m map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&m)
	return resp.StatusCode, m
}

// Sign out everywhere revokes through the Admin SDK; deleting an account is
// refused while the wallet holds money and otherwise deletes the profile,
// publishes one UserDeleted and deletes the Firebase user.
func TestAccountRoutesEndToEnd(t *testing.T) {
	app := start(t)
	for _, uid := range []string{"rich", "carol"} {
		if code, body := post(t, app.http+"/api/user/onboarding", "token-"+uid, ""); code != 200 {
			t.Fatalf("onboarding %s: %d %v", uid, code, body)
		}
	}
	req, _ := http.NewRequest(http.MethodPost, app.http+"/api/user/sessions/revoke", nil)
	req.Header.Set("Authorization", "Bearer token-carol")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("revoke: %v %v", resp, err)
	}
	resp.Body.Close()

	code, body := del(t, app.http+"/api/user/account", "token-rich")
	if code != 409 || body["error"] != "account_not_empty" ||
		body["message"] != "Your wallet holds $12.34: spend or withdraw it before deleting your account." {
		t.Fatalf("rich: %d %v", code, body)
	}
	if code, body := del(t, app.http+"/api/user/account", "token-carol"); code != 204 {
		t.Fatalf("carol: %d %v", code, body)
	}

	testAccounts.mu.Lock()
	revoked, deleted := fmt.Sprint(testAccounts.revoked), fmt.Sprint(testAccounts.deleted)
	testAccounts.mu.Unlock()
	if revoked != "[carol]" || deleted != "[carol]" {
		t.Fatalf("admin calls: revoked %s deleted %s", revoked, deleted)
	}

	recs := eventstest.Consume(t, app.brokers, users.Topic, 3, 20*time.Second, time.Second)
	var deletions []eventstest.Record
	for _, r := range recs {
		if r.Headers["ce_type"] == users.TypeUserDeleted {
			deletions = append(deletions, r)
		}
	}
	if len(recs) != 3 || len(deletions) != 1 || deletions[0].Key != "carol" {
		t.Fatalf("records: %+v", recs)
	}
	var ev eventsv1.UserDeleted
	if err := protojson.Unmarshal(deletions[0].Value, &ev); err != nil || ev.GetUid() != "carol" || ev.GetEmail() != "carol@example.com" {
		t.Fatalf("UserDeleted %s: %v", deletions[0].Value, err)
	}
}
