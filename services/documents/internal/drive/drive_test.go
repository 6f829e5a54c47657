package drive

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
)

func TestConfigRefusals(t *testing.T) {
	for _, endpoint := range []string{"", "https://www.googleapis.com/drive/v3/", "https://drive.googleapis.com/"} {
		if _, err := New(Config{DevTokens: true, Endpoint: endpoint}); err == nil || !strings.Contains(err.Error(), "simulator") {
			t.Errorf("dev tokens with endpoint %q: %v", endpoint, err)
		}
	}
	if _, err := New(Config{}); err == nil || !strings.Contains(err.Error(), "GOOGLE_APPLICATION_CREDENTIALS") {
		t.Errorf("no credentials: %v", err)
	}
	if _, err := New(Config{CredentialsJSON: []byte(`{"type":"authorized_user"}`)}); err == nil {
		t.Error("a user credential accepted as a service account")
	}
	if _, err := New(Config{DevTokens: true, Endpoint: "http://127.0.0.1:8111/drive/v3/"}); err != nil {
		t.Errorf("simulator: %v", err)
	}
}

// simClient is a client of an in-process Drive simulator.
func simClient(t *testing.T, cfg Config) (*Client, *drivesim.Server) {
	t.Helper()
	sim, err := drivesim.New(drivesim.Config{DriveLikeExport: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	cfg.Endpoint, cfg.DevTokens = srv.URL+"/drive/v3/", true
	if cfg.BaseDelay == 0 {
		cfg.BaseDelay = 5 * time.Millisecond
	}
	c, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c, sim
}

func TestReadAsAgent(t *testing.T) {
	c, sim := simClient(t, Config{})
	ctx := context.Background()
	f, err := sim.CreateFile(drivesim.File{Title: "Syllabus", Text: "Week 1\nIntro\n\nWeek 2\nLoops", SharedWith: []string{"tutor@agents.example"}})
	if err != nil {
		t.Fatal(err)
	}
	m, err := c.Get(ctx, "tutor@agents.example", f.ID)
	if err != nil || m.ID != f.ID || m.Title != "Syllabus" || m.MimeType != GoogleDocsMimeType || m.Version != 1 ||
		!m.ModifiedTime.Equal(f.ModifiedTime) {
		t.Fatalf("Get = %+v %v", m, err)
	}
	if err := CheckReadable(m); err != nil {
		t.Fatal(err)
	}
	// Drive's export has a BOM and CRLFs; the text has neither.
	text, err := c.Export(ctx, "tutor@agents.example", f.ID)
	if err != nil || text != "Week 1\nIntro\n\nWeek 2\nLoops" {
		t.Fatalf("Export = %q %v", text, err)
	}
	// Another agent: not shared (Drive says 404).
	_, err = c.Get(ctx, "other@agents.example", f.ID)
	if KindOf(err) != KindNotShared {
		t.Fatalf("other agent: %v", err)
	}
	var de *Error
	if !errors.As(err, &de) || de.Status != http.StatusNotFound {
		t.Fatalf("other agent: %#v", err)
	}
}

func TestClassifyAndRetry(t *testing.T) {
	c, sim := simClient(t, Config{MaxAttempts: 3, MaxRetryAfter: 2 * time.Second})
	ctx := context.Background()
	f, _ := sim.CreateFile(drivesim.File{Title: "Doc", Text: "hello", AnyoneWithLink: true})
	pdf, _ := sim.CreateFile(drivesim.File{Title: "Scan", Text: "%PDF", MimeType: "application/pdf", AnyoneWithLink: true})
	cases := []struct {
		name     string
		fault    drivesim.Fault
		kind     Kind
		requests int
	}{
		{"403 no access", drivesim.Fault{Status: 403}, KindNotShared, 1},
		{"404", drivesim.Fault{Status: 404}, KindNotShared, 1},
		{"403 rate limit once", drivesim.Fault{Status: 403, Count: 1, Reason: "userRateLimitExceeded"}, 0, 2},
		{"429 once", drivesim.Fault{Status: 429, Count: 1}, 0, 2},
		{"503 twice", drivesim.Fault{Status: 503, Count: 2}, 0, 3},
		{"500 always", drivesim.Fault{Status: 500}, KindRetryable, 3},
		{"429 asking for too long", drivesim.Fault{Status: 429, RetryAfter: "120"}, KindRetryable, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim.ClearFaults()
			tc.fault.FileID, tc.fault.Op = f.ID, drivesim.OpGet
			sim.InjectFault(tc.fault)
			before := sim.Requests(drivesim.OpGet)
			_, err := c.Get(ctx, "a@agents.example", f.ID)
			if KindOf(err) != tc.kind {
				t.Fatalf("kind %v, want %v (%v)", KindOf(err), tc.kind, err)
			}
			if n := sim.Requests(drivesim.OpGet) - before; n != tc.requests {
				t.Fatalf("%d requests, want %d", n, tc.requests)
			}
		})
	}
	sim.ClearFaults()
	// The long Retry-After is handed to the caller.
	sim.InjectFault(drivesim.Fault{Status: 429, RetryAfter: "120", FileID: f.ID})
	_, err := c.Get(ctx, "a@agents.example", f.ID)
	var de *Error
	if !errors.As(err, &de) || de.RetryAfter != 120*time.Second {
		t.Fatalf("long Retry-After: %#v", err)
	}
	sim.ClearFaults()
	// A short Retry-After is waited for in place.
	sim.InjectFault(drivesim.Fault{Status: 429, Count: 1, RetryAfter: "1", FileID: f.ID})
	start := time.Now()
	if _, err := c.Get(ctx, "a@agents.example", f.ID); err != nil || time.Since(start) < time.Second {
		t.Fatalf("short Retry-After: %v after %v", err, time.Since(start))
	}
	// Exporting something that is not a Doc.
	if _, err := c.Export(ctx, "a@agents.example", pdf.ID); KindOf(err) != KindUnsupported {
		t.Fatalf("export pdf: %v", err)
	}
	m, _ := c.Get(ctx, "a@agents.example", pdf.ID)
	if err := CheckReadable(m); KindOf(err) != KindUnsupported || err.Error() != "Only Google Docs documents can be read (this file is a PDF)" {
		t.Fatalf("CheckReadable(pdf) = %v", err)
	}
	// Cancellation stops the retries.
	sim.InjectFault(drivesim.Fault{Status: 500, FileID: f.ID})
	cctx, cancel := context.WithTimeout(ctx, 30*time.Millisecond)
	defer cancel()
	slow, _ := New(Config{Endpoint: c.cfg.Endpoint, DevTokens: true, BaseDelay: time.Second, MaxAttempts: 10})
	if _, err := slow.Get(cctx, "a@agents.example", f.ID); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled: %v", err)
	}
}

func TestExportLimit(t *testing.T) {
	c, sim := simClient(t, Config{})
	ctx := context.Background()
	// Exactly 2 MB of text (Drive's BOM and CRLFs do not count)...
	ok, _ := sim.CreateFile(drivesim.File{Title: "Max", Text: strings.Repeat("abc\n", MaxTextBytes/4), AnyoneWithLink: true})
	if text, err := c.Export(ctx, "a@agents.example", ok.ID); err != nil || len(text) != MaxTextBytes {
		t.Fatalf("2 MB: %d bytes, %v", len(text), err)
	}
	// ...one byte more is too much.
	big, _ := sim.CreateFile(drivesim.File{Title: "Big", Text: strings.Repeat("abc\n", MaxTextBytes/4) + "x", AnyoneWithLink: true})
	if _, err := c.Export(ctx, "a@agents.example", big.ID); KindOf(err) != KindTooLarge || err.Error() != MsgTooLarge {
		t.Fatalf("2 MB + 1: %v", err)
	}
}

// The production path: a service account key with domain-wide delegation
// mints one token per agent (JWT subject = the agent's address, scope
// drive.readonly), reused until it expires, and Drive sees that token.
func TestServiceAccountActsAsAgent(t *testing.T) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pemKey := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	var tokenCalls atomic.Int32
	tokenSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tokenCalls.Add(1)
		_ = r.ParseForm()
		parts := strings.Split(r.Form.Get("assertion"), ".")
		if len(parts) != 3 {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		raw, _ := base64.RawURLEncoding.DecodeString(parts[1])
		var claims struct {
			Iss, Sub, Scope string
		}
		_ = json.Unmarshal(raw, &claims)
		if claims.Iss != "sync@project.iam.gserviceaccount.com" || claims.Scope != "https://www.googleapis.com/auth/drive.readonly" {
			http.Error(w, `{"error":"unauthorized_client"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "tok-" + claims.Sub, "token_type": "Bearer", "expires_in": 3600})
	}))
	defer tokenSrv.Close()
	driveSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok-tutor@agents.example" {
			w.WriteHeader(http.StatusNotFound)
			_, _ = w.Write([]byte(`{"error":{"code":404,"message":"File not found","errors":[{"reason":"notFound"}]}}`))
			return
		}
		_, _ = w.Write([]byte(`{"id":"f1","name":"Doc","mimeType":"application/vnd.google-apps.document","modifiedTime":"2026-01-02T03:04:05.678Z","version":"7"}`))
	}))
	defer driveSrv.Close()
	creds, _ := json.Marshal(map[string]string{
		"type": "service_account", "client_email": "sync@project.iam.gserviceaccount.com", "private_key": string(pemKey),
		"private_key_id": "k1", "token_uri": tokenSrv.URL,
	})
	c, err := New(Config{CredentialsJSON: creds, Endpoint: driveSrv.URL + "/drive/v3/"})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		m, err := c.Get(ctx, "tutor@agents.example", "f1")
		if err != nil || m.Version != 7 || m.Title != "Doc" || m.ModifiedTime.Format(time.RFC3339Nano) != "2026-01-02T03:04:05.678Z" {
			t.Fatalf("Get = %+v %v", m, err)
		}
	}
	if n := tokenCalls.Load(); n != 1 {
		t.Fatalf("%d token requests for one agent", n)
	}
	// Another agent gets its own token, which this file is not shared with.
	if _, err := c.Get(ctx, "other@agents.example", "f1"); KindOf(err) != KindNotShared {
		t.Fatalf("other agent: %v", err)
	}
	if n := tokenCalls.Load(); n != 2 {
		t.Fatalf("%d token requests for two agents", n)
	}
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	cases := map[string]time.Duration{
		"": 0, "0": 0, "7": 7 * time.Second, "-3": 0, "soon": 0,
		now.Add(90 * time.Second).Format(http.TimeFormat): 90 * time.Second,
		now.Add(-time.Minute).Format(http.TimeFormat):     0,
	}
	for in, want := range cases {
		if got := parseRetryAfter(in, now); got != want {
			t.Errorf("parseRetryAfter(%q) = %v, want %v", in, got, want)
		}
	}
}

func TestNormalizeText(t *testing.T) {
	if got := NormalizeText([]byte("\ufeffa\r\nb\rc\n\xff")); got != "a\nb\nc\n\uFFFD" {
		t.Fatalf("NormalizeText = %q", got)
	}
}
