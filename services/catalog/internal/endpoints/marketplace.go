package endpoints

import (
	"context"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
)

// Requests and responses of the public marketplace (no caller identity).
type (
	ListListedRequest  struct{ Query agents.ListQuery }
	GetListedRequest   struct{ Slug string }
	ListingsResponse   struct{ Page agents.ListPage }
	ListingResponse    struct{ Listing agents.Listing }
	CategoriesResponse struct{ Categories []agents.CategoryCount }
)

func listListed(svc agents.Service) func(context.Context, any) (any, error) {
	return func(ctx context.Context, req any) (any, error) {
		page, err := svc.ListListed(ctx, req.(ListListedRequest).Query)
		if err != nil {
			return nil, err
		}
		return ListingsResponse{Page: page}, nil
	}
}

func getListed(svc agents.Service) func(context.Context, any) (any, error) {
	return func(ctx context.Context, req any) (any, error) {
		l, err := svc.GetListed(ctx, req.(GetListedRequest).Slug)
		if err != nil {
			return nil, err
		}
		return ListingResponse{Listing: l}, nil
	}
}

func listCategories(svc agents.Service) func(context.Context, any) (any, error) {
	return func(ctx context.Context, _ any) (any, error) {
		cs, err := svc.ListCategories(ctx)
		if err != nil {
			return nil, err
		}
		return CategoriesResponse{Categories: cs}, nil
	}
}
