package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math"
	"net/http"
	"time"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/catalog/internal/endpoints"
	"github.com/agentic-app/agentic/services/catalog/internal/reviews"
	"github.com/agentic-app/agentic/services/platform/server"
)

// The marketplace's review, reply and report routes (docs/catalog.md,
// "Reviews"). PathReviews is public (no token); the others need one.
const (
	PathReview       = "/api/marketplace/agents/{slug}/review"
	PathReviews      = "/api/marketplace/agents/{slug}/reviews"
	PathAgentReport  = "/api/marketplace/agents/{slug}/report"
	PathReviewReport = "/api/marketplace/reviews/{reviewId}/report"
	PathReviewReply  = "/api/agents/{id}/reviews/{reviewId}/reply"
)

// WithMarketplace sets the marketplace launch switch (MARKETPLACE_ENABLED;
// on unless given false): off, the review, reply and report routes answer
// 404 not_found to everyone, before any authentication.
func WithMarketplace(enabled bool) Option {
	return func(o *httpOptions) { o.marketplaceOff = !enabled }
}

// registerReviews adds the review routes. Writes check token revocation
// (issue 30 item 1); the per-user quotas on them (RATE_LIMIT_REVIEWS,
// RATE_LIMIT_REPORTS) are applied in front of the mux (internal/app).
// The public list of reviews shares the marketplace's per-address gate.
func registerReviews(mux *http.ServeMux, set endpoints.Set, fresh func(http.Handler) http.Handler, logger *slog.Logger, off bool, gate func(http.Handler) http.Handler) {
	opts := server.KitOptions(encodeReviewError(logger))
	handle := func(method, path string, h http.Handler) {
		if off {
			h = http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { server.WriteError(w, server.ErrNotFound) })
		}
		server.Route(mux, method, path, h)
	}
	kit := func(e func(context.Context, any) (any, error), dec httptransport.DecodeRequestFunc, status int) http.Handler {
		return httptransport.NewServer(e, dec, encodeReview(status), opts...)
	}
	handle(http.MethodPut, PathReview, fresh(kit(set.PutReview, decodePutReview, http.StatusOK)))
	handle(http.MethodDelete, PathReview, fresh(kit(set.DeleteReview, decodeReviewTarget, http.StatusNoContent)))
	list := kit(set.ListReviews, decodeListReviews, http.StatusOK)
	if gate != nil {
		list = gate(list)
	}
	handle(http.MethodGet, PathReviews, list)
	handle(http.MethodPut, PathReviewReply, fresh(kit(set.PutReply, decodePutReply, http.StatusOK)))
	handle(http.MethodDelete, PathReviewReply, fresh(kit(set.DeleteReply, decodeReply, http.StatusNoContent)))
	handle(http.MethodPost, PathAgentReport, fresh(kit(set.ReportAgent, decodeReportAgent, http.StatusAccepted)))
	handle(http.MethodPost, PathReviewReport, fresh(kit(set.ReportReview, decodeReportReview, http.StatusAccepted)))
}

// ReviewJSON is a review as the HTTP API shows it: the author by name only
// (never a uid or an e-mail address).
type ReviewJSON struct {
	ID         string     `json:"id"`
	Rating     int        `json:"rating"`
	Text       string     `json:"text"`
	AuthorName string     `json:"authorName"`
	CreatedAt  time.Time  `json:"createdAt"`
	UpdatedAt  time.Time  `json:"updatedAt"`
	Reply      *ReplyJSON `json:"reply"`
}

// ReplyJSON is the owner's reply to a review.
type ReplyJSON struct {
	Text      string    `json:"text"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// ReviewsPageJSON is a page of GET reviews; nextCursor is null on the last.
type ReviewsPageJSON struct {
	Items      []ReviewJSON `json:"items"`
	NextCursor *string      `json:"nextCursor"`
}

// ReviewToJSON converts a review.
func ReviewToJSON(r reviews.Review) ReviewJSON {
	j := ReviewJSON{ID: r.ID, Rating: r.Rating, Text: r.Text, AuthorName: r.AuthorName,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if r.Reply != nil {
		j.Reply = &ReplyJSON{Text: r.Reply.Text, CreatedAt: r.Reply.CreatedAt.UTC(), UpdatedAt: r.Reply.UpdatedAt.UTC()}
	}
	return j
}

// ratingFromJSON reads a rating: absent or null → nil; a whole number →
// it; another number → RatingInvalid (validation names it); any other JSON
// value → 400 invalid_json.
func ratingFromJSON(raw json.RawMessage) (*int, bool, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, false, server.InvalidJSON("rating must be a number")
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, false, server.InvalidJSON("rating must be a number")
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1e6 {
		return nil, true, nil
	}
	i := int(f)
	return &i, false, nil
}

func decodePutReview(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b struct {
		Rating json.RawMessage `json:"rating"`
		Text   string          `json:"text"`
	}
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	rating, invalid, err := ratingFromJSON(b.Rating)
	if err != nil {
		return nil, err
	}
	return endpoints.PutReviewRequest{Claims: c, Slug: r.PathValue("slug"),
		Input: reviews.ReviewInput{Rating: rating, RatingInvalid: invalid, Text: b.Text}}, nil
}

func decodeReviewTarget(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.ReviewTargetRequest{Claims: c, Slug: r.PathValue("slug")}, nil
}

func decodeListReviews(_ context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	return endpoints.ListReviewsRequest{Slug: r.PathValue("slug"),
		Query: reviews.ListQuery{Sort: q.Get("sort"), Limit: q.Get("limit"), Cursor: q.Get("cursor")}}, nil
}

func decodePutReply(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b struct {
		Text string `json:"text"`
	}
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	return endpoints.PutReplyRequest{Claims: c, AgentID: r.PathValue("id"), ReviewID: r.PathValue("reviewId"), Text: b.Text}, nil
}

func decodeReply(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.ReplyRequest{Claims: c, AgentID: r.PathValue("id"), ReviewID: r.PathValue("reviewId")}, nil
}

type reportBody struct {
	Reason string `json:"reason"`
}

func decodeReportAgent(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b reportBody
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	return endpoints.ReportAgentRequest{Claims: c, Slug: r.PathValue("slug"), Reason: b.Reason}, nil
}

func decodeReportReview(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b reportBody
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	return endpoints.ReportReviewRequest{Claims: c, ReviewID: r.PathValue("reviewId"), Reason: b.Reason}, nil
}

// encodeReview writes the reviews endpoints' responses; status is the
// route's success status (PUT review: 201 when it created the review).
func encodeReview(status int) httptransport.EncodeResponseFunc {
	return func(_ context.Context, w http.ResponseWriter, resp any) error {
		switch r := resp.(type) {
		case endpoints.ReviewResponse:
			s := status
			if r.Created {
				s = http.StatusCreated
			}
			server.WriteJSON(w, s, ReviewToJSON(r.Review))
		case endpoints.ReviewsPageResponse:
			out := ReviewsPageJSON{Items: make([]ReviewJSON, len(r.Page.Items))}
			for i, rv := range r.Page.Items {
				out.Items[i] = ReviewToJSON(rv)
			}
			if r.Page.NextCursor != "" {
				c := r.Page.NextCursor
				out.NextCursor = &c
			}
			server.WriteJSON(w, status, out)
		case endpoints.ReportResponse:
			server.WriteJSON(w, http.StatusAccepted, map[string]string{"status": "received"})
		case endpoints.RemovedResponse:
			w.WriteHeader(http.StatusNoContent)
		default:
			return errors.New("unexpected response type")
		}
		return nil
	}
}

// Errors of the review rules.
var (
	ErrReviewNotFound = &server.Error{Status: http.StatusNotFound, Code: server.CodeNotFound, Message: reviews.MsgReviewNotFound}
	ErrReplyNotFound  = &server.Error{Status: http.StatusNotFound, Code: server.CodeNotFound, Message: reviews.MsgReplyNotFound}
	ErrOwnAgent       = &server.Error{Status: http.StatusForbidden, Code: server.CodeForbidden, Message: reviews.MsgOwnAgent}
	ErrRequiresAnswer = &server.Error{Status: http.StatusForbidden, Code: server.CodeReviewNeedsAnswer, Message: reviews.MsgRequiresAnswer}
)

// encodeReviewError writes the review rules' errors, then the catalog's
// (encodeHTTPError: validation, "Agent not found", failures).
func encodeReviewError(logger *slog.Logger) httptransport.ErrorEncoder {
	catalog := encodeHTTPError(logger)
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		var qe *reviews.QueryError
		switch {
		case errors.Is(err, reviews.ErrReviewNotFound):
			server.WriteError(w, ErrReviewNotFound)
		case errors.Is(err, reviews.ErrReplyNotFound):
			server.WriteError(w, ErrReplyNotFound)
		case errors.Is(err, reviews.ErrOwnAgent):
			server.WriteError(w, ErrOwnAgent)
		case errors.Is(err, reviews.ErrRequiresAnswer):
			server.WriteError(w, ErrRequiresAnswer)
		case errors.As(err, &qe):
			code := server.CodeInvalidQuery
			if qe.Param == "limit" {
				code = server.CodeInvalidLimit
			}
			server.WriteError(w, server.BadRequest(code, qe.Message))
		default:
			catalog(ctx, err, w)
		}
	}
}
