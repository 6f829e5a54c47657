// Package benchstack is what the benches of the running local stack share
// (bench/conversations, bench/mail): users signed up on the Firebase Auth
// emulator and onboarded through the gateway, agents created through the
// gateway, wallets funded over the wallet's internal gRPC API, and the
// latency summaries they print.
package benchstack

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

// API talks to the gateway and the Auth emulator.
type API struct {
	Base, Emulator, APIKey string
	HC                     *http.Client
	Wait                   time.Duration                    // how long setup calls retry a stack that is (re)starting
	Health                 []string                         // readiness URLs WaitHealthy polls besides the gateway's /healthz
	Run                    string                           // the run's id, part of every signed-up name
	Logf                   func(format string, args ...any) // progress lines (nil: none)

	seq atomic.Int64
}

// NewHTTPClient is the benches' client: no proxy, many idle connections, HTTP/1.1.
func NewHTTPClient() *http.Client {
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

// Account is one signed-up user.
type Account struct {
	UID, Email, Token string
}

// HTTPError is a non-2xx answer in the platform shape.
type HTTPError struct {
	Status  int
	Code    string `json:"error"`
	Message string `json:"message"`
}

func (e *HTTPError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

// Retryable: the stack (or one service) is restarting.
func Retryable(err error) bool {
	var he *HTTPError
	if errors.As(err, &he) {
		return he.Status == http.StatusBadGateway || he.Status == http.StatusServiceUnavailable ||
			he.Status == http.StatusGatewayTimeout
	}
	return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

func (a *API) logf(format string, args ...any) {
	if a.Logf != nil {
		a.Logf(format, args...)
	}
}

// Do sends one JSON request; out (if not nil) receives a 2xx body.
func (a *API) Do(ctx context.Context, method, url, token string, body, out any) error {
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
	resp, err := a.HC.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		he := &HTTPError{Status: resp.StatusCode}
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

// DoRetry is Do, retried with back-off while the stack restarts (transport
// errors, 502/503/504), for up to a.Wait.
func (a *API) DoRetry(ctx context.Context, method, url, token string, body, out any) error {
	deadline := time.Now().Add(a.Wait)
	delay := 250 * time.Millisecond
	for {
		err := a.Do(ctx, method, url, token, body, out)
		if err == nil || !Retryable(err) || time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("%s %s: %w", method, strings.TrimPrefix(url, a.Base), err)
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

// WaitHealthy polls the gateway's /healthz and every a.Health URL until all
// answer 200 (the lead's stack restarts services when code changes).
func (a *API) WaitHealthy(ctx context.Context) error {
	urls := append([]string{a.Base + "/healthz"}, a.Health...)
	deadline := time.Now().Add(a.Wait)
	for {
		var bad []string
		for _, u := range urls {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
			resp, err := a.HC.Do(req)
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
			return fmt.Errorf("stack not healthy after %s: %s", a.Wait, strings.Join(bad, "; "))
		}
		a.logf("waiting for the stack: %s", strings.Join(bad, "; "))
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// Password is the password of every bench account.
const Password = "bench-secret-123"

// SignUp creates an e-mail account on the Auth emulator and onboards it
// through the gateway (identity: POST /api/user/onboarding {displayName}).
// The account is <prefix><run><n>@bench.example.com.
func (a *API) SignUp(ctx context.Context, prefix string) (*Account, error) {
	return a.signUp(ctx, prefix, a.DoRetry)
}

// SignUpOnce is SignUp without retries, each request bounded by timeout: for
// a load that counts what the stack answers rather than waiting it out.
func (a *API) SignUpOnce(ctx context.Context, prefix string, timeout time.Duration) (*Account, error) {
	return a.signUp(ctx, prefix, func(ctx context.Context, method, url, token string, body, out any) error {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		defer cancel()
		return a.Do(cctx, method, url, token, body, out)
	})
}

func (a *API) signUp(ctx context.Context, prefix string, do func(ctx context.Context, method, url, token string, body, out any) error) (*Account, error) {
	n := a.seq.Add(1)
	name := fmt.Sprintf("%s%s%d", prefix, a.Run, n)
	email := strings.ToLower(name) + "@bench.example.com"
	var out struct {
		IDToken string `json:"idToken"`
		LocalID string `json:"localId"`
	}
	url := fmt.Sprintf("%s/identitytoolkit.googleapis.com/v1/accounts:signUp?key=%s", a.Emulator, a.APIKey)
	if err := do(ctx, http.MethodPost, url, "",
		map[string]any{"email": email, "password": Password, "returnSecureToken": true}, &out); err != nil {
		return nil, fmt.Errorf("emulator signUp: %w", err)
	}
	acc := &Account{UID: out.LocalID, Email: email, Token: out.IDToken}
	if err := do(ctx, http.MethodPost, a.Base+"/api/user/onboarding", acc.Token,
		map[string]any{"displayName": name}, nil); err != nil {
		return nil, fmt.Errorf("onboarding: %w", err)
	}
	return acc, nil
}

// Agent is the catalog's answer to POST /api/agents (the fields the benches read).
type Agent struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	Status string `json:"status"`
}

// CreateAgent creates a private agent of owner through the gateway.
func (a *API) CreateAgent(ctx context.Context, owner *Account, name, description, instructions string) (*Agent, error) {
	var ag Agent
	err := a.DoRetry(ctx, http.MethodPost, a.Base+"/api/agents", owner.Token, map[string]any{
		"name": name, "description": description,
		"category": "Education", "isPublic": false, "iconName": "ri-robot-line", "iconColor": "#FF3E00",
		"userId": owner.UID, "instructions": instructions, "tags": []string{"bench"},
	}, &ag)
	if err != nil {
		return nil, fmt.Errorf("create agent: %w", err)
	}
	return &ag, nil
}

// SplitList splits a comma-separated flag value, dropping empty items.
func SplitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// VerifyEmail marks acc's e-mail address verified on the Auth emulator (its
// admin API, "Bearer owner") and signs in again, so acc.Token carries
// email_verified: true: the catalog activates invitations only for verified
// addresses (docs/catalog.md).
func (a *API) VerifyEmail(ctx context.Context, acc *Account) error {
	url := fmt.Sprintf("%s/identitytoolkit.googleapis.com/v1/accounts:update?key=%s", a.Emulator, a.APIKey)
	if err := a.DoRetry(ctx, http.MethodPost, url, "owner",
		map[string]any{"localId": acc.UID, "emailVerified": true}, nil); err != nil {
		return fmt.Errorf("emulator verify e-mail: %w", err)
	}
	var out struct {
		IDToken string `json:"idToken"`
	}
	url = fmt.Sprintf("%s/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=%s", a.Emulator, a.APIKey)
	if err := a.DoRetry(ctx, http.MethodPost, url, "",
		map[string]any{"email": acc.Email, "password": Password, "returnSecureToken": true}, &out); err != nil {
		return fmt.Errorf("emulator sign-in: %w", err)
	}
	acc.Token = out.IDToken
	return nil
}
