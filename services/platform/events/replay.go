package events

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/segmentio/kafka-go"

	"github.com/agentic-app/agentic/services/platform/worker"
)

// replayLoop applies the group's parked messages that were marked for replay,
// every replayEvery, until ctx ends.
func (c *Consumer) replayLoop(ctx context.Context) {
	worker.Every(ctx, c.replayEvery, func(ctx context.Context) {
		for ctx.Err() == nil {
			done, err := c.ReplayOne(ctx)
			if err != nil {
				if ctx.Err() == nil {
					c.logger.WarnContext(ctx, "replaying a parked event failed; trying again later", "error", err)
				}
				return
			}
			if !done {
				return
			}
		}
	}, worker.Delayed())
}

// ReplayOne applies one parked message of the consumer's group that was
// marked for replay (RequestReplay) and reports whether it found one. In one
// transaction it locks the parked row (SKIP LOCKED: replicas share the work),
// records the event in processed_events and runs the handler: on success the
// parked row is deleted; an event already processed is just removed from
// parked_events; a transient failure leaves the request for a later round
// (and returns the error); any other failure re-parks the event (error and
// attempts updated, request cleared) and logs it.
func (c *Consumer) ReplayOne(ctx context.Context) (bool, error) {
	c.handlerMu.Lock()
	defer c.handlerMu.Unlock()

	tx, err := c.pool.Begin(ctx)
	if err != nil {
		return false, fmt.Errorf("replay: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()

	var (
		id, topic, key string
		partition      int
		offset         int64
		headers        map[string]string
		payload        []byte
	)
	err = tx.QueryRow(ctx, `
		SELECT event_id, topic, partition, "offset", key, headers, payload
		FROM parked_events
		WHERE consumer_group = $1 AND replay_requested_at IS NOT NULL
		ORDER BY replay_requested_at, parked_at
		LIMIT 1
		FOR UPDATE SKIP LOCKED`, c.group).Scan(&id, &topic, &partition, &offset, &key, &headers, &payload)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("replay: claim: %w", err)
	}
	msg := kafka.Message{Topic: topic, Partition: partition, Offset: offset, Key: []byte(key), Value: payload}
	for k, v := range headers {
		msg.Headers = append(msg.Headers, kafka.Header{Key: k, Value: []byte(v)})
	}
	ev := Decode(msg)
	ev.ID = id // the id it was parked (and deduplicated) under
	log := c.logger.With("topic", topic, "partition", partition, "offset", offset, "event_id", id, "event_type", ev.Type)

	sp, err := tx.Begin(ctx) // savepoint: a failing handler must not lose the lock on the parked row
	if err != nil {
		return false, fmt.Errorf("replay: savepoint: %w", err)
	}
	tag, err := sp.Exec(ctx, `
		INSERT INTO processed_events (consumer_group, event_id, topic, partition, "offset", type)
		VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (consumer_group, event_id) DO NOTHING`,
		c.group, ev.ID, ev.Topic, ev.Partition, ev.Offset, ev.Type)
	if err != nil {
		return false, fmt.Errorf("replay: record processed event: %w", err)
	}
	dup := tag.RowsAffected() == 0
	var herr error
	if !dup {
		herr = c.runHandler(ctx, sp, ev)
	}
	if herr != nil {
		if err := sp.Rollback(ctx); err != nil {
			return false, fmt.Errorf("replay: rollback to savepoint: %w", err)
		}
		c.failures.WithLabelValues(c.group, topic).Inc()
		if IsTransient(herr) {
			c.transient.WithLabelValues(c.group, topic).Inc()
			return false, fmt.Errorf("replay of %s: transient handler error: %w", id, herr)
		}
		reason := "attempts_exhausted"
		if IsPermanent(herr) {
			reason = "permanent"
		}
		if _, err := tx.Exec(ctx, `
			UPDATE parked_events
			SET error = $3, attempts = attempts + 1, reason = $4, parked_at = now(), replay_requested_at = NULL
			WHERE consumer_group = $1 AND event_id = $2`, c.group, id, herr.Error(), reason); err != nil {
			return false, fmt.Errorf("replay: re-park: %w", err)
		}
		if err := tx.Commit(ctx); err != nil {
			return false, fmt.Errorf("replay: commit: %w", err)
		}
		c.parked.WithLabelValues(c.group, topic).Inc()
		log.ErrorContext(ctx, "replayed event failed again; it stays parked", "reason", reason, "error", herr)
		return true, nil
	}
	if err := sp.Commit(ctx); err != nil {
		return false, fmt.Errorf("replay: release savepoint: %w", err)
	}
	if _, err := tx.Exec(ctx, `DELETE FROM parked_events WHERE consumer_group = $1 AND event_id = $2`, c.group, id); err != nil {
		return false, fmt.Errorf("replay: unpark: %w", err)
	}
	if err := tx.Commit(ctx); err != nil {
		return false, fmt.Errorf("replay: commit: %w", err)
	}
	c.replayed.WithLabelValues(c.group, topic).Inc()
	if dup {
		c.duplicates.WithLabelValues(c.group, topic).Inc()
		log.InfoContext(ctx, "parked event was already processed; removed from parked_events")
	} else {
		c.processed.WithLabelValues(c.group, topic).Inc()
		log.InfoContext(ctx, "parked event replayed and applied")
	}
	return true, nil
}
