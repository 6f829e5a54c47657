package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/agentic-app/agentic/bench/benchstack"
)

const instructions = "Answer the user's e-mail briefly and helpfully."

// sender is one owner with its agent.
type sender struct {
	acc   *benchstack.Account
	agent *benchstack.Agent
}

type report struct {
	setup               time.Duration
	attempted, accepted int
	sendElapsed         time.Duration
	refusals            map[string]int // SMTP outcome → count
	latencies           []time.Duration
	observedLatencies   []time.Duration // 250 OK → first poll that saw the reply
	// MAIL FROM → first poll that saw the reply: the sender's whole wait,
	// including the inbox's pacing (services/mail/internal/inflow).
	senderLatencies     []time.Duration
	missing, duplicates int
	waited              time.Duration
	missingIDs          []string
}

func runBench(ctx context.Context, a *benchstack.API, w *benchstack.Wallet, md *maildevClient, cfg config) (*report, error) {
	rep := &report{refusals: map[string]int{}}
	t0 := time.Now()
	senders, err := setupSenders(ctx, a, w, cfg)
	if err != nil {
		return nil, err
	}
	rep.setup = time.Since(t0)
	logf("setup: %d senders ready in %s", len(senders), rep.setup.Round(time.Millisecond))

	if err := md.clear(ctx); err != nil {
		return nil, err
	}

	// The poller runs during the send so that early replies are seen as they arrive.
	var mu sync.Mutex
	accepted := map[string]time.Time{} // Message-ID → 250 OK
	begun := map[string]time.Time{}    // Message-ID → MAIL FROM sent
	seen := map[string]time.Time{}     // Message-ID → first poll that saw its reply
	arrivedAt := map[string]time.Time{}
	replyCount := map[string]int{}
	var sendDone atomic.Bool
	var lastAccept atomic.Int64
	pollErr := make(chan error, 1)
	pollCtx, stopPoll := context.WithCancel(ctx)
	defer stopPoll()
	go func() {
		pollErr <- func() error {
			tick := time.NewTicker(cfg.poll)
			defer tick.Stop()
			fails := 0
			for {
				select {
				case <-pollCtx.Done():
					return nil
				case <-tick.C:
				}
				emails, err := md.list(pollCtx)
				now := time.Now()
				if err != nil {
					if pollCtx.Err() != nil {
						return nil
					}
					if fails++; fails > 20 {
						return err
					}
					logf("maildev: %v", err)
					continue
				}
				fails = 0
				mu.Lock()
				counts := map[string]int{}
				for _, e := range emails {
					id := e.inReplyTo()
					if id == "" {
						continue
					}
					counts[id]++
					if _, ok := seen[id]; !ok {
						seen[id] = now
						if t, ok := e.arrived(); ok {
							arrivedAt[id] = t
						}
					}
				}
				for id, n := range counts {
					replyCount[id] = n
				}
				done := sendDone.Load() && answeredAll(accepted, seen)
				mu.Unlock()
				if done {
					return nil
				}
				if sendDone.Load() && now.Sub(time.Unix(0, lastAccept.Load())) > cfg.timeout {
					return nil
				}
			}
		}()
	}()

	logf("send: %d messages from %d senders to %s (%s)", cfg.messages, len(senders), cfg.smtpAddr, rateLabel(cfg.rate))
	pace := newPacer(cfg.rate)
	var wg sync.WaitGroup
	var attempted atomic.Int64
	start := time.Now()
	for s, snd := range senders {
		n := perSender(cfg.messages, len(senders), s)
		wg.Go(func() {
			outcomes := sendAll(ctx, cfg.smtpAddr, a.Run, s, snd, n, pace, func(id string, began, at time.Time) {
				mu.Lock()
				accepted[id] = at
				begun[id] = began
				mu.Unlock()
				lastAccept.Store(at.UnixNano())
			})
			attempted.Add(int64(n))
			mu.Lock()
			for k, v := range outcomes {
				rep.refusals[k] += v
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	rep.sendElapsed = time.Since(start)
	if lastAccept.Load() == 0 {
		lastAccept.Store(time.Now().UnixNano())
	}
	sendDone.Store(true)
	logf("send: done in %s; waiting up to %s for the replies", rep.sendElapsed.Round(time.Millisecond), cfg.timeout)
	waitStart := time.Now()
	err = <-pollErr
	rep.waited = time.Since(waitStart)
	if err != nil {
		return nil, err
	}

	mu.Lock()
	defer mu.Unlock()
	rep.attempted = int(attempted.Load())
	rep.accepted = len(accepted)
	for id, at := range accepted {
		obs, ok := seen[id]
		if !ok {
			rep.missing++
			rep.missingIDs = append(rep.missingIDs, id)
			continue
		}
		rep.latencies = append(rep.latencies, replyLatency(at, obs, arrivedAt[id]))
		rep.observedLatencies = append(rep.observedLatencies, obs.Sub(at))
		rep.senderLatencies = append(rep.senderLatencies, obs.Sub(begun[id]))
		if replyCount[id] > 1 {
			rep.duplicates += replyCount[id] - 1
		}
	}
	sort.Strings(rep.missingIDs)
	return rep, nil
}

// replyLatency is 250 OK → the reply's arrival at maildev: maildev's own
// receipt time when it has one (same host clock), clamped to [0, first poll
// that saw it]; else the poll's time.
func replyLatency(accepted, observed, arrived time.Time) time.Duration {
	if arrived.IsZero() || arrived.After(observed) {
		return observed.Sub(accepted)
	}
	return max(0, arrived.Sub(accepted))
}

func answeredAll(accepted, seen map[string]time.Time) bool {
	for id := range accepted {
		if _, ok := seen[id]; !ok {
			return false
		}
	}
	return true
}

// sendAll sends n messages from one sender over one SMTP session (reopened
// after a connection failure); returns the outcomes other than 250.
func sendAll(ctx context.Context, addr, run string, s int, snd sender, n int, pace *pacer, ok func(id string, began, at time.Time)) map[string]int {
	out := map[string]int{}
	var c *smtp.Client
	defer func() {
		if c != nil {
			_ = c.Quit()
			c.Close()
		}
	}()
	for i := 0; i < n && ctx.Err() == nil; i++ {
		if c == nil {
			var err error
			c, err = dial(addr)
			if err != nil {
				out["connect: "+short(err)]++
				continue
			}
		}
		if !pace.wait(ctx) {
			break
		}
		m := outgoing{From: snd.acc.Email, To: snd.agent.Email, Subject: fmt.Sprintf("Bench question %d", i+1),
			Body: question(s, i) + "\n\nThanks!\n", MessageID: newMessageID(run, s, i), Date: time.Now()}
		began := time.Now()
		at, err := sendOne(c, m)
		if err == nil {
			ok(m.MessageID, began, at)
			continue
		}
		out[outcome(err)]++
		var se *smtp.SMTPError
		if errors.As(err, &se) {
			_ = c.Reset()
		} else {
			c.Close()
			c = nil
		}
	}
	return out
}

func dial(addr string) (*smtp.Client, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	c := smtp.NewClient(conn)
	c.CommandTimeout = 30 * time.Second
	c.SubmissionTimeout = 60 * time.Second
	if err := c.Hello("bench.example.com"); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}

// sendOne runs MAIL FROM, RCPT TO and DATA; returns when 250 OK to the message was read.
func sendOne(c *smtp.Client, m outgoing) (time.Time, error) {
	if err := c.Mail(m.From, nil); err != nil {
		return time.Time{}, err
	}
	if err := c.Rcpt(m.To, nil); err != nil {
		return time.Time{}, err
	}
	wc, err := c.Data()
	if err != nil {
		return time.Time{}, err
	}
	if _, err := io.Copy(wc, bytes.NewReader(m.build())); err != nil {
		return time.Time{}, err
	}
	if err := wc.Close(); err != nil {
		return time.Time{}, err
	}
	return time.Now(), nil
}

// outcome is the key a failed send is counted by: "550 5.7.1" or the error.
func outcome(err error) string {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		return fmt.Sprintf("%d %d.%d.%d %s", se.Code, se.EnhancedCode[0], se.EnhancedCode[1], se.EnhancedCode[2], short(errors.New(se.Message)))
	}
	return short(err)
}

func short(err error) string {
	s := err.Error()
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// setupSenders signs up cfg.senders owners, each with one agent, funded.
func setupSenders(ctx context.Context, a *benchstack.API, w *benchstack.Wallet, cfg config) ([]sender, error) {
	out := make([]sender, cfg.senders)
	var firstErr error
	var mu sync.Mutex
	sem := make(chan struct{}, cfg.setupPar)
	var wg sync.WaitGroup
	var done atomic.Int64
	for i := range out {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			s, err := func() (sender, error) {
				owner, err := a.SignUp(ctx, "mailer")
				if err != nil {
					return sender{}, err
				}
				ag, err := createAgent(ctx, a, owner, fmt.Sprintf("Bench Mail %d", i+1), instructions)
				if err != nil {
					return sender{}, err
				}
				if ag.Status != "" && ag.Status != "active" {
					return sender{}, fmt.Errorf("agent %s is %q, not active", ag.ID, ag.Status)
				}
				if err := w.Credit(ctx, owner.UID, cfg.fund, "bench/mail: funding"); err != nil {
					return sender{}, fmt.Errorf("credit: %w", err)
				}
				return sender{acc: owner, agent: ag}, nil
			}()
			mu.Lock()
			defer mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
			}
			out[i] = s
			if d := done.Add(1); d%10 == 0 || int(d) == cfg.senders {
				logf("setup: %d/%d senders ready", d, cfg.senders)
			}
		})
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func (r *report) print(w io.Writer, cfg config) {
	fmt.Fprintf(w, "\n== Mail: %d messages from %d senders over SMTP (setup %s)\n", r.attempted, cfg.senders, r.setup.Round(time.Millisecond))
	rate := 0.0
	if r.sendElapsed > 0 {
		rate = float64(r.accepted) / r.sendElapsed.Seconds()
	}
	fmt.Fprintf(w, "  accepted (250 OK)     %d of %d in %s: %.1f messages/s\n", r.accepted, r.attempted, r.sendElapsed.Round(time.Millisecond), rate)
	if len(r.refusals) > 0 {
		keys := make([]string, 0, len(r.refusals))
		for k := range r.refusals {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			fmt.Fprintf(w, "  not accepted          %-40s ×%d\n", k, r.refusals[k])
		}
	}
	// maildev's "time" is the reply's Date header when it has one, not when
	// maildev received it, so the target is judged on what the poller saw
	// (an upper bound, late by at most one poll interval).
	fmt.Fprintf(w, "  250 OK → reply seen   %s  (poll every %s: late by at most one poll)\n", benchstack.Dist(r.observedLatencies), cfg.poll)
	fmt.Fprintf(w, "  (maildev \"time\")      %s  (the reply's Date header, not its receipt: not used for the target)\n", benchstack.Dist(r.latencies))
	fmt.Fprintf(w, "  MAIL FROM → reply     %s  (the sender's whole wait: the inbox's pacing at MAIL FROM included)\n", benchstack.Dist(r.senderLatencies))
	p99 := benchstack.Quantile(benchstack.SortedCopy(r.observedLatencies), .99)
	verdict := "PASS"
	if p99 > cfg.target || len(r.observedLatencies) == 0 {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "  p99 target ≤ %s       %s (p99 %s)\n", cfg.target, verdict, benchstack.MS(p99))
	fmt.Fprintf(w, "  replies               %d of %d; missing %d after waiting %s (bound %s); duplicate replies %d\n",
		r.accepted-r.missing, r.accepted, r.missing, r.waited.Round(time.Millisecond), cfg.timeout, r.duplicates)
	if len(r.missingIDs) > 0 {
		fmt.Fprintf(w, "  missing, first: %s\n", strings.Join(r.missingIDs[:min(5, len(r.missingIDs))], ", "))
	}
}

func (r *report) pass(cfg config) bool {
	return r.accepted == r.attempted && r.missing == 0 && r.duplicates == 0 && len(r.observedLatencies) > 0 &&
		benchstack.Quantile(benchstack.SortedCopy(r.observedLatencies), .99) <= cfg.target
}

// pacer spaces the messages of all senders evenly at a rate per second
// (nil: no pacing, a burst).
type pacer struct {
	mu    sync.Mutex
	next  time.Time
	every time.Duration
}

func newPacer(rate float64) *pacer {
	if rate <= 0 {
		return nil
	}
	return &pacer{every: time.Duration(float64(time.Second) / rate)}
}

// wait blocks until the next message's slot; false when ctx ended first.
func (p *pacer) wait(ctx context.Context) bool {
	if p == nil || ctx.Err() != nil {
		return ctx.Err() == nil
	}
	p.mu.Lock()
	now := time.Now()
	if p.next.Before(now) {
		p.next = now
	}
	slot := p.next
	p.next = p.next.Add(p.every)
	p.mu.Unlock()
	select {
	case <-ctx.Done():
		return false
	case <-time.After(time.Until(slot)):
		return true
	}
}

func rateLabel(rate float64) string {
	if rate <= 0 {
		return "burst: every sender as fast as SMTP accepts"
	}
	return fmt.Sprintf("paced at %g messages/s", rate)
}
