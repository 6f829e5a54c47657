package llmsim_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/llmsim"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
	"github.com/agentic-app/agentic/services/platform/tokens"
)

var knowledge = []prompt.Passage{
	{DocumentID: "d1", DocumentName: "Algebra_Syllabus", URL: "https://docs.google.com/document/d/a/edit", Labels: []string{"algebra"},
		Text: "Welcome to Algebra I. Homework is due every Friday before noon. Late homework loses ten percent per day."},
	{DocumentID: "d2", DocumentName: "Lab_Safety", URL: "https://docs.google.com/document/d/b/edit",
		Text: "Always wear goggles in the chemistry lab. Never eat or drink near the benches."},
	{DocumentID: "d3", DocumentName: "Exam_Guide", URL: "https://docs.google.com/document/d/c/edit", Labels: []string{"exams"},
		Text: "The final exam covers chapters one to six. Calculators are allowed during the exam."},
}

func build(t *testing.T, question string, passages []prompt.Passage) prompt.Output {
	t.Helper()
	out, err := prompt.Build(prompt.Input{
		AgentName: "Math Tutor", Instructions: "Answer from @Algebra_Syllabus and the other documents.",
		Referenced: passages[:min(1, len(passages))], Retrieved: passages[min(1, len(passages)):],
		Message: question, ContextWindow: 8192, MaxOutputTokens: 512,
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestAnswerPicksTheBestPassageAndNamesIt(t *testing.T) {
	cases := []struct {
		question, doc, quote string
		n                    int
	}{
		{"When is the homework due?", "Algebra\\_Syllabus", "Homework is due every Friday before noon.", 1},
		{"Do I need goggles in the lab?", "Lab\\_Safety", "Always wear goggles in the chemistry lab.", 2},
		{"Are calculators allowed in the exam?", "Exam\\_Guide", "Calculators are allowed during the exam.", 3},
	}
	for _, c := range cases {
		out := build(t, c.question, knowledge)
		answer := llmsim.Answer(out.Messages)
		if !strings.HasPrefix(answer, "According to **"+c.doc+"** [") {
			t.Errorf("%q: answer %q does not name %s", c.question, answer, c.doc)
		}
		if !strings.Contains(answer, c.quote) {
			t.Errorf("%q: answer %q does not quote %q", c.question, answer, c.quote)
		}
		cited := prompt.CitedPassages(answer, out.Passages)
		if len(cited) == 0 || cited[0].DocumentID != knowledge[c.n-1].DocumentID {
			t.Errorf("%q: cites %+v, want %s first", c.question, cited, knowledge[c.n-1].DocumentName)
		}
		if again := llmsim.Answer(out.Messages); again != answer {
			t.Errorf("not deterministic: %q then %q", answer, again)
		}
	}
}

func TestAnswerWithoutKnowledge(t *testing.T) {
	out := build(t, "What is the capital of Mongolia?", nil)
	answer := llmsim.Answer(out.Messages)
	if answer != "I don't have any linked knowledge about **capital Mongolia**. Link a document that covers it to this agent and ask again." {
		t.Fatalf("answer = %q", answer)
	}
	out = build(t, "What is the capital of Mongolia?", knowledge)
	if answer := llmsim.Answer(out.Messages); !strings.HasPrefix(answer, "I couldn't find anything about **capital Mongolia** in the 3 linked passages") {
		t.Fatalf("answer = %q", answer)
	}
}

func newSim(t *testing.T, cfg llmsim.Config) (*llmsim.Sim, *httptest.Server) {
	sim := llmsim.New(cfg)
	srv := httptest.NewServer(sim)
	t.Cleanup(srv.Close)
	return sim, srv
}

func post(t *testing.T, url string, body any, headers map[string]string) *http.Response {
	t.Helper()
	data, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func wireMessages(msgs []llm.Message) []map[string]string {
	var out []map[string]string
	for _, m := range msgs {
		out = append(out, map[string]string{"role": m.Role, "content": m.Content})
	}
	return out
}

type rawChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Model   string `json:"model"`
	Choices []struct {
		Index        int            `json:"index"`
		Delta        map[string]any `json:"delta"`
		FinishReason *string        `json:"finish_reason"`
	} `json:"choices"`
	Usage json.RawMessage `json:"usage"`
}

// The stream is OpenAI's exact shape: a role chunk, one chunk per word,
// a finish chunk, the usage chunk (choices [] and usage; "usage": null on all
// others) and [DONE].
func TestStreamFormat(t *testing.T) {
	_, srv := newSim(t, llmsim.Config{})
	out := build(t, "When is the homework due?", knowledge)
	res := post(t, srv.URL+"/v1/chat/completions", map[string]any{
		"model": "agentic-sim", "messages": wireMessages(out.Messages), "stream": true,
		"stream_options": map[string]bool{"include_usage": true},
	}, nil)
	defer res.Body.Close()
	if res.StatusCode != 200 || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, content type %q", res.StatusCode, res.Header.Get("Content-Type"))
	}
	var events []string
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("unexpected line %q", line)
		}
		events = append(events, data)
	}
	if len(events) < 5 || events[len(events)-1] != "[DONE]" {
		t.Fatalf("events = %q", events)
	}
	var chunks []rawChunk
	for _, e := range events[:len(events)-1] {
		var c rawChunk
		if err := json.Unmarshal([]byte(e), &c); err != nil {
			t.Fatalf("chunk %q: %v", e, err)
		}
		if c.Object != "chat.completion.chunk" || c.Model != "agentic-sim" || c.ID == "" || (len(chunks) > 0 && c.ID != chunks[0].ID) {
			t.Fatalf("chunk header %q", e)
		}
		chunks = append(chunks, c)
	}
	if chunks[0].Choices[0].Delta["role"] != "assistant" || chunks[0].Choices[0].Delta["content"] != "" {
		t.Fatalf("first chunk %+v", chunks[0])
	}
	var text strings.Builder
	words := 0
	for _, c := range chunks[1 : len(chunks)-2] {
		if string(c.Usage) != "null" || len(c.Choices) != 1 || c.Choices[0].FinishReason != nil {
			t.Fatalf("content chunk %+v", c)
		}
		piece := c.Choices[0].Delta["content"].(string)
		if strings.Count(strings.TrimSpace(piece), " ") != 0 {
			t.Fatalf("delta %q is more than one word", piece)
		}
		text.WriteString(piece)
		words++
	}
	want := llmsim.Answer(out.Messages)
	if text.String() != want || words != len(strings.Fields(want)) {
		t.Fatalf("streamed %q in %d deltas, want %q word by word", text.String(), words, want)
	}
	fin := chunks[len(chunks)-2]
	if fin.Choices[0].FinishReason == nil || *fin.Choices[0].FinishReason != "stop" || len(fin.Choices[0].Delta) != 0 {
		t.Fatalf("finish chunk %+v", fin)
	}
	last := chunks[len(chunks)-1]
	var u struct{ PromptTokens, CompletionTokens, TotalTokens int }
	if err := json.Unmarshal(last.Usage, &struct {
		P *int `json:"prompt_tokens"`
		C *int `json:"completion_tokens"`
		T *int `json:"total_tokens"`
	}{&u.PromptTokens, &u.CompletionTokens, &u.TotalTokens}); err != nil || len(last.Choices) != 0 {
		t.Fatalf("usage chunk %+v (%v)", last, err)
	}
	if u.PromptTokens != out.InputTokens || u.CompletionTokens != tokens.Count(want) || u.TotalTokens != u.PromptTokens+u.CompletionTokens {
		t.Fatalf("usage %+v, want prompt %d completion %d", u, out.InputTokens, tokens.Count(want))
	}
}

func client(srv *httptest.Server, opts ...option.RequestOption) openai.Client {
	return openai.NewClient(append([]option.RequestOption{option.WithBaseURL(srv.URL + "/v1"), option.WithAPIKey("sk-test"), option.WithMaxRetries(0)}, opts...)...)
}

func TestNonStreamingWithTheOfficialClient(t *testing.T) {
	_, srv := newSim(t, llmsim.Config{})
	c := client(srv)
	out := build(t, "Do I need goggles in the lab?", knowledge)
	var msgs []openai.ChatCompletionMessageParamUnion
	for _, m := range out.Messages {
		switch m.Role {
		case llm.RoleSystem:
			msgs = append(msgs, openai.SystemMessage(m.Content))
		default:
			msgs = append(msgs, openai.UserMessage(m.Content))
		}
	}
	res, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "agentic-sim", Messages: msgs})
	if err != nil {
		t.Fatal(err)
	}
	want := llmsim.Answer(out.Messages)
	if len(res.Choices) != 1 || res.Choices[0].Message.Content != want || res.Choices[0].FinishReason != "stop" {
		t.Fatalf("response %+v", res)
	}
	if res.Usage.PromptTokens != int64(out.InputTokens) || res.Usage.CompletionTokens != int64(tokens.Count(want)) {
		t.Fatalf("usage %+v, want %d/%d", res.Usage, out.InputTokens, tokens.Count(want))
	}

	// max_completion_tokens cuts the answer at a word boundary with "length".
	res, err = c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "agentic-sim", Messages: msgs, MaxCompletionTokens: openai.Int(5)})
	if err != nil {
		t.Fatal(err)
	}
	got := res.Choices[0].Message.Content
	if res.Choices[0].FinishReason != "length" || res.Usage.CompletionTokens > 5 || res.Usage.CompletionTokens != int64(tokens.Count(got)) || !strings.HasPrefix(want, got) || got == "" {
		t.Fatalf("limited answer %q (%s, %d tokens)", got, res.Choices[0].FinishReason, res.Usage.CompletionTokens)
	}
}

func TestModelsWithTheOfficialClient(t *testing.T) {
	_, srv := newSim(t, llmsim.Config{APIKey: "sk-test"})
	c := client(srv)
	page, err := c.Models.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Data) != 2 || page.Data[0].ID != "agentic-sim" || page.Data[0].OwnedBy != "agentic" ||
		page.Data[1].ID != llmsim.EmbeddingModel {
		t.Fatalf("models %+v", page.Data)
	}
	m, err := c.Models.Get(context.Background(), "agentic-sim+cut5")
	if err != nil || m.ID != "agentic-sim+cut5" {
		t.Fatalf("get = %+v, %v", m, err)
	}
	var apiErr *openai.Error
	if _, err := c.Models.Get(context.Background(), "gpt-4o"); !asAPIError(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Fatalf("unknown model: %v", err)
	}
	bad := client(srv, option.WithAPIKey("sk-wrong"))
	if _, err := bad.Models.List(context.Background()); !asAPIError(err, &apiErr) || apiErr.StatusCode != 401 {
		t.Fatalf("wrong key: %v", err)
	}
}

func TestParseModel(t *testing.T) {
	base, f, err := llmsim.ParseModel("agentic-sim+fail429x2+latency20ms+cut5+ttft=1s+retryafter=250ms")
	if err != nil || base != "agentic-sim" {
		t.Fatal(base, err)
	}
	want := llmsim.Faults{LatencyPerToken: 20 * time.Millisecond, TimeToFirstToken: time.Second, FailStatus: 429, FailCount: 2, CutAfter: 5, RetryAfter: 250 * time.Millisecond}
	if f != want {
		t.Fatalf("faults %+v, want %+v", f, want)
	}
	if _, f, err := llmsim.ParseModel("agentic-sim:latency=50ms,fail=500"); err != nil || f.LatencyPerToken != 50*time.Millisecond || f.FailStatus != 500 || f.CutAfter != -1 {
		t.Fatalf("colon syntax: %+v %v", f, err)
	}
	if _, f, err := llmsim.ParseModel("agentic-sim"); err != nil || f != (llmsim.Faults{CutAfter: -1}) {
		t.Fatalf("plain: %+v %v", f, err)
	}
	for _, bad := range []string{"gpt-4o", "agentic-simulator", "agentic-sim+fail200", "agentic-sim+cut", "agentic-sim+bogus5", "agentic-sim+latency=fast"} {
		if _, _, err := llmsim.ParseModel(bad); err == nil {
			t.Errorf("ParseModel(%q) accepted", bad)
		}
	}
}

func chatBody(model string) map[string]any {
	return map[string]any{"model": model, "messages": []map[string]string{{"role": "user", "content": "hello there"}}}
}

func TestInjectedFailures(t *testing.T) {
	sim, srv := newSim(t, llmsim.Config{})
	url := srv.URL + "/v1/chat/completions"
	status := func(res *http.Response) int { res.Body.Close(); return res.StatusCode }

	// Always.
	for i := 0; i < 3; i++ {
		if s := status(post(t, url, chatBody("agentic-sim+fail500"), nil)); s != 500 {
			t.Fatalf("fail500 attempt %d: %d", i, s)
		}
	}
	// The first two attempts of the same request, then success, then it starts over.
	seq := []int{}
	for i := 0; i < 4; i++ {
		seq = append(seq, status(post(t, url, chatBody("agentic-sim+fail429x2"), nil)))
	}
	if want := []int{429, 429, 200, 429}; !equalInts(seq, want) {
		t.Fatalf("fail429x2 statuses %v, want %v", seq, want)
	}
	// Headers, with Retry-After and an explicit key shared by different bodies.
	h := map[string]string{llmsim.HeaderFail: "503", llmsim.HeaderFailCount: "1", llmsim.HeaderFailKey: "k", llmsim.HeaderRetryAfter: "1500ms"}
	res := post(t, url, chatBody("agentic-sim"), h)
	if res.StatusCode != 503 || res.Header.Get("Retry-After") != "2" || res.Header.Get("Retry-After-Ms") != "1500" {
		t.Fatalf("header fault: %d %v", res.StatusCode, res.Header)
	}
	res.Body.Close()
	other := chatBody("agentic-sim")
	other["messages"] = []map[string]string{{"role": "user", "content": "another question"}}
	if s := status(post(t, url, other, h)); s != 200 {
		t.Fatalf("same key, second attempt: %d", s)
	}

	// Admin queue: the next two requests, whatever they are.
	res = post(t, srv.URL+"/_sim/faults", map[string]any{"status": 502, "count": 2}, nil)
	if status(res) != 200 {
		t.Fatal("POST /_sim/faults failed")
	}
	for _, want := range []int{502, 502, 200} {
		if s := status(post(t, url, chatBody("agentic-sim"), nil)); s != want {
			t.Fatalf("queued fault: %d, want %d", s, want)
		}
	}
	if s := status(post(t, srv.URL+"/_sim/faults", map[string]any{"status": 200, "count": 1}, nil)); s != 400 {
		t.Fatalf("invalid fault accepted: %d", s)
	}
	if st := sim.Stats(); st.Failed != 3+3+1+2 || st.Completed != 1+1+1 {
		t.Fatalf("stats %+v", st)
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func asAPIError(err error, target **openai.Error) bool {
	e, ok := err.(*openai.Error)
	if ok {
		*target = e
	}
	return ok
}
