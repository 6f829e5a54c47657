package conversations

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// Answer outcomes (the "outcome" label of conversations_answers_total).
const (
	OutcomeComplete          = "complete"
	OutcomePartial           = "partial"
	OutcomeReplayed          = "replayed"
	OutcomeInvalid           = "invalid"
	OutcomeNotFound          = "not_found"
	OutcomeInProgress        = "in_progress"
	OutcomeRateLimited       = "rate_limited"
	OutcomeInsufficientFunds = "insufficient_funds"
	OutcomeKeyLimit          = "key_limit_reached"
	OutcomeKeyRefused        = "key_refused"
	OutcomeSubscriberCap     = "subscriber_cap_reached"
	OutcomeAgentUnavailable  = "agent_unavailable"
	OutcomeModelUnavailable  = "model_unavailable"
	OutcomeUnavailable       = "dependency_unavailable"
	OutcomeCanceled          = "canceled"
	OutcomeError             = "error"
)

type metrics struct {
	answers  *prometheus.CounterVec
	ttft     prometheus.Histogram
	platform prometheus.Histogram
	tokens   *prometheus.CounterVec
	unsettle prometheus.Counter
	dropped  prometheus.Counter
	// stoppedCharged counts answers stopped after the provider was sent the
	// prompt: charged for their input only.
	stoppedCharged prometheus.Counter
	stages         *prometheus.HistogramVec
	// rewrites counts follow-ups rewritten by the model (FollowUpsModel).
	rewrites *prometheus.CounterVec
}

// Stages of an answer before its first token (the "stage" label of
// conversations_answer_stage_seconds): where the platform's own latency goes.
const (
	stageLookup  = "lookup"  // conversation, replay check and history (one batch); access
	stageLimit   = "limit"   // the wait for the rate limits (checked beside access)
	stageContext = "context" // the rest of the knowledge wait, prompt
	stageBegin   = "begin"   // the turn and its charge recorded (while the wallet reserves)
	stageReserve = "reserve" // the wait for the wallet's hold after that
	stageModel   = "model"   // model start to its first token
)

func newMetrics(reg prometheus.Registerer) metrics {
	m := metrics{
		answers: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "conversations_answers_total", Help: "Messages answered (or refused) by channel and outcome.",
		}, []string{"channel", "outcome"}),
		ttft: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "conversations_time_to_first_token_seconds", Help: "From receiving a message to its first streamed token.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2, 4, 8, 15, 30},
		}),
		platform: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "conversations_platform_latency_seconds", Help: "Time to first token minus the model's own: what the platform adds (access, rate limit, knowledge, prompt, reserve).",
			Buckets: []float64{.001, .0025, .005, .01, .015, .02, .025, .05, .1, .25, .5, 1},
		}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "conversations_tokens_total", Help: "Tokens metered, by kind (input, output).",
		}, []string{"kind"}),
		unsettle: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "conversations_charges_deferred_total", Help: "Answers whose capture was left to the reconciler (wallet unavailable).",
		}),
		stoppedCharged: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "conversations_stopped_input_charged_total", Help: "Answers stopped by the client after the model was sent the prompt: charged for its input only.",
		}),
		dropped: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "conversations_knowledge_degraded_total", Help: "Answers given without knowledge because the knowledge service is not available.",
		}),
		stages: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "conversations_answer_stage_seconds", Help: "Time spent in each stage of an answer before its first token (lookup, limit, context, begin, reserve, model).",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
		}, []string{"stage"}),
		rewrites: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "conversations_follow_up_rewrites_total", Help: "Messages with history rewritten by the model into a standalone search query, by outcome (rewritten, unchanged, failed: searched by the rule).",
		}, []string{"outcome"}),
	}
	if reg != nil {
		m.stages = observability.Register(reg, m.stages)
		m.answers = observability.Register(reg, m.answers)
		m.ttft = observability.Register(reg, m.ttft)
		m.platform = observability.Register(reg, m.platform)
		m.tokens = observability.Register(reg, m.tokens)
		m.unsettle = observability.Register(reg, m.unsettle)
		m.dropped = observability.Register(reg, m.dropped)
		m.stoppedCharged = observability.Register(reg, m.stoppedCharged)
		m.rewrites = observability.Register(reg, m.rewrites)
	}
	return m
}
