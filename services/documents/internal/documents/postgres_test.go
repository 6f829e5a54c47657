package documents

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/database/dbtest"
	"github.com/agentic-app/agentic/services/platform/events"
)

func newStore(t *testing.T) *PostgresStore {
	t.Helper()
	pool, _ := dbtest.NewPool(t, "documents_store")
	ctx := context.Background()
	if err := database.Migrate(ctx, pool, Migrations, "migrations"); err != nil {
		t.Fatal(err)
	}
	if err := events.Migrate(ctx, pool, nil); err != nil {
		t.Fatal(err)
	}
	return NewPostgresStore(pool)
}

func outboxTypes(t *testing.T, s *PostgresStore) map[string]int {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT type, count(*) FROM outbox GROUP BY type`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var typ string
		var n int
		if err := rows.Scan(&typ, &n); err != nil {
			t.Fatal(err)
		}
		out[typ] = n
	}
	return out
}

func newDoc(agent, name string) Document {
	id, _ := uuid.NewV7()
	now := time.Now().UTC()
	return Document{ID: id.String(), AgentID: agent, OwnerUID: "alice", Name: name, URL: docURL, DriveFileID: docID,
		Labels: []string{"a"}, SharingStatus: SharingShared, CreatedAt: now, UpdatedAt: now}
}

// Concurrent adds of one name (any case): exactly one wins; the losers leave
// neither a row nor an event behind.
func TestStoreNameUniqueUnderConcurrency(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	const agent = "01900000-0000-7000-8000-000000000001"
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			name := "Syllabus"
			if i%2 == 1 {
				name = "SYLLABUS"
			}
			_, errs[i] = s.Add(ctx, newDoc(agent, name), 0)
		}(i)
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, ErrNameTaken):
			t.Fatalf("unexpected error: %v", err)
		}
	}
	docs, err := s.List(ctx, agent)
	if ok != 1 || err != nil || len(docs) != 1 {
		t.Fatalf("%d adds succeeded, %d documents (%v)", ok, len(docs), err)
	}
	if got := outboxTypes(t, s); fmt.Sprint(got) != fmt.Sprint(map[string]int{TypeDocumentAdded: 1}) {
		t.Fatalf("outbox = %v", got)
	}

	// A rename onto a taken name fails and rolls back its event.
	other, err := s.Add(ctx, newDoc(agent, "Notes"), 0)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Update(ctx, agent, other.ID, func(cur Document) (Document, []string, error) {
		cur.Name = "syllabus"
		return cur, []string{"name"}, nil
	})
	if !errors.Is(err, ErrNameTaken) {
		t.Fatalf("rename: %v", err)
	}
	if got := outboxTypes(t, s); got[TypeDocumentUpdated] != 0 || got[TypeDocumentAdded] != 2 {
		t.Fatalf("outbox after failed rename = %v", got)
	}
	// The same name on another agent is fine.
	if _, err := s.Add(ctx, newDoc("01900000-0000-7000-8000-000000000002", "Syllabus"), 0); err != nil {
		t.Fatal(err)
	}
	// Documents are only reachable through their agent.
	if _, err := s.Get(ctx, "01900000-0000-7000-8000-000000000002", other.ID); !errors.Is(err, ErrDocumentNotFound) {
		t.Fatalf("get via other agent: %v", err)
	}
	if err := s.Remove(ctx, "01900000-0000-7000-8000-000000000002", other.ID, time.Now()); !errors.Is(err, ErrDocumentNotFound) {
		t.Fatalf("remove via other agent: %v", err)
	}
}

// Removing a document takes its chunks out of the index and of the agent's
// lexeme counts, in the same transaction as the delete.
func TestStoreRemoveClearsKnowledge(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	const agent = "01900000-0000-7000-8000-000000000001"
	d, err := s.Add(ctx, newDoc(agent, "Syllabus"), 0)
	if err != nil {
		t.Fatal(err)
	}
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		return knowledge.ReplaceChunks(ctx, tx, agent, d.ID, knowledge.Split("Grading Policy\nHomework is 40% of the grade.", knowledge.ChunkConfig{}))
	})
	if err != nil {
		t.Fatal(err)
	}
	var chunks, counted int
	_ = s.pool.QueryRow(ctx, `SELECT count(*) FROM document_chunks`).Scan(&chunks)
	_ = s.pool.QueryRow(ctx, `SELECT coalesce(sum(chunks), 0) FROM agent_lexemes WHERE agent_id = $1`, agent).Scan(&counted)
	if chunks != 1 || counted == 0 {
		t.Fatalf("indexed: %d chunks, %d lexeme counts", chunks, counted)
	}
	if err := s.Remove(ctx, agent, d.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	_ = s.pool.QueryRow(ctx, `SELECT count(*) FROM document_chunks`).Scan(&chunks)
	_ = s.pool.QueryRow(ctx, `SELECT coalesce(sum(chunks), 0) FROM agent_lexemes WHERE agent_id = $1`, agent).Scan(&counted)
	if chunks != 0 || counted != 0 {
		t.Fatalf("after remove: %d chunks, %d lexeme counts", chunks, counted)
	}
	if err := s.Remove(ctx, agent, d.ID, time.Now()); !errors.Is(err, ErrDocumentNotFound) {
		t.Fatalf("remove twice: %v", err)
	}
}

// Concurrent adds to one agent never pass maxPerAgent: the count is taken in
// the insert's transaction under a lock on the agent. Refused adds leave
// neither a row nor an event; another agent is not affected.
func TestStoreDocumentLimitUnderConcurrency(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	const agent, other = "01900000-0000-7000-8000-000000000011", "01900000-0000-7000-8000-000000000012"
	const max = 3
	if _, err := s.Add(ctx, newDoc(agent, "First"), max); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 12)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = s.Add(ctx, newDoc(agent, fmt.Sprintf("Doc%d", i)), max)
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		var le *LimitError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &le):
			if le.Max != max || le.Error() != "An agent can have at most 3 documents." {
				t.Errorf("limit error %+v %q", le, le.Error())
			}
		default:
			t.Fatalf("unexpected error: %v", err)
		}
	}
	docs, err := s.List(ctx, agent)
	if ok != max-1 || err != nil || len(docs) != max {
		t.Fatalf("%d concurrent adds succeeded, %d documents (%v); want %d and %d", ok, len(docs), err, max-1, max)
	}
	if got := outboxTypes(t, s); got[TypeDocumentAdded] != max {
		t.Fatalf("outbox = %v, want %d added", got, max)
	}
	// Another agent has its own count; no bound (0) is no bound.
	if _, err := s.Add(ctx, newDoc(other, "First"), max); err != nil {
		t.Fatalf("other agent: %v", err)
	}
	if _, err := s.Add(ctx, newDoc(agent, "Unbounded"), 0); err != nil {
		t.Fatalf("no bound: %v", err)
	}
}
