package endpoints

import (
	"context"
	"errors"
	"log/slog"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/catalog/internal/reviews"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/endpointmw"
)

// Requests and responses of the reviews endpoints. Claims are the verified
// caller (ListReviews is public and has none).
type (
	PutReviewRequest struct {
		Claims auth.Claims
		Slug   string
		Input  reviews.ReviewInput
	}
	ReviewTargetRequest struct {
		Claims auth.Claims
		Slug   string
	}
	ListReviewsRequest struct {
		Slug  string
		Query reviews.ListQuery
	}
	PutReplyRequest struct {
		Claims   auth.Claims
		AgentID  string
		ReviewID string
		Text     string
	}
	ReplyRequest struct {
		Claims   auth.Claims
		AgentID  string
		ReviewID string
	}
	ReportAgentRequest struct {
		Claims auth.Claims
		Slug   string
		Reason string
	}
	ReportReviewRequest struct {
		Claims   auth.Claims
		ReviewID string
		Reason   string
	}

	// ReviewResponse is a review; Created says whether PutReview created it
	// (201) rather than replacing it (200).
	ReviewResponse struct {
		Review  reviews.Review
		Created bool
	}
	ReviewsPageResponse struct{ Page reviews.Page }
	// ReportResponse is an accepted report (202 {"status":"received"}).
	ReportResponse struct{}
)

// AddReviews fills set's review, reply and report endpoints from svc, with
// the same middleware as New.
func AddReviews(set *Set, svc reviews.Service, logger *slog.Logger, reg prometheus.Registerer) {
	if logger == nil {
		logger = slog.Default()
	}
	wrap := endpointmw.Chain("catalog", logger, reg, ReviewOutcome)
	set.PutReview = wrap("PutReview", func(ctx context.Context, req any) (any, error) {
		r := req.(PutReviewRequest)
		rv, created, err := svc.PutReview(ctx, r.Claims.UID, r.Slug, r.Input)
		if err != nil {
			return nil, err
		}
		return ReviewResponse{Review: rv, Created: created}, nil
	})
	set.DeleteReview = wrap("DeleteReview", func(ctx context.Context, req any) (any, error) {
		r := req.(ReviewTargetRequest)
		if err := svc.DeleteReview(ctx, r.Claims.UID, r.Slug); err != nil {
			return nil, err
		}
		return RemovedResponse{}, nil
	})
	set.ListReviews = wrap("ListReviews", func(ctx context.Context, req any) (any, error) {
		r := req.(ListReviewsRequest)
		p, err := svc.ListReviews(ctx, r.Slug, r.Query)
		if err != nil {
			return nil, err
		}
		return ReviewsPageResponse{Page: p}, nil
	})
	set.PutReply = wrap("PutReply", func(ctx context.Context, req any) (any, error) {
		r := req.(PutReplyRequest)
		rv, err := svc.PutReply(ctx, r.Claims.UID, r.AgentID, r.ReviewID, r.Text)
		if err != nil {
			return nil, err
		}
		return ReviewResponse{Review: rv}, nil
	})
	set.DeleteReply = wrap("DeleteReply", func(ctx context.Context, req any) (any, error) {
		r := req.(ReplyRequest)
		if err := svc.DeleteReply(ctx, r.Claims.UID, r.AgentID, r.ReviewID); err != nil {
			return nil, err
		}
		return RemovedResponse{}, nil
	})
	set.ReportAgent = wrap("ReportAgent", func(ctx context.Context, req any) (any, error) {
		r := req.(ReportAgentRequest)
		if err := svc.ReportAgent(ctx, r.Claims.UID, r.Slug, r.Reason); err != nil {
			return nil, err
		}
		return ReportResponse{}, nil
	})
	set.ReportReview = wrap("ReportReview", func(ctx context.Context, req any) (any, error) {
		r := req.(ReportReviewRequest)
		if err := svc.ReportReview(ctx, r.Claims.UID, r.ReviewID, r.Reason); err != nil {
			return nil, err
		}
		return ReportResponse{}, nil
	})
}

// ReviewOutcome classifies the reviews endpoints' results: the catalog's
// client errors (Outcome) plus the review rules' refusals, a missing review
// or reply and a bad list query.
func ReviewOutcome(err error) string {
	var qe *reviews.QueryError
	if errors.Is(err, reviews.ErrReviewNotFound) || errors.Is(err, reviews.ErrReplyNotFound) || errors.Is(err, reviews.ErrOwnAgent) ||
		errors.Is(err, reviews.ErrRequiresAnswer) || errors.As(err, &qe) {
		return endpointmw.OutcomeClientError
	}
	return outcome(err)
}
