package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"

	"github.com/agentic-app/agentic/bench/benchstack"
	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
)

// stack talks to the running local stack: the gateway, the Auth emulator
// and the wallet's internal gRPC API (funding only).
type stack struct {
	base, emulator, firebaseKey string
	hc                          *http.Client
	run                         string
	seq                         atomic.Int64
}

func newHTTPClient(conns int) *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        2 * conns,
		MaxIdleConnsPerHost: 2 * conns,
		IdleConnTimeout:     90 * time.Second,
	}}
}

// loopbackOnly refuses any URL whose host is not a loopback address: the
// bench is meant for the local stack only.
func loopbackOnly(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return fmt.Errorf("%q is not a URL", raw)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s is not a loopback address: this bench only runs against the local stack", host)
}

type httpError struct {
	Status int
	Body   string
}

func (e *httpError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Body) }

// do sends one JSON request with a bearer token; out receives a 2xx body.
func (s *stack) do(ctx context.Context, method, u, token string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if resp.StatusCode/100 != 2 {
		return &httpError{Status: resp.StatusCode, Body: strings.TrimSpace(string(b[:min(len(b), 300)]))}
	}
	if out != nil && len(b) > 0 {
		return json.Unmarshal(b, out)
	}
	return nil
}

type account struct{ uid, email, token string }

// signUp creates an account on the Auth emulator and onboards it.
func (s *stack) signUp(ctx context.Context) (*account, error) {
	name := fmt.Sprintf("apibench%s%d", s.run, s.seq.Add(1))
	email := name + "@bench.example.com"
	var out struct {
		IDToken string `json:"idToken"`
		LocalID string `json:"localId"`
	}
	u := fmt.Sprintf("%s/identitytoolkit.googleapis.com/v1/accounts:signUp?key=%s", s.emulator, s.firebaseKey)
	if err := s.do(ctx, http.MethodPost, u, "", map[string]any{"email": email, "password": "bench-secret-123", "returnSecureToken": true}, &out); err != nil {
		return nil, fmt.Errorf("emulator sign-up: %w", err)
	}
	acc := &account{uid: out.LocalID, email: email, token: out.IDToken}
	if err := s.do(ctx, http.MethodPost, s.base+"/api/user/onboarding", acc.token, map[string]any{"displayName": name}, nil); err != nil {
		return nil, fmt.Errorf("onboarding: %w", err)
	}
	return acc, nil
}

func (s *stack) createAgent(ctx context.Context, owner *account) (string, error) {
	var ag struct {
		ID string `json:"id"`
	}
	err := s.do(ctx, http.MethodPost, s.base+"/api/agents", owner.token, map[string]any{
		"name": "API bench " + s.run, "description": "An agent created by bench/agent-api.", "category": "Education",
		"isPublic": false, "iconName": "ri-robot-line", "iconColor": "#FF3E00", "userId": owner.uid,
		"instructions": "Answer briefly.", "tags": []string{"bench"},
	}, &ag)
	return ag.ID, err
}

func (s *stack) createKey(ctx context.Context, owner *account, agentID string, n int) (string, error) {
	var k struct {
		Key string `json:"key"`
	}
	err := s.do(ctx, http.MethodPost, s.base+"/api/agents/"+agentID+"/api-keys", owner.token,
		map[string]any{"name": fmt.Sprintf("bench %s #%d", s.run, n)}, &k)
	return k.Key, err
}

func (s *stack) createConversation(ctx context.Context, owner *account, agentID string) (string, error) {
	var c struct {
		ID string `json:"id"`
	}
	err := s.do(ctx, http.MethodPost, s.base+"/api/agents/"+agentID+"/conversations", owner.token,
		map[string]any{"title": "bench " + s.run}, &c)
	return c.ID, err
}

// fund credits uid through the wallet's internal gRPC API (as the
// development-only "devtools" identity, benchstack.GRPCTransport).
func fund(ctx context.Context, addr, uid, run string, micros int64) error {
	transport, _, err := benchstack.GRPCTransport()
	if err != nil {
		return err
	}
	conn, err := grpc.NewClient(addr, transport)
	if err != nil {
		return err
	}
	defer conn.Close()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = walletv1.NewWalletServiceClient(conn).Credit(cctx, &walletv1.CreditRequest{
		Uid: uid, AmountMicros: micros, IdempotencyKey: "bench-agent-api:" + run + ":" + uid, Description: "bench/agent-api funds",
	})
	return err
}

// sample is one streamed answer as the client saw it.
type sample struct {
	status   int
	code     string
	ttft     time.Duration // request sent → first content
	total    time.Duration // request sent → end of stream
	keyCheck time.Duration // the service's own key check (Server-Timing), -1 when absent
	retry    string        // Retry-After of a 429
	ok       bool
	err      error
}

// serverTiming reads "key;...;dur=<ms>" from a Server-Timing header.
func serverTiming(h string) time.Duration {
	for _, part := range strings.Split(h, ",") {
		fields := strings.Split(strings.TrimSpace(part), ";")
		if len(fields) == 0 || strings.TrimSpace(fields[0]) != "key" {
			continue
		}
		for _, f := range fields[1:] {
			if v, ok := strings.CutPrefix(strings.TrimSpace(f), "dur="); ok {
				if ms, err := strconv.ParseFloat(v, 64); err == nil {
					return time.Duration(ms * float64(time.Millisecond))
				}
			}
		}
	}
	return -1
}

// apiCompletion sends one streamed chat completion with an agent API key
// and reads OpenAI's chunk stream to [DONE].
func (s *stack) apiCompletion(ctx context.Context, key, model, question string) sample {
	body, _ := json.Marshal(map[string]any{"model": model, "stream": true, "stream_options": map[string]any{"include_usage": true},
		"messages": []map[string]string{{"role": "user", "content": question}}})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/api/v1/chat/completions", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	return s.stream(req, func(data []byte) (content, done bool, code string) {
		if string(data) == "[DONE]" {
			return false, true, ""
		}
		var c struct {
			Choices []struct {
				Delta struct {
					Content string `json:"content"`
				} `json:"delta"`
			} `json:"choices"`
			Error *struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if json.Unmarshal(data, &c) != nil {
			return false, false, "bad_chunk"
		}
		if c.Error != nil {
			return false, false, c.Error.Code
		}
		return len(c.Choices) > 0 && c.Choices[0].Delta.Content != "", false, ""
	}, true)
}

// chatMessage sends one chat message (the browser's SSE route) with a
// Firebase token.
func (s *stack) chatMessage(ctx context.Context, token, conv, question, clientID string) sample {
	body, _ := json.Marshal(map[string]string{"content": question, "clientMessageId": clientID})
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.base+"/api/conversations/"+conv+"/messages", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	var event string
	return s.stream(req, func(data []byte) (content, done bool, code string) {
		// The chat stream names its events; stream() hands over data lines
		// only, so the event name comes through the "event:" hook below.
		switch event {
		case "delta":
			return true, false, ""
		case "done":
			return false, true, ""
		case "error":
			var e struct {
				Code string `json:"error"`
			}
			_ = json.Unmarshal(data, &e)
			return false, false, e.Code
		}
		return false, false, ""
	}, false, func(name string) { event = name })
}

// stream runs req and reads its SSE body: onData gets each data payload and
// says whether it carried content, ended the stream, or reported an error.
func (s *stack) stream(req *http.Request, onData func([]byte) (content, done bool, code string), api bool, onEvent ...func(string)) sample {
	sm := sample{keyCheck: -1}
	start := time.Now()
	resp, err := s.hc.Do(req)
	if err != nil {
		sm.err, sm.total = err, time.Since(start)
		return sm
	}
	defer resp.Body.Close()
	sm.status = resp.StatusCode
	if api {
		sm.keyCheck = serverTiming(resp.Header.Get("Server-Timing"))
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
		sm.total = time.Since(start)
		sm.retry = resp.Header.Get("Retry-After")
		var e struct {
			Error json.RawMessage `json:"error"`
		}
		if json.Unmarshal(b, &e) == nil && len(e.Error) > 0 {
			var nested struct {
				Code string `json:"code"`
			}
			var flat string
			if json.Unmarshal(e.Error, &nested) == nil && nested.Code != "" {
				sm.code = nested.Code
			} else if json.Unmarshal(e.Error, &flat) == nil {
				sm.code = flat
			}
		}
		return sm
	}
	br := bufio.NewReaderSize(resp.Body, 16<<10)
	for {
		line, err := br.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		switch {
		case strings.HasPrefix(line, "event:"):
			for _, f := range onEvent {
				f(strings.TrimSpace(line[len("event:"):]))
			}
		case strings.HasPrefix(line, "data:"):
			content, done, code := onData([]byte(strings.TrimSpace(line[len("data:"):])))
			if content && sm.ttft == 0 {
				sm.ttft = time.Since(start)
			}
			if code != "" {
				sm.code = code
			}
			if done {
				sm.ok = sm.code == ""
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				sm.err = err
			}
			break
		}
	}
	sm.total = time.Since(start)
	return sm
}

// --- Prometheus histogram (the service's own key-check time) -----------------

// histogram holds cumulative bucket counts (le → count).
type histogram map[float64]float64

func scrapeHistogram(ctx context.Context, hc *http.Client, u, name string) (histogram, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	resp, err := hc.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", u, resp.StatusCode)
	}
	h := histogram{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"_bucket{") {
			continue
		}
		i := strings.Index(line, `le="`)
		j := strings.LastIndex(line, " ")
		if i < 0 || j < 0 {
			continue
		}
		leStr := line[i+4:]
		leStr = leStr[:strings.IndexByte(leStr, '"')]
		le := math.Inf(1)
		if leStr != "+Inf" {
			if le, err = strconv.ParseFloat(leStr, 64); err != nil {
				continue
			}
		}
		v, err := strconv.ParseFloat(line[j+1:], 64)
		if err != nil {
			continue
		}
		h[le] += v
	}
	return h, sc.Err()
}

// quantile of the difference after − before, interpolated within the
// bucket as PromQL's histogram_quantile does; also returns the count.
func quantileOf(after, before histogram, q float64) (float64, float64) {
	les := make([]float64, 0, len(after))
	for le := range after {
		les = append(les, le)
	}
	sortFloats(les)
	total := after[math.Inf(1)] - before[math.Inf(1)]
	if total <= 0 {
		return math.NaN(), 0
	}
	rank := q * total
	prevLE, prevCount := 0.0, 0.0
	for _, le := range les {
		c := after[le] - before[le]
		if c >= rank {
			if math.IsInf(le, 1) {
				return prevLE, total
			}
			if c == prevCount {
				return le, total
			}
			return prevLE + (le-prevLE)*(rank-prevCount)/(c-prevCount), total
		}
		prevLE, prevCount = le, c
	}
	return prevLE, total
}

func sortFloats(f []float64) {
	for i := 1; i < len(f); i++ {
		for j := i; j > 0 && f[j] < f[j-1]; j-- {
			f[j], f[j-1] = f[j-1], f[j]
		}
	}
}
