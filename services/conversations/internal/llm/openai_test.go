package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/llmsim"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
	"github.com/agentic-app/agentic/services/platform/testwait"
	"github.com/agentic-app/agentic/services/platform/tokens"
)

// recorder keeps the bodies the adapter sent, then hands the request on.
type recorder struct {
	next   http.Handler
	mu     sync.Mutex
	bodies []map[string]any
	// strip removes stream_options before forwarding (a server that ignores include_usage).
	strip bool
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path == "/v1/chat/completions" {
		data, _ := io.ReadAll(req.Body)
		var body map[string]any
		_ = json.Unmarshal(data, &body)
		r.mu.Lock()
		r.bodies = append(r.bodies, body)
		r.mu.Unlock()
		if r.strip {
			delete(body, "stream_options")
			data, _ = json.Marshal(body)
		}
		req.Body = io.NopCloser(bytes.NewReader(data))
		req.ContentLength = int64(len(data))
	}
	r.next.ServeHTTP(w, req)
}

func (r *recorder) sent() []map[string]any {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]map[string]any(nil), r.bodies...)
}

type fixture struct {
	sim *llmsim.Sim
	rec *recorder
	srv *httptest.Server
	p   *llm.OpenAI
}

func setup(t *testing.T, cfg llm.OpenAIConfig) *fixture {
	t.Helper()
	sim := llmsim.New(llmsim.Config{APIKey: "sk-sim"})
	rec := &recorder{next: sim}
	srv := httptest.NewServer(rec)
	t.Cleanup(srv.Close)
	cfg.BaseURL = srv.URL + "/v1"
	cfg.APIKey = "sk-sim"
	if cfg.RetryBaseDelay == 0 {
		cfg.RetryBaseDelay = time.Millisecond
	}
	return &fixture{sim: sim, rec: rec, srv: srv, p: llm.NewOpenAI(cfg)}
}

func messages(t *testing.T) []llm.Message {
	t.Helper()
	out, err := prompt.Build(prompt.Input{
		AgentName: "Math Tutor",
		Referenced: []prompt.Passage{{DocumentID: "d1", DocumentName: "Syllabus",
			Text: "Homework is due every Friday before noon, and late homework loses ten percent of its grade for each day it is late."}},
		Message: "When is the homework due?", ContextWindow: 8192, MaxOutputTokens: 512,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out.Messages
}

type deltas struct {
	mu  sync.Mutex
	got []string
}

func (d *deltas) add(s string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.got = append(d.got, s)
	return nil
}

func (d *deltas) text() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.got, "")
}

func TestStreamsInOrderWithProviderUsage(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{})
	msgs := messages(t)
	var d deltas
	res, err := f.p.Complete(context.Background(), llm.Request{Messages: msgs, MaxTokens: 300, User: "uid-1"}, d.add)
	if err != nil {
		t.Fatal(err)
	}
	want := llmsim.Answer(msgs)
	if res.Text != want || d.text() != want {
		t.Fatalf("text %q / deltas %q, want %q", res.Text, d.text(), want)
	}
	if len(d.got) != len(strings.Fields(want)) {
		t.Fatalf("%d deltas, want one per word (%d)", len(d.got), len(strings.Fields(want)))
	}
	wantUsage := llm.Usage{InputTokens: int64(llm.PromptTokens(msgs)), OutputTokens: int64(tokens.Count(want))}
	if res.Usage != wantUsage {
		t.Fatalf("usage %+v, want the simulator's %+v", res.Usage, wantUsage)
	}
	if res.FinishReason != "stop" || res.Model != "agentic-sim" {
		t.Fatalf("finish %q model %q", res.FinishReason, res.Model)
	}
	body := f.rec.sent()[0]
	if body["stream"] != true || body["stream_options"].(map[string]any)["include_usage"] != true ||
		body["max_completion_tokens"] != float64(300) || body["user"] != "uid-1" || body["model"] != "agentic-sim" {
		t.Fatalf("request body %v", body)
	}
	if f.p.DefaultModel() != "agentic-sim" {
		t.Fatal("default model")
	}
}

func TestLegacyMaxTokensAndLengthFinish(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{LegacyMaxTokens: true, Model: "agentic-sim+latency0ms"})
	res, err := f.p.Complete(context.Background(), llm.Request{Messages: messages(t), MaxTokens: 4}, func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if res.FinishReason != "length" || res.Usage.OutputTokens > 4 || res.Usage.OutputTokens != int64(tokens.Count(res.Text)) {
		t.Fatalf("result %+v", res)
	}
	body := f.rec.sent()[0]
	if body["max_tokens"] != float64(4) || body["max_completion_tokens"] != nil || body["model"] != "agentic-sim+latency0ms" {
		t.Fatalf("request body %v", body)
	}
}

func TestRetries429BeforeTheFirstToken(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{})
	var d deltas
	res, err := f.p.Complete(context.Background(), llm.Request{Model: "agentic-sim+fail429x2", Messages: messages(t)}, d.add)
	if err != nil {
		t.Fatalf("after two 429s: %v", err)
	}
	if st := f.sim.Stats(); st.Requests != 3 || st.Failed != 2 || st.Completed != 1 {
		t.Fatalf("simulator saw %+v, want 2 failures then a success", st)
	}
	if d.text() != res.Text || res.Usage.Estimated {
		t.Fatalf("result %+v, deltas %q", res, d.text())
	}
}

func TestHonoursRetryAfter(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{})
	start := time.Now()
	if _, err := f.p.Complete(context.Background(), llm.Request{Model: "agentic-sim+fail503x1+retryafter300ms", Messages: messages(t)}, func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Fatalf("retried after %v, before the 300ms Retry-After", el)
	}

	// A Retry-After beyond MaxRetryAfter fails at once instead of keeping the user waiting.
	f = setup(t, llm.OpenAIConfig{MaxRetryAfter: 100 * time.Millisecond})
	start = time.Now()
	_, err := f.p.Complete(context.Background(), llm.Request{Model: "agentic-sim+fail429x1+retryafter5s", Messages: messages(t)}, func(string) error { return nil })
	if !errors.Is(err, llm.ErrUnavailable) || time.Since(start) > 2*time.Second || f.sim.Stats().Requests != 1 {
		t.Fatalf("err %v after %v, %d requests", err, time.Since(start), f.sim.Stats().Requests)
	}
}

func TestPersistent500IsUnavailable(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{MaxRetries: 2})
	called := false
	res, err := f.p.Complete(context.Background(), llm.Request{Model: "agentic-sim+fail500", Messages: messages(t)}, func(string) error { called = true; return nil })
	if !errors.Is(err, llm.ErrUnavailable) || errors.Is(err, llm.ErrInterrupted) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	// No output; the request did reach the provider (Sent), which is what a
	// caller stopped by its client would be charged for.
	if called || res != (llm.Result{Sent: true}) {
		t.Fatalf("output delivered for a failed call: %+v", res)
	}
	if st := f.sim.Stats(); st.Requests != 3 {
		t.Fatalf("%d attempts, want 1 + MaxRetries(2)", st.Requests)
	}

	// No retries at all when disabled, and none for a client error (unknown model → 404).
	f = setup(t, llm.OpenAIConfig{MaxRetries: -1})
	if _, err := f.p.Complete(context.Background(), llm.Request{Model: "agentic-sim+fail500", Messages: messages(t)}, func(string) error { return nil }); !errors.Is(err, llm.ErrUnavailable) || f.sim.Stats().Requests != 1 {
		t.Fatalf("MaxRetries -1: err %v, %d requests", err, f.sim.Stats().Requests)
	}
	f = setup(t, llm.OpenAIConfig{})
	if _, err := f.p.Complete(context.Background(), llm.Request{Model: "gpt-unknown", Messages: messages(t)}, func(string) error { return nil }); !errors.Is(err, llm.ErrUnavailable) || f.sim.Stats().Requests != 1 {
		t.Fatalf("404: err %v, %d requests", err, f.sim.Stats().Requests)
	}
}

// A stream cut before its first token is retried like a 5xx (nothing was shown).
func TestCutBeforeFirstTokenIsRetried(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{MaxRetries: 2})
	_, err := f.p.Complete(context.Background(), llm.Request{Model: "agentic-sim+cut0", Messages: messages(t)}, func(string) error { return nil })
	if !errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err = %v", err)
	}
	if st := f.sim.Stats(); st.Requests != 3 || st.Cut != 3 {
		t.Fatalf("stats %+v, want 3 cut attempts", st)
	}
}

func TestMidStreamCutReturnsPartialEstimatedUsage(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{})
	msgs := messages(t)
	var d deltas
	res, err := f.p.Complete(context.Background(), llm.Request{Model: "agentic-sim+cut5", Messages: msgs}, d.add)
	if !errors.Is(err, llm.ErrInterrupted) || errors.Is(err, llm.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrInterrupted", err)
	}
	full := llmsim.Answer(msgs)
	if res.Text == "" || res.Text != d.text() || !strings.HasPrefix(full, res.Text) || len(res.Text) >= len(full) {
		t.Fatalf("partial text %q (deltas %q) of %q", res.Text, d.text(), full)
	}
	want := llm.Usage{InputTokens: int64(llm.PromptTokens(msgs)), OutputTokens: int64(tokens.Count(res.Text)), Estimated: true}
	if res.Usage != want || res.Usage.OutputTokens > 5 {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
	if st := f.sim.Stats(); st.Requests != 1 {
		t.Fatalf("a cut after output was retried: %+v", st)
	}
}

func TestServerWithoutUsageIsEstimated(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{})
	f.rec.strip = true
	msgs := messages(t)
	res, err := f.p.Complete(context.Background(), llm.Request{Messages: msgs}, func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := llm.Usage{InputTokens: int64(llm.PromptTokens(msgs)), OutputTokens: int64(tokens.Count(res.Text)), Estimated: true}
	if res.Usage != want {
		t.Fatalf("usage %+v, want %+v", res.Usage, want)
	}
}

func TestCancelStopsTheUpstream(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var d deltas
	start := time.Now()
	res, err := f.p.Complete(ctx, llm.Request{Model: "agentic-sim+latency30ms", Messages: messages(t)}, func(s string) error {
		_ = d.add(s)
		cancel() // Stop pressed as the first word arrives
		return nil
	})
	if !errors.Is(err, llm.ErrInterrupted) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want ErrInterrupted wrapping context.Canceled", err)
	}
	if res.Text == "" || res.Text != d.text() || !res.Usage.Estimated || res.Usage.OutputTokens != int64(tokens.Count(res.Text)) {
		t.Fatalf("partial result %+v", res)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Fatalf("cancel took %v", el)
	}
	testwait.Until(t, "the simulator to see the cancel", func() bool { return f.sim.Stats().Cancelled == 1 }, waitOpts...)
	if st := f.sim.Stats(); st.Completed != 0 {
		t.Fatalf("upstream kept generating: %+v", st)
	}

	// Cancelled before any output: unavailable, not retried.
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	f = setup(t, llm.OpenAIConfig{})
	res, err = f.p.Complete(ctx2, llm.Request{Model: "agentic-sim+ttft2s", Messages: messages(t)}, func(string) error { return nil })
	if !errors.Is(err, llm.ErrUnavailable) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	if !res.Sent { // the provider had the prompt: the caller charges its input
		t.Fatal("a request cancelled while the model worked is not reported as sent")
	}
	testwait.Until(t, "one cancelled request", func() bool { return f.sim.Stats().Cancelled == 1 && f.sim.Stats().Requests == 1 }, waitOpts...)

	// Cancelled before the call: never sent, nothing for the caller to charge.
	done, stop := context.WithCancel(context.Background())
	stop()
	res, err = f.p.Complete(done, llm.Request{Messages: messages(t)}, func(string) error { return nil })
	if !errors.Is(err, llm.ErrUnavailable) || res.Sent || f.sim.Stats().Requests != 1 {
		t.Fatalf("cancelled before the call: %v, sent %v, requests %d", err, res.Sent, f.sim.Stats().Requests)
	}
}

func TestDeltaErrorCancelsTheUpstream(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{})
	boom := errors.New("client went away")
	n := 0
	res, err := f.p.Complete(context.Background(), llm.Request{Model: "agentic-sim+latency20ms", Messages: messages(t)}, func(string) error {
		n++
		if n == 2 {
			return boom
		}
		return nil
	})
	if !errors.Is(err, llm.ErrInterrupted) || !errors.Is(err, boom) || n != 2 {
		t.Fatalf("err = %v after %d deltas", err, n)
	}
	if res.Text == "" || !res.Usage.Estimated {
		t.Fatalf("result %+v", res)
	}
	testwait.Until(t, "the simulator to see the cancel", func() bool { return f.sim.Stats().Cancelled == 1 }, waitOpts...)
}

func TestQueuedFaultsFromTheAdminEndpoint(t *testing.T) {
	f := setup(t, llm.OpenAIConfig{})
	res, err := http.Post(f.srv.URL+"/_sim/faults", "application/json", strings.NewReader(`{"status":503,"count":2}`))
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("POST /_sim/faults: %v %v", err, res)
	}
	res.Body.Close()
	if _, err := f.p.Complete(context.Background(), llm.Request{Messages: messages(t)}, func(string) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if st := f.sim.Stats(); st.Failed != 2 || st.Completed != 1 {
		t.Fatalf("stats %+v", st)
	}
}

var waitOpts = []testwait.Option{testwait.Timeout(3 * time.Second), testwait.Every(5 * time.Millisecond)}
