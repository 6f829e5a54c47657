package clients

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
)

// Catalog defaults.
const (
	DefaultCatalogTimeout = 2 * time.Second
	// DefaultAccessCacheTTL is short: a revoked subscription and edited
	// instructions take effect within it.
	DefaultAccessCacheTTL = 10 * time.Second
	DefaultMaxEntries     = 10000
)

// CatalogConfig configures the catalog client.
type CatalogConfig struct {
	// Timeout bounds one CheckAccess call.
	Timeout time.Duration
	// CacheTTL is how long a positive answer (with the agent) is reused;
	// negative disables the cache. Negative answers are never cached: a
	// subscription activated a moment ago must work at once.
	CacheTTL time.Duration
	// MaxEntries bounds the cache.
	MaxEntries int
	// Now is the clock (tests).
	Now func() time.Time
}

// Catalog asks the catalog whether a user may talk to an agent and who pays.
type Catalog struct {
	client catalogv1.CatalogServiceClient
	cfg    CatalogConfig

	mu    sync.Mutex
	cache map[accessKey]cachedAccess
}

type accessKey struct{ agentID, uid string }

type cachedAccess struct {
	access  conversations.Access
	expires time.Time
}

// NewCatalog returns a client over conn (which the caller closes).
func NewCatalog(conn grpc.ClientConnInterface, cfg CatalogConfig) *Catalog {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultCatalogTimeout
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultAccessCacheTTL
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Catalog{client: catalogv1.NewCatalogServiceClient(conn), cfg: cfg, cache: map[accessKey]cachedAccess{}}
}

// CheckAccess implements conversations.AccessChecker.
func (c *Catalog) CheckAccess(ctx context.Context, agentID, uid string) (conversations.Access, error) {
	k := accessKey{agentID, uid}
	if a, ok := c.cached(k); ok {
		return a, nil
	}
	cctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	resp, err := c.client.CheckAccess(cctx, &catalogv1.CheckAccessRequest{AgentId: agentID, Uid: uid})
	if err != nil {
		return conversations.Access{}, fmt.Errorf("catalog CheckAccess: %w", err)
	}
	if !resp.GetAllowed() {
		return conversations.Access{}, nil
	}
	ag := resp.GetAgent()
	a := conversations.Access{
		Allowed: true, Role: resp.GetRole(), PayerUID: resp.GetPayerUid(),
		Agent: conversations.Agent{
			ID: agentID, OwnerUID: ag.GetOwnerUid(), Name: ag.GetName(), IconColor: ag.GetIconColor(),
			Instructions: ag.GetInstructions(),
		},
	}
	if a.PayerUID == "" {
		// The catalog always names the payer; if it ever does not, the
		// owner pays (SPEC: usage of a private agent is the owner's).
		a.PayerUID = ag.GetOwnerUid()
	}
	if a.PayerUID == "" {
		return conversations.Access{}, fmt.Errorf("catalog CheckAccess: no payer for agent %s", agentID)
	}
	c.remember(k, a)
	return a, nil
}

func (c *Catalog) cached(k accessKey) (conversations.Access, bool) {
	if c.cfg.CacheTTL < 0 {
		return conversations.Access{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.cache[k]
	if ok && c.cfg.Now().Before(e.expires) {
		return e.access, true
	}
	if ok {
		delete(c.cache, k)
	}
	return conversations.Access{}, false
}

func (c *Catalog) remember(k accessKey, a conversations.Access) {
	if c.cfg.CacheTTL < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.cfg.Now()
	if len(c.cache) >= c.cfg.MaxEntries {
		for ck, e := range c.cache {
			if !now.Before(e.expires) {
				delete(c.cache, ck)
			}
		}
		for ck := range c.cache { // still full: drop arbitrary entries
			if len(c.cache) < c.cfg.MaxEntries {
				break
			}
			delete(c.cache, ck)
		}
	}
	c.cache[k] = cachedAccess{access: a, expires: now.Add(c.cfg.CacheTTL)}
}
