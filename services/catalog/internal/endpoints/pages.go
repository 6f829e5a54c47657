package endpoints

import (
	"context"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
)

// Requests and responses of the marketplace's pages (no caller identity):
// an agent page's listing (GetListedRequest → ListingResponse) and
// sitemap.xml's agents.
type (
	SitemapRequest  struct{ Limit int }
	SitemapResponse struct{ Entries []agents.SitemapEntry }
)

func listedPreview(svc agents.Service) func(context.Context, any) (any, error) {
	return func(ctx context.Context, req any) (any, error) {
		l, err := svc.ListedPreview(ctx, req.(GetListedRequest).Slug)
		if err != nil {
			return nil, err
		}
		return ListingResponse{Listing: l}, nil
	}
}

func sitemap(svc agents.Service) func(context.Context, any) (any, error) {
	return func(ctx context.Context, req any) (any, error) {
		es, err := svc.Sitemap(ctx, req.(SitemapRequest).Limit)
		if err != nil {
			return nil, err
		}
		return SitemapResponse{Entries: es}, nil
	}
}
