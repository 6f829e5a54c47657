// Command mail-bench measures the mail service of the running local stack
// (issue 15, "Speed and limits"; docs/mail.md). Not part of `make test`; it
// only sends traffic to a stack that is already up (make dev / Tilt), on
// loopback, bounded in count (-messages) and time (-timeout):
//
//  1. setup: -senders owners are signed up on the Auth emulator, onboarded
//     through the gateway, given one agent each and funded through the
//     wallet's internal gRPC Credit (the $10 agent fee + the answers);
//  2. maildev is emptied (DELETE /api/email/all);
//  3. every owner sends -messages/-senders e-mails to its agent over SMTP
//     (one session per sender, all senders at once); prints accepted
//     messages per second;
//  4. maildev (GET /api/email) is polled until every accepted message has a
//     reply (In-Reply-To = the sent Message-ID) or -timeout passes; prints
//     p50/p99 of 250 OK → reply in maildev (target p99 ≤ 2 s) and the
//     missing replies.
//
// The mail service answers at most MAIL_SENDER_HOURLY_LIMIT (30) messages
// per sender per hour: keep -messages/-senders under it (fresh senders are
// signed up on every run).
//
//	go run ./bench/mail
//	go run ./bench/mail -senders 10 -messages 100   # a smaller run
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"flag"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// logf prints progress on stderr (benchstack.Logf; -v=false silences it).
var logf = benchstack.Logf

type config struct {
	smtpAddr, maildev string
	senders, messages int
	hourlyLimit       int
	rate              float64
	fund              int64
	timeout, poll     time.Duration
	target            time.Duration
	setupPar          int
}

func main() {
	smtpAddr := flag.String("smtp", "127.0.0.1:2525", "the mail service's SMTP address (MAIL_SMTP_ADDR)")
	base := flag.String("base", "http://localhost:8080", "gateway origin")
	maildev := flag.String("maildev", "http://127.0.0.1:1080", "maildev origin (REST API under /api)")
	emulator := flag.String("emulator", "http://127.0.0.1:9099", "Firebase Auth emulator origin")
	apiKey := flag.String("api-key", "demo-api-key", "Firebase Web API key (emulator: any)")
	walletAddr := flag.String("wallet-grpc", "127.0.0.1:9104", "wallet internal gRPC address")
	health := flag.String("health", "http://127.0.0.1:8101/readyz,http://127.0.0.1:8102/readyz,http://127.0.0.1:8104/readyz,http://127.0.0.1:8106/readyz,http://127.0.0.1:8107/readyz",
		"readiness URLs waited for before the run (comma-separated)")
	wait := flag.Duration("wait", 60*time.Second, "how long setup waits for a (re)starting stack")
	senders := flag.Int("senders", 50, "senders (owners, one agent each), all sending at once")
	messages := flag.Int("messages", 1000, "messages in all (spread evenly over the senders)")
	hourly := flag.Int("hourly-limit", 30, "the service's MAIL_SENDER_HOURLY_LIMIT (messages per sender are checked against it)")
	fund := flag.Int64("fund", 25_000_000, "µ$ credited to every owner (the $10 agent fee + the answers)")
	rate := flag.Float64("rate", 0, "messages per second over all senders (0: every sender sends as fast as SMTP accepts: a burst)")
	timeout := flag.Duration("timeout", 3*time.Minute, "bound of the wait for replies after the last message is accepted")
	poll := flag.Duration("poll", 250*time.Millisecond, "maildev polling interval")
	target := flag.Duration("target", 2*time.Second, "p99 target of 250 OK → reply in maildev")
	setupPar := flag.Int("setup-concurrency", 8, "parallel sign-ups during setup")
	flag.BoolVar(&benchstack.Verbose, "v", true, "progress on stderr")
	flag.Parse()

	cfg := config{smtpAddr: *smtpAddr, maildev: strings.TrimRight(*maildev, "/"), senders: *senders, messages: *messages,
		hourlyLimit: *hourly, rate: *rate, fund: *fund, timeout: *timeout, poll: *poll, target: *target, setupPar: max(1, *setupPar)}
	if err := cfg.check(); err != nil {
		fatal(err)
	}
	for _, u := range append([]string{*base, cfg.maildev, *emulator}, benchstack.SplitList(*health)...) {
		if err := loopbackURL(u); err != nil {
			fatal(err)
		}
	}
	for _, a := range []string{cfg.smtpAddr, *walletAddr} {
		if err := loopbackHostPort(a); err != nil {
			fatal(err)
		}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	run := hex.EncodeToString(b)

	a := &benchstack.API{Base: strings.TrimRight(*base, "/"), Emulator: strings.TrimRight(*emulator, "/"), APIKey: *apiKey,
		HC: benchstack.NewHTTPClient(), Wait: *wait, Run: run, Health: benchstack.SplitList(*health), Logf: logf}
	w, err := benchstack.DialWallet(*walletAddr, "bench-mail", run, *wait)
	if err != nil {
		fatal(err)
	}
	defer w.Conn.Close()

	fmt.Printf("bench/mail run %s at %s — SMTP %s, maildev %s, %d senders × %d messages\n",
		run, time.Now().Format(time.RFC3339), cfg.smtpAddr, cfg.maildev, cfg.senders, cfg.messages)
	if err := a.WaitHealthy(ctx); err != nil {
		fatal(err)
	}
	md := &maildevClient{base: cfg.maildev, hc: a.HC}
	if err := md.ping(ctx); err != nil {
		fatal(err)
	}
	rep, err := runBench(ctx, a, w, md, cfg)
	if err != nil {
		fatal(err)
	}
	rep.print(os.Stdout, cfg)
	if !rep.pass(cfg) {
		os.Exit(1)
	}
}

func (c config) check() error {
	switch {
	case c.rate < 0:
		return fmt.Errorf("-rate must not be negative")
	case c.senders < 1 || c.messages < 1:
		return fmt.Errorf("-senders and -messages must be positive")
	case c.messages > 100_000 || c.senders > 1_000:
		return fmt.Errorf("at most 100000 messages and 1000 senders")
	case c.timeout <= 0 || c.timeout > time.Hour:
		return fmt.Errorf("-timeout must be in (0, 1h]")
	case c.poll <= 0:
		return fmt.Errorf("-poll must be positive")
	}
	if per := perSender(c.messages, c.senders, 0); c.hourlyLimit > 0 && per > c.hourlyLimit {
		return fmt.Errorf("%d messages from %d senders is up to %d per sender, over the service's hourly limit %d (MAIL_SENDER_HOURLY_LIMIT): use more senders",
			c.messages, c.senders, per, c.hourlyLimit)
	}
	return nil
}

// perSender is how many of n messages sender i of k sends (the first n%k send one more).
func perSender(n, k, i int) int {
	q := n / k
	if i < n%k {
		q++
	}
	return q
}

// loopbackURL refuses an origin whose host is not a loopback address or localhost.
func loopbackURL(s string) error {
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	return loopbackHost(u.Hostname(), s)
}

func loopbackHostPort(s string) error {
	h, _, err := net.SplitHostPort(s)
	if err != nil {
		return err
	}
	return loopbackHost(h, s)
}

func loopbackHost(h, what string) error {
	if h == "localhost" {
		return nil
	}
	if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: not a loopback address (the bench only talks to the local stack)", what)
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "mail-bench:", err)
	os.Exit(2)
}
