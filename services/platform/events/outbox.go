// Package events implements the transactional outbox: a service writes the
// events of a state change into the outbox table in the same database
// transaction as the change (Outbox.Enqueue), and a Relay publishes committed
// rows to Kafka as CloudEvents in binary mode, at least once.
package events

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/propagation"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

//go:embed migrations/*.sql
var migrations embed.FS

// VersionTable is the goose version table of the outbox migrations; it is
// separate from the service's own goose_db_version table.
const VersionTable = "goose_outbox_version"

// Migrate creates/updates the outbox table.
func Migrate(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger) error {
	if logger == nil {
		logger = slog.Default()
	}
	return database.Migrate(ctx, pool, migrations, "migrations",
		database.WithVersionTable(VersionTable), database.WithLogger(logger))
}

// Event is one event to publish.
type Event struct {
	// Topic is the Kafka topic, e.g. "agentic.identity.v1".
	Topic string
	// Key is the Kafka message key: the aggregate id (e.g. the user's uid).
	Key string
	// Type is the CloudEvents type, e.g. "agentic.identity.user.onboarded.v1".
	Type string
	// Source is the CloudEvents source; defaults to the Outbox's source.
	Source string
	// Subject is the CloudEvents subject (optional), e.g. the uid.
	Subject string
	// Payload is serialised with protojson and becomes the message value.
	Payload proto.Message
	// ID is the CloudEvents id; a UUIDv7 is generated when zero.
	ID uuid.UUID
	// Time is the CloudEvents time; the insert time (database now()) when zero.
	Time time.Time
}

// Outbox writes events into the outbox table.
type Outbox struct {
	source string
}

// NewOutbox returns an Outbox whose events default to CloudEvents source
// source (e.g. "/agentic/identity").
func NewOutbox(source string) *Outbox { return &Outbox{source: source} }

// Enqueue inserts ev into the outbox within tx; it is published only if tx
// commits. The current trace context (traceparent/tracestate) of ctx is
// stored with the event and sent as Kafka headers. It returns the event id.
func (o *Outbox) Enqueue(ctx context.Context, tx pgx.Tx, ev Event) (uuid.UUID, error) {
	if ev.Topic == "" || ev.Key == "" || ev.Type == "" {
		return uuid.Nil, errors.New("outbox: event needs Topic, Key and Type")
	}
	if ev.Payload == nil {
		return uuid.Nil, errors.New("outbox: event needs a Payload")
	}
	if ev.Source == "" {
		ev.Source = o.source
	}
	if ev.Source == "" {
		return uuid.Nil, errors.New("outbox: event needs a Source")
	}
	if ev.ID == uuid.Nil {
		id, err := uuid.NewV7()
		if err != nil {
			return uuid.Nil, fmt.Errorf("outbox: event id: %w", err)
		}
		ev.ID = id
	}
	payload, err := protojson.Marshal(ev.Payload)
	if err != nil {
		return uuid.Nil, fmt.Errorf("outbox: marshal payload: %w", err)
	}
	headers := map[string]string{}
	// Always W3C trace context, independent of the global propagator.
	propagation.TraceContext{}.Inject(ctx, propagation.MapCarrier(headers))

	var at any // NULL → now()
	if !ev.Time.IsZero() {
		at = ev.Time
	}
	_, err = tx.Exec(ctx, `
		INSERT INTO outbox (event_id, topic, key, type, source, subject, payload, headers, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, COALESCE($9::timestamptz, now()))`,
		ev.ID, ev.Topic, ev.Key, ev.Type, ev.Source, ev.Subject, string(payload), headers, at)
	if err != nil {
		return uuid.Nil, fmt.Errorf("outbox: insert: %w", err)
	}
	return ev.ID, nil
}
