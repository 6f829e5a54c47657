package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// MessageWriter is the part of *kafka.Writer the relay uses.
type MessageWriter interface {
	WriteMessages(ctx context.Context, msgs ...kafka.Message) error
	Close() error
}

// RelayConfig configures a Relay.
type RelayConfig struct {
	Pool    *pgxpool.Pool
	Brokers []string
	// Writer overrides the kafka-go writer built from Brokers (tests).
	Writer MessageWriter
	// BatchSize is the maximum number of rows claimed per transaction (default 100).
	BatchSize int
	// PollInterval is the wait between polls when the outbox is empty (default 200ms).
	PollInterval time.Duration
	Logger       *slog.Logger
	// Registerer receives the relay's metrics (default: not registered).
	Registerer prometheus.Registerer
}

// Relay publishes committed outbox rows to Kafka.
//
// Each round runs one database transaction: it claims the oldest unpublished
// rows with SELECT ... FOR UPDATE SKIP LOCKED, writes them to Kafka (acks from
// all in-sync replicas) and marks them published before committing. A crash
// or cancellation before the commit leaves the rows unpublished, so they are
// sent again later: delivery is at least once, and consumers deduplicate by
// the CloudEvents id. Several relays (replicas) may run at once: a
// transaction-scoped advisory lock lets one of them publish at a time, which
// keeps events in outbox order (per key order included); SKIP LOCKED keeps
// the claim safe on its own.
type Relay struct {
	pool      *pgxpool.Pool
	brokers   []string
	writer    MessageWriter
	batchSize int
	poll      time.Duration
	logger    *slog.Logger
	tracer    trace.Tracer

	published *prometheus.CounterVec
	errs      prometheus.Counter
	pending   prometheus.Gauge

	mu          sync.Mutex
	lastPending time.Time
}

// relayLockID is the advisory lock held by the relay publishing a batch.
const relayLockID int64 = 0x6f7574626f78 // "outbox"

// NewRelay builds a Relay.
func NewRelay(cfg RelayConfig) (*Relay, error) {
	if cfg.Pool == nil {
		return nil, errors.New("relay: Pool is required")
	}
	if cfg.Writer == nil && len(cfg.Brokers) == 0 {
		return nil, errors.New("relay: Brokers or Writer is required")
	}
	r := &Relay{
		pool:      cfg.Pool,
		brokers:   cfg.Brokers,
		writer:    cfg.Writer,
		batchSize: cfg.BatchSize,
		poll:      cfg.PollInterval,
		logger:    cfg.Logger,
		tracer:    otel.Tracer("github.com/agentic-app/agentic/services/platform/events"),
	}
	if r.batchSize <= 0 {
		r.batchSize = 100
	}
	if r.poll <= 0 {
		r.poll = 200 * time.Millisecond
	}
	if r.logger == nil {
		r.logger = slog.Default()
	}
	if r.writer == nil {
		r.writer = &kafka.Writer{
			Addr:                   kafka.TCP(cfg.Brokers...),
			Balancer:               &kafka.Murmur2Balancer{}, // same partition for a key as Java clients
			RequiredAcks:           kafka.RequireAll,
			BatchTimeout:           5 * time.Millisecond,
			BatchSize:              r.batchSize,
			AllowAutoTopicCreation: true,
			WriteBackoffMin:        50 * time.Millisecond,
			WriteBackoffMax:        time.Second,
		}
	}
	r.published = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "outbox_events_published_total", Help: "Outbox events published to Kafka, by topic.",
	}, []string{"topic"})
	r.errs = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "outbox_publish_errors_total", Help: "Failed outbox publish rounds.",
	})
	r.pending = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "outbox_events_pending", Help: "Outbox events not yet published (sampled by the relay).",
	})
	if cfg.Registerer != nil {
		r.published = observability.Register(cfg.Registerer, r.published)
		r.errs = observability.Register(cfg.Registerer, r.errs)
		r.pending = observability.Register(cfg.Registerer, r.pending)
	}
	return r, nil
}

// Run publishes until ctx is cancelled and then returns nil. Errors are
// logged, counted and retried with backoff.
func (r *Relay) Run(ctx context.Context) error {
	r.logger.InfoContext(ctx, "outbox relay started", "brokers", r.brokers, "batch", r.batchSize)
	defer r.logger.Info("outbox relay stopped")
	backoff := r.poll
	for {
		n, err := r.PublishBatch(ctx)
		if ctx.Err() != nil {
			return nil
		}
		r.samplePending(ctx)
		wait := r.poll
		switch {
		case err != nil:
			r.errs.Inc()
			r.logger.ErrorContext(ctx, "outbox publish failed", "error", err)
			wait = backoff
			backoff = min(backoff*2, 5*time.Second)
		case n == r.batchSize:
			backoff = r.poll
			continue // more may be waiting
		default:
			backoff = r.poll
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

// Close closes the Kafka writer.
func (r *Relay) Close() error { return r.writer.Close() }

type row struct {
	id      int64
	eventID uuid.UUID
	topic   string
	key     string
	typ     string
	source  string
	subject string
	payload []byte
	headers map[string]string
	created time.Time
}

// PublishBatch publishes one batch and returns how many events it published.
func (r *Relay) PublishBatch(ctx context.Context) (int, error) {
	tx, err := r.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return 0, fmt.Errorf("relay: begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			rbCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			_ = tx.Rollback(rbCtx)
			cancel()
		}
	}()

	var leader bool
	if err := tx.QueryRow(ctx, `SELECT pg_try_advisory_xact_lock($1)`, relayLockID).Scan(&leader); err != nil {
		return 0, fmt.Errorf("relay: lock: %w", err)
	}
	if !leader {
		return 0, nil // another relay is publishing right now
	}

	rows, err := tx.Query(ctx, `
		SELECT id, event_id, topic, key, type, source, subject, payload::text, headers, created_at
		FROM outbox
		WHERE published_at IS NULL
		ORDER BY id
		LIMIT $1
		FOR UPDATE SKIP LOCKED`, r.batchSize)
	if err != nil {
		return 0, fmt.Errorf("relay: claim: %w", err)
	}
	var batch []row
	for rows.Next() {
		var rw row
		var payload string
		if err := rows.Scan(&rw.id, &rw.eventID, &rw.topic, &rw.key, &rw.typ, &rw.source, &rw.subject, &payload, &rw.headers, &rw.created); err != nil {
			rows.Close()
			return 0, fmt.Errorf("relay: scan: %w", err)
		}
		rw.payload = []byte(payload)
		batch = append(batch, rw)
	}
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("relay: claim: %w", err)
	}
	if len(batch) == 0 {
		return 0, nil
	}

	msgs := make([]kafka.Message, len(batch))
	ids := make([]int64, len(batch))
	spans := make([]trace.Span, len(batch))
	for i, rw := range batch {
		msgs[i], spans[i] = r.message(ctx, rw)
		ids[i] = rw.id
	}
	err = r.writer.WriteMessages(ctx, msgs...)
	for _, s := range spans {
		if err != nil {
			s.RecordError(err)
		}
		s.End()
	}
	if err != nil {
		return 0, fmt.Errorf("relay: write to kafka: %w", err)
	}

	// Kafka has the messages: record that even if ctx was cancelled meanwhile,
	// to avoid needless duplicates.
	doneCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := tx.Exec(doneCtx, `UPDATE outbox SET published_at = now() WHERE id = ANY($1)`, ids); err != nil {
		return 0, fmt.Errorf("relay: mark published: %w", err)
	}
	if err := tx.Commit(doneCtx); err != nil {
		return 0, fmt.Errorf("relay: commit: %w", err)
	}
	committed = true
	for _, rw := range batch {
		r.published.WithLabelValues(rw.topic).Inc()
	}
	return len(batch), nil
}

// message builds the CloudEvents binary-mode Kafka message of a row and
// starts a producer span that continues the trace captured at Enqueue.
func (r *Relay) message(ctx context.Context, rw row) (kafka.Message, trace.Span) {
	parent := propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier(rw.headers))
	_, span := r.tracer.Start(parent, rw.topic+" publish",
		trace.WithSpanKind(trace.SpanKindProducer),
		trace.WithAttributes(
			attribute.String("messaging.system", "kafka"),
			attribute.String("messaging.destination.name", rw.topic),
			attribute.String("messaging.message.id", rw.eventID.String()),
			attribute.String("cloudevents.event_type", rw.typ),
		))
	carrier := propagation.MapCarrier{}
	for k, v := range rw.headers {
		carrier[k] = v
	}
	if span.SpanContext().IsValid() {
		propagation.TraceContext{}.Inject(trace.ContextWithSpan(parent, span), carrier)
	}

	headers := []kafka.Header{
		{Key: "ce_specversion", Value: []byte("1.0")},
		{Key: "ce_id", Value: []byte(rw.eventID.String())},
		{Key: "ce_type", Value: []byte(rw.typ)},
		{Key: "ce_source", Value: []byte(rw.source)},
		{Key: "ce_time", Value: []byte(rw.created.UTC().Format(time.RFC3339Nano))},
		{Key: "content-type", Value: []byte("application/json")},
	}
	if rw.subject != "" {
		headers = append(headers, kafka.Header{Key: "ce_subject", Value: []byte(rw.subject)})
	}
	for _, k := range []string{"traceparent", "tracestate"} {
		if v := carrier[k]; v != "" {
			headers = append(headers, kafka.Header{Key: k, Value: []byte(v)})
		}
	}
	return kafka.Message{
		Topic:   rw.topic,
		Key:     []byte(rw.key),
		Value:   rw.payload,
		Headers: headers,
		Time:    rw.created,
	}, span
}

func (r *Relay) samplePending(ctx context.Context) {
	r.mu.Lock()
	if time.Since(r.lastPending) < time.Second {
		r.mu.Unlock()
		return
	}
	r.lastPending = time.Now()
	r.mu.Unlock()
	qctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	var n int64
	if err := r.pool.QueryRow(qctx, `SELECT count(*) FROM outbox WHERE published_at IS NULL`).Scan(&n); err == nil {
		r.pending.Set(float64(n))
	}
}

// Check is a readiness check: at least one broker accepts a connection and
// answers an ApiVersions request.
func (r *Relay) Check(ctx context.Context) error { return BrokerCheck(r.brokers)(ctx) }

// BrokerCheck returns a readiness check that succeeds when one of brokers
// accepts a Kafka connection.
func BrokerCheck(brokers []string) func(context.Context) error {
	return func(ctx context.Context) error {
		if len(brokers) == 0 {
			return errors.New("no kafka brokers configured")
		}
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		var errs []error
		for _, b := range brokers {
			d := kafka.Dialer{Timeout: 2 * time.Second}
			conn, err := d.DialContext(ctx, "tcp", b)
			if err == nil {
				_, err = conn.ApiVersions()
				_ = conn.Close()
				if err == nil {
					return nil
				}
			}
			errs = append(errs, fmt.Errorf("%s: %w", b, err))
		}
		return errors.Join(errs...)
	}
}
