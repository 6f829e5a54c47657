package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/agentic-app/agentic/bench/benchstack"
)

// loopbackOnly refuses any URL or host:port that is not on a loopback
// address: the suite injects faults into the local stack only.
func loopbackOnly(raw string) error {
	host := raw
	if strings.Contains(raw, "://") {
		u, err := url.Parse(raw)
		if err != nil || u.Hostname() == "" {
			return fmt.Errorf("%q is not a URL", raw)
		}
		host = u.Hostname()
	} else if h, _, err := net.SplitHostPort(raw); err == nil {
		host = h
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address: the fault suite only runs against the local stack", host)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// outcome is how one request ended: "ok", an HTTP status ("503"), or
// "transport" (connection refused/reset, timeout).
func outcome(err error) string {
	if err == nil {
		return "ok"
	}
	var he *benchstack.HTTPError
	if errors.As(err, &he) {
		return fmt.Sprintf("%d", he.Status)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "timeout"
	}
	return "transport"
}

// user is one signed-up account of the suite with its agent.
type user struct {
	benchstack.Account
	agentID string
	conv    string
	turns   int
	// as a consumer of the listed agent (load op "market")
	mconv  string
	mturns int
	// pacing (one goroutine at a time)
	lastChat, lastTopup time.Time
}

// stack is the suite's client of the gateway, the Auth emulator, the Stripe
// simulator and the wallet's gRPC API.
type stack struct {
	*benchstack.API
	wallet    *benchstack.Wallet
	stripeSim string
	simKey    string
	driveSim  string
	noRedir   *http.Client
}

// do is one request without retries, bounded by timeout.
func (s *stack) do(ctx context.Context, timeout time.Duration, method, u, token string, body, out any) error {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return s.Do(cctx, method, u, token, body, out)
}

// newUser signs up (retrying while the stack restarts), creates an agent and
// credits the wallet with fund micro-dollars.
func (s *stack) newUser(ctx context.Context, prefix string, fund int64) (*user, error) {
	acc, err := s.SignUp(ctx, prefix)
	if err != nil {
		return nil, err
	}
	ag, err := s.CreateAgent(ctx, acc, "Fault "+prefix+" "+s.Run, "An agent of the fault suite (bench/faults).", "Answer in one short sentence.")
	if err != nil {
		return nil, err
	}
	if fund > 0 {
		if err := s.wallet.Credit(ctx, acc.UID, fund, "bench/faults: funding"); err != nil {
			return nil, fmt.Errorf("credit: %w", err)
		}
	}
	return &user{Account: *acc, agentID: ag.ID}, nil
}

func (s *stack) editAgent(ctx context.Context, u *user) error {
	return s.do(ctx, 10*time.Second, http.MethodPatch, s.Base+"/api/agents/"+u.agentID, u.Token,
		map[string]any{"description": "Edited by the fault suite at " + time.Now().Format(time.RFC3339Nano)}, nil)
}

func (s *stack) get(ctx context.Context, u *user, path string) error {
	return s.do(ctx, 10*time.Second, http.MethodGet, s.Base+path, u.Token, nil, nil)
}

func (s *stack) newConversation(ctx context.Context, u *user) (string, error) {
	return s.newConversationWith(ctx, u, u.agentID)
}

// newConversationWith starts a conversation of u with agentID (theirs, or a
// listed agent: u is then a consumer).
func (s *stack) newConversationWith(ctx context.Context, u *user, agentID string) (string, error) {
	var c struct {
		ID string `json:"id"`
	}
	err := s.do(ctx, 10*time.Second, http.MethodPost, s.Base+"/api/agents/"+agentID+"/conversations", u.Token,
		map[string]any{"title": "faults " + s.Run}, &c)
	return c.ID, err
}

type turn struct {
	AssistantMessage struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Usage  *struct {
			TotalMicros    int64 `json:"totalMicros"`
			MarkupMicros   int64 `json:"markupMicros"`
			GreetingMicros int64 `json:"greetingMicros"`
		} `json:"usage"`
	} `json:"assistantMessage"`
}

// chat sends one message (JSON answer, not streamed).
func (s *stack) chat(ctx context.Context, u *user, content string) (*turn, error) {
	return s.chatIn(ctx, u, u.conv, content)
}

// chatIn sends one message in conversation conv (JSON answer, not streamed).
func (s *stack) chatIn(ctx context.Context, u *user, conv, content string) (*turn, error) {
	var t turn
	err := s.do(ctx, 30*time.Second, http.MethodPost, s.Base+"/api/conversations/"+conv+"/messages", u.Token,
		map[string]any{"content": content, "clientMessageId": "faults-" + randomHex(8)}, &t)
	return &t, err
}

// topUp creates a Checkout Session through the gateway and pays it on the
// Stripe simulator's hosted page (which delivers checkout.session.completed).
func (s *stack) topUp(ctx context.Context, u *user, cents int64) (string, error) {
	var cs struct {
		SessionID string `json:"sessionId"`
		URL       string `json:"url"`
	}
	if err := s.do(ctx, 10*time.Second, http.MethodPost, s.Base+"/api/stripe/create-checkout-session", u.Token,
		map[string]any{"amount": cents}, &cs); err != nil {
		return "", err
	}
	return cs.SessionID, s.paySession(ctx, cs.SessionID)
}

// paySession presses Pay on the simulator's hosted page.
func (s *stack) paySession(ctx context.Context, id string) error {
	cctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(cctx, http.MethodPost, s.stripeSim+"/pay/"+id+"/pay", nil)
	resp, err := s.noRedir.Do(req)
	if err != nil {
		return fmt.Errorf("pay %s: %w", id, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther && resp.StatusCode/100 != 2 {
		return &benchstack.HTTPError{Status: resp.StatusCode, Code: "stripesim_pay"}
	}
	return nil
}

// simJSON calls the simulator's API (secret key) or admin routes.
func (s *stack) simJSON(ctx context.Context, method, path string, body any, out any) error {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(cctx, method, s.stripeSim+path, rd)
	req.Header.Set("Authorization", "Bearer "+s.simKey)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.HC.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("stripesim %s %s: HTTP %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(b[:min(len(b), 200)])))
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

// status of one GET (0: transport error).
func (s *stack) status(ctx context.Context, u string) int {
	cctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(cctx, http.MethodGet, u, nil)
	resp, err := s.HC.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}
