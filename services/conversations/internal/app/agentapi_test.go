package app

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/pricing"
	"github.com/agentic-app/agentic/services/platform/logtest"
)

// newKey creates an API key through the management API and returns its
// JSON (with the secret in "key").
func (e *env) newKey(t *testing.T, uid, agent, body string) map[string]any {
	t.Helper()
	r := e.do(t, "POST", "/api/agents/"+agent+"/api-keys", uid, body)
	if r.Status != http.StatusCreated {
		t.Fatalf("create key: %d %s", r.Status, r.Raw)
	}
	return r.Obj()
}

// raw sends a request with the given Authorization header value ("" for
// none) and returns the status, headers and body.
func raw(t *testing.T, method, url, authorization, body string, headers ...string) resp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, url, rd)
	if authorization != "" {
		req.Header.Set("Authorization", authorization)
	}
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	r := resp{Status: res.StatusCode, Header: res.Header, Raw: string(b)}
	_ = json.Unmarshal(b, &r.Body)
	return r
}

// apiError returns the OpenAI-shaped error of a response, failing the test
// when the body is not one.
func apiError(t *testing.T, r resp) map[string]any {
	t.Helper()
	e, ok := r.Obj()["error"].(map[string]any)
	if !ok {
		t.Fatalf("%d: not an OpenAI error body: %s", r.Status, r.Raw)
	}
	for _, f := range []string{"message", "type", "code"} {
		if s, _ := e[f].(string); s == "" {
			t.Fatalf("error without %s: %s", f, r.Raw)
		}
	}
	if _, ok := e["param"]; !ok {
		t.Fatalf("error without param: %s", r.Raw)
	}
	return e
}

func apiClient(base, key string, opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(base + "/api/v1/"), option.WithAPIKey(key),
		option.WithMaxRetries(0)}, opts...)...)
}

func completionBody(model string, stream bool, messages ...map[string]any) string {
	b, _ := json.Marshal(map[string]any{"model": model, "stream": stream, "messages": messages})
	return string(b)
}

func user(content string) map[string]any { return map[string]any{"role": "user", "content": content} }

func asOpenAIError(t *testing.T, err error) *openai.Error {
	t.Helper()
	var e *openai.Error
	if !errors.As(err, &e) {
		t.Fatalf("want an *openai.Error, got %T %v", err, err)
	}
	return e
}

// transfersOfKey returns the wallet's expenses charged to an API key.
func (e *env) transfersOfKey(keyID string) (n int, total int64) {
	for _, tr := range e.wallet.Transfers() {
		if tr.Metadata["apiKeyId"] == keyID {
			n++
			total += tr.Amount
		}
	}
	return n, total
}

// The key lifecycle: created for the owner only and shown once, listed
// without the secret, stored only as a hash, revoked at once; keys reach
// no other route, Firebase tokens do not reach the agent API, and no key
// is ever logged.
func TestAPIKeyLifecycle(t *testing.T) {
	logs := &logtest.Buffer{}
	e := start(t, options{logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	ctx := context.Background()

	r := e.do(t, "POST", "/api/agents/"+agentA+"/api-keys", e.alice, `{"name":"  Website bot ","monthlyLimit":5.25}`)
	if r.Status != 201 || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("create: %d %v %s", r.Status, r.Header, r.Raw)
	}
	k := r.Obj()
	secret, _ := k["key"].(string)
	if !strings.HasPrefix(secret, "agk_") || len(secret) != 4+conversations.APIKeyRandomChars ||
		k["prefix"] != secret[:10] || k["name"] != "Website bot" || k["monthlyLimit"] != 5.25 || k["expiresAt"] != nil ||
		k["lastUsedAt"] != nil || k["monthSpend"] != 0.0 || k["agentId"] != agentA || k["createdAt"] == nil {
		t.Fatalf("created key %v", k)
	}
	keyID := k["id"].(string)

	// A second key: a date-only expiry means "through that day" (UTC).
	k2 := e.newKey(t, e.alice, agentA, `{"name":"CI","expiresAt":"2099-01-31"}`)
	secret2 := k2["key"].(string)
	if k2["expiresAt"] != "2099-02-01T00:00:00Z" || k2["monthlyLimit"] != nil || secret2 == secret || k2["prefix"] == k["prefix"] {
		t.Fatalf("second key %v", k2)
	}

	l := e.do(t, "GET", "/api/agents/"+agentA+"/api-keys", e.alice, "")
	if l.Status != 200 || len(l.List()) != 2 {
		t.Fatalf("list: %d %s", l.Status, l.Raw)
	}
	if strings.Contains(l.Raw, secret) || strings.Contains(l.Raw, secret2) || strings.Contains(l.Raw, `"key"`) {
		t.Fatalf("list shows a secret: %s", l.Raw)
	}
	if first := l.List()[0].(map[string]any); first["id"] != k2["id"] || first["prefix"] != k2["prefix"] {
		t.Fatalf("newest first: %s", l.Raw)
	}

	// Stored only as its SHA-256: no column holds the secret part.
	pool, err := pgxpool.New(ctx, e.dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	var row string
	var hash []byte
	if err := pool.QueryRow(ctx, `SELECT row_to_json(k)::text, key_hash FROM api_keys k WHERE id = $1`, keyID).Scan(&row, &hash); err != nil {
		t.Fatal(err)
	}
	if sum := sha256.Sum256([]byte(secret)); !bytes.Equal(hash, sum[:]) || strings.Contains(row, secret[10:]) {
		t.Fatalf("stored key row %s", row)
	}

	// Validation names the field.
	for body, code := range map[string]string{
		`{"name":""}`:    "invalid_name",
		`{"name":"   "}`: "invalid_name",
		`{}`:             "invalid_name",
		`{"name":"` + strings.Repeat("x", 101) + `"}`:             "invalid_name",
		`{"name":"x","expiresAt":"2001-01-01T00:00:00Z"}`:         "invalid_expires_at",
		`{"name":"x","expiresAt":"tomorrow"}`:                     "invalid_expires_at",
		`{"name":"x","monthlyLimit":0}`:                           "invalid_monthly_limit",
		`{"name":"x","monthlyLimit":-1}`:                          "invalid_monthly_limit",
		`{"name":"x","monthlyLimit":1000000.01}`:                  "invalid_monthly_limit",
		`{"name":"x","monthlyLimit":"5"}`:                         "invalid_json",
		`{"name":"x","expiresAt":"2099-01-01T00:00:00Z","x":1} x`: "invalid_json",
	} {
		r := e.do(t, "POST", "/api/agents/"+agentA+"/api-keys", e.alice, body)
		if r.Status != 400 || r.Obj()["error"] != code {
			t.Errorf("%s: %d %s, want 400 %s", body, r.Status, r.Raw, code)
		}
	}
	// Owner only: another owner's agent, a subscriber, an unknown agent are 404.
	for _, c := range []struct{ method, path, uid string }{
		{"POST", "/api/agents/" + agentA + "/api-keys", e.dave},
		{"GET", "/api/agents/" + agentA + "/api-keys", e.bob},
		{"GET", "/api/agents/" + agentB + "/api-keys", e.alice},
		{"GET", "/api/agents/" + unknownA + "/api-keys", e.alice},
		{"GET", "/api/agents/not-a-uuid/api-keys", e.alice},
		{"DELETE", "/api/agents/" + agentA + "/api-keys/" + keyID, e.dave},
		{"DELETE", "/api/agents/" + agentA + "/api-keys/" + keyID, e.bob},
		{"DELETE", "/api/agents/" + agentA + "/api-keys/not-a-uuid", e.alice},
		{"DELETE", "/api/agents/" + agentA + "/api-keys/" + unknownA, e.alice},
	} {
		body := ""
		if c.method == "POST" {
			body = `{"name":"x"}`
		}
		if r := e.do(t, c.method, c.path, c.uid, body); r.Status != 404 || r.Obj()["error"] != "not_found" {
			t.Errorf("%s %s as %s: %d %s", c.method, c.path, c.uid, r.Status, r.Raw)
		}
	}
	if r := e.do(t, "GET", "/api/agents/"+agentA+"/api-keys", "", ""); r.Status != 401 {
		t.Errorf("no token: %d", r.Status)
	}

	// The key works on the agent API...
	ac := apiClient(e.base, secret)
	models, err := ac.Models.List(ctx)
	if err != nil || len(models.Data) != 1 || models.Data[0].ID != "agentic/"+agentA || models.Data[0].OwnedBy != "agentic" {
		t.Fatalf("models: %+v %v", models, err)
	}
	// ...and on no other route: the Firebase check refuses it.
	for _, path := range []string{"/api/agents/" + agentA + "/api-keys", "/api/agents/" + agentA + "/conversations", "/api/agents/" + agentA + "/chat-info"} {
		r := raw(t, "GET", e.base+path, "Bearer "+secret, "")
		if r.Status != 401 || r.Obj()["error"] != "invalid_token" {
			t.Errorf("key on %s: %d %s", path, r.Status, r.Raw)
		}
	}
	// A Firebase ID token is not an API key.
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/v1/models", ""},
		{"POST", "/api/v1/chat/completions", completionBody(agentA, false, user(question))},
	} {
		r := raw(t, c.method, e.base+c.path, "Bearer "+tok(e.alice), c.body)
		if er := apiError(t, r); r.Status != 401 || er["code"] != "invalid_api_key" || er["type"] != "authentication_error" ||
			!strings.Contains(er["message"].(string), "sign-in tokens are not accepted") {
			t.Errorf("firebase token on %s: %d %s", c.path, r.Status, r.Raw)
		}
		if r.Header.Get("WWW-Authenticate") == "" {
			t.Errorf("401 without WWW-Authenticate")
		}
	}
	for _, bad := range []string{"", "Bearer agk_short", "Bearer " + secret[:len(secret)-1] + "0", "Basic " + secret} {
		r := raw(t, "GET", e.base+"/api/v1/models", bad, "")
		if er := apiError(t, r); r.Status != 401 || er["code"] != "invalid_api_key" {
			t.Errorf("%q: %d %s", bad, r.Status, r.Raw)
		}
	}

	// Revoke: 204, then the key is gone at once (this replica forgets it).
	if r := e.do(t, "DELETE", "/api/agents/"+agentA+"/api-keys/"+keyID, e.alice, ""); r.Status != 204 {
		t.Fatalf("revoke: %d %s", r.Status, r.Raw)
	}
	if r := e.do(t, "DELETE", "/api/agents/"+agentA+"/api-keys/"+keyID, e.alice, ""); r.Status != 404 {
		t.Fatalf("revoke again: %d %s", r.Status, r.Raw)
	}
	r = raw(t, "GET", e.base+"/api/v1/models", "Bearer "+secret, "")
	if er := apiError(t, r); r.Status != 401 || er["code"] != "invalid_api_key" {
		t.Fatalf("revoked key: %d %s", r.Status, r.Raw)
	}
	if l := e.do(t, "GET", "/api/agents/"+agentA+"/api-keys", e.alice, ""); len(l.List()) != 1 || l.List()[0].(map[string]any)["id"] != k2["id"] {
		t.Fatalf("list after revoke: %s", l.Raw)
	}

	// Neither key appeared in any log line (the request log included).
	out := logs.String()
	if !strings.Contains(out, "/api/v1/models") {
		t.Fatal("request log not captured")
	}
	if strings.Contains(out, secret[4:]) || strings.Contains(out, secret2[4:]) {
		t.Fatal("an API key was logged")
	}
}

// The official openai-go client, non-streaming and streaming, against the
// service: the agent's instructions and knowledge answer, the caller's
// system text and history are added, usage carries the cost, and the answer
// is metered through the chat's path (capture = cost, channel api, one
// usage event per answer).
func TestAgentAPIWithOpenAIGo(t *testing.T) {
	e := start(t, options{})
	ctx := context.Background()
	k := e.newKey(t, e.alice, agentA, `{"name":"sdk"}`)
	keyID, secret := k["id"].(string), k["key"].(string)
	c := apiClient(e.base, secret)
	price := pricing.Default[pricing.SimModel]

	res, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "agentic/" + agentA,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage("Answer like a pirate."),
			openai.UserMessage("What does the midterm cover?"),
			openai.AssistantMessage("Linear functions and their graphs."),
			openai.UserMessage(question),
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Choices) != 1 || !strings.Contains(res.Choices[0].Message.Content, "quadratic formula") ||
		res.Choices[0].FinishReason != "stop" || res.Model != "agentic/"+agentA || !strings.HasPrefix(res.ID, "chatcmpl-") {
		t.Fatalf("completion %+v", res)
	}
	u := res.Usage
	var extra struct {
		Cost *float64 `json:"cost"`
	}
	if err := json.Unmarshal([]byte(u.RawJSON()), &extra); err != nil || extra.Cost == nil {
		t.Fatalf("usage without cost: %s", u.RawJSON())
	}
	total := pricing.Quote(price, u.PromptTokens, u.CompletionTokens).TotalMicros
	if u.PromptTokens <= 0 || u.CompletionTokens <= 0 || u.TotalTokens != u.PromptTokens+u.CompletionTokens ||
		math.Abs(*extra.Cost-float64(total)/1e6) > 1e-12 {
		t.Fatalf("usage %s, want cost %d µ$", u.RawJSON(), total)
	}

	// What the model was sent: the agent's system message (instructions
	// kept), the caller's as a second one, the history, the question.
	var sent struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(e.front.lastRequest(), &sent); err != nil {
		t.Fatal(err)
	}
	m := sent.Messages
	if len(m) != 5 || m[0].Role != "system" || !strings.Contains(m[0].Content, "You are Math Tutor") ||
		!strings.Contains(m[0].Content, "You tutor algebra") || m[1].Role != "system" ||
		!strings.HasSuffix(m[1].Content, "Answer like a pirate.") || !strings.Contains(m[1].Content, "do not conflict with the instructions above") ||
		m[2].Role != "user" || m[2].Content != "What does the midterm cover?" || m[3].Role != "assistant" || m[4].Content != question {
		t.Fatalf("prompt sent %+v", m)
	}

	// Metered through the one path: held, captured at the cost, channel api.
	msgID := strings.TrimPrefix(res.ID, "chatcmpl-")
	ch := e.charge(t, msgID)
	if ch.State != conversations.ChargeCaptured || ch.Channel != "api" || ch.APIKeyID != keyID || ch.PayerUID != e.alice || ch.CaptureMicros != total {
		t.Fatalf("charge %+v", ch)
	}
	var tr1 bool
	for _, tr := range e.wallet.Transfers() {
		if tr.Metadata["messageId"] == msgID {
			tr1 = tr.Amount == total && tr.UID == e.alice && tr.Metadata["channel"] == "api" && tr.Metadata["apiKeyId"] == keyID
		}
	}
	if !tr1 {
		t.Fatalf("no matching capture in %+v", e.wallet.Transfers())
	}

	// Streaming, with the plain agent id as the model.
	stream := c.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{
		Model:         agentA,
		Messages:      []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)},
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	})
	acc := openai.ChatCompletionAccumulator{}
	deltas := 0
	var usageRaw string
	for stream.Next() {
		chunk := stream.Current()
		acc.AddChunk(chunk)
		if len(chunk.Choices) > 0 && chunk.Choices[0].Delta.Content != "" {
			deltas++
		}
		if len(chunk.Choices) == 0 && chunk.Usage.TotalTokens > 0 {
			usageRaw = chunk.Usage.RawJSON()
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(acc.Choices[0].Message.Content, "quadratic formula") || deltas < 5 || acc.Choices[0].FinishReason != "stop" {
		t.Fatalf("streamed %q in %d deltas (%s)", acc.Choices[0].Message.Content, deltas, acc.Choices[0].FinishReason)
	}
	var su struct {
		Prompt     int64   `json:"prompt_tokens"`
		Completion int64   `json:"completion_tokens"`
		Cost       float64 `json:"cost"`
	}
	if err := json.Unmarshal([]byte(usageRaw), &su); err != nil || su.Cost <= 0 {
		t.Fatalf("usage chunk %q", usageRaw)
	}
	total2 := pricing.Quote(price, su.Prompt, su.Completion).TotalMicros
	if math.Abs(su.Cost-float64(total2)/1e6) > 1e-12 {
		t.Fatalf("stream cost %v, want %d µ$", su.Cost, total2)
	}

	// One usage event per answer, each for the api channel.
	evs := e.interactions(t, 2)
	if len(evs) != 2 {
		t.Fatalf("%d events, want 2", len(evs))
	}
	for _, ev := range evs {
		if ev.GetChannel() != "api" || ev.GetPayerUid() != e.alice || ev.GetOwnerUid() != e.alice || ev.GetTransferId() == "" {
			t.Fatalf("event %v", ev)
		}
	}
	if evs[0].GetInteractionId() != msgID || evs[0].GetTotalMicros() != total || evs[1].GetTotalMicros() != total2 {
		t.Fatalf("events %v %v", evs[0], evs[1])
	}

	// The key's spend and last use; the API's conversation is not a chat.
	l := e.do(t, "GET", "/api/agents/"+agentA+"/api-keys", e.alice, "")
	kj := l.List()[0].(map[string]any)
	if math.Abs(kj["monthSpend"].(float64)-float64(total+total2)/1e6) > 1e-12 || kj["lastUsedAt"] == nil {
		t.Fatalf("key after use %v", kj)
	}
	if cs := e.do(t, "GET", "/api/agents/"+agentA+"/conversations", e.alice, ""); cs.Status != 200 || len(cs.List()) != 0 {
		t.Fatalf("api conversation listed in the chat: %s", cs.Raw)
	}

	// Another agent's model (or any other model) is 404, and nothing is reserved.
	reserves := e.wallet.Calls("Reserve")
	for _, model := range []string{agentB, "agentic/" + agentB, "gpt-4o-mini", unknownA} {
		_, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: model,
			Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)}})
		if oe := asOpenAIError(t, err); oe.StatusCode != 404 || oe.Code != "model_not_found" || oe.Param != "model" {
			t.Fatalf("model %s: %v", model, err)
		}
	}
	if e.wallet.Calls("Reserve") != reserves {
		t.Fatal("a refused request reserved money")
	}
}

// The raw stream is OpenAI's chunk format: role first, content chunks, the
// finish chunk, a usage chunk without choices, then [DONE]; an
// Idempotency-Key makes a retry return (and charge) the first answer only.
func TestAgentAPIStreamFormatAndIdempotency(t *testing.T) {
	e := start(t, options{})
	secret := e.newKey(t, e.alice, agentA, `{"name":"raw"}`)["key"].(string)
	url := e.base + "/api/v1/chat/completions"

	withUsage, _ := json.Marshal(map[string]any{"model": "agentic/" + agentA, "stream": true, "messages": []any{user(question)},
		"stream_options": map[string]any{"include_usage": true}})
	req, _ := http.NewRequest("POST", url, strings.NewReader(string(withUsage)))
	req.Header.Set("Authorization", "Bearer "+secret)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream; charset=utf-8" ||
		!strings.HasPrefix(res.Header.Get("Server-Timing"), "key;") {
		t.Fatalf("stream: %d %v", res.StatusCode, res.Header)
	}
	var lines []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) < 5 || lines[len(lines)-1] != "data: [DONE]" {
		t.Fatalf("stream lines %q", lines)
	}
	type chunk struct {
		ID, Object, Model string
		Choices           []struct {
			Delta struct {
				Role    string
				Content *string
			}
			FinishReason *string `json:"finish_reason"`
		}
		Usage *struct {
			TotalTokens int64   `json:"total_tokens"`
			Cost        float64 `json:"cost"`
		}
	}
	var chunks []chunk
	for _, l := range lines[:len(lines)-1] {
		var c chunk
		if err := json.Unmarshal([]byte(strings.TrimPrefix(l, "data: ")), &c); err != nil || !strings.HasPrefix(l, "data: ") {
			t.Fatalf("line %q: %v", l, err)
		}
		if c.Object != "chat.completion.chunk" || !strings.HasPrefix(c.ID, "chatcmpl-") || (len(chunks) > 0 && c.ID != chunks[0].ID) ||
			c.Model != "agentic/"+agentA {
			t.Fatalf("chunk %q", l)
		}
		chunks = append(chunks, c)
	}
	first, fin, last := chunks[0], chunks[len(chunks)-2], chunks[len(chunks)-1]
	if first.Choices[0].Delta.Role != "assistant" || fin.Choices[0].FinishReason == nil || *fin.Choices[0].FinishReason != "stop" ||
		len(last.Choices) != 0 || last.Usage == nil || last.Usage.TotalTokens <= 0 || last.Usage.Cost <= 0 {
		t.Fatalf("first %+v finish %+v usage %+v", first, fin, last)
	}
	var text strings.Builder
	for _, c := range chunks[1 : len(chunks)-2] {
		if c.Choices[0].Delta.Content == nil || c.Choices[0].FinishReason != nil || c.Usage != nil {
			t.Fatalf("content chunk %+v", c)
		}
		text.WriteString(*c.Choices[0].Delta.Content)
	}
	if !strings.Contains(text.String(), "quadratic formula") {
		t.Fatalf("streamed %q", text.String())
	}

	// Without stream_options.include_usage, as OpenAI does: no usage chunk
	// (the answer is metered all the same).
	captures := e.wallet.Calls("Capture")
	plain := raw(t, "POST", url, "Bearer "+secret, completionBody(agentA, true, user(question)))
	if plain.Status != 200 || strings.Contains(plain.Raw, `"total_tokens"`) || !strings.HasSuffix(plain.Raw, "data: [DONE]\n\n") ||
		!strings.Contains(streamText(t, plain.Raw), "quadratic formula") || e.wallet.Calls("Capture") != captures+1 {
		t.Fatalf("stream without include_usage: %d %q (captures %d → %d)", plain.Status, plain.Raw, captures, e.wallet.Calls("Capture"))
	}

	// Idempotency-Key: the retry returns the first answer; one reserve, one capture.
	reserves := e.wallet.Calls("Reserve")
	body := completionBody(agentA, false, user("When are office hours?"))
	a := raw(t, "POST", url, "Bearer "+secret, body, "Idempotency-Key", "retry-1")
	b := raw(t, "POST", url, "Bearer "+secret, body, "Idempotency-Key", "retry-1")
	if a.Status != 200 || b.Status != 200 || a.Obj()["id"] != b.Obj()["id"] || e.wallet.Calls("Reserve") != reserves+1 {
		t.Fatalf("idempotent retry: %s / %s (reserves %d → %d)", a.Raw, b.Raw, reserves, e.wallet.Calls("Reserve"))
	}
	// The same key with another request is refused (as Stripe does), before
	// anything is reserved; another key of the same name is its own.
	other := raw(t, "POST", url, "Bearer "+secret, completionBody(agentA, false, user("When is the exam?")), "Idempotency-Key", "retry-1")
	if ae := apiError(t, other); other.Status != 422 || ae["code"] != "idempotency_key_mismatch" || ae["param"] != "Idempotency-Key" ||
		ae["type"] != "invalid_request_error" || e.wallet.Calls("Reserve") != reserves+1 {
		t.Fatalf("reused key with another body: %d %s", other.Status, other.Raw)
	}
	if a.Obj()["usage"].(map[string]any)["cost"] != b.Obj()["usage"].(map[string]any)["cost"] {
		t.Fatalf("replay usage differs: %s / %s", a.Raw, b.Raw)
	}
	// A streamed replay carries the whole stored answer.
	s := raw(t, "POST", url, "Bearer "+secret, completionBody(agentA, true, user("When are office hours?")), "Idempotency-Key", "retry-1")
	content := a.Obj()["choices"].([]any)[0].(map[string]any)["message"].(map[string]any)["content"].(string)
	if s.Status != 200 || streamText(t, s.Raw) != content || !strings.HasSuffix(s.Raw, "data: [DONE]\n\n") ||
		e.wallet.Calls("Reserve") != reserves+1 {
		t.Fatalf("streamed replay: %d %q, want %q", s.Status, s.Raw, content)
	}
}

// streamText joins the content deltas of a raw chunk stream.
func streamText(t *testing.T, stream string) string {
	t.Helper()
	var b strings.Builder
	for _, l := range strings.Split(stream, "\n") {
		data, ok := strings.CutPrefix(l, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var c struct {
			Choices []struct{ Delta struct{ Content string } }
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		for _, ch := range c.Choices {
			b.WriteString(ch.Delta.Content)
		}
	}
	return b.String()
}

// Malformed requests are 400 in OpenAI's shape, naming the field.
func TestAgentAPIValidation(t *testing.T) {
	e := start(t, options{})
	secret := e.newKey(t, e.alice, agentA, `{"name":"v"}`)["key"].(string)
	url := e.base + "/api/v1/chat/completions"
	m := func(role string, content any) map[string]any { return map[string]any{"role": role, "content": content} }
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	for _, c := range []struct {
		name, body  string
		status      int
		param, code string
	}{
		{"no model", `{"messages":[{"role":"user","content":"hi"}]}`, 400, "model", "missing_required_parameter"},
		{"no messages", js(map[string]any{"model": agentA}), 400, "messages", "missing_required_parameter"},
		{"empty messages", js(map[string]any{"model": agentA, "messages": []any{}}), 400, "messages", "invalid_value"},
		{"messages not an array", js(map[string]any{"model": agentA, "messages": "hi"}), 400, "messages", "invalid_type"},
		{"last is assistant", completionBody(agentA, false, m("user", "hi"), m("assistant", "hello")), 400, "messages", "invalid_value"},
		{"only system", completionBody(agentA, false, m("system", "be brief")), 400, "messages", "invalid_value"},
		{"tool message", completionBody(agentA, false, map[string]any{"role": "tool", "content": "x", "tool_call_id": "1"}, m("user", "hi")), 400, "messages[0].role", "unsupported_value"},
		{"unknown role", completionBody(agentA, false, m("robot", "x"), m("user", "hi")), 400, "messages[0].role", "invalid_value"},
		{"no role", completionBody(agentA, false, map[string]any{"content": "x"}), 400, "messages[0].role", "missing_required_parameter"},
		{"image part", completionBody(agentA, false, m("user", []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": "https://x"}}})), 400, "messages[0].content[0]", "unsupported_value"},
		{"content number", completionBody(agentA, false, m("user", 5)), 400, "messages[0].content", "invalid_type"},
		{"empty question", completionBody(agentA, false, m("user", "  ")), 400, "messages", "invalid_value"},
		{"long question", completionBody(agentA, false, m("user", strings.Repeat("a", 8001))), 400, "messages", "invalid_value"},
		{"stream not bool", `{"model":"` + agentA + `","stream":"yes","messages":[{"role":"user","content":"hi"}]}`, 400, "stream", "invalid_type"},
		{"model not string", `{"model":5,"messages":[{"role":"user","content":"hi"}]}`, 400, "model", "invalid_type"},
		{"tools", js(map[string]any{"model": agentA, "messages": []any{m("user", "hi")}, "tools": []any{map[string]any{"type": "function"}}}), 400, "tools", "unsupported_parameter"},
		{"n", js(map[string]any{"model": agentA, "messages": []any{m("user", "hi")}, "n": 2}), 400, "n", "unsupported_value"},
		{"max_tokens 0", js(map[string]any{"model": agentA, "messages": []any{m("user", "hi")}, "max_tokens": 0}), 400, "max_tokens", "invalid_value"},
		{"not json", `{"model":`, 400, "", "invalid_json"},
		{"array body", `[1]`, 400, "", "invalid_json"},
		{"bad model", completionBody("agentic/not-a-uuid", false, m("user", "hi")), 404, "model", "model_not_found"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := raw(t, "POST", url, "Bearer "+secret, c.body)
			er := apiError(t, r)
			param, _ := er["param"].(string)
			if r.Status != c.status || param != c.param || er["code"] != c.code {
				t.Fatalf("%d %s, want %d param %q code %s", r.Status, r.Raw, c.status, c.param, c.code)
			}
			if c.status == 400 && er["type"] != "invalid_request_error" {
				t.Fatalf("type %v", er["type"])
			}
		})
	}
	if e.wallet.Calls("Reserve") != 0 {
		t.Fatal("a malformed request reserved money")
	}

	// Text parts are joined; max_tokens lowers the bound and the reservation.
	r := raw(t, "POST", url, "Bearer "+secret, js(map[string]any{"model": agentA, "max_tokens": 5, "messages": []any{
		m("user", []any{map[string]any{"type": "text", "text": "How do I solve"}, map[string]any{"type": "text", "text": "quadratic equations?"}}),
	}}))
	if r.Status != 200 {
		t.Fatalf("text parts: %d %s", r.Status, r.Raw)
	}
	choice := r.Obj()["choices"].([]any)[0].(map[string]any)
	usage := r.Obj()["usage"].(map[string]any)
	if choice["finish_reason"] != "length" || num(usage["completion_tokens"]) > 5 || num(usage["completion_tokens"]) < 1 {
		t.Fatalf("max_tokens 5: %s", r.Raw)
	}
	ch := e.charge(t, strings.TrimPrefix(r.Obj()["id"].(string), "chatcmpl-"))
	price := pricing.Default[pricing.SimModel]
	if want := pricing.WorstCase(price, conversations.ReserveInputTokens(int(num(usage["prompt_tokens"]))), 5); ch.ReserveMicros != want {
		t.Fatalf("reserved %d, want %d (worst case of 5 output tokens)", ch.ReserveMicros, want)
	}
}

// Revocation reaches every replica within a second, and an answer cannot
// be charged to a revoked key even on a replica that still caches it; an
// expired key is refused.
func TestAPIKeyRevocationAcrossReplicasAndExpiry(t *testing.T) {
	e := start(t, options{})
	other := e.replica(t)
	k := e.newKey(t, e.alice, agentA, `{"name":"two replicas"}`)
	keyID, secret := k["id"].(string), k["key"].(string)

	// The other replica learns (and caches) the key.
	if r := raw(t, "GET", other+"/api/v1/models", "Bearer "+secret, ""); r.Status != 200 {
		t.Fatalf("models on the other replica: %d %s", r.Status, r.Raw)
	}
	if r := e.do(t, "DELETE", "/api/agents/"+agentA+"/api-keys/"+keyID, e.alice, ""); r.Status != 204 {
		t.Fatalf("revoke: %d", r.Status)
	}
	revoked := time.Now()
	reserves := e.wallet.Calls("Reserve")
	// An answer is refused at once: its charge re-reads the key.
	r := raw(t, "POST", other+"/api/v1/chat/completions", "Bearer "+secret, completionBody(agentA, false, user(question)))
	if er := apiError(t, r); r.Status != 401 || er["code"] != "invalid_api_key" || e.wallet.Calls("Reserve") != reserves {
		t.Fatalf("answer with a revoked key on the other replica: %d %s", r.Status, r.Raw)
	}
	// Every request is refused once the other replica's cache entry ends (≤ 1 s).
	for {
		r := raw(t, "GET", other+"/api/v1/models", "Bearer "+secret, "")
		if r.Status == 401 {
			break
		}
		if time.Since(revoked) > 1100*time.Millisecond {
			t.Fatalf("revoked key still accepted after %s", time.Since(revoked))
		}
		time.Sleep(20 * time.Millisecond)
	}

	// Expiry: valid for an hour, refused once the (service) clock passes it.
	k2 := e.newKey(t, e.alice, agentA, fmt.Sprintf(`{"name":"short","expiresAt":%q}`, e.clock.Now().Add(time.Hour).UTC().Format(time.RFC3339)))
	secret2 := k2["key"].(string)
	if r := raw(t, "POST", e.base+"/api/v1/chat/completions", "Bearer "+secret2, completionBody(agentA, false, user(question))); r.Status != 200 {
		t.Fatalf("before expiry: %d %s", r.Status, r.Raw)
	}
	e.clock.advance(2 * time.Hour)
	for _, base := range []string{e.base, other} {
		r := raw(t, "POST", base+"/api/v1/chat/completions", "Bearer "+secret2, completionBody(agentA, false, user(question)))
		if er := apiError(t, r); r.Status != 401 || er["code"] != "expired_api_key" {
			t.Fatalf("expired key: %d %s", r.Status, r.Raw)
		}
	}
}

// With the revocation watcher in step, a replica reads a key from
// PostgreSQL once and then trusts its cache beyond the one-second bound
// (the key check stays in memory under load), while a revocation still
// reaches it within a second (TestAPIKeyRevocationAcrossReplicasAndExpiry).
func TestAPIKeyCachedBeyondOneSecondWhileWatched(t *testing.T) {
	e := start(t, options{})
	k := e.newKey(t, e.alice, agentA, `{"name":"cached"}`)
	secret := k["key"].(string)
	models := func() {
		t.Helper()
		if r := raw(t, "GET", e.base+"/api/v1/models", "Bearer "+secret, ""); r.Status != 200 {
			t.Fatalf("models: %d %s", r.Status, r.Raw)
		}
	}
	models()
	missesBefore := keyCacheCount(t, e.base, "miss")
	time.Sleep(1500 * time.Millisecond)
	for range 3 {
		models()
	}
	if misses := keyCacheCount(t, e.base, "miss"); misses != missesBefore {
		t.Fatalf("key read from PostgreSQL again after 1.5 s (misses %v → %v): the watcher should keep it cached", missesBefore, misses)
	}
	if hits := keyCacheCount(t, e.base, "hit"); hits < 3 {
		t.Fatalf("cache hits %v, want ≥ 3", hits)
	}
}

// keyCacheCount reads conversations_api_key_cache_total{result} from /metrics.
func keyCacheCount(t *testing.T, base, result string) float64 {
	t.Helper()
	res, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	prefix := `conversations_api_key_cache_total{result="` + result + `"} `
	for _, line := range strings.Split(string(body), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			n, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatalf("metric line %q: %v", line, err)
			}
			return n
		}
	}
	return 0
}

// The key's monthly limit is enforced at reserve, atomically: concurrent
// requests cannot together exceed it. An empty wallet is a 402 too.
func TestAPIKeyMonthlyLimitAndFunds(t *testing.T) {
	e := start(t, options{})
	const limitMicros = 2000
	k := e.newKey(t, e.alice, agentA, `{"name":"limited","monthlyLimit":0.002}`)
	keyID, secret := k["id"].(string), k["key"].(string)
	url := e.base + "/api/v1/chat/completions"
	body := completionBody(agentA, false, user(question))

	// Five at once, each held for a while by a slow first token.
	e.front.set("X-Sim-Ttft", "600ms")
	results := make([]resp, 5)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = raw(t, "POST", url, "Bearer "+secret, body)
		}()
	}
	wg.Wait()
	e.front.set("X-Sim-Ttft", "")
	var ok []resp
	refused := 0
	for _, r := range results {
		switch r.Status {
		case 200:
			ok = append(ok, r)
		case 402:
			if er := apiError(t, r); er["code"] != "key_limit_reached" || er["type"] != "insufficient_quota" {
				t.Fatalf("402 %s", r.Raw)
			}
			refused++
		default:
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	}
	if len(ok) == 0 {
		t.Fatal("no request fitted the limit")
	}
	worst := e.charge(t, strings.TrimPrefix(ok[0].Obj()["id"].(string), "chatcmpl-")).ReserveMicros
	if want := int(limitMicros / worst); len(ok) != want || refused != 5-want {
		t.Fatalf("%d answered, %d refused; want %d answered (worst case %d µ$, limit %d µ$)", len(ok), refused, want, worst, limitMicros)
	}

	// One after the other, until the limit refuses: never more than the limit is spent.
	for i := 0; ; i++ {
		r := raw(t, "POST", url, "Bearer "+secret, body)
		if r.Status == 402 {
			// What is left is less than this request's worst case: the
			// message says so, and what to do.
			if msg, _ := apiError(t, r)["message"].(string); !strings.Contains(msg, "lower max_tokens or raise the key's limit") {
				t.Fatalf("key limit message: %s", r.Raw)
			}
			break
		}
		if r.Status != 200 || i > 20 {
			t.Fatalf("request %d: %d %s", i, r.Status, r.Raw)
		}
	}
	n, spent := e.transfersOfKey(keyID)
	if spent > limitMicros || spent+worst <= limitMicros || n < len(ok) {
		t.Fatalf("spent %d µ$ in %d answers, limit %d, worst case %d", spent, n, limitMicros, worst)
	}
	kj := e.do(t, "GET", "/api/agents/"+agentA+"/api-keys", e.alice, "").List()[0].(map[string]any)
	if math.Abs(kj["monthSpend"].(float64)-float64(spent)/1e6) > 1e-12 {
		t.Fatalf("monthSpend %v, want %d µ$", kj["monthSpend"], spent)
	}

	// Another key of the same owner is not limited by this one; an empty wallet is 402.
	other := apiClient(e.base, e.newKey(t, e.alice, agentA, `{"name":"unlimited"}`)["key"].(string))
	params := openai.ChatCompletionNewParams{Model: agentA, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)}}
	if _, err := other.Chat.Completions.New(context.Background(), params); err != nil {
		t.Fatalf("other key: %v", err)
	}
	e.wallet.SetBalance(e.alice, 0)
	_, err := other.Chat.Completions.New(context.Background(), params)
	if oe := asOpenAIError(t, err); oe.StatusCode != 402 || oe.Code != "insufficient_funds" || !strings.Contains(oe.Message, "Insufficient funds") {
		t.Fatalf("empty wallet: %v", err)
	}
}

// oneWindow is a clock for the rate limits that stays in the middle of one
// window (they are aligned to the minute): a new window never starts
// counting afresh mid-test, whenever in the minute the test runs.
func oneWindow() func() time.Time {
	mid := time.Now().Truncate(time.Minute).Add(30 * time.Second)
	return func() time.Time { return mid }
}

// Per-key and per-owner rate limits: 429 with Retry-After.
func TestAgentAPIRateLimits(t *testing.T) {
	e := start(t, options{apiKeyLimit: 2, apiOwnerLimit: 3, rateLimitNow: oneWindow()})
	k1 := apiClient(e.base, e.newKey(t, e.alice, agentA, `{"name":"one"}`)["key"].(string))
	k2 := apiClient(e.base, e.newKey(t, e.alice, agentA, `{"name":"two"}`)["key"].(string))
	params := openai.ChatCompletionNewParams{Model: agentA, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)}}
	ctx := context.Background()
	check429 := func(err error) {
		t.Helper()
		oe := asOpenAIError(t, err)
		retry, perr := strconv.Atoi(oe.Response.Header.Get("Retry-After"))
		if oe.StatusCode != 429 || oe.Code != "rate_limit_exceeded" || oe.Type != "rate_limit_error" || perr != nil || retry < 1 || retry > 60 {
			t.Fatalf("want 429 with Retry-After: %v (Retry-After %q)", err, oe.Response.Header.Get("Retry-After"))
		}
	}
	for i := range 2 {
		if _, err := k1.Chat.Completions.New(ctx, params); err != nil {
			t.Fatalf("k1 request %d: %v", i, err)
		}
	}
	reserves := e.wallet.Calls("Reserve")
	_, err := k1.Chat.Completions.New(ctx, params)
	check429(err) // the key's own limit
	if _, err := k2.Chat.Completions.New(ctx, params); err != nil {
		t.Fatalf("k2: %v", err)
	}
	_, err = k2.Chat.Completions.New(ctx, params)
	check429(err) // the owner's limit, all keys together
	if e.wallet.Calls("Reserve") != reserves+1 {
		t.Fatal("a rate-limited request reserved money")
	}
}
