package clients

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
)

type fake struct {
	catalogv1.UnimplementedCatalogServiceServer
	mu    sync.Mutex
	calls int
	down  bool
	delay time.Duration
}

func (f *fake) CheckOwnership(ctx context.Context, req *catalogv1.CheckOwnershipRequest) (*catalogv1.CheckOwnershipResponse, error) {
	f.mu.Lock()
	f.calls++
	down, delay := f.down, f.delay
	f.mu.Unlock()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if down {
		return nil, status.Error(codes.Unavailable, "down")
	}
	return &catalogv1.CheckOwnershipResponse{Owned: req.GetUid() == "alice", Exists: true}, nil
}

func (f *fake) GetAgent(_ context.Context, req *catalogv1.GetAgentRequest) (*catalogv1.GetAgentResponse, error) {
	f.mu.Lock()
	f.calls++
	down := f.down
	f.mu.Unlock()
	switch {
	case down:
		return nil, status.Error(codes.Unavailable, "down")
	case req.GetAgentId() == "a1":
		return &catalogv1.GetAgentResponse{Agent: &catalogv1.Agent{Id: "a1", Name: "Study Buddy", Email: "tutor-x1@agents.example"}}, nil
	}
	return nil, status.Error(codes.NotFound, "agent not found")
}

func (f *fake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func dial(t *testing.T, f *fake, cfg CatalogConfig) *Catalog {
	t.Helper()
	ln := bufconn.Listen(1 << 20)
	srv := grpc.NewServer()
	catalogv1.RegisterCatalogServiceServer(srv, f)
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(srv.Stop)
	conn, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return ln.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	c := NewCatalogWithConn(conn, cfg)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestCachesPositiveAnswers(t *testing.T) {
	f := &fake{}
	now := time.Unix(1000, 0)
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	c := dial(t, f, CatalogConfig{CacheTTL: 30 * time.Second, MaxEntries: 2, Now: clock})
	ctx := context.Background()

	for i := 0; i < 3; i++ {
		if ok, err := c.Owns(ctx, "a1", "alice"); !ok || err != nil {
			t.Fatalf("alice: %v %v", ok, err)
		}
		if ok, err := c.Owns(ctx, "a1", "bob"); ok || err != nil {
			t.Fatalf("bob: %v %v", ok, err)
		}
	}
	if f.count() != 4 { // alice once, bob every time
		t.Fatalf("calls = %d, want 4", f.count())
	}
	mu.Lock()
	now = now.Add(31 * time.Second)
	mu.Unlock()
	if ok, _ := c.Owns(ctx, "a1", "alice"); !ok || f.count() != 5 {
		t.Fatalf("expired entry not refreshed: %d calls", f.count())
	}
	// The cache never grows past MaxEntries.
	for _, a := range []string{"a2", "a3", "a4", "a5"} {
		if ok, err := c.Owns(ctx, a, "alice"); !ok || err != nil {
			t.Fatal(err)
		}
	}
	if c.Len() > 2 {
		t.Fatalf("cache has %d entries", c.Len())
	}
}

func TestFailuresAreErrors(t *testing.T) {
	f := &fake{down: true}
	c := dial(t, f, CatalogConfig{CacheTTL: -1, Timeout: 100 * time.Millisecond})
	if _, err := c.Owns(context.Background(), "a1", "alice"); status.Code(errorsUnwrap(err)) != codes.Unavailable {
		t.Fatalf("down: %v", err)
	}
	f.mu.Lock()
	f.down, f.delay = false, time.Second
	f.mu.Unlock()
	start := time.Now()
	if _, err := c.Owns(context.Background(), "a1", "alice"); err == nil || time.Since(start) > 900*time.Millisecond {
		t.Fatalf("slow catalog: %v after %v", err, time.Since(start))
	}
	if c.Len() != 0 {
		t.Fatal("cache used although disabled")
	}
}

func errorsUnwrap(err error) error {
	type unwrapper interface{ Unwrap() error }
	for err != nil {
		if _, ok := status.FromError(err); ok {
			return err
		}
		u, ok := err.(unwrapper)
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
	return err
}

func TestAgentEmail(t *testing.T) {
	f := &fake{}
	c := dial(t, f, CatalogConfig{})
	ctx := context.Background()
	if e, err := c.AgentEmail(ctx, "a1"); err != nil || e != "tutor-x1@agents.example" {
		t.Fatalf("AgentEmail = %q %v", e, err)
	}
	if _, err := c.AgentEmail(ctx, "nope"); !errors.Is(err, ErrAgentNotFound) {
		t.Fatalf("unknown agent: %v", err)
	}
	// Addresses never change: the cached one is used while the catalog is down.
	f.mu.Lock()
	f.down = true
	f.mu.Unlock()
	calls := f.count()
	if e, err := c.AgentEmail(ctx, "a1"); err != nil || e != "tutor-x1@agents.example" || f.count() != calls {
		t.Fatalf("cached AgentEmail = %q %v (%d calls)", e, err, f.count()-calls)
	}
	if _, err := c.AgentEmail(ctx, "a2"); err == nil || errors.Is(err, ErrAgentNotFound) {
		t.Fatalf("catalog down: %v", err)
	}
}

// The name is read each time (an owner may rename the agent), as written.
func TestAgentName(t *testing.T) {
	f := &fake{}
	c := dial(t, f, CatalogConfig{})
	ctx := context.Background()
	if n, err := c.AgentName(ctx, "a1"); err != nil || n != "Study Buddy" {
		t.Fatalf("AgentName = %q %v", n, err)
	}
	if _, err := c.AgentName(ctx, "nope"); !errors.Is(err, ErrAgentNotFound) {
		t.Fatalf("unknown agent: %v", err)
	}
	f.mu.Lock()
	f.down = true
	f.mu.Unlock()
	if _, err := c.AgentName(ctx, "a1"); err == nil || errors.Is(err, ErrAgentNotFound) {
		t.Fatalf("catalog down: %v", err)
	}
}
