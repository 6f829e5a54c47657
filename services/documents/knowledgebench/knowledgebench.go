// Package knowledgebench is the knowledge benchmark run by bench/knowledge
// (go run ./bench/knowledge): Search latency at growing numbers of chunks of
// one agent among other agents' noise, and the time to sync changed
// documents against the in-process Drive simulator. It lives in the
// documents module because it drives the service's internal packages; it is
// not part of the service binary nor of the tests.
package knowledgebench

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/services/documents/internal/docsync"
	"github.com/agentic-app/agentic/services/documents/internal/documents"
	"github.com/agentic-app/agentic/services/documents/internal/drive"
	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge/wordnet"
	"github.com/agentic-app/agentic/services/platform/database"
	"github.com/agentic-app/agentic/services/platform/events"
	"github.com/agentic-app/agentic/services/platform/simembed"
)

// Config of a run.
type Config struct {
	// ServerURL is a PostgreSQL URL; a throwaway database is created on it.
	ServerURL string
	// Sizes are the chunk counts of the measured agent, in increasing order.
	Sizes []int
	// NoiseAgents × NoisePerAgent chunks of other agents are loaded first.
	NoiseAgents, NoisePerAgent int
	// Queries measured at each size (after a warm-up of Queries/10).
	Queries int
	// Limit of each search (the gRPC default is 8).
	Limit int
	// SyncDocs documents are synced, changed, and synced again.
	SyncDocs        int
	SyncConcurrency int
	// Keep leaves the database in place (for EXPLAIN ANALYZE).
	Keep bool
	// NoExpansion leaves the word relations out (queries use their own words).
	NoExpansion bool
	// Vectors makes the searches hybrid through pgvector's HNSW index (when
	// the server has pgvector): every chunk gets the simulator's
	// 256-dimension embedding of its text, and each query is embedded in
	// process (no provider round trip is measured).
	Vectors bool
	// Verbose prints the slowest queries of each size.
	Verbose bool
	Out     io.Writer
	Seed    uint64
}

const (
	chunksPerDoc  = 40
	agentID       = "01900000-0000-7000-8000-0000000b0001"
	syncAgentID   = "01900000-0000-7000-8000-0000000b0002"
	syncAgentMail = "bench-sync@agents.example"
)

// Run runs the benchmark and prints its figures to cfg.Out.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Limit <= 0 {
		cfg.Limit = knowledge.DefaultLimit
	}
	if cfg.SyncConcurrency <= 0 {
		cfg.SyncConcurrency = docsync.DefaultConcurrency
	}
	pool, drop, err := Scratch(ctx, cfg.ServerURL, "agentic_knowledge_bench_")
	if err != nil {
		return err
	}
	defer func() {
		pool.Close()
		if !cfg.Keep {
			drop()
		}
	}()
	c := newCorpus(cfg.Seed+1, 30000)
	out := cfg.Out
	// Searches expand queries with WordNet's related words, as the service's do.
	start := time.Now()
	if !cfg.NoExpansion {
		if _, err := wordnet.Load(ctx, pool); err != nil {
			return err
		}
		fmt.Fprintf(out, "word relations loaded in %s\n", time.Since(start).Round(100*time.Millisecond))
	}

	// Noise: other agents' documents, present from the start.
	start = time.Now()
	noise := 0
	for a := 0; a < cfg.NoiseAgents; a++ {
		agent := fmt.Sprintf("01900000-0000-7000-8000-%012x", 0x100000+a)
		n, err := load(ctx, pool, c, agent, cfg.NoisePerAgent, min(cfg.NoisePerAgent, chunksPerDoc))
		if err != nil {
			return err
		}
		noise += n
	}
	fmt.Fprintf(out, "noise: %d chunks of %d other agents loaded in %s\n", noise, cfg.NoiseAgents, time.Since(start).Round(time.Second))

	ix := knowledge.NewIndex(pool)
	if cfg.Vectors {
		if err := setupVectors(ctx, pool, ix, out); err != nil {
			return err
		}
	}
	var topics []topic
	loaded := 0
	fmt.Fprintf(out, "\n%-10s %-10s %-10s %-10s %-10s %-8s\n", "chunks", "p50", "p90", "p99", "max", "hits")
	for _, size := range cfg.Sizes {
		start := time.Now()
		for loaded < size {
			t := c.topic(40)
			topics = append(topics, t)
			n, err := loadTopic(ctx, pool, c, agentID, t, min(chunksPerDoc, size-loaded))
			if err != nil {
				return err
			}
			loaded += n
		}
		if cfg.Vectors {
			if err := embedMissing(ctx, pool); err != nil {
				return err
			}
		}
		if _, err := pool.Exec(ctx, `VACUUM ANALYZE document_chunks`); err != nil {
			return err
		}
		if cfg.Vectors {
			if _, err := pool.Exec(ctx, `VACUUM ANALYZE chunk_embeddings`); err != nil {
				return err
			}
		}
		loadTime := time.Since(start)
		lat, hits, slowest, err := measure(ctx, ix, c, topics, cfg.Queries, cfg.Limit)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "%-10d %-10s %-10s %-10s %-10s %-8.1f (loaded in %s)\n", loaded, Pct(lat, 50), Pct(lat, 90), Pct(lat, 99),
			Pct(lat, 100), hits, loadTime.Round(time.Second))
		if cfg.Verbose {
			for _, s := range slowest {
				fmt.Fprintf(out, "    slow: %s\n", s)
			}
		}
	}
	if cfg.SyncDocs > 0 {
		if err := syncBench(ctx, pool, c, cfg, out); err != nil {
			return err
		}
	}
	if cfg.Keep {
		fmt.Fprintf(out, "\ndatabase kept: %s (agent %s)\n", pool.Config().ConnConfig.Database, agentID)
	}
	return nil
}

// setupVectors embeds the chunks loaded so far (the other agents'), builds
// the HNSW index over them as the service does (embeddings.SetupVector) and
// makes ix hybrid through it.
func setupVectors(ctx context.Context, pool *pgxpool.Pool, ix *knowledge.Index, out io.Writer) error {
	ok, err := embeddings.VectorAvailable(ctx, pool)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("-vectors: this PostgreSQL server has no pgvector (pg_available_extensions)")
	}
	start := time.Now()
	if err := embedMissing(ctx, pool); err != nil {
		return err
	}
	embedded := time.Since(start)
	start = time.Now()
	if ok, err := embeddings.SetupVector(ctx, pool, simembed.Model, simembed.Dims); err != nil || !ok {
		return fmt.Errorf("hnsw index: %v, %w", ok, err)
	}
	ix.Embedder, ix.VectorDims = inProcessEmbedder{}, simembed.Dims
	if ix.VectorIterative, err = embeddings.IterativeScan(ctx, pool); err != nil {
		return err
	}
	fmt.Fprintf(out, "vectors: other agents' chunks embedded in %s, HNSW index built in %s (iterative scan: %v)\n",
		embedded.Round(time.Second), time.Since(start).Round(time.Second), ix.VectorIterative)
	return nil
}

// embedMissing stores the simulator's embedding of every chunk that has
// none, in batches (what a sync's embedding step writes).
func embedMissing(ctx context.Context, pool *pgxpool.Pool) error {
	for {
		rows, err := pool.Query(ctx, `SELECT c.document_id::text, c.text_hash, c.heading_path, c.body FROM document_chunks c
			WHERE NOT EXISTS (SELECT 1 FROM chunk_embeddings e WHERE e.document_id = c.document_id AND e.model = $1 AND e.text_hash = c.text_hash)
			LIMIT 2000`, simembed.Model)
		if err != nil {
			return err
		}
		var docs, hashes []string
		var vecs [][]float32
		for rows.Next() {
			var doc, hash, heading, body string
			if err := rows.Scan(&doc, &hash, &heading, &body); err != nil {
				rows.Close()
				return err
			}
			docs, hashes, vecs = append(docs, doc), append(hashes, hash), append(vecs, simembed.Embed(embeddings.Input(heading, body)))
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if len(docs) == 0 {
			return nil
		}
		if _, err := pool.Exec(ctx, `INSERT INTO chunk_embeddings (document_id, model, text_hash, embedding)
			SELECT d::uuid, $1, h, ARRAY(SELECT jsonb_array_elements_text(v::jsonb)::real)
			FROM unnest($2::text[], $3::text[], $4::text[]) AS x(d, h, v) ON CONFLICT DO NOTHING`,
			simembed.Model, docs, hashes, jsonVectors(vecs)); err != nil {
			return err
		}
	}
}

// jsonVectors writes vectors as JSON arrays (pgx sends a [][]float32 as one
// two-dimensional array, which cannot be unnested row by row).
func jsonVectors(vecs [][]float32) []string {
	out := make([]string, len(vecs))
	for i, v := range vecs {
		b, _ := json.Marshal(v)
		out[i] = string(b)
	}
	return out
}

// inProcessEmbedder embeds queries as the LLM simulator's /v1/embeddings
// does, without the HTTP round trip.
type inProcessEmbedder struct{}

func (inProcessEmbedder) Model() string { return simembed.Model }
func (inProcessEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return simembed.Embed(text), nil
}

// Scratch creates a throwaway database (named prefix + random hex) with the
// documents schema on the PostgreSQL server at server; drop removes it.
func Scratch(ctx context.Context, server, prefix string) (pool *pgxpool.Pool, drop func(), err error) {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	u, err := url.Parse(server)
	if err != nil {
		return nil, nil, err
	}
	u.Path = "/" + prefix + hex.EncodeToString(b)
	dbURL := u.String()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	pool, err = database.Open(ctx, database.OpenConfig{URL: dbURL, Create: true, Logger: logger,
		Migrations: documents.Migrations, Extra: []database.MigrateFunc{events.Migrate}})
	if err != nil {
		return nil, nil, err
	}
	return pool, func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		_ = database.DropDatabase(ctx, dbURL)
	}, nil
}

// load adds n chunks for agent in documents of perDoc chunks, each document
// about its own topic.
func load(ctx context.Context, pool *pgxpool.Pool, c *corpus, agent string, n, perDoc int) (int, error) {
	done := 0
	for done < n {
		k, err := loadTopic(ctx, pool, c, agent, c.topic(40), min(perDoc, n-done))
		if err != nil {
			return done, err
		}
		done += k
	}
	return done, nil
}

// loadTopic adds one document of n chunks (~330 words, ~420 tokens each).
// The chunks are written directly: the chunker's speed is not what is
// measured here (the sync part below runs it).
func loadTopic(ctx context.Context, pool *pgxpool.Pool, c *corpus, agent string, t topic, n int) (int, error) {
	id := uuid.Must(uuid.NewV7()).String()
	fileID := "1bench" + strings.ReplaceAll(id, "-", "")
	chunks := make([]knowledge.Chunk, n)
	off := 0
	for i := range chunks {
		text := strings.TrimSpace(c.text(t, 330))
		heading, _, _ := strings.Cut(text, "\n")
		runes := knowledge.RuneLen(text)
		chunks[i] = knowledge.Chunk{Seq: i, Start: off, End: off + runes, Heading: heading, Text: text,
			Tokens: len(strings.Fields(text)) * 13 / 10}
		off += runes + 1
	}
	err := pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO documents (id, agent_id, owner_uid, name, url, drive_file_id, labels,
			sharing_status, sync_state, content_hash, token_count)
			VALUES ($1, $2, 'bench', $3, $4, $5, $6, 'shared', 'synced', 'bench', $7)`,
			id, agent, "Doc-"+id[24:], drivesim.DocsURL(fileID), fileID, []string{t[0]}, n*430); err != nil {
			return err
		}
		return knowledge.ReplaceChunks(ctx, tx, agent, id, chunks)
	})
	return n, err
}

// measure runs warm-up and measured searches for questions about the
// loaded topics; it returns the latencies, the mean number of passages and
// the five slowest queries.
func measure(ctx context.Context, ix *knowledge.Index, c *corpus, topics []topic, n, limit int) ([]time.Duration, float64, []string, error) {
	type timed struct {
		d time.Duration
		q string
	}
	var all []timed
	hits := 0
	for i := 0; i < n+n/10; i++ {
		q := c.query(topics[c.r.IntN(len(topics))])
		start := time.Now()
		ps, err := ix.Search(ctx, knowledge.Query{AgentID: agentID, Text: q, Limit: limit})
		if err != nil {
			return nil, 0, nil, fmt.Errorf("search %q: %w", q, err)
		}
		if i >= n/10 {
			all = append(all, timed{time.Since(start), q})
			hits += len(ps)
		}
	}
	lat := make([]time.Duration, len(all))
	for i, t := range all {
		lat[i] = t.d
	}
	slices.SortFunc(all, func(a, b timed) int { return int(b.d - a.d) })
	var slow []string
	for _, t := range all[:min(5, len(all))] {
		slow = append(slow, fmt.Sprintf("%s %q", t.d.Round(10*time.Microsecond), t.q))
	}
	return lat, float64(hits) / float64(max(len(lat), 1)), slow, nil
}

// Pct is the p-th percentile of d (100: the maximum), rounded for printing.
func Pct(d []time.Duration, p int) string {
	if len(d) == 0 {
		return "-"
	}
	s := slices.Clone(d)
	slices.Sort(s)
	i := min(len(s)-1, (len(s)*p+99)/100-1)
	return s[max(i, 0)].Round(10 * time.Microsecond).String()
}

type agents map[string]string

func (a agents) AgentEmail(_ context.Context, id string) (string, error) { return a[id], nil }

// syncBench links SyncDocs documents of ~3,000 words each (shared with the
// agent) and syncs them, then changes all of them in Drive and measures the
// re-sync, then measures a sync where nothing changed (metadata only).
func syncBench(ctx context.Context, pool *pgxpool.Pool, c *corpus, cfg Config, out io.Writer) error {
	sim, err := drivesim.New(drivesim.Config{DriveLikeExport: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return err
	}
	srv := httptest.NewServer(sim.Handler())
	defer srv.Close()
	dc, err := drive.New(drive.Config{Endpoint: srv.URL + "/drive/v3/", DevTokens: true})
	if err != nil {
		return err
	}
	w, err := docsync.New(docsync.Config{Pool: pool, Drive: dc, Agents: agents{syncAgentID: syncAgentMail},
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Interval: time.Hour, Concurrency: cfg.SyncConcurrency,
		Poll: 20 * time.Millisecond})
	if err != nil {
		return err
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(wctx) }()
	defer func() { stop(); <-done }()

	store := documents.NewPostgresStore(pool)
	var files []drivesim.File
	var ids []string
	topics := make([]topic, cfg.SyncDocs)
	for i := range cfg.SyncDocs {
		topics[i] = c.topic(40)
		f, err := sim.CreateFile(drivesim.File{Title: fmt.Sprintf("Handbook %d", i), Text: c.text(topics[i], 3000),
			SharedWith: []string{syncAgentMail}})
		if err != nil {
			return err
		}
		files = append(files, f)
	}
	start := time.Now()
	for i, f := range files {
		now := time.Now().UTC()
		d, err := store.Add(ctx, documents.Document{ID: uuid.Must(uuid.NewV7()).String(), AgentID: syncAgentID, OwnerUID: "bench",
			Name: fmt.Sprintf("Handbook%d", i), URL: drivesim.DocsURL(f.ID), DriveFileID: f.ID, Labels: []string{},
			SharingStatus: documents.SharingShared, CreatedAt: now, UpdatedAt: now}, 0)
		if err != nil {
			return err
		}
		ids = append(ids, d.ID)
	}
	if err := waitAll(ctx, pool, 5*time.Minute); err != nil {
		return err
	}
	first := time.Since(start)
	var chunks int
	_ = pool.QueryRow(ctx, `SELECT count(*) FROM document_chunks WHERE agent_id = $1`, syncAgentID).Scan(&chunks)

	// Every document changes in Drive (a new section), then Sync now on all.
	for i, f := range files {
		if _, err := sim.UpdateText(f.ID, f.Text+"\n"+c.text(topics[i], 150)); err != nil {
			return err
		}
	}
	resync := func() (time.Duration, error) {
		start := time.Now()
		for _, id := range ids {
			if _, err := store.RequestSync(ctx, syncAgentID, id); err != nil {
				return 0, err
			}
		}
		err := waitAll(ctx, pool, 5*time.Minute)
		return time.Since(start), err
	}
	exports := sim.Requests(drivesim.OpExport)
	changed, err := resync()
	if err != nil {
		return err
	}
	if n := sim.Requests(drivesim.OpExport) - exports; n != cfg.SyncDocs {
		return fmt.Errorf("changed documents: %d exports, want %d", n, cfg.SyncDocs)
	}
	exports = sim.Requests(drivesim.OpExport)
	unchanged, err := resync()
	if err != nil {
		return err
	}
	if n := sim.Requests(drivesim.OpExport) - exports; n != 0 {
		return fmt.Errorf("unchanged documents: %d exports", n)
	}
	var bad int
	_ = pool.QueryRow(ctx, `SELECT count(*) FROM documents WHERE agent_id = $1 AND sharing_status <> 'shared'`, syncAgentID).Scan(&bad)
	if bad > 0 {
		return fmt.Errorf("%d synced documents are not shared", bad)
	}
	fmt.Fprintf(out, "\nsync of %d documents (~3,000 words, %d chunks in all; concurrency %d):\n", cfg.SyncDocs, chunks, cfg.SyncConcurrency)
	fmt.Fprintf(out, "  first sync (linked):        %s\n", first.Round(10*time.Millisecond))
	fmt.Fprintf(out, "  all changed in Drive:       %s\n", changed.Round(10*time.Millisecond))
	fmt.Fprintf(out, "  none changed (metadata):    %s\n", unchanged.Round(10*time.Millisecond))
	return nil
}

// waitAll waits until no sync job is left.
func waitAll(ctx context.Context, pool *pgxpool.Pool, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		var n int
		if err := pool.QueryRow(ctx, `SELECT count(*) FROM sync_jobs`).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			var syncing int
			_ = pool.QueryRow(ctx, `SELECT count(*) FROM documents WHERE sync_state <> 'synced'`).Scan(&syncing)
			if syncing == 0 {
				return nil
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return fmt.Errorf("sync did not finish in %s", timeout)
}
