package wallet

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

// Hold events (metric label values).
const (
	holdOpened   = "opened"
	holdCaptured = "captured"
	holdReleased = "released"
	holdExpired  = "expired"
)

// holdMetrics: how many holds open and settle (and how), how much money they
// move, and what is on hold right now (refreshed by every sweeper round;
// every replica reports the same database-wide figure, so aggregate with max).
type holdMetrics struct {
	holds      *prometheus.CounterVec
	micros     *prometheus.CounterVec
	open       prometheus.Gauge
	heldMicros prometheus.Gauge
	sweepErrs  prometheus.Counter
}

func newHoldMetrics(reg prometheus.Registerer) holdMetrics {
	m := holdMetrics{
		holds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wallet_holds_total", Help: "Holds by event: opened, captured, released, expired.",
		}, []string{"event"}),
		micros: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "wallet_hold_micros_total", Help: "Micro-dollars moved by holds: opened (reserved), captured (charged), released and expired (returned to wallets).",
		}, []string{"event"}),
		open: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "wallet_holds_open", Help: "Open holds in the database (refreshed by the sweeper).",
		}),
		heldMicros: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "wallet_held_micros", Help: "Micro-dollars on open holds in the database (refreshed by the sweeper).",
		}),
		sweepErrs: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "wallet_hold_sweep_errors_total", Help: "Failed hold sweeper rounds.",
		}),
	}
	if reg != nil {
		m.holds = observability.Register(reg, m.holds)
		m.micros = observability.Register(reg, m.micros)
		m.open = observability.Register(reg, m.open)
		m.heldMicros = observability.Register(reg, m.heldMicros)
		m.sweepErrs = observability.Register(reg, m.sweepErrs)
	}
	return m
}

func (m holdMetrics) add(event string, micros int64) {
	m.holds.WithLabelValues(event).Inc()
	m.micros.WithLabelValues(event).Add(float64(micros))
}

func (m holdMetrics) expired(hs []SweptHold) {
	for _, h := range hs {
		m.add(holdExpired, h.AmountMicros)
	}
}

// ValidateReserve checks a Reserve and fills in the default TTL.
func ValidateReserve(req ReserveRequest) (ReserveRequest, error) {
	switch {
	case strings.TrimSpace(req.UID) == "":
		return req, &ValidationError{Message: "uid is required"}
	case req.AmountMicros <= 0:
		return req, &ValidationError{Message: "amount_micros must be greater than 0"}
	case req.AmountMicros > MaxTransferMicros:
		return req, &ValidationError{Message: "amount_micros must be at most 1000000000000 ($1,000,000)"}
	case strings.TrimSpace(req.IdempotencyKey) == "":
		return req, &ValidationError{Message: "idempotency_key is required"}
	case len(req.IdempotencyKey) > MaxIdempotencyKeyLen:
		return req, &ValidationError{Message: "idempotency_key must be at most 255 bytes"}
	case req.TTL < 0:
		return req, &ValidationError{Message: "ttl_seconds must not be negative"}
	case req.TTL > MaxHoldTTL:
		return req, &ValidationError{Message: "ttl_seconds must be at most 3600 (1 hour)"}
	case len(req.Metadata) > MaxMetadataEntries:
		return req, &ValidationError{Message: "metadata must have at most 50 entries"}
	}
	if req.TTL == 0 {
		req.TTL = DefaultHoldTTL
	}
	return req, nil
}

// ValidateCapture checks a Capture.
func ValidateCapture(req CaptureRequest) error {
	switch {
	case strings.TrimSpace(req.HoldID) == "":
		return &ValidationError{Message: "hold_id is required"}
	case req.AmountMicros < 0:
		return &ValidationError{Message: "amount_micros must not be negative"}
	case req.AmountMicros > MaxTransferMicros:
		return &ValidationError{Message: "amount_micros must be at most 1000000000000 ($1,000,000)"}
	case utf8.RuneCountInString(req.Description) > MaxDescriptionLen:
		return &ValidationError{Message: "description must be at most 500 characters"}
	case len(req.Metadata) > MaxMetadataEntries:
		return &ValidationError{Message: "metadata must have at most 50 entries"}
	}
	if _, _, err := ConsumerSplit(req.Metadata); err != nil {
		return err
	}
	return nil
}

func (s *service) Reserve(ctx context.Context, req ReserveRequest) (HoldResult, error) {
	req, err := ValidateReserve(req)
	if err != nil {
		return HoldResult{}, err
	}
	res, err := s.store.Reserve(ctx, Reservation{UID: req.UID, AmountMicros: req.AmountMicros,
		IdempotencyKey: req.IdempotencyKey, TTL: req.TTL, Metadata: req.Metadata})
	// Expiries found on the way were committed even when the Reserve is
	// refused, and so were a refusal's spend warning or agent pause (the
	// balance view shows them).
	s.metrics.expired(res.Expired)
	s.invalidate(ctx, res.Touched)
	if err != nil {
		if len(res.Expired) > 0 || errors.Is(err, ErrMonthlyLimit) || errors.Is(err, ErrAgentPaused) {
			s.cache.Invalidate(ctx, req.UID)
		}
		s.billing.refused(err)
		return HoldResult{}, err
	}
	s.startRecharge(res.RechargeID)
	if res.FeeCharged {
		s.billing.fees.WithLabelValues("reserve").Inc()
	}
	if !res.Replayed {
		s.metrics.add(holdOpened, res.Hold.AmountMicros)
		s.cache.Invalidate(ctx, req.UID)
	}
	return res, nil
}

func (s *service) Capture(ctx context.Context, req CaptureRequest) (HoldResult, error) {
	if err := ValidateCapture(req); err != nil {
		return HoldResult{}, err
	}
	res, err := s.store.Capture(ctx, Capture{HoldID: req.HoldID, AmountMicros: req.AmountMicros,
		Description: req.Description, Metadata: req.Metadata,
		Events: func(t Transfer, bal int64) []events.Event {
			// Exactly what Charge emits: the capture is an expense like any other.
			return []events.Event{{Topic: Topic, Key: t.UID, Subject: t.UID, Type: TypeChargeDebited,
				Payload: &eventsv1.WalletCharged{Uid: t.UID, AmountMicros: t.AmountMicros, TransferId: t.ID,
					IdempotencyKey: t.IdempotencyKey, Description: t.Description, Metadata: t.Metadata,
					BalanceMicros: bal, OccurredAt: timestamppb.New(t.CreatedAt)}}}
		},
	})
	if errors.Is(err, ErrHoldExpired) && len(res.Expired) > 0 {
		// Found past its expiry and expired by this call: money moved.
		s.metrics.expired(res.Expired)
		s.cache.Invalidate(ctx, res.Hold.UID)
	}
	if err != nil {
		return HoldResult{}, err
	}
	s.startRecharge(res.RechargeID)
	if !res.Replayed {
		s.metrics.add(holdCaptured, res.Hold.CapturedMicros)
		if rest := res.Hold.AmountMicros - res.Hold.CapturedMicros; rest > 0 {
			s.metrics.micros.WithLabelValues(holdReleased).Add(float64(rest))
		}
		s.cache.Invalidate(ctx, res.Hold.UID)
		s.invalidate(ctx, res.Touched)
	}
	return res, nil
}

func (s *service) Release(ctx context.Context, holdID string) (HoldResult, error) {
	if strings.TrimSpace(holdID) == "" {
		return HoldResult{}, &ValidationError{Message: "hold_id is required"}
	}
	res, err := s.store.Release(ctx, holdID)
	if err != nil {
		return HoldResult{}, err
	}
	if !res.Replayed {
		if len(res.Expired) > 0 {
			s.metrics.expired(res.Expired)
		} else {
			s.metrics.add(holdReleased, res.Hold.AmountMicros)
		}
		s.cache.Invalidate(ctx, res.Hold.UID)
	}
	return res, nil
}

func (s *service) SweepExpiredHolds(ctx context.Context) (int, error) {
	n, err := s.sweep(ctx)
	if err != nil {
		s.metrics.sweepErrs.Inc()
	}
	return n, err
}

// sweep expires batches until one comes back short (a backlog, e.g. after
// a caller crashed with many answers in flight, drains in one round), then
// refreshes the open-hold gauges.
func (s *service) sweep(ctx context.Context) (int, error) {
	total := 0
	for {
		swept, err := s.store.SweepExpiredHolds(ctx, s.cfg.SweepBatch)
		// Whatever was swept before an error has committed.
		total += len(swept)
		s.metrics.expired(swept)
		invalidated := map[string]bool{}
		for _, h := range swept {
			if !invalidated[h.UID] {
				invalidated[h.UID] = true
				s.cache.Invalidate(ctx, h.UID)
			}
		}
		if err != nil {
			return total, err
		}
		if len(swept) < s.cfg.SweepBatch || ctx.Err() != nil {
			break
		}
	}
	if total > 0 {
		s.log.InfoContext(ctx, "expired holds released", "count", total)
	}
	st, err := s.store.HoldStats(ctx)
	if err != nil {
		return total, err
	}
	s.metrics.open.Set(float64(st.Open))
	s.metrics.heldMicros.Set(float64(st.HeldMicros))
	return total, nil
}

// RunHoldSweeper runs svc.SweepExpiredHolds at once and then every interval
// until ctx is done (a server.Worker). A failed round is logged (and
// counted by the service) and retried at the next tick: the sweeper never
// stops the service.
func RunHoldSweeper(ctx context.Context, svc Service, interval time.Duration, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	worker.Every(ctx, interval, func(ctx context.Context) {
		if _, err := svc.SweepExpiredHolds(ctx); err != nil && ctx.Err() == nil {
			logger.ErrorContext(ctx, "hold sweep failed", "error", err)
		}
	})
	return nil
}
