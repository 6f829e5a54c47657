// Package clients holds the documents service's clients of other services'
// gRPC APIs (one file per service, as in every service: package clients).
// Catalog implements documents.Ownership with CatalogService.CheckOwnership
// and caches positive answers for a short time.
package clients

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Defaults.
const (
	DefaultCatalogTimeout      = 2 * time.Second
	DefaultOwnershipCacheTTL   = 30 * time.Second
	DefaultOwnershipMaxEntries = 10000
)

// CatalogConfig configures the catalog client.
type CatalogConfig struct {
	// Timeout bounds one CheckOwnership call (default 2s).
	Timeout time.Duration
	// CacheTTL is how long a positive answer is reused (default 30s; negative
	// disables the cache). Negative answers are never cached: an agent's owner
	// never changes, and an agent that did not exist yet may exist a moment later.
	CacheTTL time.Duration
	// MaxEntries bounds the cache (default 10,000).
	MaxEntries int
	// Now is the clock (tests).
	Now func() time.Time
}

// Catalog asks the catalog whether a user owns an agent.
type Catalog struct {
	conn   *grpc.ClientConn
	client catalogv1.CatalogServiceClient
	cfg    CatalogConfig

	mu    sync.Mutex
	cache map[key]time.Time // → expiry

	emailMu sync.Mutex
	emails  map[string]string // agent id → e-mail address
}

// ErrAgentNotFound: the catalog does not know the agent.
var ErrAgentNotFound = errors.New("catalog: agent not found")

type key struct{ agentID, uid string }

// NewCatalog returns a client for addr (host:port, mutual TLS with sec; plaintext
// when sec is nil). It connects lazily: an unreachable catalog only fails
// the calls.
func NewCatalog(addr string, sec *server.GRPCSecurity, cfg CatalogConfig) (*Catalog, error) {
	conn, err := server.DialGRPC(addr, sec)
	if err != nil {
		return nil, fmt.Errorf("catalog client %s: %w", addr, err)
	}
	return NewCatalogWithConn(conn, cfg), nil
}

// NewCatalogWithConn returns a client over an existing connection (which Close closes).
func NewCatalogWithConn(conn *grpc.ClientConn, cfg CatalogConfig) *Catalog {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultCatalogTimeout
	}
	if cfg.CacheTTL == 0 {
		cfg.CacheTTL = DefaultOwnershipCacheTTL
	}
	if cfg.MaxEntries <= 0 {
		cfg.MaxEntries = DefaultOwnershipMaxEntries
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Catalog{conn: conn, client: catalogv1.NewCatalogServiceClient(conn), cfg: cfg, cache: map[key]time.Time{},
		emails: map[string]string{}}
}

// AgentEmail returns the agent's e-mail address (CatalogService.GetAgent):
// the identity the documents are read as. ErrAgentNotFound when the catalog
// does not know the agent; any other failure is returned as is. Addresses
// are cached for the life of the process: the catalog assigns an agent's
// address once and never changes it.
func (c *Catalog) AgentEmail(ctx context.Context, agentID string) (string, error) {
	c.emailMu.Lock()
	email, ok := c.emails[agentID]
	c.emailMu.Unlock()
	if ok {
		return email, nil
	}
	agent, err := c.getAgent(ctx, agentID)
	if err != nil {
		return "", err
	}
	email = agent.GetEmail()
	if email == "" {
		return "", fmt.Errorf("catalog GetAgent: agent %s has no e-mail address", agentID)
	}
	c.emailMu.Lock()
	if len(c.emails) >= c.cfg.MaxEntries {
		clear(c.emails)
	}
	c.emails[agentID] = email
	c.emailMu.Unlock()
	return email, nil
}

// AgentName returns the agent's name as its owner wrote it
// (CatalogService.GetAgent), not cached: the owner may rename the agent.
// ErrAgentNotFound when the catalog does not know the agent.
func (c *Catalog) AgentName(ctx context.Context, agentID string) (string, error) {
	agent, err := c.getAgent(ctx, agentID)
	if err != nil {
		return "", err
	}
	return agent.GetName(), nil
}

// getAgent is the catalog's GetAgent within the configured timeout; an
// unknown agent is ErrAgentNotFound.
func (c *Catalog) getAgent(ctx context.Context, agentID string) (*catalogv1.Agent, error) {
	cctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	resp, err := c.client.GetAgent(cctx, &catalogv1.GetAgentRequest{AgentId: agentID})
	if status.Code(err) == codes.NotFound {
		return nil, ErrAgentNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("catalog GetAgent: %w", err)
	}
	return resp.GetAgent(), nil
}

// Owns implements documents.Ownership. Any failure of the call (catalog
// down, timeout, unexpected status) is returned as an error.
func (c *Catalog) Owns(ctx context.Context, agentID, uid string) (bool, error) {
	k := key{agentID, uid}
	if c.cached(k) {
		return true, nil
	}
	cctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	resp, err := c.client.CheckOwnership(cctx, &catalogv1.CheckOwnershipRequest{AgentId: agentID, Uid: uid})
	if err != nil {
		return false, fmt.Errorf("catalog CheckOwnership: %w", err)
	}
	if resp.GetOwned() {
		c.remember(k)
	}
	return resp.GetOwned(), nil
}

func (c *Catalog) cached(k key) bool {
	if c.cfg.CacheTTL < 0 {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	exp, ok := c.cache[k]
	if ok && c.cfg.Now().Before(exp) {
		return true
	}
	if ok {
		delete(c.cache, k)
	}
	return false
}

func (c *Catalog) remember(k key) {
	if c.cfg.CacheTTL < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.cfg.Now()
	if len(c.cache) >= c.cfg.MaxEntries {
		for ck, exp := range c.cache {
			if !now.Before(exp) {
				delete(c.cache, ck)
			}
		}
		// Still full: drop arbitrary entries (map order) to make room.
		for ck := range c.cache {
			if len(c.cache) < c.cfg.MaxEntries {
				break
			}
			delete(c.cache, ck)
		}
	}
	c.cache[k] = now.Add(c.cfg.CacheTTL)
}

// Len is the number of cached answers (tests).
func (c *Catalog) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.cache)
}

// Close closes the connection.
func (c *Catalog) Close() error { return c.conn.Close() }
