package events

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/segmentio/kafka-go"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/platform/worker"
)

//go:embed consumer_migrations/*.sql
var consumerMigrations embed.FS

// ConsumerVersionTable is the goose version table of the consumer's own
// migrations (processed_events, parked_events).
const ConsumerVersionTable = "goose_consumer_version"

// MigrateConsumer creates/updates the processed_events and parked_events
// tables a Consumer needs. Call it on start, like Migrate for the outbox.
func MigrateConsumer(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	return database.Migrate(ctx, pool, consumerMigrations, "consumer_migrations",
		database.WithVersionTable(ConsumerVersionTable), database.WithLogger(logger))
}

// Received is one consumed Kafka message with its CloudEvents (binary mode)
// attributes decoded from the headers.
type Received struct {
	// ID is ce_id; for a message without one it is
	// "kafka:<topic>/<partition>/<offset>" so deduplication still works.
	ID      string
	Type    string
	Source  string
	Subject string
	// Time is ce_time (zero when missing or unparsable).
	Time time.Time
	// Key is the Kafka message key (the aggregate id).
	Key string
	// Payload is the message value: protobuf JSON of the event message.
	Payload []byte
	// Headers holds every header (last value wins).
	Headers   map[string]string
	Topic     string
	Partition int
	Offset    int64
}

// Handler applies one event inside tx. The consumer has already recorded the
// event id in processed_events within tx; returning an error rolls the whole
// transaction back. What happens next depends on the error: a transient one
// (IsTransient: the database, a peer or a timeout) is retried with back-off
// for as long as it takes; one marked Permanent (see UnmarshalPayload) parks
// the message at once; any other error is retried MaxAttempts times and then
// parks it. A handler must not commit or roll back tx itself. Calls are never
// concurrent within one Consumer.
type Handler func(ctx context.Context, tx pgx.Tx, ev Received) error

// ConsumerConfig configures a Consumer.
type ConsumerConfig struct {
	Pool    *pgxpool.Pool
	Brokers []string
	// GroupID is the Kafka consumer group; it also scopes processed_events, so
	// two groups in one database deduplicate independently.
	GroupID string
	Topics  []string
	Handler Handler
	// MaxAttempts is how often a handler failing with a non-transient error
	// is tried before the message is parked (default 5). Transient errors
	// (IsTransient) do not count: they are retried until they succeed.
	MaxAttempts int
	// RetryBackoff is the wait before the first retry; it doubles per attempt,
	// capped at MaxRetryBackoff (default 100ms).
	RetryBackoff time.Duration
	// MaxRetryBackoff caps the retry back-off (default 5s).
	MaxRetryBackoff time.Duration
	// ReplayInterval is how often the consumer looks for parked messages an
	// operator asked to replay (RequestReplay, `eventsadmin parked replay`);
	// default 2s.
	ReplayInterval time.Duration
	// MaxWait bounds how long a fetch waits for new data (default 1.5s;
	// see the reader's construction for why).
	MaxWait time.Duration
	// StartOffset of a group without committed offsets: kafka.FirstOffset
	// (default) or kafka.LastOffset.
	StartOffset int64
	Logger      *slog.Logger
	// Registerer receives the consumer's metrics (default: not registered).
	Registerer prometheus.Registerer
	// Reader overrides the kafka-go reader built from the fields above (tests).
	Reader MessageReader
}

// MessageReader is the part of *kafka.Reader the consumer uses.
type MessageReader interface {
	FetchMessage(ctx context.Context) (kafka.Message, error)
	CommitMessages(ctx context.Context, msgs ...kafka.Message) error
	Stats() kafka.ReaderStats
	Close() error
}

// Consumer reads a consumer group's messages and applies each one exactly
// once in effect:
//
//   - one database transaction per message first inserts (group, event id)
//     into processed_events; if the row already exists the message is a
//     re-delivery and is skipped, otherwise the handler runs in the same
//     transaction;
//   - the Kafka offset is committed only after that transaction commits, so a
//     crash in between re-delivers the message (at least once) and the
//     processed_events row turns the re-delivery into a no-op;
//   - a transient handler error (IsTransient: database or peer unavailable,
//     timeouts, serialization failures) is retried with capped exponential
//     back-off for as long as it takes; the message is never parked for it and
//     its offset stays uncommitted meanwhile (the partition waits);
//   - a handler error marked Permanent parks the message at once; any other
//     handler error is retried MaxAttempts times and then parks it: the
//     message goes to parked_events (with the error text), events_parked_total
//     counts it, an error log line names it, and its offset is committed, so
//     one poison message never blocks its partition. Database errors outside
//     the handler (begin, dedupe insert, commit, parking) are retried until
//     they succeed or the context ends;
//   - parked messages marked for replay (RequestReplay) are applied again by
//     the consumer of their group, deduplicated by processed_events like any
//     delivery.
//
// Messages are handled one at a time, in partition order.
type Consumer struct {
	pool        *pgxpool.Pool
	reader      MessageReader
	group       string
	topics      []string
	handler     Handler
	maxAttempts int
	backoff     time.Duration
	maxBackoff  time.Duration
	replayEvery time.Duration
	logger      *slog.Logger

	// handlerMu serialises handler calls (live messages and replays).
	handlerMu sync.Mutex
	tracer    trace.Tracer

	processed  *prometheus.CounterVec
	duplicates *prometheus.CounterVec
	parked     *prometheus.CounterVec
	failures   *prometheus.CounterVec
	transient  *prometheus.CounterVec
	replayed   *prometheus.CounterVec
	lag        *prometheus.GaugeVec

	closeOnce sync.Once
}

// NewConsumer builds a Consumer. Run MigrateConsumer first.
func NewConsumer(cfg ConsumerConfig) (*Consumer, error) {
	switch {
	case cfg.Pool == nil:
		return nil, errors.New("consumer: Pool is required")
	case cfg.Handler == nil:
		return nil, errors.New("consumer: Handler is required")
	case cfg.GroupID == "":
		return nil, errors.New("consumer: GroupID is required")
	case cfg.Reader == nil && (len(cfg.Brokers) == 0 || len(cfg.Topics) == 0):
		return nil, errors.New("consumer: Brokers and Topics (or Reader) are required")
	}
	c := &Consumer{
		pool:        cfg.Pool,
		reader:      cfg.Reader,
		group:       cfg.GroupID,
		topics:      cfg.Topics,
		handler:     cfg.Handler,
		maxAttempts: cfg.MaxAttempts,
		backoff:     cfg.RetryBackoff,
		maxBackoff:  cfg.MaxRetryBackoff,
		replayEvery: cfg.ReplayInterval,
		logger:      cfg.Logger,
		tracer:      otel.Tracer("github.com/agentic-app/agentic/services/platform/events"),
	}
	if c.maxAttempts <= 0 {
		c.maxAttempts = 5
	}
	if c.backoff <= 0 {
		c.backoff = 100 * time.Millisecond
	}
	if c.maxBackoff <= 0 {
		c.maxBackoff = 5 * time.Second
	}
	c.maxBackoff = max(c.maxBackoff, c.backoff)
	if c.replayEvery <= 0 {
		c.replayEvery = 2 * time.Second
	}
	if c.logger == nil {
		c.logger = slog.Default()
	}
	c.logger = c.logger.With("consumer_group", c.group)
	if c.reader == nil {
		maxWait := cfg.MaxWait
		if maxWait <= 0 {
			// kafka-go's reader times a fetch out at MaxWait and asks the
			// broker to answer an empty one a margin earlier: 1 s when
			// MaxWait is over 1 s, else a quarter of MaxWait. At 500 ms that
			// margin (125 ms) was less than a busy machine takes to schedule
			// the broker, and idle partitions timed out and reconnected all
			// through CI. At 1.5 s the broker answers an empty fetch after
			// 0.5 s (was 0.375 s), with 1 s to spare; data is still
			// returned as soon as it arrives.
			maxWait = 1500 * time.Millisecond
		}
		start := cfg.StartOffset
		if start == 0 {
			start = kafka.FirstOffset
		}
		errLog := c.logger
		c.reader = kafka.NewReader(kafka.ReaderConfig{
			Brokers:                cfg.Brokers,
			GroupID:                cfg.GroupID,
			GroupTopics:            cfg.Topics,
			MinBytes:               1,
			MaxBytes:               10 << 20,
			MaxWait:                maxWait,
			ReadBatchTimeout:       maxWait + 5*time.Second,
			CommitInterval:         0, // synchronous commits: CommitMessages returns once Kafka has them
			StartOffset:            start,
			WatchPartitionChanges:  true,
			PartitionWatchInterval: 5 * time.Second,
			HeartbeatInterval:      time.Second,
			SessionTimeout:         10 * time.Second,
			RebalanceTimeout:       10 * time.Second,
			JoinGroupBackoff:       time.Second,
			ReadBackoffMin:         50 * time.Millisecond,
			ReadBackoffMax:         time.Second,
			ErrorLogger: kafka.LoggerFunc(func(msg string, args ...any) {
				errLog.Warn("kafka reader: " + fmt.Sprintf(msg, args...))
			}),
		})
	}
	labels := []string{"group", "topic"}
	c.processed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "events_consumed_total", Help: "Events applied by the consumer (handler committed), by group and topic.",
	}, labels)
	c.duplicates = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "events_duplicates_total", Help: "Re-delivered events skipped because they were already processed.",
	}, labels)
	c.parked = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "events_parked_total", Help: "Poison events parked in parked_events (permanent error, or non-transient errors MaxAttempts times).",
	}, labels)
	c.failures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "events_handler_failures_total", Help: "Failed handler attempts (each retry counts, transient ones included).",
	}, labels)
	c.transient = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "events_transient_retries_total", Help: "Handler attempts that failed with a transient error and are retried without limit.",
	}, labels)
	c.replayed = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "events_replayed_total", Help: "Parked events replayed on request and applied (or found already applied).",
	}, labels)
	c.lag = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "events_consumer_lag", Help: "Messages between the last fetched offset and the partition end (kafka-go reader stats).",
	}, []string{"group"})
	if cfg.Registerer != nil {
		c.processed = observability.Register(cfg.Registerer, c.processed)
		c.duplicates = observability.Register(cfg.Registerer, c.duplicates)
		c.parked = observability.Register(cfg.Registerer, c.parked)
		c.failures = observability.Register(cfg.Registerer, c.failures)
		c.transient = observability.Register(cfg.Registerer, c.transient)
		c.replayed = observability.Register(cfg.Registerer, c.replayed)
		c.lag = observability.Register(cfg.Registerer, c.lag)
	}
	c.lag.WithLabelValues(c.group).Set(0)
	return c, nil
}

// Run consumes until ctx is cancelled and then returns nil (it closes the
// reader on return). Fetch errors are logged and retried.
func (c *Consumer) Run(ctx context.Context) error {
	c.logger.InfoContext(ctx, "event consumer started", "topics", c.topics)
	defer c.logger.Info("event consumer stopped")
	defer c.Close()

	statsDone := make(chan struct{})
	go func() {
		defer close(statsDone)
		worker.Every(ctx, time.Second, func(context.Context) {
			c.lag.WithLabelValues(c.group).Set(float64(c.reader.Stats().Lag))
		}, worker.Delayed())
	}()
	defer func() { <-statsDone }()

	replayDone := make(chan struct{})
	go func() {
		defer close(replayDone)
		c.replayLoop(ctx)
	}()
	defer func() { <-replayDone }()

	backoff := c.backoff
	for {
		msg, err := c.reader.FetchMessage(ctx)
		if ctx.Err() != nil {
			return nil
		}
		if err != nil {
			c.logger.WarnContext(ctx, "kafka fetch failed", "error", err)
			if !sleep(ctx, backoff) {
				return nil
			}
			backoff = min(backoff*2, c.maxBackoff)
			continue
		}
		backoff = c.backoff
		if err := c.handle(ctx, msg); err != nil {
			// Only a cancelled context stops handle without settling the
			// message; the offset stays uncommitted and it is re-delivered.
			return nil
		}
		c.commit(ctx, msg)
	}
}

// Close closes the Kafka reader (idempotent).
func (c *Consumer) Close() error {
	var err error
	c.closeOnce.Do(func() { err = c.reader.Close() })
	return err
}

func sleep(ctx context.Context, d time.Duration) bool {
	select {
	case <-ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// commit commits msg's offset, retrying a few times; a failed commit only
// means a re-delivery, which processed_events absorbs.
func (c *Consumer) commit(ctx context.Context, msg kafka.Message) {
	for attempt := 1; ; attempt++ {
		err := c.reader.CommitMessages(ctx, msg)
		if err == nil || ctx.Err() != nil {
			return
		}
		if attempt >= 3 {
			c.logger.WarnContext(ctx, "offset commit failed; the message will be re-delivered and deduplicated",
				"topic", msg.Topic, "partition", msg.Partition, "offset", msg.Offset, "error", err)
			return
		}
		if !sleep(ctx, c.backoff) {
			return
		}
	}
}

// Decode turns a Kafka message into a Received event.
func Decode(msg kafka.Message) Received {
	h := make(map[string]string, len(msg.Headers))
	for _, kv := range msg.Headers {
		h[kv.Key] = string(kv.Value)
	}
	ev := Received{
		ID: h["ce_id"], Type: h["ce_type"], Source: h["ce_source"], Subject: h["ce_subject"],
		Key: string(msg.Key), Payload: msg.Value, Headers: h,
		Topic: msg.Topic, Partition: msg.Partition, Offset: msg.Offset,
	}
	if ev.ID == "" {
		ev.ID = "kafka:" + msg.Topic + "/" + strconv.Itoa(msg.Partition) + "/" + strconv.FormatInt(msg.Offset, 10)
	}
	if t, err := time.Parse(time.RFC3339Nano, h["ce_time"]); err == nil {
		ev.Time = t
	}
	return ev
}

// errStopped reports that ctx ended before the message was settled.
var errStopped = errors.New("consumer stopped")

// handle settles one message: applied, skipped as a duplicate, or parked. It
// returns an error only when ctx ended first.
func (c *Consumer) handle(ctx context.Context, msg kafka.Message) error {
	ev := Decode(msg)
	parent := propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier(ev.Headers))
	ctx, span := c.tracer.Start(parent, ev.Topic+" process",
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "kafka"),
			attribute.String("messaging.destination.name", ev.Topic),
			attribute.String("messaging.consumer.group.name", c.group),
			attribute.String("messaging.message.id", ev.ID),
			attribute.String("cloudevents.event_type", ev.Type),
			attribute.Int("messaging.kafka.partition", ev.Partition),
			attribute.Int64("messaging.kafka.offset", ev.Offset),
		))
	defer span.End()
	log := c.logger.With("topic", ev.Topic, "partition", ev.Partition, "offset", ev.Offset, "event_id", ev.ID, "event_type", ev.Type)

	backoff := c.backoff
	attempts := 0
	var lastErr error
	for {
		dup, herr, err := c.apply(ctx, ev)
		switch {
		case ctx.Err() != nil:
			return errStopped
		case err != nil:
			// Our own plumbing failed (database): not the message's fault,
			// so it does not count as an attempt.
			log.WarnContext(ctx, "event transaction failed; retrying", "error", err, "retry_in", backoff)
		case herr != nil:
			c.failures.WithLabelValues(c.group, ev.Topic).Inc()
			switch {
			case IsPermanent(herr):
				attempts++
				return c.parkOrStop(ctx, span, log, ev, herr, attempts, "permanent")
			case IsTransient(herr):
				// A dependency is away: wait for it as long as it takes.
				c.transient.WithLabelValues(c.group, ev.Topic).Inc()
				log.WarnContext(ctx, "event handler failed with a transient error; retrying until it succeeds",
					"error", herr, "retry_in", backoff)
			default:
				attempts++
				lastErr = herr
				log.WarnContext(ctx, "event handler failed", "attempt", attempts, "max_attempts", c.maxAttempts, "error", herr)
				if attempts >= c.maxAttempts {
					return c.parkOrStop(ctx, span, log, ev, lastErr, attempts, "attempts_exhausted")
				}
			}
		case dup:
			c.duplicates.WithLabelValues(c.group, ev.Topic).Inc()
			log.DebugContext(ctx, "duplicate event skipped")
			return nil
		default:
			c.processed.WithLabelValues(c.group, ev.Topic).Inc()
			return nil
		}
		if !sleep(ctx, backoff) {
			return errStopped
		}
		backoff = min(backoff*2, c.maxBackoff)
	}
}

// parkOrStop parks a poison message (retrying the insert until it succeeds)
// and logs it; it returns errStopped if ctx ends first.
func (c *Consumer) parkOrStop(ctx context.Context, span trace.Span, log *slog.Logger, ev Received, cause error, attempts int, reason string) error {
	span.RecordError(cause)
	span.SetStatus(codes.Error, "parked")
	backoff := c.backoff
	for {
		err := c.park(ctx, ev, cause, attempts, reason)
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			return errStopped
		}
		log.WarnContext(ctx, "parking event failed; retrying", "error", err)
		if !sleep(ctx, backoff) {
			return errStopped
		}
		backoff = min(backoff*2, c.maxBackoff)
	}
	c.parked.WithLabelValues(c.group, ev.Topic).Inc()
	log.ErrorContext(ctx, "event parked: the handler failed deterministically; replay it with `eventsadmin parked replay` once the cause is fixed",
		"reason", reason, "attempts", attempts, "error", cause)
	return nil
}

// handlerError marks an error returned by the handler.
type handlerError struct{ err error }

func (e handlerError) Error() string { return e.err.Error() }

// apply runs one transaction: dedupe insert + handler. It reports a
// duplicate, a handler error, or a plumbing error.
func (c *Consumer) apply(ctx context.Context, ev Received) (dup bool, herr error, err error) {
	c.handlerMu.Lock()
	defer c.handlerMu.Unlock()
	err = pgx.BeginFunc(ctx, c.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `
			INSERT INTO processed_events (consumer_group, event_id, topic, partition, "offset", type)
			VALUES ($1, $2, $3, $4, $5, $6)
			ON CONFLICT (consumer_group, event_id) DO NOTHING`,
			c.group, ev.ID, ev.Topic, ev.Partition, ev.Offset, ev.Type)
		if err != nil {
			return fmt.Errorf("record processed event: %w", err)
		}
		if tag.RowsAffected() == 0 {
			dup = true
			return nil
		}
		if err := c.runHandler(ctx, tx, ev); err != nil {
			return handlerError{err}
		}
		return nil
	})
	var he handlerError
	if errors.As(err, &he) {
		return false, he.err, nil
	}
	return dup, nil, err
}

// runHandler calls the handler, turning a panic into an error.
func (c *Consumer) runHandler(ctx context.Context, tx pgx.Tx, ev Received) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("handler panic: %v", v)
		}
	}()
	return c.handler(ctx, tx, ev)
}

func (c *Consumer) park(ctx context.Context, ev Received, cause error, attempts int, reason string) error {
	msg := "unknown error"
	if cause != nil {
		msg = cause.Error()
	}
	_, err := c.pool.Exec(ctx, `
		INSERT INTO parked_events (consumer_group, event_id, topic, partition, "offset", key, type, headers, payload, error, attempts, reason)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
		ON CONFLICT (consumer_group, event_id) DO UPDATE
		SET error = EXCLUDED.error, attempts = parked_events.attempts + EXCLUDED.attempts, parked_at = now(),
		    topic = EXCLUDED.topic, partition = EXCLUDED.partition, "offset" = EXCLUDED."offset",
		    reason = EXCLUDED.reason, replay_requested_at = NULL`,
		c.group, ev.ID, ev.Topic, ev.Partition, ev.Offset, ev.Key, ev.Type, ev.Headers, ev.Payload, msg, attempts, reason)
	return err
}
