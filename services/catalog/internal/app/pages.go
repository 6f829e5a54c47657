package app

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/agentic-app/agentic/services/catalog/internal/pages"
	"github.com/agentic-app/agentic/services/catalog/internal/transport"
)

// The marketplace's pages outside /api (issue 27, link previews): an agent's
// page is the SPA's shell read from the web app (WEB_INDEX_URL) with the
// agent's tags; its canonical link and sitemap.xml's URLs are on the web
// app's public origin (APP_BASE_URL). docs/catalog.md, "Link previews and
// sitemap.xml".
const (
	// DefaultWebIndexURL is the local gateway's own index.html (make dev).
	DefaultWebIndexURL = "http://127.0.0.1:8080/index.html"
	// DefaultAppBaseURL is the local web app's origin (as wallet and mail).
	DefaultAppBaseURL = "http://localhost:8080"
)

// checkPagesConfig refuses a WEB_INDEX_URL or APP_BASE_URL that is not an
// http(s) URL, and an APP_BASE_URL with more than an origin.
func checkPagesConfig(c Config) error {
	if u, err := url.Parse(c.WebIndexURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("WEB_INDEX_URL=%q is not an http(s) URL", c.WebIndexURL)
	}
	u, err := url.Parse(c.AppBaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.Trim(u.Path, "/") != "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("APP_BASE_URL=%q is not an http(s) origin (https://agentic.app)", c.AppBaseURL)
	}
	return nil
}

// pagesOption serves the agent pages and sitemap.xml; none without a
// WEB_INDEX_URL (tests that do not need them).
func pagesOption(c Config, logger *slog.Logger) transport.Option {
	if c.WebIndexURL == "" {
		return transport.WithPages(transport.PagesConfig{})
	}
	base := c.AppBaseURL
	if base == "" {
		base = DefaultAppBaseURL
	}
	return transport.WithPages(transport.PagesConfig{
		Shell:   pages.NewShell(c.WebIndexURL, logger, pages.WithTTL(c.PagesTTL)),
		BaseURL: base, SitemapTTL: c.PagesTTL,
	})
}
