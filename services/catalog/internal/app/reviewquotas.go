package app

import (
	"net/http"

	"github.com/agentic-app/agentic/services/catalog/internal/transport"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
)

// Per-user quotas on what a marketplace user writes (issue 30 item 7):
// far above what a person does (a review is one per agent, replaced in
// place), they stop a script filling the reviews and the moderation queue.
const (
	// DefaultReviewRate caps writing reviews (PUT review) per user
	// (RATE_LIMIT_REVIEWS).
	DefaultReviewRate = "20/24h"
	// DefaultReportRate caps reports (of agents and of reviews, one shared
	// counter) per user (RATE_LIMIT_REPORTS).
	DefaultReportRate = "20/24h"

	// ReviewClass and ReportClass name the quotas in Redis keys and metrics.
	ReviewClass = "reviews"
	ReportClass = "reports"
)

// reviewRules are the per-user review and report quotas, keyed by the
// routes' mux patterns (ratelimit.Guard). Both fail closed like the other
// quotas on what users create: while Redis is unreachable the routes answer
// 503. "0/24h" turns one off.
func reviewRules(reviewRate, reportRate string) (ratelimit.Rules, error) {
	reviews, err := ratelimit.RuleOf("RATE_LIMIT_REVIEWS", reviewRate, DefaultReviewRate, ReviewClass, ratelimit.FailClosed)
	if err != nil {
		return nil, err
	}
	reports, err := ratelimit.RuleOf("RATE_LIMIT_REPORTS", reportRate, DefaultReportRate, ReportClass, ratelimit.FailClosed)
	if err != nil {
		return nil, err
	}
	return ratelimit.Rules{
		http.MethodPut + " " + transport.PathReview:        reviews,
		http.MethodPost + " " + transport.PathAgentReport:  reports,
		http.MethodPost + " " + transport.PathReviewReport: reports,
	}, nil
}
