package transport

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/catalog/internal/pages"
	"github.com/agentic-app/agentic/services/platform/server"
)

// The marketplace's pages outside /api (issue 27, link previews), which
// gateway/routes.yaml routes here before the SPA's files: a listed agent's
// page and sitemap.xml (docs/catalog.md, "Link previews and sitemap.xml").
const (
	// PathAgentPage is exactly two segments: /marketplace and
	// /marketplace/{slug}/chat stay the SPA's.
	PathAgentPage = "/marketplace/{slug}"
	PathSitemap   = "/sitemap.xml"
)

// Caching of the pages.
const (
	// PageCacheControl: an agent page and sitemap.xml may be reused for a
	// minute (a rename or an unpublish shows within it).
	PageCacheControl = "public, max-age=60"
	// DefaultSitemapTTL is how long the catalog reuses a built sitemap.xml.
	DefaultSitemapTTL = time.Minute
)

// Texts of the pages (the SPA's own wording: "<name> | Agentic", its
// profile's "Agent not found").
const (
	PageTitleSuffix    = " | Agentic"
	NotFoundPageTitle  = "Agent not found" + PageTitleSuffix
	NotFoundPageText   = "This agent is not on the Agentic marketplace."
	PageFallbackText   = "Agentic is not reachable right now. Please reload the page in a moment."
	agentPageDescEmpty = "%s, an AI agent by %s on the Agentic marketplace."
)

// PagesConfig configures the pages (WithPages).
type PagesConfig struct {
	// Shell is the SPA's index.html (WEB_INDEX_URL), read and kept briefly.
	Shell *pages.Shell
	// BaseURL is the web app's public origin (APP_BASE_URL), from which
	// the canonical links and the sitemap's URLs are made.
	BaseURL string
	// SitemapTTL is how long a built sitemap.xml is reused (0:
	// DefaultSitemapTTL).
	SitemapTTL time.Duration
}

// WithPages serves the marketplace's pages outside /api (an agent's page and
// sitemap.xml). Without it, or without a Shell, they are not registered.
func WithPages(c PagesConfig) Option {
	return func(o *httpOptions) {
		if c.Shell != nil {
			o.pages = &c
		}
	}
}

// registerPages adds GET /marketplace/{slug} and GET /sitemap.xml: no
// authentication, no per-address limit (a link-preview bot fetches for every
// user of its network from one address; a page is one indexed read and the
// sitemap is built once a minute). Off (MARKETPLACE_ENABLED=false), every
// agent page is the 404 page and the sitemap lists the landing page only.
func registerPages(mux *http.ServeMux, set endpoints.Set, logger *slog.Logger, off bool, c PagesConfig) {
	p := &pagesHandler{set: set, logger: logger, off: off, shell: c.Shell, base: strings.TrimRight(c.BaseURL, "/"), sitemapTTL: c.SitemapTTL}
	if p.sitemapTTL <= 0 {
		p.sitemapTTL = DefaultSitemapTTL
	}
	server.Route(mux, http.MethodGet, PathAgentPage, http.HandlerFunc(p.agentPage))
	server.Route(mux, http.MethodGet, PathSitemap, http.HandlerFunc(p.sitemap))
}

type pagesHandler struct {
	set        endpoints.Set
	logger     *slog.Logger
	off        bool
	shell      *pages.Shell
	base       string
	sitemapTTL time.Duration

	mu             sync.Mutex
	sitemapBody    []byte
	sitemapExpires time.Time
}

// agentPage answers a listed agent's page: the SPA's shell with the agent's
// tags (200), the shell as the 404 page (unknown or unlisted slug, or the
// marketplace off: noindex), or, when the listing cannot be read, the plain
// shell with 503 (the SPA boots and shows its own error). Without the shell
// (the web app unreachable) a minimal page carries the same tags, with 503
// (or 404), never cached.
func (p *pagesHandler) agentPage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	status, meta := http.StatusNotFound, pages.Meta{Title: NotFoundPageTitle, Description: NotFoundPageText, NoIndex: true}
	if !p.off {
		resp, err := p.set.ListedPreview(ctx, endpoints.GetListedRequest{Slug: r.PathValue("slug")})
		switch {
		case err == nil:
			status, meta = http.StatusOK, p.agentMeta(resp.(endpoints.ListingResponse).Listing)
		case errors.Is(err, agents.ErrNotFound):
		case server.ClientGone(ctx, err):
			server.WriteError(w, server.ErrClientClosedRequest)
			return
		default:
			p.logger.ErrorContext(ctx, "agent page: the listing could not be read", "error", err)
			status, meta = http.StatusServiceUnavailable, pages.Meta{}
		}
	}
	shell, err := p.shell.Get(ctx)
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	if status != http.StatusOK {
		h.Set("X-Robots-Tag", "noindex")
	}
	switch {
	case err != nil:
		if status == http.StatusOK {
			status = http.StatusServiceUnavailable
		}
		shell = []byte(fallbackShell)
		h.Set("Cache-Control", "no-store")
	case status == http.StatusOK:
		h.Set("Cache-Control", PageCacheControl)
	default:
		// A 404 is not kept: an agent published a moment later must open.
		h.Set("Cache-Control", "no-cache")
	}
	if status == http.StatusServiceUnavailable {
		h.Set("Retry-After", "5")
		h.Set("Cache-Control", "no-store")
	}
	body := shell
	if meta != (pages.Meta{}) {
		body = pages.Render(shell, meta)
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// agentMeta is a listed agent's tags: "<name> | Agentic" as the SPA titles
// its profile, its description (or a sentence naming it and its creator),
// the canonical URL from APP_BASE_URL.
func (p *pagesHandler) agentMeta(l agents.Listing) pages.Meta {
	desc := l.Description
	if pages.Clip(desc, pages.MaxDescription) == "" {
		desc = fmt.Sprintf(agentPageDescEmpty, pages.Clip(l.Name, 200), l.CreatorName)
	}
	return pages.Meta{
		Title: pages.Clip(l.Name, 200) + PageTitleSuffix, OGTitle: l.Name, Description: desc,
		URL: p.base + "/marketplace/" + l.Slug, Type: "website",
	}
}

// sitemap answers sitemap.xml: the landing page, and while the marketplace
// is on /marketplace and every listed agent's page (most answered first, at
// most agents.MaxSitemapAgents), built at most once per SitemapTTL. When the
// agents cannot be read the last sitemap is served (without one: 503).
func (p *pagesHandler) sitemap(w http.ResponseWriter, r *http.Request) {
	body, err := p.sitemapXML(r.Context())
	if err != nil {
		if server.ClientGone(r.Context(), err) {
			server.WriteError(w, server.ErrClientClosedRequest)
			return
		}
		p.logger.ErrorContext(r.Context(), "sitemap.xml: the listed agents could not be read", "error", err)
		w.Header().Set("Retry-After", "5")
		server.WriteError(w, &server.Error{Status: http.StatusServiceUnavailable, Code: "unavailable",
			Message: "The sitemap is unavailable. Please try again shortly."})
		return
	}
	w.Header().Set("Content-Type", "application/xml; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Cache-Control", PageCacheControl)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

func (p *pagesHandler) sitemapXML(ctx context.Context) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock() // one build at a time; the others wait for it
	if p.sitemapBody != nil && time.Now().Before(p.sitemapExpires) {
		return p.sitemapBody, nil
	}
	urls := []pages.URL{{Loc: p.base + "/", ChangeFreq: "weekly", Priority: "1.0"}}
	if !p.off {
		resp, err := p.set.Sitemap(ctx, endpoints.SitemapRequest{Limit: agents.MaxSitemapAgents})
		if err != nil && !errors.Is(err, agents.ErrNotFound) {
			if p.sitemapBody != nil && !server.ClientGone(ctx, err) {
				p.logger.WarnContext(ctx, "sitemap.xml: the listed agents could not be read; serving the last sitemap", "error", err)
				p.sitemapExpires = time.Now().Add(pages.ShellRetry)
				return p.sitemapBody, nil
			}
			return nil, err
		}
		urls = append(urls, pages.URL{Loc: p.base + "/marketplace", ChangeFreq: "daily", Priority: "0.8"})
		if err == nil {
			for _, e := range resp.(endpoints.SitemapResponse).Entries {
				urls = append(urls, pages.URL{Loc: p.base + "/marketplace/" + e.Slug, LastMod: e.LastMod})
			}
		}
	}
	body, err := pages.Sitemap(urls)
	if err != nil {
		return nil, err
	}
	p.sitemapBody, p.sitemapExpires = body, time.Now().Add(p.sitemapTTL)
	return body, nil
}

// fallbackShell stands in for the SPA's shell while the web app cannot be
// read: the tags still reach a link preview; a person is asked to reload.
const fallbackShell = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="UTF-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1.0" />
  </head>
  <body>
    <p>` + PageFallbackText + `</p>
  </body>
</html>
`
