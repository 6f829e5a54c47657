package agents

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
)

// The marketplace's pages outside /api (issue 27, link previews): a listed
// agent's page (its <title> and Open Graph tags) and sitemap.xml
// (docs/catalog.md, "Link previews and sitemap.xml").

// SitemapEntry is a listed agent in sitemap.xml: its slug and when its
// listing last changed (its latest publish or the owner's latest edit).
type SitemapEntry struct {
	Slug    string
	LastMod time.Time
}

// MaxSitemapAgents bounds sitemap.xml: the protocol's 50,000 URLs per file,
// less the landing page and /marketplace. A larger marketplace lists its
// most answered agents (a sitemap index would list the rest).
const MaxSitemapAgents = 50000 - 2

// ListedPreview is GetListed without the documents service's count (an
// agent page's tags need none of it): ErrNotFound while the marketplace is
// off, for a slug that cannot be one, and for an unknown or unlisted agent.
func (s *service) ListedPreview(ctx context.Context, slug string) (Listing, error) {
	if !s.cfg.Marketplace || !ValidSlug(slug) {
		return Listing{}, ErrNotFound
	}
	return s.store.GetListed(ctx, slug)
}

// Sitemap lists up to limit listed agents (1 to MaxSitemapAgents; outside:
// MaxSitemapAgents), most answered first; ErrNotFound while the marketplace
// is off.
func (s *service) Sitemap(ctx context.Context, limit int) ([]SitemapEntry, error) {
	if !s.cfg.Marketplace {
		return nil, ErrNotFound
	}
	if limit < 1 || limit > MaxSitemapAgents {
		limit = MaxSitemapAgents
	}
	return s.store.ListedSitemap(ctx, limit)
}

// ListedSitemap implements Store: the popular sort's partial index
// (agents_listed_popular_idx), the first limit rows.
func (s *PostgresStore) ListedSitemap(ctx context.Context, limit int) ([]SitemapEntry, error) {
	rows, err := s.pool.Query(ctx, `SELECT slug, GREATEST(updated_at, COALESCE(published_at, updated_at))
		FROM agents WHERE is_public ORDER BY total_interactions DESC, id DESC LIMIT $1`, limit)
	if err != nil {
		return nil, err
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SitemapEntry, error) {
		var e SitemapEntry
		err := r.Scan(&e.Slug, &e.LastMod)
		return e, err
	})
	if out == nil {
		out = []SitemapEntry{}
	}
	return out, err
}
