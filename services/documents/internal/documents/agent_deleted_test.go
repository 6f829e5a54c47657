package documents

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/encoding/protojson"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/events/topics"
)

// Issue 29: the catalog's agent.deleted deletes the agent's documents, their
// chunks and sync jobs, the agent's lexeme counts, its comment watches and
// mentions; another agent's are untouched; a re-delivery is harmless.
func TestAgentDeletedDeletesItsDocuments(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	const gone, kept = "01900000-0000-7000-8000-00000000d0c1", "01900000-0000-7000-8000-00000000d0c2"
	var goneDocs []string
	for _, d := range []Document{newDoc(gone, "One"), newDoc(gone, "Two"), newDoc(kept, "Three")} {
		added, err := s.Add(ctx, d, 0)
		if err != nil {
			t.Fatal(err)
		}
		if d.AgentID == gone {
			goneDocs = append(goneDocs, added.ID)
		}
		for _, q := range []string{
			`INSERT INTO document_chunks (document_id, agent_id, seq, start_offset, end_offset, body, token_count)
				VALUES ($1, $2, 0, 0, 5, 'hello world', 2)`,
			`INSERT INTO comment_watches (document_id) VALUES ($1) ON CONFLICT DO NOTHING`,
			`INSERT INTO sync_jobs (document_id, reason) VALUES ($1, 'test') ON CONFLICT DO NOTHING`,
			`INSERT INTO comment_mentions (agent_id, document_id, drive_file_id, comment_id, question)
				VALUES ($2, $1::uuid, 'f', $1::uuid::text, 'q?')`,
		} {
			args := []any{added.ID}
			if strings.Contains(q, "$2") {
				args = append(args, d.AgentID)
			}
			if _, err := s.pool.Exec(ctx, q, args...); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	for _, agent := range []string{gone, kept} {
		if _, err := s.pool.Exec(ctx, `INSERT INTO agent_lexemes (agent_id, lexeme, chunks) VALUES ($1, 'hello', 1)`, agent); err != nil {
			t.Fatal(err)
		}
	}
	payload, err := protojson.Marshal(&eventsv1.AgentDeleted{AgentId: gone, OwnerUid: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	handle := CatalogEventHandler()
	for range 2 {
		if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			return handle(ctx, tx, events.Received{ID: "e1", Type: topics.CatalogAgentDeleted, Payload: payload, Time: time.Now()})
		}); err != nil {
			t.Fatal(err)
		}
	}
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := s.pool.QueryRow(ctx, q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	for _, c := range []struct {
		what       string
		q          string
		gone, kept int
	}{
		{"documents", `SELECT count(*) FROM documents WHERE agent_id = $1`, 0, 1},
		{"chunks", `SELECT count(*) FROM document_chunks WHERE agent_id = $1`, 0, 1},
		{"lexemes", `SELECT count(*) FROM agent_lexemes WHERE agent_id = $1`, 0, 1},
		{"mentions", `SELECT count(*) FROM comment_mentions WHERE agent_id = $1`, 0, 1},
		{"sync jobs", `SELECT count(*) FROM sync_jobs j JOIN documents d ON d.id = j.document_id WHERE d.agent_id = $1`, 0, 1},
		{"watches", `SELECT count(*) FROM comment_watches w JOIN documents d ON d.id = w.document_id WHERE d.agent_id = $1`, 0, 1},
	} {
		if n := count(c.q, gone); n != c.gone {
			t.Errorf("deleted agent: %d %s", n, c.what)
		}
		if n := count(c.q, kept); n != c.kept {
			t.Errorf("other agent: %d %s, want %d", n, c.what, c.kept)
		}
	}
	if n := count(`SELECT count(*) FROM sync_jobs WHERE document_id = ANY($1::uuid[])`, goneDocs); n != 0 {
		t.Errorf("%d sync jobs of deleted documents", n)
	}
	// Other catalog events are ignored; a malformed deletion is an error.
	if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return handle(ctx, tx, events.Received{ID: "e2", Type: "agentic.catalog.agent.updated.v1", Payload: []byte(`{}`)})
	}); err != nil {
		t.Errorf("other type: %v", err)
	}
	if err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return handle(ctx, tx, events.Received{ID: "e3", Type: topics.CatalogAgentDeleted, Payload: []byte(`{}`)})
	}); err == nil {
		t.Error("deletion without agent id accepted")
	}
}
