package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
)

// tally counts requests by operation and outcome.
type tally struct {
	mu  sync.Mutex
	ops map[string]map[string]int // op → outcome → count
	// failures over time, for "last failure after the fault ended"
	lastFail  time.Time
	firstFail time.Time
}

func newTally() *tally { return &tally{ops: map[string]map[string]int{}} }

func (t *tally) add(op, out string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	m := t.ops[op]
	if m == nil {
		m = map[string]int{}
		t.ops[op] = m
	}
	m[out]++
	if out != "ok" {
		now := time.Now()
		t.lastFail = now
		if t.firstFail.IsZero() {
			t.firstFail = now
		}
	}
}

// totals: attempted, succeeded, failures by outcome.
func (t *tally) totals() (int, int, map[string]int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	att, ok := 0, 0
	fails := map[string]int{}
	for _, m := range t.ops {
		for k, n := range m {
			att += n
			if k == "ok" {
				ok += n
			} else {
				fails[k] += n
			}
		}
	}
	return att, ok, fails
}

func fmtCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

// summary is "attempted N, succeeded M, failed: 503 ×3, transport ×2".
func (t *tally) summary() string {
	att, ok, fails := t.totals()
	return fmt.Sprintf("%d attempted, %d succeeded, failed: %s", att, ok, fmtCounts(fails))
}

// byOp is one line per operation.
func (t *tally) byOp() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var out []string
	for _, op := range slices.Sorted(maps.Keys(t.ops)) {
		m := t.ops[op]
		att, ok := 0, 0
		fails := map[string]int{}
		for k, n := range m {
			att += n
			if k == "ok" {
				ok += n
			} else {
				fails[k] += n
			}
		}
		line := fmt.Sprintf("%-13s %4d/%-4d", op, ok, att)
		if len(fails) > 0 {
			line += "  failed: " + fmtCounts(fails)
		}
		out = append(out, line)
	}
	return out
}

// paidSession is a top-up paid on the Stripe simulator.
type paidSession struct {
	id, uid string
	cents   int64
}

// load drives the realistic mix: sign-ups, agent edits and reads, chat
// answers, consumer answers of the listed agent ("market"), top-ups through
// the Stripe simulator, balance and dashboard reads. One worker per load
// user, each pacing itself (chat and market together ≤ 1 message per
// chatEvery, top-up ≤ 1 per topupEvery: the services' per-user limits).
type load struct {
	s          *stack
	users      []*user
	pause      time.Duration
	chatEvery  time.Duration
	topupEvery time.Duration
	// market is the listed agent the load users consult as consumers
	// ("": the op is skipped).
	market string

	mu       sync.Mutex
	sessions []paidSession
	t        *tally
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// loadOps: chat and market are five steps apart and share the pacing (one
// message per chatEvery per user: CHAT_RATE_LIMIT counts every agent).
var loadOps = []string{"agent.edit", "agent.get", "balance", "chat", "activities", "agent.edit", "documents", "signup", "market", "topup", "agents.list"}

// start runs the workers until stop; it returns the tally they fill.
func (l *load) start(ctx context.Context) *tally {
	l.t = newTally()
	ctx, l.cancel = context.WithCancel(ctx)
	for i, u := range l.users {
		l.wg.Go(func() {
			for step := i; ctx.Err() == nil; step++ {
				op := loadOps[step%len(loadOps)]
				out, done := l.run(ctx, u, op)
				if ctx.Err() != nil {
					return
				}
				if done {
					l.t.add(op, out)
				}
				select {
				case <-ctx.Done():
					return
				case <-time.After(l.pause):
				}
			}
		})
	}
	return l.t
}

func (l *load) stop() *tally {
	l.cancel()
	l.wg.Wait()
	return l.t
}

// run performs one operation; done is false when pacing skipped it.
func (l *load) run(ctx context.Context, u *user, op string) (string, bool) {
	s := l.s
	switch op {
	case "agent.edit":
		return outcome(s.editAgent(ctx, u)), true
	case "agent.get":
		return outcome(s.get(ctx, u, "/api/agents/"+u.agentID)), true
	case "agents.list":
		return outcome(s.get(ctx, u, "/api/agents")), true
	case "documents":
		return outcome(s.get(ctx, u, "/api/agents/"+u.agentID+"/documents")), true
	case "balance":
		return outcome(s.get(ctx, u, "/api/user/balance")), true
	case "activities":
		return outcome(s.get(ctx, u, "/api/activities")), true
	case "signup":
		_, err := s.SignUpOnce(ctx, "load", 15*time.Second)
		return outcome(err), true
	case "chat":
		if time.Since(u.lastChat) < l.chatEvery {
			return "", false
		}
		u.lastChat = time.Now()
		if u.conv == "" || u.turns >= 4 {
			c, err := s.newConversation(ctx, u)
			if err != nil {
				return outcome(err), true
			}
			u.conv, u.turns = c, 0
		}
		u.turns++
		_, err := s.chat(ctx, u, "What can you help me with today?")
		return outcome(err), true
	case "market":
		// A consumer answer of the listed agent: the load user pays cost +
		// fee + markup (+ the greeting with a conversation's first answer)
		// from their wallet; the creator earns markup + greeting.
		if l.market == "" || time.Since(u.lastChat) < l.chatEvery {
			return "", false
		}
		u.lastChat = time.Now()
		if u.mconv == "" || u.mturns >= 3 {
			c, err := s.newConversationWith(ctx, u, l.market)
			if err != nil {
				return outcome(err), true
			}
			u.mconv, u.mturns = c, 0
		}
		u.mturns++
		_, err := s.chatIn(ctx, u, u.mconv, "What does your document cover?")
		return outcome(err), true
	case "topup":
		if time.Since(u.lastTopup) < l.topupEvery {
			return "", false
		}
		u.lastTopup = time.Now()
		id, err := s.topUp(ctx, u, 500)
		if id != "" {
			// Paid or not, the session must end credited at most once; a paid
			// one (the simulator accepted Pay) exactly once.
			if err == nil {
				l.mu.Lock()
				l.sessions = append(l.sessions, paidSession{id: id, uid: u.UID, cents: 500})
				l.mu.Unlock()
			}
		}
		return outcome(err), true
	}
	return "unknown op", true
}

func (l *load) paid() []paidSession {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.sessions)
}
