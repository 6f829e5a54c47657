// Command marketplace-bench measures the public marketplace of the running
// local stack through the gateway (issue 27, "Tests and figures": 10,000
// listed agents in 50 categories; search and browse p99 ≤ 30 ms at 32
// concurrent clients, a profile by slug p99 ≤ 15 ms; docs/catalog.md,
// "Marketplace: figures"). Not part of `make test`; it only sends traffic to
// a stack that is already up (make dev / Tilt), on loopback:
//
//  1. seed: -agents listed agents in 50 categories (plausible names,
//     descriptions and tags; answers, ratings, prices and publication dates
//     spread like a real catalogue) and their 300 creators are inserted
//     straight into the catalog's database in one transaction (COPY), owner
//     uids bench-marketplace-<run>-c<n>, then ANALYZE. Skipped when that many
//     bench agents are there already (an earlier -keep run);
//  2. load: -clients closed-loop clients (each sends its next request when
//     the last is answered) run for -warmup unrecorded, then -duration (or
//     -requests): browse (each sort's first page and a cursor page of pages
//     2–10, a category's page), search (common, topic, rare, as-you-type and
//     broad words, with and without a category; by relevance and by the web
//     app's sorts), a profile by slug, the categories;
//  3. prints count, errors, 429s and p50/p95/p99/max per operation and
//     group, and whether each target holds (exit status 1 when one does
//     not, or when a 429 or an error makes the run unfit to judge);
//  4. deletes every bench agent and creator (also on Ctrl-C; -keep keeps
//     them), then VACUUM ANALYZE agents.
//
// The catalog limits the marketplace per client address
// (RATE_LIMIT_MARKETPLACE; the local stack sets 3000/1m). By default each
// client connects from its own loopback address (127.0.0.2, 127.0.0.3, …),
// as 32 visitors would, and 127.0.0.1 (the browser of the Playwright tests)
// keeps its own budget; a client answering faster than 50 requests a second
// still meets the limit, so 429s are counted and a run with any is not
// judged. For a run unaffected by the limit, start the catalog with
// RATE_LIMIT_MARKETPLACE=0/1m (disabled).
//
//	go run ./bench/marketplace                          # 32 clients, 30 s
//	go run ./bench/marketplace -duration 5s -warmup 1s  # a short run
//	go run ./bench/marketplace -keep                    # keep the agents (EXPLAIN, repeated runs)
//	go run ./bench/marketplace -cleanup                 # only delete the bench agents
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// logf prints progress on stderr (benchstack.Logf; -v=false silences it).
var logf = benchstack.Logf

type config struct {
	base, dbURL      string
	metricsURL       string
	agents, creators int
	load             loadConfig
	keep             bool
	targets          targets
	pages            int
}

func main() {
	base := flag.String("base", "http://localhost:8080", "gateway origin (loopback)")
	dbURL := flag.String("db", "postgres://postgres@127.0.0.1:5432/agentic_catalog?sslmode=disable", "the catalog's database (loopback)")
	agents := flag.Int("agents", 10_000, "listed bench agents (in 50 categories)")
	creators := flag.Int("creators", 300, "creators owning them")
	clients := flag.Int("clients", 32, "concurrent clients")
	duration := flag.Duration("duration", 30*time.Second, "recorded part of the run")
	warmup := flag.Duration("warmup", 5*time.Second, "unrecorded start of the run (connections, caches)")
	requests := flag.Int("requests", 0, "stop after this many recorded requests (0: -duration only)")
	think := flag.Duration("think", 0, "mean pause of each client between an answer and its next request (exponential; 0: closed loop)")
	metricsURL := flag.String("catalog-metrics", "http://127.0.0.1:8102/metrics", "the catalog's /metrics: server-side time and database pool waits (\"\": not read)")
	spread := flag.Bool("spread", true, "each client connects from its own loopback address 127.0.0.<2+i> (the per-address limit counts per client)")
	pages := flag.Int("pages", 10, "cursor pages of each sort the clients pick from (pages 2…pages+1)")
	seed := flag.Uint64("seed", 27, "seed of the generated agents and of the clients' choices")
	keep := flag.Bool("keep", false, "keep the bench agents at the end (the next run reuses them)")
	cleanupOnly := flag.Bool("cleanup", false, "only delete the bench agents (bench-marketplace-*) and exit")
	browseTarget := flag.Duration("target-list", 30*time.Millisecond, "p99 target of browse and search")
	profileTarget := flag.Duration("target-profile", 15*time.Millisecond, "p99 target of a profile")
	flag.BoolVar(&benchstack.Verbose, "v", true, "progress on stderr")
	flag.Parse()

	cfg := config{
		base: strings.TrimRight(*base, "/"), dbURL: *dbURL, metricsURL: *metricsURL, agents: *agents, creators: *creators, keep: *keep, pages: *pages,
		load:    loadConfig{clients: *clients, spread: *spread, warmup: *warmup, duration: *duration, maxRequests: *requests, think: *think, seed: *seed},
		targets: targets{groupBrowse: *browseTarget, groupSearch: *browseTarget, groupProfile: *profileTarget},
	}
	cfg.load.base = cfg.base
	if err := cfg.check(); err != nil {
		fatal(err)
	}

	// Ctrl-C (or SIGTERM) stops the load; the bench agents are deleted all
	// the same. A second one ends the program at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := pgxpool.New(ctx, withPoolSize(cfg.dbURL))
	if err != nil {
		fatal(err)
	}
	defer db.Close()

	if *cleanupOnly {
		n, err := deleteSeed(context.Background(), db)
		if err != nil {
			fatal(err)
		}
		fmt.Printf("deleted %d bench agents\n", n)
		return
	}
	ok, err := run(ctx, stop, db, cfg)
	if err != nil {
		fatal(err)
	}
	if !ok {
		os.Exit(1)
	}
}

func (c config) check() error {
	switch {
	case c.agents < len(categories) || c.agents > 100_000:
		return fmt.Errorf("-agents must be from %d to 100000", len(categories))
	case c.creators < 1 || c.creators > c.agents:
		return fmt.Errorf("-creators must be from 1 to -agents")
	case c.load.clients < 1 || c.load.spread && c.load.clients > 250:
		return fmt.Errorf("-clients must be from 1 to 250 (with -spread)")
	case c.load.duration <= 0 || c.load.duration > time.Hour || c.load.warmup < 0:
		return fmt.Errorf("-duration must be in (0, 1h], -warmup not negative")
	case c.pages < 1:
		return fmt.Errorf("-pages must be positive")
	}
	if err := loopbackURL(c.base); err != nil {
		return err
	}
	if c.metricsURL != "" {
		if err := loopbackURL(c.metricsURL); err != nil {
			return err
		}
	}
	return loopbackURL(c.dbURL)
}

// loopbackURL refuses a URL whose host is not a loopback address: the bench
// writes to the database and loads the gateway of a local stack only.
func loopbackURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	h := u.Hostname()
	if h == "localhost" {
		return nil
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: not a loopback address (the bench runs against the local stack only)", raw)
}

// withPoolSize bounds the bench's own database connections.
func withPoolSize(dsn string) string {
	if strings.Contains(dsn, "pool_max_conns") {
		return dsn
	}
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	return dsn + sep + "pool_max_conns=2"
}

func run(ctx context.Context, stop context.CancelFunc, db *pgxpool.Pool, cfg config) (bool, error) {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	runID := hex.EncodeToString(b)
	host, _ := os.Hostname()
	fmt.Printf("bench/marketplace run %s at %s — gateway %s, %d clients (%s, %s), %s recorded after %s warm-up; %s, %d CPUs, load %s\n",
		runID, time.Now().UTC().Format(time.RFC3339), cfg.base, cfg.load.clients, spreadText(cfg.load), thinkText(cfg.load.think),
		cfg.load.duration, cfg.load.warmup, host, runtime.NumCPU(), loadAvg())

	// Whatever happens from here on, the bench agents go (unless -keep).
	seeded := false
	defer func() {
		if cfg.keep || !seeded {
			if seeded {
				fmt.Printf("kept the bench agents (-keep); `go run ./bench/marketplace -cleanup` deletes them\n")
			}
			return
		}
		cctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		t0 := time.Now()
		n, err := deleteSeed(cctx, db)
		if err != nil {
			fmt.Fprintf(os.Stderr, "marketplace-bench: cleanup failed (run `go run ./bench/marketplace -cleanup`): %v\n", err)
			return
		}
		fmt.Printf("deleted %d bench agents and their creators, VACUUM ANALYZE agents (%s)\n", n, time.Since(t0).Round(time.Millisecond))
	}()

	hc := newClient(nil)
	if cfg.load.spread {
		hc = newClient(sourceAddr(cfg.load.clients)) // setup's own address, next to the clients'
	}
	var status struct {
		Enabled bool `json:"enabled"`
	}
	if err := getJSON(ctx, hc, cfg.base+"/api/marketplace/status", &status); err != nil {
		return false, fmt.Errorf("gateway: %w", err)
	}
	if !status.Enabled {
		return false, errors.New("the marketplace is off (MARKETPLACE_ENABLED=false)")
	}

	// 1. Seed (or reuse).
	n, err := benchCount(ctx, db)
	if err != nil {
		return false, fmt.Errorf("catalog database: %w", err)
	}
	seeded = n > 0 // from here on, whatever is there is ours to delete
	switch {
	case n >= cfg.agents:
		fmt.Printf("seed: %d bench agents already listed (an earlier -keep run): reused\n", n)
	default:
		if n > 0 {
			if _, err := deleteSeed(ctx, db); err != nil {
				return false, err
			}
			logf("deleted %d bench agents of an earlier run", n)
		}
		set := generateSeed(runID, cfg.agents, cfg.creators, cfg.load.seed, time.Now())
		t0 := time.Now()
		seeded = true
		if err := insertSeed(ctx, db, set); err != nil {
			return false, fmt.Errorf("seed: %w", err)
		}
		fmt.Printf("seed: %d listed agents in %d categories, %d creators (owner %s%s-c*) inserted in %s (one COPY, then ANALYZE)\n",
			len(set.Agents), len(categories), len(set.Creators), OwnerPrefix, runID, time.Since(t0).Round(time.Millisecond))
	}
	agents, err := loadBenchAgents(ctx, db)
	if err != nil {
		return false, err
	}
	var others int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM agents WHERE is_public AND owner_uid NOT LIKE $1 || '%'`, OwnerPrefix).Scan(&others); err != nil {
		return false, err
	}
	fmt.Printf("listed: %d bench agents + %d others\n", len(agents), others)
	if err := printSearchClasses(ctx, db); err != nil {
		return false, err
	}

	// The seeded agents through the gateway: a profile and a rare word.
	var prof struct {
		Slug string `json:"slug"`
	}
	if err := getJSON(ctx, hc, cfg.base+"/api/marketplace/agents/"+agents[0].Slug, &prof); err != nil || prof.Slug != agents[0].Slug {
		return false, fmt.Errorf("profile %s through the gateway: %v (got %q)", agents[0].Slug, err, prof.Slug)
	}
	cursors, err := collectCursors(ctx, hc, cfg.base, cfg.pages)
	if err != nil {
		return false, err
	}

	// 2. Load.
	w := newWorkload(agents, cursors)
	logf("load: %d clients, %s warm-up + %s", cfg.load.clients, cfg.load.warmup, cfg.load.duration)
	mc := newClient(nil)
	before := make(chan snapshot, 1)
	cfg.load.onMeasure = func() { before <- takeSnapshot(ctx, mc, cfg.metricsURL) }
	res := runLoad(ctx, cfg.load, w)
	sctx, cancelSnap := context.WithTimeout(context.Background(), 5*time.Second) // also after Ctrl-C
	after := takeSnapshot(sctx, mc, cfg.metricsURL)
	cancelSnap()
	interrupted := ctx.Err() != nil
	stop() // a second Ctrl-C during the cleanup ends the program

	// 3. Figures.
	ok := res.print(os.Stdout, cfg.targets)
	select {
	case b := <-before:
		printCost(os.Stdout, b, after, res.total())
	default:
	}
	fmt.Printf("load average after the run: %s\n", loadAvg())
	if interrupted {
		fmt.Println("interrupted: the figures cover the run up to Ctrl-C")
		ok = false
	}
	return ok, nil
}

func thinkText(think time.Duration) string {
	if think > 0 {
		return fmt.Sprintf("pausing %s on average between requests", think)
	}
	return "closed loop: the next request when the last is answered"
}

func spreadText(l loadConfig) string {
	if l.spread {
		return fmt.Sprintf("each from its own address 127.0.0.2–%s", sourceAddr(l.clients-1))
	}
	return "all from one address"
}

// printSearchClasses prints how many listed agents each class of search
// words matches (the catalog's tsquery, counted in the database).
func printSearchClasses(ctx context.Context, db *pgxpool.Pool) error {
	var topics []string
	for _, c := range categories {
		for _, t := range c.topics {
			topics = append(topics, strings.ToLower(t))
		}
	}
	lower := func(ws []string) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = strings.ToLower(w)
		}
		return out
	}
	classes := []struct {
		name  string
		words []string
	}{
		{"common (role words)", lower(roles)}, {"topic", topics}, {"rare", rareWords}, {"broad", broadWords},
	}
	fmt.Print("search words match (listed agents, min/median/max):")
	for _, c := range classes {
		var counts []int
		for _, w := range c.words {
			n, err := matchCount(ctx, db, w, "")
			if err != nil {
				return err
			}
			counts = append(counts, n)
		}
		lo, med, hi := spreadOf(counts)
		fmt.Printf(" %s %d/%d/%d;", c.name, lo, med, hi)
	}
	fmt.Println()
	return nil
}

// spreadOf is the minimum, median (lower middle) and maximum of xs.
func spreadOf(xs []int) (lo, med, hi int) {
	if len(xs) == 0 {
		return 0, 0, 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[0], s[(len(s)-1)/2], s[len(s)-1]
}

// loadAvg is /proc/loadavg's first three fields ("?" elsewhere).
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "marketplace-bench:", err)
	os.Exit(1)
}
