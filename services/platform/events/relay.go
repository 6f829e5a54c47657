package events

import (
	"context"
	"errors"
	"fmt"
	"io"
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
	// MaxAttempts bounds how often a row Kafka refuses with a non-transient
	// error (too large, invalid topic, not authorised) is tried before it is
	// given up: marked failed (failed_at), counted in outbox_events_failed_total
	// and logged (default 10). Rows failing with transient errors are retried
	// without limit.
	MaxAttempts int
	// RetryBackoff is a failing row's first back-off; it doubles per attempt up
	// to MaxRetryBackoff (defaults 1s and 1m).
	RetryBackoff    time.Duration
	MaxRetryBackoff time.Duration
	// MaxMessageBytes: a row whose message is larger is refused without being
	// sent (default 1 MiB, Kafka's default message.max.bytes).
	MaxMessageBytes int
	Logger          *slog.Logger
	// Registerer receives the relay's metrics (default: not registered).
	Registerer prometheus.Registerer
}

// Relay publishes committed outbox rows to Kafka.
//
// Each round runs one database transaction: it claims the oldest unpublished
// rows with SELECT ... FOR UPDATE SKIP LOCKED, writes them to Kafka (acks from
// all in-sync replicas; one write per topic, so a topic Kafka refuses fails
// alone) and marks them published before committing. A crash or cancellation
// before the commit leaves the rows unpublished, so they are sent again later:
// delivery is at least once, and consumers deduplicate by the CloudEvents id.
// Several relays (replicas) may run at once: a transaction-scoped advisory
// lock lets one of them publish at a time, which keeps events in outbox order
// (per key order included); SKIP LOCKED keeps the claim safe on its own.
//
// Failures are isolated per row. When nothing of a round could be written
// and every error is transient (the broker is down), nothing changes and the
// relay backs off: rows stay pending and drain once the broker is back. A row
// that fails on its own (too large, invalid topic, refused by the broker
// while other rows go through) gets a back-off (attempts, next_attempt_at,
// last_error) while the other rows flow; the later rows with the same topic
// and key are held back meanwhile, so they never overtake it. After
// MaxAttempts non-transient failures the row is marked failed (failed_at),
// counted and logged, and its key flows again.
type Relay struct {
	pool      *pgxpool.Pool
	brokers   []string
	writer    MessageWriter
	batchSize int
	poll      time.Duration
	logger    *slog.Logger
	tracer    trace.Tracer

	maxAttempts     int
	retryBackoff    time.Duration
	maxRetryBackoff time.Duration
	maxMessageBytes int

	published   *prometheus.CounterVec
	errs        prometheus.Counter
	pending     prometheus.Gauge
	rowFailures *prometheus.CounterVec
	failed      *prometheus.CounterVec

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

		maxAttempts:     cfg.MaxAttempts,
		retryBackoff:    cfg.RetryBackoff,
		maxRetryBackoff: cfg.MaxRetryBackoff,
		maxMessageBytes: cfg.MaxMessageBytes,
	}
	if r.maxAttempts <= 0 {
		r.maxAttempts = 10
	}
	if r.retryBackoff <= 0 {
		r.retryBackoff = time.Second
	}
	if r.maxRetryBackoff <= 0 {
		r.maxRetryBackoff = time.Minute
	}
	r.maxRetryBackoff = max(r.maxRetryBackoff, r.retryBackoff)
	if r.maxMessageBytes <= 0 {
		r.maxMessageBytes = 1 << 20
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
			BatchBytes:             int64(r.maxMessageBytes) + 64<<10,
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
		Name: "outbox_events_pending", Help: "Outbox events not yet published nor given up (sampled by the relay).",
	})
	r.rowFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "outbox_row_failures_total", Help: "Outbox rows Kafka refused on their own (each attempt counts), by topic.",
	}, []string{"topic"})
	r.failed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "outbox_events_failed_total", Help: "Outbox rows given up after MaxAttempts non-transient failures (failed_at set), by topic.",
	}, []string{"topic"})
	if cfg.Registerer != nil {
		r.published = observability.Register(cfg.Registerer, r.published)
		r.errs = observability.Register(cfg.Registerer, r.errs)
		r.pending = observability.Register(cfg.Registerer, r.pending)
		r.rowFailures = observability.Register(cfg.Registerer, r.rowFailures)
		r.failed = observability.Register(cfg.Registerer, r.failed)
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
		n, _, err := r.publishBatch(ctx)
		if ctx.Err() != nil {
			return nil
		}
		r.samplePending(ctx)
		wait := r.poll
		switch {
		case err != nil:
			r.errs.Inc()
			r.logger.WarnContext(ctx, "outbox publish failed; events stay in the outbox and are retried", "error", err, "retry_in", backoff)
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
	// attempts: failed attempts so far.
	attempts int
}

// PublishBatch publishes one batch and returns how many events it published.
// It returns an error when nothing could be written because of a transient
// failure (the broker is down); rows that failed on their own are put in
// back-off (or given up) and do not make it fail.
func (r *Relay) PublishBatch(ctx context.Context) (int, error) {
	_, n, err := r.publishBatch(ctx)
	return n, err
}

// errNotSent marks a row that was not written in this round through no fault
// of its own; it stays pending unchanged.
var errNotSent = errors.New("not sent")

// publishBatch runs one round and returns how many rows it claimed and
// published.
func (r *Relay) publishBatch(ctx context.Context) (claimed, published int, _ error) {
	tx, err := r.pool.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return 0, 0, fmt.Errorf("relay: begin: %w", err)
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
		return 0, 0, fmt.Errorf("relay: lock: %w", err)
	}
	if !leader {
		return 0, 0, nil // another relay is publishing right now
	}

	// The oldest pending rows, skipping rows in back-off and every later row
	// with the same topic and key as a row in back-off (per-key order).
	rows, err := tx.Query(ctx, `
		SELECT o.id, o.event_id, o.topic, o.key, o.type, o.source, o.subject, o.payload::text, o.headers, o.created_at, o.attempts
		FROM outbox o
		WHERE o.published_at IS NULL AND o.failed_at IS NULL
		  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= now())
		  AND NOT EXISTS (
		      SELECT 1 FROM outbox h
		      WHERE h.published_at IS NULL AND h.failed_at IS NULL AND h.next_attempt_at IS NOT NULL
		        AND h.topic = o.topic AND h.key = o.key AND h.id < o.id AND h.next_attempt_at > now())
		ORDER BY o.id
		LIMIT $1
		FOR UPDATE OF o SKIP LOCKED`, r.batchSize)
	if err != nil {
		return 0, 0, fmt.Errorf("relay: claim: %w", err)
	}
	var batch []row
	for rows.Next() {
		var rw row
		var payload string
		if err := rows.Scan(&rw.id, &rw.eventID, &rw.topic, &rw.key, &rw.typ, &rw.source, &rw.subject, &payload, &rw.headers, &rw.created, &rw.attempts); err != nil {
			rows.Close()
			return 0, 0, fmt.Errorf("relay: scan: %w", err)
		}
		rw.payload = []byte(payload)
		batch = append(batch, rw)
	}
	if err := rows.Err(); err != nil {
		return 0, 0, fmt.Errorf("relay: claim: %w", err)
	}
	if len(batch) == 0 {
		return 0, 0, nil
	}

	// Build and check each message; a row that cannot be sent holds back the
	// later rows of its key in this round.
	msgs := make([]kafka.Message, len(batch))
	spans := make([]trace.Span, len(batch))
	results := make([]error, len(batch)) // nil after the write: published
	held := map[string]bool{}
	byTopic := map[string][]int{}
	for i, rw := range batch {
		k := rw.topic + "\x00" + rw.key
		if held[k] {
			results[i] = errNotSent
			continue
		}
		msgs[i], spans[i] = r.message(ctx, rw)
		if err := r.validate(msgs[i]); err != nil {
			results[i] = err
			held[k] = true
			continue
		}
		byTopic[rw.topic] = append(byTopic[rw.topic], i)
	}

	// One write per topic, concurrently: a topic Kafka refuses (its metadata
	// request fails the whole call in kafka-go) fails alone.
	var wg sync.WaitGroup
	for _, idx := range byTopic {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ms := make([]kafka.Message, len(idx))
			for j, i := range idx {
				ms[j] = msgs[i]
			}
			err := r.writer.WriteMessages(ctx, ms...)
			var werrs kafka.WriteErrors
			var tooLarge kafka.MessageTooLargeError
			switch {
			case err == nil:
			case errors.As(err, &werrs) && len(werrs) == len(idx):
				for j, i := range idx {
					results[i] = werrs[j]
				}
			case errors.As(err, &tooLarge):
				// Nothing was sent: blame the message that is too large.
				for _, i := range idx {
					results[i] = errNotSent
					if batch[i].eventID.String() == header(tooLarge.Message, "ce_id") {
						results[i] = err
					}
				}
			default:
				for _, i := range idx {
					results[i] = err
				}
			}
		}()
	}
	wg.Wait()
	for i, s := range spans {
		if s == nil {
			continue
		}
		if results[i] != nil && results[i] != errNotSent {
			s.RecordError(results[i])
		}
		s.End()
	}

	// A failure is charged to its row (back-off, attempts) when the row is
	// clearly at fault, or when other rows went through (so the broker is
	// there). When nothing went through, other failures are the broker's:
	// those rows stay pending untouched and Run backs off.
	var ok []int64
	for i, err := range results {
		if err == nil {
			ok = append(ok, batch[i].id)
		}
	}
	var failed []int
	var awayErr error
	for i, err := range results {
		switch {
		case err == nil || err == errNotSent:
		case len(ok) == 0 && !rowFault(err):
			if awayErr == nil {
				awayErr = fmt.Errorf("relay: write to kafka: %w", err)
			}
		default:
			failed = append(failed, i)
		}
	}
	if len(ok) == 0 && len(failed) == 0 && awayErr != nil {
		return len(batch), 0, awayErr
	}

	// Kafka has the messages: record that even if ctx was cancelled meanwhile,
	// to avoid needless duplicates.
	doneCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if len(ok) > 0 {
		if _, err := tx.Exec(doneCtx, `UPDATE outbox SET published_at = now() WHERE id = ANY($1)`, ok); err != nil {
			return len(batch), 0, fmt.Errorf("relay: mark published: %w", err)
		}
	}
	var givenUp []int
	for _, i := range failed {
		rw, err := batch[i], results[i]
		attempts := rw.attempts + 1
		giveUp := attempts >= r.maxAttempts && !relayTransient(err)
		if _, xerr := tx.Exec(doneCtx, `
			UPDATE outbox
			SET attempts = $2, last_error = $3, next_attempt_at = now() + $4 * interval '1 millisecond',
			    failed_at = CASE WHEN $5 THEN now() END
			WHERE id = $1`, rw.id, attempts, err.Error(), r.rowBackoff(attempts).Milliseconds(), giveUp); xerr != nil {
			return len(batch), 0, fmt.Errorf("relay: record failure: %w", xerr)
		}
		if giveUp {
			givenUp = append(givenUp, i)
		}
	}
	if err := tx.Commit(doneCtx); err != nil {
		return len(batch), 0, fmt.Errorf("relay: commit: %w", err)
	}
	committed = true
	for i, err := range results {
		if err == nil {
			r.published.WithLabelValues(batch[i].topic).Inc()
		}
	}
	for _, i := range failed {
		rw := batch[i]
		r.rowFailures.WithLabelValues(rw.topic).Inc()
		r.logger.WarnContext(ctx, "outbox event refused; retrying it with back-off, later events of its key wait",
			"outbox_id", rw.id, "event_id", rw.eventID, "event_type", rw.typ, "topic", rw.topic, "key", rw.key,
			"attempt", rw.attempts+1, "max_attempts", r.maxAttempts, "retry_in", r.rowBackoff(rw.attempts+1), "error", results[i])
	}
	for _, i := range givenUp {
		rw := batch[i]
		r.failed.WithLabelValues(rw.topic).Inc()
		r.logger.ErrorContext(ctx, "outbox event given up: marked failed (retry it with `eventsadmin outbox retry`)",
			"outbox_id", rw.id, "event_id", rw.eventID, "event_type", rw.typ, "topic", rw.topic, "key", rw.key,
			"attempts", rw.attempts+1, "error", results[i])
	}
	return len(batch), len(ok), awayErr
}

// rowBackoff is the wait after a row's attempts-th failure.
func (r *Relay) rowBackoff(attempts int) time.Duration {
	d := r.retryBackoff
	for i := 1; i < attempts && d < r.maxRetryBackoff; i++ {
		d *= 2
	}
	return min(d, r.maxRetryBackoff)
}

// validate refuses, before sending, a message Kafka would refuse: an invalid
// topic name or a message over MaxMessageBytes.
func (r *Relay) validate(m kafka.Message) error {
	if !validTopic(m.Topic) {
		return Permanent(fmt.Errorf("invalid topic name %q", m.Topic))
	}
	size := len(m.Key) + len(m.Value) + 64
	for _, h := range m.Headers {
		size += len(h.Key) + len(h.Value) + 8
	}
	if size > r.maxMessageBytes {
		return Permanent(fmt.Errorf("message of %d bytes exceeds the limit of %d: %w", size, r.maxMessageBytes, kafka.MessageSizeTooLarge))
	}
	return nil
}

// validTopic follows Kafka's rule: 1–249 of [a-zA-Z0-9._-], not "." or "..".
func validTopic(t string) bool {
	if t == "" || len(t) > 249 || t == "." || t == ".." {
		return false
	}
	for _, c := range t {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// relayTransient: a failure that goes away by waiting (the broker or a
// partition leader is away), as opposed to one the row itself causes.
func relayTransient(err error) bool {
	if IsPermanent(err) {
		return false
	}
	var kerr kafka.Error
	if errors.As(err, &kerr) {
		return kerr.Temporary()
	}
	return IsTransient(err) || errors.Is(err, io.ErrClosedPipe)
}

// rowFault: the failure is the row's own (marked Permanent by validation, a
// message too large, a non-retriable Kafka error code such as an invalid
// topic or a refused authorisation), whatever the broker's state.
func rowFault(err error) bool {
	if IsPermanent(err) {
		return true
	}
	var tooLarge kafka.MessageTooLargeError
	if errors.As(err, &tooLarge) {
		return true
	}
	var kerr kafka.Error
	return errors.As(err, &kerr) && !kerr.Temporary()
}

func header(m kafka.Message, key string) string {
	for _, h := range m.Headers {
		if h.Key == key {
			return string(h.Value)
		}
	}
	return ""
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
	if err := r.pool.QueryRow(qctx, `SELECT count(*) FROM outbox WHERE published_at IS NULL AND failed_at IS NULL`).Scan(&n); err == nil {
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
