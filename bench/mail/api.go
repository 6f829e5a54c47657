package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"net"
	"net/http"
	"strings"

	"sync/atomic"
	"time"
)

// api talks to the gateway and the Auth emulator (copied from bench/conversations).
type api struct {
	base, emulator, apiKey string
	hc                     *http.Client
	wait                   time.Duration // how long setup calls retry a stack that is (re)starting
	health                 []string
	seq                    atomic.Int64
	run                    string
}

func newHTTPClient() *http.Client {
	tr := &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 512,
		IdleConnTimeout:     90 * time.Second,
		ForceAttemptHTTP2:   false,
	}
	return &http.Client{Transport: tr}
}

// account is one signed-up user.
type account struct {
	uid, email, token string
}

// httpError is a non-2xx answer in the platform shape.
type httpError struct {
	Status  int
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *httpError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

// retryable: the stack (or one service) is restarting.
func retryable(err error) bool {
	var he *httpError
	if errors.As(err, &he) {
		return he.Status == http.StatusBadGateway || he.Status == http.StatusServiceUnavailable ||
			he.Status == http.StatusGatewayTimeout
	}
	return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

// do sends one JSON request; out (if not nil) receives a 2xx body.
func (a *api) do(ctx context.Context, method, url, token string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		he := &httpError{Status: resp.StatusCode}
		if json.Unmarshal(b, he) != nil || he.Code == "" {
			he.Code = strings.TrimSpace(string(b[:min(len(b), 200)]))
		}
		he.Status = resp.StatusCode
		return he
	}
	if out != nil && len(b) > 0 {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("%s %s: decode: %w", method, url, err)
		}
	}
	return nil
}

// doRetry is do, retried with back-off while the stack restarts (transport
// errors, 502/503/504), for up to a.wait.
func (a *api) doRetry(ctx context.Context, method, url, token string, body, out any) error {
	deadline := time.Now().Add(a.wait)
	delay := 250 * time.Millisecond
	for {
		err := a.do(ctx, method, url, token, body, out)
		if err == nil || !retryable(err) || time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("%s %s: %w", method, strings.TrimPrefix(url, a.base), err)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// waitHealthy polls the gateway's /healthz and every service's /readyz until
// all answer 200 (the lead's stack restarts services when code changes).
func (a *api) waitHealthy(ctx context.Context) error {
	urls := append([]string{a.base + "/healthz"}, a.health...)
	deadline := time.Now().Add(a.wait)
	for {
		var bad []string
		for _, u := range urls {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			resp, err := a.hc.Do(req)
			if err != nil {
				bad = append(bad, u+": "+err.Error())
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				bad = append(bad, fmt.Sprintf("%s: HTTP %d", u, resp.StatusCode))
			}
		}
		if len(bad) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("stack not healthy after %s: %s", a.wait, strings.Join(bad, "; "))
		}
		logf("waiting for the stack: %s", strings.Join(bad, "; "))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// signUp creates an e-mail account on the Auth emulator and onboards it
// through the gateway (identity: POST /api/user/onboarding {displayName}).
func (a *api) signUp(ctx context.Context, prefix string) (*account, error) {
	n := a.seq.Add(1)
	name := fmt.Sprintf("%s%s%d", prefix, a.run, n)
	email := strings.ToLower(name) + "@bench.example.com"
	var out struct {
		IDToken string `json:"idToken"`
		LocalID string `json:"localId"`
	}
	url := fmt.Sprintf("%s/identitytoolkit.googleapis.com/v1/accounts:signUp?key=%s", a.emulator, a.apiKey)
	if err := a.doRetry(ctx, http.MethodPost, url, "",
		map[string]any{"email": email, "password": "bench-secret-123", "returnSecureToken": true}, &out); err != nil {
		return nil, fmt.Errorf("emulator signUp: %w", err)
	}
	acc := &account{uid: out.LocalID, email: email, token: out.IDToken}
	if err := a.doRetry(ctx, http.MethodPost, a.base+"/api/user/onboarding", acc.token,
		map[string]any{"displayName": name}, nil); err != nil {
		return nil, fmt.Errorf("onboarding: %w", err)
	}
	return acc, nil
}

type agent struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	Status string `json:"status"`
}

func (a *api) createAgent(ctx context.Context, owner *account, name, instructions string) (*agent, error) {
	var ag agent
	err := a.doRetry(ctx, http.MethodPost, a.base+"/api/agents", owner.token, map[string]any{
		"name": name, "description": "An agent created by bench/mail to measure e-mail answers.",
		"category": "Education", "isPublic": false, "iconName": "ri-robot-line", "iconColor": "#FF3E00",
		"userId": owner.uid, "instructions": instructions, "tags": []string{"bench"},
	}, &ag)
	if err != nil {
		return nil, fmt.Errorf("create agent: %w", err)
	}
	if ag.Email == "" || !strings.Contains(ag.Email, "@") {
		return nil, fmt.Errorf("create agent: no e-mail address in the answer (agent %s)", ag.ID)
	}
	return &ag, nil
}
