// Command conversations-bench measures the chat path of the running local
// stack (issue 14, "Speed and correctness"). Not part of `make test`; it only
// sends traffic to a stack that is already up (make dev / Tilt):
//
//  1. latency: -users concurrent users chat through the gateway (SSE) for
//     -duration; prints answers/s, the client's time to first token, the
//     model's own (the LLM simulator measured directly, same prompt layout and
//     passages, idle and during the run), the platform-added latency (client
//     TTFT − model TTFT) and the service's own histograms, errors by status,
//     and the PostgreSQL statements seen running ≥ 20 ms with what they
//     waited on (pg_stat_activity, sampled every 20 ms; -pg "" turns it off).
//  2. wallet: Charge vs Reserve+Capture per second against the wallet gRPC.
//  3. money: -money-messages concurrent messages against one owner's wallet
//     holding -money-answers worst-case reserves; PASS/FAIL per invariant,
//     exit status 1 on any FAIL. Then the marketplace run (issue 28):
//     -marketplace-consumers consumers of one listed agent, small wallets,
//     two messages each at once; every consumer's wallet ≥ 0, every answer
//     charged once, Σ consumers' expenses = platform revenue + creator
//     earnings to the micro-dollar.
//
// Users are signed up on the Auth emulator's REST API and onboarded through
// the gateway; wallets are funded through the wallet's internal gRPC Credit.
//
//	go run ./bench/conversations                      # everything, 20 s latency run
//	go run ./bench/conversations -phases money        # the money run only
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// logf prints progress on stderr (benchstack.Logf; -v=false silences it).
var logf = benchstack.Logf

func main() {
	base := flag.String("base", "http://localhost:8080", "gateway origin")
	emulator := flag.String("emulator", "http://127.0.0.1:9099", "Firebase Auth emulator origin")
	apiKey := flag.String("api-key", "demo-api-key", "Firebase Web API key (emulator: any)")
	walletAddr := flag.String("wallet-grpc", "127.0.0.1:9104", "wallet internal gRPC address")
	llmURL := flag.String("llm", "http://127.0.0.1:8112", "LLM simulator origin (the model's own TTFT is measured there)")
	llmModel := flag.String("llm-model", "agentic-sim", "model the service answers with (LLM_MODEL)")
	driveSim := flag.String("drive-sim", "http://127.0.0.1:8111", "Drive simulator origin (seeded documents)")
	metricsURL := flag.String("metrics", "http://127.0.0.1:8106/metrics", "the conversations service's /metrics")
	serviceMetrics := flag.String("service-metrics", "http://127.0.0.1:8102/metrics,http://127.0.0.1:8103/metrics,http://127.0.0.1:8104/metrics,http://127.0.0.1:8106/metrics",
		"catalog, documents, wallet and conversations /metrics: where an answer's time goes (comma-separated)")
	health := flag.String("health", "http://127.0.0.1:8101/readyz,http://127.0.0.1:8102/readyz,http://127.0.0.1:8103/readyz,http://127.0.0.1:8104/readyz,http://127.0.0.1:8106/readyz",
		"readiness URLs waited for before each phase (comma-separated)")
	wait := flag.Duration("wait", 60*time.Second, "how long to wait for a (re)starting stack")
	phases := flag.String("phases", "latency,wallet,money", "phases to run; \"cleanup\" alone unlinks the documents of every earlier run's agents")
	project := flag.String("project", "demo-agentic", "Firebase project of the emulator (cleanup)")
	cleanup := flag.Bool("cleanup", true, "unlink the run's documents at the end (linked documents are re-synced every DOCUMENT_SYNC_INTERVAL)")

	users := flag.Int("users", 64, "concurrent users in the latency run")
	duration := flag.Duration("duration", 20*time.Second, "length of the latency run")
	pgDSN := flag.String("pg", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable", "PostgreSQL to sample pg_stat_activity of during the latency run (\"\": not sampled)")
	pgWaitMin := flag.Duration("pg-wait-min", 20*time.Millisecond, "report statements seen running at least this long")
	pgEvery := flag.Duration("pg-every", 20*time.Millisecond, "interval of the pg_stat_activity samples (each costs PostgreSQL about 0.3 ms)")
	samples := flag.String("samples", "", "write each answered message's send time and TTFT to this CSV file (latency phase)")
	think := flag.Duration("think", 0, "mean pause of each user between an answer and its next message (0: closed loop)")
	accounts := flag.Int("accounts-per-user", 4, "accounts each user rotates through (owner + subscribers of its agent) to stay under the per-user rate limit")
	turns := flag.Int("turns", 5, "messages per conversation before a user starts a new one")
	rateLimit := flag.Int("rate-limit", 20, "the service's CHAT_RATE_LIMIT (messages per user per window; 0 = not paced)")
	rateWindow := flag.Duration("rate-window", time.Minute, "the service's CHAT_RATE_WINDOW")
	probeEvery := flag.Duration("probe-every", 200*time.Millisecond, "interval of direct simulator requests during the run")
	setupPar := flag.Int("setup-concurrency", 8, "parallel sign-ups during setup")

	walletDur := flag.Duration("wallet-duration", 5*time.Second, "length of each wallet gRPC run")
	walletConc := flag.Int("wallet-concurrency", 16, "goroutines of the wallet gRPC runs")
	walletUsers := flag.Int("wallet-users", 100, "wallets of the wallet gRPC runs")

	moneyMsgs := flag.Int("money-messages", 200, "concurrent messages of the money run")
	moneyAnswers := flag.Int("money-answers", 50, "worst-case reserves the owner's wallet holds")
	moneySenders := flag.Int("money-senders", 20, "subscribers sending the money run's messages (per-user rate limit)")
	moneyDrain := flag.Bool("money-drain", true, "after the concurrent run, send one message at a time until the first 402")
	mktConsumers := flag.Int("marketplace-consumers", 200, "consumers of one listed agent in the money phase's marketplace run (0: skipped)")
	mktMarkup := flag.Int("marketplace-markup", 50, "markup percent of the marketplace run's agent")
	mktGreeting := flag.Int("marketplace-greeting-cents", 1, "greeting cost (cents) of the marketplace run's agent")
	priceIn := flag.Int64("price-in", 500_000, "input price of the model, µ$ per 1M tokens (agentic-sim)")
	priceOut := flag.Int64("price-out", 1_500_000, "output price of the model, µ$ per 1M tokens (agentic-sim)")
	maxOut := flag.Int("max-output", 1024, "the service's LLM_MAX_OUTPUT_TOKENS")
	flag.BoolVar(&benchstack.Verbose, "v", true, "progress on stderr")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	run := hex.EncodeToString(b)

	a := &api{API: &benchstack.API{Base: strings.TrimRight(*base, "/"), Emulator: strings.TrimRight(*emulator, "/"), APIKey: *apiKey,
		HC: benchstack.NewHTTPClient(), Wait: *wait, Run: run, Health: benchstack.SplitList(*health), Logf: logf}, project: *project}
	w, err := benchstack.DialWallet(*walletAddr, "bench-conv", run, *wait)
	if err != nil {
		fatal(err)
	}
	defer w.Conn.Close()

	load, _ := readLoad1()
	fmt.Printf("bench/conversations run %s at %s — %s, %d CPUs (GOMAXPROCS %d), load average %.1f at start\n",
		run, time.Now().Format(time.RFC3339), a.Base, numCPU(), runtime.GOMAXPROCS(0), load)
	if err := a.WaitHealthy(ctx); err != nil {
		fatal(err)
	}
	if *phases == "cleanup" {
		if err := a.sweep(ctx); err != nil {
			fatal(err)
		}
		return
	}
	doc, err := seededDoc(ctx, a.HC, strings.TrimRight(*driveSim, "/"))
	if err != nil {
		fatal(err)
	}

	var fails []string
	want := map[string]bool{}
	for _, p := range strings.Split(*phases, ",") {
		want[strings.TrimSpace(p)] = true
	}
	if want["latency"] {
		if err := a.WaitHealthy(ctx); err != nil {
			fatal(err)
		}
		f, err := latencyRun(ctx, a, w, latencyConfig{
			users: *users, think: *think, accountsPerUser: max(1, *accounts), turns: max(1, *turns), rateLimit: *rateLimit,
			setupPar: *setupPar, rateWindow: *rateWindow, duration: *duration, fund: 20_000_000,
			simURL: strings.TrimRight(*llmURL, "/"), simModel: *llmModel, metricsURL: *metricsURL, maxOutput: *maxOut,
			samplesPath: *samples, pgDSN: *pgDSN, pgWaitMin: *pgWaitMin, pgEvery: *pgEvery, probeEvery: *probeEvery, serviceMetrics: benchstack.SplitList(*serviceMetrics),
		}, doc)
		if err != nil {
			fails = append(fails, "latency run: "+err.Error())
			fmt.Println("  ERROR", err)
		}
		fails = append(fails, f...)
	}
	if want["wallet"] {
		if err := a.WaitHealthy(ctx); err != nil {
			fatal(err)
		}
		if err := walletBench(ctx, w, *walletUsers, *walletConc, *walletDur); err != nil {
			fails = append(fails, "wallet run: "+err.Error())
			fmt.Println("  ERROR", err)
		}
	}
	if want["money"] {
		if err := a.WaitHealthy(ctx); err != nil {
			fatal(err)
		}
		f, err := moneyRun(ctx, a, w, moneyConfig{
			messages: *moneyMsgs, answers: *moneyAnswers, senders: *moneySenders, setupPar: *setupPar, drain: *moneyDrain,
			price: price{in: *priceIn, out: *priceOut}, maxOut: int64(*maxOut), rateLimit: *rateLimit, rateWindow: *rateWindow,
		}, doc)
		if err != nil {
			f = append(f, "money run: "+err.Error())
			fmt.Println("  ERROR", err)
		}
		fails = append(fails, f...)
		if *mktConsumers > 0 {
			f, err := marketplaceRun(ctx, a, w, marketConfig{
				consumers: *mktConsumers, markup: *mktMarkup, greetingCents: *mktGreeting, setupPar: *setupPar,
				price: price{in: *priceIn, out: *priceOut}, maxOut: int64(*maxOut),
			}, doc)
			if err != nil {
				f = append(f, "marketplace run: "+err.Error())
				fmt.Println("  ERROR", err)
			}
			fails = append(fails, f...)
		}
	}
	if *cleanup {
		a.unlinkAll(context.Background())
	}
	fmt.Println()
	if len(fails) > 0 {
		fmt.Printf("FAIL (%d):\n", len(fails))
		for _, f := range fails {
			fmt.Println("  -", f)
		}
		os.Exit(1)
	}
	fmt.Println("PASS")
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "conversations-bench:", err)
	os.Exit(2)
}
