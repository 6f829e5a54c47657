// Command faults is the fault suite of the running local stack (issue 18,
// "Survive faults and attacks"; docs/reliability.md, "Fault suite"). Run it
// with `make faults` against a stack started with `make dev` (Tilt on port
// 10350): it is not part of `make test`. It drives a realistic load
// (sign-ups, agent edits and reads, chat answers, top-ups through the
// Stripe simulator, balance and dashboard reads, consumer answers of a
// listed agent) through the gateway and
// injects, one at a time:
//
//  1. kill -9 of each service under load (the process listening on its
//     HTTP port), restarted with `tilt trigger <service>`;
//  2. the broker (devkafka, Tilt resource "kafka") killed for -outage,
//     then `tilt trigger kafka`;
//  3. Redis down for -outage (`redis-cli shutdown nosave`), restarted like
//     tilt/scripts/redis.sh does (`tilt trigger redis`);
//  4. PostgreSQL restarted (pg_ctlcluster … restart, as postgres.sh manages it);
//  5. -webhooks signed Stripe webhook deliveries with duplicates, replays,
//     other events for the same sessions, attacks, shuffled, concurrency 32;
//     then (5b) -webhooks/2 Stripe Connect deliveries: account.updated for
//     Express accounts in many states and transfer.created/reversed/failed
//     for two real payouts and for unknown transfers (issue 28);
//  6. -charges concurrent answers (agent API) and wallet Charges against a
//     balance for -affordable answers.
//
// For each it prints requests attempted / succeeded / failed by status,
// events produced vs consumed (outbox vs processed_events per consumer
// group), money invariants read from the wallet database (Σ debits = Σ
// credits, balances = transfers, no wallet below zero, every paid Checkout
// Session credited exactly once, every answer charged once), read models
// vs their source (catalog and analytics interaction counts vs captured
// answers) and the time to recover. Loopback only; every scenario is
// bounded in count and time.
//
//	go run ./bench/faults                 # everything (≈ 12 min)
//	go run ./bench/faults -short          # shorter outages, fewer deliveries (≈ 4 min)
//	go run ./bench/faults -only broker    # one scenario: kill, broker, redis, postgres, webhooks, charges
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// logf prints progress on stderr (benchstack.Logf; -v=false silences it).
var logf = benchstack.Logf

type suite struct {
	s         *stack
	db        dbs
	ctl       *control
	load      *load
	probeUser *user
	agents    []string // agents whose read models are checked
	market    *market  // the listed agent of the load (nil: not listed)
	earner    *earner  // the creator whose earnings the Connect storm withdraws (nil: none)

	warm, after, settle, maxRecover time.Duration
	logf                            func(string, ...any)
}

func main() {
	base := flag.String("base", "http://127.0.0.1:8080", "gateway origin")
	emulator := flag.String("emulator", "http://127.0.0.1:9099", "Firebase Auth emulator origin")
	apiKey := flag.String("api-key", "demo-api-key", "Firebase Web API key (emulator: any)")
	walletAddr := flag.String("wallet-grpc", "127.0.0.1:9104", "wallet internal gRPC address (funding)")
	stripeSim := flag.String("stripe-sim", "http://127.0.0.1:8110", "Stripe simulator origin")
	driveSim := flag.String("drive-sim", "http://127.0.0.1:8111", "Drive simulator origin (the listed agent's document)")
	stripeKey := flag.String("stripe-key", "sk_test_agentic_dev", "the simulator's secret key (STRIPE_SECRET_KEY in tilt/lib.tilt)")
	secret := flag.String("webhook-secret", "whsec_agentic_dev", "STRIPE_WEBHOOK_SECRET of the local stack (tilt/lib.tilt)")
	pg := flag.String("pg", "postgres://postgres@127.0.0.1:5432", "PostgreSQL of the local stack (databases agentic_<service>)")
	tiltBin := flag.String("tilt", "tilt", "tilt binary (restarts resources through the running Tilt)")
	tiltPort := flag.Int("tilt-port", 10350, "port of the running Tilt")
	only := flag.String("only", "", "comma-separated scenarios to run: kill, broker, redis, postgres, webhooks (checkout and Connect), charges (default all)")
	killList := flag.String("kill", "", "services to kill -9 (default: all seven; -short: wallet,conversations)")
	short := flag.Bool("short", false, "shorter outages (15 s), 2 services killed, 200 deliveries, 200 concurrent requests")
	outage := flag.Duration("outage", 60*time.Second, "how long the broker and Redis stay down")
	workers := flag.Int("workers", 6, "load users (one worker each)")
	nHooks := flag.Int("webhooks", 1000, "webhook deliveries")
	hookConc := flag.Int("webhook-concurrency", 32, "concurrent webhook deliveries")
	nCharges := flag.Int("charges", 1000, "concurrent answers + charges")
	affordable := flag.Int("affordable", 20, "worst-case answers the small balance covers")
	maxRecover := flag.Duration("max-recover", 90*time.Second, "give up waiting for recovery after this")
	flag.BoolVar(&benchstack.Verbose, "v", true, "progress on stderr")
	flag.Parse()

	if *short {
		if !isSet("outage") {
			*outage = 15 * time.Second
		}
		if !isSet("webhooks") {
			*nHooks = 200
		}
		if !isSet("charges") {
			*nCharges = 200
		}
		if !isSet("workers") {
			*workers = 4
		}
		if *killList == "" {
			*killList = "wallet,conversations"
		}
	}
	*outage = min(max(*outage, time.Second), 5*time.Minute)
	*nHooks = min(max(*nHooks, 20), 5000)
	*nCharges = min(max(*nCharges, 2), 2000)
	*workers = min(max(*workers, 1), 32)
	for _, u := range []string{*base, *emulator, *stripeSim, *driveSim, *pg, *walletAddr} {
		if err := loopbackOnly(u); err != nil {
			fatal(err)
		}
	}
	want := map[string]bool{}
	for _, x := range benchstack.SplitList(*only) {
		want[x] = true
	}
	all := len(want) == 0
	var kill []service
	for _, n := range benchstack.SplitList(*killList) {
		s, ok := serviceByName(n)
		if !ok {
			fatal(fmt.Errorf("-kill: unknown service %q", n))
		}
		kill = append(kill, s)
	}
	if len(kill) == 0 {
		kill = services
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	run := randomHex(3)
	var health []string
	for _, s := range services {
		health = append(health, fmt.Sprintf("http://127.0.0.1:%d/readyz", s.httpPort))
	}
	hc := benchstack.NewHTTPClient()
	noRedir := benchstack.NewHTTPClient()
	noRedir.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	api := &benchstack.API{Base: strings.TrimRight(*base, "/"), Emulator: strings.TrimRight(*emulator, "/"), APIKey: *apiKey,
		HC: hc, Wait: 90 * time.Second, Run: run, Health: health, Logf: logf}
	w, err := benchstack.DialWallet(*walletAddr, "bench-faults", run, 60*time.Second)
	if err != nil {
		fatal(err)
	}
	defer w.Conn.Close()
	st := &suite{
		s: &stack{API: api, wallet: w, stripeSim: strings.TrimRight(*stripeSim, "/"), simKey: *stripeKey, noRedir: noRedir,
			driveSim: strings.TrimRight(*driveSim, "/")},
		ctl:  &control{tilt: *tiltBin, tiltPort: *tiltPort},
		warm: 5 * time.Second, after: 5 * time.Second, settle: 60 * time.Second, maxRecover: *maxRecover, logf: logf,
	}
	if *short {
		st.warm, st.after, st.settle = 3*time.Second, 3*time.Second, 45*time.Second
	}
	st.db, err = openDBs(ctx, *pg)
	if err != nil {
		fatal(err)
	}
	defer st.db.close()

	host, _ := os.Hostname()
	fmt.Printf("bench/faults run %s at %s on %s — %d CPUs, %s; gateway %s\n", run, time.Now().Format(time.RFC3339), host,
		runtime.NumCPU(), memTotal(), api.Base)
	fmt.Printf("settings: outage %s, %d load users, kill %s, %d webhook deliveries (concurrency %d), %d concurrent answers/charges for ~%d affordable answers\n",
		*outage, *workers, names(kill), *nHooks, *hookConc, *nCharges, *affordable)
	if err := api.WaitHealthy(ctx); err != nil {
		fatal(err)
	}
	needTilt := all || want["kill"] || want["broker"] || want["redis"]
	if needTilt {
		if err := st.ctl.tiltUp(ctx); err != nil {
			fatal(fmt.Errorf("the suite restarts resources through Tilt: %w", err))
		}
	}
	for _, tool := range []string{"redis-cli", "pg_ctlcluster", "pg_isready"} {
		if _, err := exec.LookPath(tool); err != nil && (all || want["redis"] || want["postgres"]) {
			fatal(fmt.Errorf("%s not on PATH", tool))
		}
	}

	// Setup: a probe user and the load users (agent + $30 each).
	logf("setup: probe user and %d load users", *workers)
	st.probeUser, err = st.s.newUser(ctx, "probe", 20_000_000)
	if err != nil {
		fatal(err)
	}
	st.agents = append(st.agents, st.probeUser.agentID)
	st.load = &load{s: st.s, pause: 150 * time.Millisecond, chatEvery: 4 * time.Second, topupEvery: 15 * time.Second}
	for range *workers {
		u, err := st.s.newUser(ctx, "load", 30_000_000)
		if err != nil {
			fatal(err)
		}
		st.load.users = append(st.load.users, u)
		st.agents = append(st.agents, u.agentID)
	}

	runIt := func(name string) bool { return (all || want[name]) && ctx.Err() == nil }
	// The marketplace (issue 28): a creator lists an agent the load users
	// consult as consumers (load op "market"); burst consumers for the
	// wallet kill; for the Connect storm, a creator with $20 of earnings
	// (they mature during the other scenarios).
	var setupFails []string
	if docURL, err := st.s.driveDoc(ctx); err != nil {
		setupFails = append(setupFails, "marketplace setup: "+err.Error())
	} else {
		logf("setup: a listed agent (markup 50%%, greeting 1¢) and %d burst consumers", max(4, *workers))
		if st.market, err = st.setupMarket(ctx, docURL, max(4, *workers)); err != nil {
			setupFails = append(setupFails, "marketplace setup: "+err.Error())
			st.market = nil
		} else {
			st.load.market = st.market.agentID
			st.agents = append(st.agents, st.market.agentID)
		}
		if runIt("webhooks") {
			logf("setup: an earner (listed agent, greeting $5, 4 consumer answers)")
			if st.earner, err = st.setupEarner(ctx, docURL); err != nil {
				setupFails = append(setupFails, "earner setup: "+err.Error())
				st.earner = nil
			} else {
				st.agents = append(st.agents, st.earner.creator.agentID)
			}
		}
	}
	for _, f := range setupFails {
		fmt.Println("  SETUP FAIL  " + f)
	}

	var results []*result
	section := func(title string) { fmt.Printf("\n== %s\n", title) }

	if runIt("kill") {
		for i, s := range kill {
			f := fault{
				name:  "kill " + s.name,
				title: fmt.Sprintf("1%c. kill -9 %s under load, restart with `tilt trigger %s`", 'a'+i, s.name, s.name),
				hold:  2 * time.Second,
				inject: func(ctx context.Context) (string, error) {
					k, err := kill9(s.httpPort)
					if err != nil {
						return "", err
					}
					waitPortFree(s.httpPort, 5*time.Second)
					return "SIGKILL " + strings.Join(k, ", "), nil
				},
				restore: func(ctx context.Context) (string, error) {
					if p := listeners(s.httpPort); len(p) > 0 {
						return fmt.Sprintf("already listening again (pid %v): restarted without the suite", p), nil
					}
					return "tilt trigger " + s.name, st.ctl.trigger(ctx, s.name)
				},
				probes:      []string{s.name},
				sampleReady: true,
			}
			if s.name == "conversations" {
				f.probes = append(f.probes, "chat")
			}
			if s.name == "wallet" {
				// Consumer answers between Reserve and Capture when it dies.
				f.prepare = st.consumerBurst
			}
			section(f.title)
			results = append(results, st.faultScenario(ctx, f))
		}
	}
	if runIt("broker") {
		f := fault{
			name:  "broker",
			title: fmt.Sprintf("2. broker down for %s (devkafka killed; `tilt trigger kafka`)", *outage),
			hold:  *outage,
			inject: func(ctx context.Context) (string, error) {
				k, err := kill9(9092)
				if err != nil {
					return "", err
				}
				return "SIGKILL " + strings.Join(k, ", "), nil
			},
			restore: func(ctx context.Context) (string, error) {
				if err := st.ctl.trigger(ctx, "kafka"); err != nil {
					return "tilt trigger kafka", err
				}
				for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
					if len(listeners(9092)) > 0 {
						return "tilt trigger kafka (listening again)", nil
					}
				}
				return "tilt trigger kafka", fmt.Errorf("nothing listens on 9092 after 60 s")
			},
			probes:      []string{"catalog", "wallet", "identity", "analytics"},
			sampleReady: true,
		}
		section(f.title)
		results = append(results, st.faultScenario(ctx, f))
	}
	if runIt("redis") {
		f := fault{
			name:        "redis",
			title:       fmt.Sprintf("3. Redis down for %s (redis-cli shutdown nosave; restarted like tilt/scripts/redis.sh)", *outage),
			hold:        *outage,
			inject:      func(ctx context.Context) (string, error) { return "redis-cli shutdown nosave", st.ctl.redisDown(ctx) },
			restore:     st.ctl.redisUp,
			probes:      []string{"wallet", "catalog", "chat"},
			sampleReady: true,
		}
		section(f.title)
		results = append(results, st.faultScenario(ctx, f))
	}
	if runIt("postgres") {
		var took time.Duration
		f := fault{
			name:  "postgres",
			title: "4. PostgreSQL restarted under load (pg_ctlcluster restart -m fast)",
			hold:  0,
			inject: func(ctx context.Context) (string, error) {
				t0 := time.Now()
				how, err := st.ctl.pgRestart(ctx)
				took = time.Since(t0)
				return fmt.Sprintf("%s (took %.1f s; every connection dropped)", how, took.Seconds()), err
			},
			restore: func(ctx context.Context) (string, error) {
				for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
					if pgReady(ctx) {
						return "pg_isready", nil
					}
				}
				return "pg_isready", fmt.Errorf("PostgreSQL not ready 30 s after the restart")
			},
			probes:      []string{"identity", "catalog", "wallet", "analytics", "conversations", "chat"},
			sampleReady: false,
		}
		section(f.title)
		results = append(results, st.faultScenario(ctx, f))
	}
	if runIt("webhooks") {
		section(fmt.Sprintf("5. %d webhook deliveries", *nHooks))
		start := time.Now()
		r := st.webhookScenario(ctx, webhookConfig{deliveries: *nHooks, concurrency: *hookConc, secret: *secret})
		if r.aborted == nil {
			st.settleAndCheck(ctx, r, start, time.Now(), nil)
		}
		results = append(results, r)
		if ctx.Err() == nil {
			n := max(*nHooks/2, 60)
			section(fmt.Sprintf("5b. Stripe Connect webhook storm (budget %d deliveries)", n))
			start := time.Now()
			r := st.connectScenario(ctx, connectConfig{deliveries: n, concurrency: *hookConc, secret: *secret})
			if r.aborted == nil {
				st.settleAndCheck(ctx, r, start, time.Now(), nil)
			}
			results = append(results, r)
		}
	}
	if runIt("charges") {
		section(fmt.Sprintf("6. %d concurrent answers/charges against a small balance", *nCharges))
		start := time.Now()
		r := st.chargeScenario(ctx, chargeConfig{requests: *nCharges, affordable: *affordable})
		if r.aborted == nil {
			st.settleAndCheck(ctx, r, start, time.Now(), nil)
		}
		results = append(results, r)
	}

	// Whole run: the ledger and the read models once more.
	fmt.Printf("\n== Whole run\n")
	final := &result{name: "final"}
	for _, f := range setupFails {
		final.fail("%s", f)
	}
	if l, err := st.db.checkLedger(context.WithoutCancel(ctx)); err != nil {
		final.fail("ledger: %v", err)
	} else {
		final.check(l.ok(), "ledger balanced, no wallet below zero", "%s", l)
	}
	if rm, err := st.db.checkReadModels(context.WithoutCancel(ctx), st.agents); err != nil {
		final.fail("read models: %v", err)
	} else {
		final.check(rm.ok(), "read models = source", "%s", rm)
	}
	summary(results, final)
	nFail := len(final.fails)
	for _, r := range results {
		nFail += len(r.fails)
	}
	if nFail > 0 {
		fmt.Printf("\nFAIL: %d findings (above)\n", nFail)
		os.Exit(1)
	}
	fmt.Println("\nPASS")
}

// summary prints the results as a Markdown table (docs/reliability.md).
func summary(rs []*result, final *result) {
	fmt.Printf("\n== Summary (Markdown)\n\n")
	fmt.Println("| scenario | requests: ok / attempted (failures) | events: produced → consumed / expected | money | recovery (from restore) | settled (from restore) | verdict |")
	fmt.Println("|---|---|---|---|---|---|---|")
	for _, r := range rs {
		req := "—"
		if r.load != nil {
			att, ok, fails := r.load.totals()
			req = fmt.Sprintf("%d / %d (%s)", ok, att, fmtCounts(fails))
		}
		verdict := "PASS"
		if len(r.fails) > 0 {
			verdict = fmt.Sprintf("FAIL (%d)", len(r.fails))
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s |\n", r.name, req, dash(r.events), dash(r.money), dash(r.recovery), dash(r.settled), verdict)
	}
	v := "PASS"
	if len(final.fails) > 0 {
		v = "FAIL"
	}
	fmt.Printf("| whole run | | | ledger and read models at the end | | | %s |\n", v)
	for _, r := range rs {
		for _, f := range r.fails {
			fmt.Printf("- %s: %s\n", r.name, f)
		}
	}
	for _, f := range final.fails {
		fmt.Printf("- whole run: %s\n", f)
	}
}

func dash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func names(ss []service) string {
	var n []string
	for _, s := range ss {
		n = append(n, s.name)
	}
	return strings.Join(n, ",")
}

func isSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) {
		if f.Name == name {
			set = true
		}
	})
	return set
}

func memTotal() string {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return "memory unknown"
	}
	var kb int64
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "MemTotal:") {
			if _, err := fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "MemTotal:")), "%d", &kb); err != nil {
				return "memory unknown"
			}
		}
	}
	return fmt.Sprintf("%.0f GiB RAM", float64(kb)/(1<<20))
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "faults:", err)
	os.Exit(2)
}
