package clients

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/timestamppb"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// Catalog defaults.
const (
	DefaultCatalogTimeout = 2 * time.Second
	// DefaultAccessCacheTTL is how long a positive answer is reused while
	// the access-change watcher is in step (Run); otherwise MaxUnwatchedTTL.
	DefaultAccessCacheTTL = 10 * time.Second
	DefaultMaxEntries     = 10000
	// MaxUnwatchedTTL bounds how long an answer is trusted while the
	// watcher is not in step (its polls fail, or it does not run): a removed
	// subscriber, a deactivated agent or a changed cap reaches every
	// replica within it in every case.
	MaxUnwatchedTTL = time.Second
	// DefaultAccessPollInterval is how often Run asks the catalog for
	// access changes.
	DefaultAccessPollInterval = 250 * time.Millisecond
	// DefaultAccessPollMargin is how far before the previous poll's clock
	// each poll looks again: a change whose transaction took its timestamp
	// before that poll but committed after it is still seen.
	DefaultAccessPollMargin = 2 * time.Second
)

// CatalogConfig configures the catalog client.
type CatalogConfig struct {
	// Timeout bounds one CheckAccess call.
	Timeout time.Duration
	// CacheTTL is how long a positive answer (with the agent) is reused
	// while Run is in step (at most MaxUnwatchedTTL otherwise); negative
	// disables the cache. Negative answers are never cached: a subscription
	// activated a moment ago must work at once.
	CacheTTL time.Duration
	// MaxEntries bounds the cache.
	MaxEntries int
	// PollInterval and PollMargin configure Run (defaults
	// DefaultAccessPollInterval, DefaultAccessPollMargin).
	PollInterval, PollMargin time.Duration
	// Logger receives Run's state changes (polls failing, recovered).
	Logger *slog.Logger
	// Now is the clock of entry ages (tests).
	Now func() time.Time
}

// Catalog asks the catalog whether a user may talk to an agent and who pays.
//
// Positive answers are cached. Run keeps the cache in step with the
// catalog's access changes (AccessChangesSince: a subscriber removed, an
// agent deactivated or edited, a cap changed): it polls every PollInterval,
// drops the entries a change names, and while its last successful poll
// started less than MaxUnwatchedTTL ago an entry is trusted for CacheTTL;
// otherwise for at most MaxUnwatchedTTL after it was read. A look-up that
// started before a change was applied does not store its answer (it may
// predate the change).
type Catalog struct {
	client catalogv1.CatalogServiceClient
	cfg    CatalogConfig
	log    *slog.Logger
	// mono is the clock of the watcher's bound (real time, never a test's
	// entry clock).
	mono func() time.Time

	mu    sync.Mutex
	cache map[accessKey]cachedAccess
	// gen counts the changes applied; tombs holds, per evicted key (uid ""
	// for a whole agent), the gen of its last change and when (mono) it was
	// applied, so that a look-up started at an earlier gen is not stored.
	gen       uint64
	tombs     map[accessKey]tomb
	freshTill time.Time // mono: entries may be trusted for CacheTTL until then
}

type accessKey struct{ agentID, uid string }

type cachedAccess struct {
	access  conversations.Access
	fetched time.Time
}

type tomb struct {
	gen uint64
	at  time.Time
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
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultAccessPollInterval
	}
	if cfg.PollMargin <= 0 {
		cfg.PollMargin = DefaultAccessPollMargin
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Catalog{client: catalogv1.NewCatalogServiceClient(conn), cfg: cfg, log: cfg.Logger, mono: time.Now,
		cache: map[accessKey]cachedAccess{}, tombs: map[accessKey]tomb{}}
}

// CheckAccess implements conversations.AccessChecker.
func (c *Catalog) CheckAccess(ctx context.Context, agentID, uid string) (conversations.Access, error) {
	k := accessKey{agentID, uid}
	a, ok, gen := c.cached(k)
	if ok {
		return a, nil
	}
	return c.lookUp(ctx, k, gen)
}

// lookUp asks the catalog and caches a positive answer; gen is the change
// count when the look-up started.
func (c *Catalog) lookUp(ctx context.Context, k accessKey, gen uint64) (conversations.Access, error) {
	agentID, uid := k.agentID, k.uid
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
		SubscriberCapMicros: max(0, resp.GetSubscriberCapMicros()),
		Agent:               agentFromProto(agentID, ag),
	}
	if a.Role == conversations.AccessConsumer && a.PayerUID != uid {
		// A consumer pays for themselves, always.
		return conversations.Access{}, fmt.Errorf("catalog CheckAccess: consumer %s of agent %s with payer %s", uid, agentID, a.PayerUID)
	}
	if a.PayerUID == "" {
		// The catalog always names the payer; if it ever does not, the
		// owner pays (SPEC: usage of a private agent is the owner's).
		a.PayerUID = ag.GetOwnerUid()
	}
	if a.PayerUID == "" {
		return conversations.Access{}, fmt.Errorf("catalog CheckAccess: no payer for agent %s", agentID)
	}
	c.remember(k, a, gen)
	return a, nil
}

// agentFromProto converts the catalog's agent (id: the one asked for).
func agentFromProto(agentID string, ag *catalogv1.Agent) conversations.Agent {
	return conversations.Agent{
		ID: agentID, OwnerUID: ag.GetOwnerUid(), Name: ag.GetName(), IconName: ag.GetIconName(), IconColor: ag.GetIconColor(),
		Instructions:  ag.GetInstructions(),
		MarkupPercent: int(max(ag.GetMarkupPercent(), 0)), GreetingCostCents: int(max(ag.GetGreetingCostCents(), 0)),
		Greeting: ag.GetGreeting(), MemoryTokens: int(max(ag.GetMemoryTokens(), 0)), ShowSources: ag.GetShowSources(),
		Slug: ag.GetSlug(), Listed: ag.GetListed(),
	}
}

// GetAgent implements conversations.AgentLookup (catalog GetAgent, not
// cached): conversations.ErrAgentNotFound when the catalog does not know
// the agent.
func (c *Catalog) GetAgent(ctx context.Context, agentID string) (conversations.Agent, error) {
	cctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	resp, err := c.client.GetAgent(cctx, &catalogv1.GetAgentRequest{AgentId: agentID})
	if status.Code(err) == codes.NotFound {
		return conversations.Agent{}, conversations.ErrAgentNotFound
	}
	if err != nil {
		return conversations.Agent{}, fmt.Errorf("catalog GetAgent: %w", err)
	}
	return agentFromProto(agentID, resp.GetAgent()), nil
}

// cached returns k's entry while it may be trusted, and the change count
// to pass to remember.
func (c *Catalog) cached(k accessKey) (conversations.Access, bool, uint64) {
	if c.cfg.CacheTTL < 0 {
		return conversations.Access{}, false, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.cache[k]
	if ok {
		if age := c.cfg.Now().Sub(e.fetched); age >= 0 && age < c.trustFor() {
			return e.access, true, c.gen
		}
		delete(c.cache, k)
	}
	return conversations.Access{}, false, c.gen
}

// trustFor is how long an entry is trusted now; c.mu is held.
func (c *Catalog) trustFor() time.Duration {
	if c.mono().Before(c.freshTill) {
		return c.cfg.CacheTTL
	}
	return min(c.cfg.CacheTTL, MaxUnwatchedTTL)
}

// remember stores a positive answer read by a look-up that started when
// gen changes had been applied, unless a change of its agent or key was
// applied since (the answer may predate it).
func (c *Catalog) remember(k accessKey, a conversations.Access, gen uint64) {
	if c.cfg.CacheTTL < 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if t, ok := c.tombs[accessKey{k.agentID, ""}]; ok && t.gen > gen {
		return
	}
	if t, ok := c.tombs[k]; ok && t.gen > gen {
		return
	}
	now := c.cfg.Now()
	if len(c.cache) >= c.cfg.MaxEntries {
		for ck, e := range c.cache {
			if now.Sub(e.fetched) >= c.cfg.CacheTTL {
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
	c.cache[k] = cachedAccess{access: a, fetched: now}
}

// evict applies the reported changes: each drops the entries of its agent
// and user (every user of the agent when uid is empty) and marks them so
// that a look-up already under way does not store its answer.
func (c *Catalog) evict(changes []*catalogv1.AccessChange) {
	if len(changes) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.mono()
	agents := map[string]bool{}
	for _, ch := range changes {
		c.gen++
		k := accessKey{ch.GetAgentId(), ch.GetUid()}
		c.tombs[k] = tomb{gen: c.gen, at: now}
		if k.uid == "" {
			agents[k.agentID] = true
		} else {
			delete(c.cache, k)
		}
	}
	if len(agents) > 0 {
		for ck := range c.cache {
			if agents[ck.agentID] {
				delete(c.cache, ck)
			}
		}
	}
}

// inStep records a successful poll that started at started: every change
// committed before then has been applied.
func (c *Catalog) inStep(started time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if till := started.Add(MaxUnwatchedTTL); till.After(c.freshTill) {
		c.freshTill = till
	}
	// A look-up takes at most Timeout, and the poll re-reports a change for
	// PollMargin: older marks can go.
	keep := 2*c.cfg.Timeout + 2*c.cfg.PollMargin
	for k, t := range c.tombs {
		if started.Sub(t.at) > keep {
			delete(c.tombs, k)
		}
	}
}

// Run keeps the cache in step with the catalog's access changes until ctx
// ends (a server.Worker): it asks AccessChangesSince every PollInterval,
// from the previous answer's clock minus PollMargin. When polls fail
// (the catalog is away, or does not serve the call yet) entries fall back to
// MaxUnwatchedTTL; the first failure and the recovery are logged once each.
func (c *Catalog) Run(ctx context.Context) error {
	if c.cfg.CacheTTL < 0 {
		<-ctx.Done()
		return nil
	}
	var since time.Time
	failing := false
	worker.Every(ctx, c.cfg.PollInterval, func(ctx context.Context) {
		err := c.poll(ctx, &since)
		switch {
		case err != nil && ctx.Err() != nil:
			// Shutting down: the loop ends without a warning.
		case err != nil:
			if !failing {
				c.log.WarnContext(ctx, "catalog access-change poll failed; cached access is trusted for at most 1s until it recovers", "error", err)
			}
			failing = true
		case failing:
			c.log.InfoContext(ctx, "catalog access-change poll recovered")
			failing = false
		}
	})
	return nil
}

// poll asks for the changes since *since (zero: the catalog's now), applies
// them and moves *since to the catalog's clock.
func (c *Catalog) poll(ctx context.Context, since *time.Time) error {
	started := c.mono()
	cctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req := &catalogv1.AccessChangesSinceRequest{MarginMs: c.cfg.PollMargin.Milliseconds()}
	if !since.IsZero() {
		req.Since = timestamppb.New(*since)
	}
	resp, err := c.client.AccessChangesSince(cctx, req)
	if err != nil {
		return fmt.Errorf("catalog AccessChangesSince: %w", err)
	}
	if resp.GetNow() == nil {
		return fmt.Errorf("catalog AccessChangesSince: no clock in the answer")
	}
	c.evict(resp.GetChanges())
	c.inStep(started)
	*since = resp.GetNow().AsTime()
	return nil
}
