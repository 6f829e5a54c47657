package agents

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"
)

// ListingChannel is the PostgreSQL NOTIFY channel of the marketplace's
// listings (migration 00006: triggers on agents and known_users send it at
// the commit of any change a visitor could see).
const ListingChannel = "marketplace_listing"

// DefaultListingCacheTTL is how long a cached page or profile is served
// while no notification dropped it: the bound on how old the counters an
// answer moves (answers, the typical answer), which do not notify, may be.
const DefaultListingCacheTTL = 5 * time.Second

// defaultListingCacheEntries bounds each of the two maps; a full map is
// emptied rather than evicted entry by entry (the entries live seconds).
const defaultListingCacheEntries = 10_000

// ListingCache keeps the public marketplace's pages and profiles for a few
// seconds, so that the many visitors reading the same first pages, searches
// and popular profiles cost the database nothing. It serves only while its
// listener (Listen) holds a LISTEN on ListingChannel: every notification
// drops everything, so publishing, unpublishing, an edit of a listed agent,
// a new rating or an operator's SQL are seen at once on every replica. A
// replica whose listener is down (or not yet up) reads through, uncached.
// A result read before a drop is never stored after it (the generation).
type ListingCache struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu       sync.Mutex
	live     bool   // the listener is LISTENing
	gen      uint64 // bumped by every drop
	lists    map[listKey]expiring[ListPage]
	profiles map[string]expiring[Listing]

	hits, misses prometheus.Counter
	drops        prometheus.Counter
}

type listKey struct {
	tsq, category, tag, sort, after string
	limit                           int
}

// expiring is a cached value and when it stops being served.
type expiring[V any] struct {
	v   V
	exp time.Time
}

// NewListingCache returns a cache with the given TTL (0: the default); reg
// (may be nil) gets its hit, miss and drop counters.
func NewListingCache(ttl time.Duration, reg prometheus.Registerer) *ListingCache {
	if ttl <= 0 {
		ttl = DefaultListingCacheTTL
	}
	c := &ListingCache{ttl: ttl, max: defaultListingCacheEntries, now: time.Now,
		lists: map[listKey]expiring[ListPage]{}, profiles: map[string]expiring[Listing]{},
		hits: prometheus.NewCounter(prometheus.CounterOpts{Name: "catalog_listing_cache_hits_total",
			Help: "Marketplace pages and profiles served from the catalog's listing cache."}),
		misses: prometheus.NewCounter(prometheus.CounterOpts{Name: "catalog_listing_cache_misses_total",
			Help: "Marketplace pages and profiles read from the database (not cached, expired, or the cache not live)."}),
		drops: prometheus.NewCounter(prometheus.CounterOpts{Name: "catalog_listing_cache_drops_total",
			Help: "Times the listing cache was emptied (a marketplace_listing notification, a local change, the listener lost)."}),
	}
	if reg != nil {
		for _, m := range []prometheus.Collector{c.hits, c.misses, c.drops} {
			if err := reg.Register(m); err != nil {
				var are prometheus.AlreadyRegisteredError
				if !errors.As(err, &are) {
					panic(err)
				}
			}
		}
	}
	return c
}

func keyOf(f ListFilter) listKey {
	k := listKey{tsq: f.TSQuery, category: f.Category, tag: f.Tag, sort: f.Sort, limit: f.Limit}
	if f.After != nil {
		k.after = f.After.Encode()
	}
	return k
}

// generation returns the generation to store a result under, and whether
// the cache serves at all.
func (c *ListingCache) generation() (uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen, c.live
}

func (c *ListingCache) page(f ListFilter) (ListPage, bool) { return cached(c, c.lists, keyOf(f)) }

func (c *ListingCache) putPage(gen uint64, f ListFilter, p ListPage) {
	store(c, gen, c.lists, keyOf(f), p)
}

func (c *ListingCache) profile(slug string) (Listing, bool) { return cached(c, c.profiles, slug) }

func (c *ListingCache) putProfile(gen uint64, slug string, l Listing) {
	store(c, gen, c.profiles, slug, l)
}

// cached returns m's unexpired entry for k while the cache is live.
func cached[K comparable, V any](c *ListingCache, m map[K]expiring[V], k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := m[k]
	if !c.live || !ok || !c.now().Before(e.exp) {
		c.misses.Inc()
		var zero V
		return zero, false
	}
	c.hits.Inc()
	return e.v, true
}

// store keeps v under k unless the cache was dropped since gen was read
// (the value may predate the change) or is not live.
func store[K comparable, V any](c *ListingCache, gen uint64, m map[K]expiring[V], k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.live || gen != c.gen {
		return
	}
	if len(m) >= c.max {
		clear(m)
	}
	m[k] = expiring[V]{v: v, exp: c.now().Add(c.ttl)}
}

// Drop empties the cache (a listing changed) and makes results read before
// it unstorable.
func (c *ListingCache) Drop() { c.setLive(true, false) }

// setLive drops everything and sets whether the cache serves (keep: leave
// live as it is).
func (c *ListingCache) setLive(keep, live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.lists)
	clear(c.profiles)
	if !keep {
		c.live = live
	}
	c.drops.Inc()
}

// Listen holds a LISTEN on ListingChannel over its own connection (connect,
// e.g. a copy of the pool's configuration: a pooled connection would be
// taken from the requests for good) and drops the cache on every
// notification, until ctx ends. The cache serves only while the LISTEN
// holds; a lost connection is re-established after a pause (it may have
// missed notifications, so the cache is emptied when it is back).
func (c *ListingCache) Listen(ctx context.Context, connect func(context.Context) (*pgx.Conn, error), logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	const retry = time.Second
	for {
		err := c.listenOnce(ctx, connect)
		c.setLive(false, false)
		if ctx.Err() != nil {
			return nil
		}
		logger.WarnContext(ctx, "listing cache: listener lost; reading the marketplace uncached until it is back",
			"error", err, "retry_in", retry)
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(retry):
		}
	}
}

func (c *ListingCache) listenOnce(ctx context.Context, connect func(context.Context) (*pgx.Conn, error)) error {
	conn, err := connect(ctx)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(cctx)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+ListingChannel); err != nil {
		return err
	}
	c.setLive(false, true)
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		c.Drop()
	}
}
