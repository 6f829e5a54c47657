package app

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// Issue 31: the agent API at the edges real OpenAI clients reach — the
// Responses API, model lookup, structured output, parameters it cannot
// honour, unknown routes and request ids — checked with openai-go where a
// client would use it.

var answerSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"summary":    map[string]any{"type": "string"},
		"confidence": map[string]any{"type": "number"},
		"sources":    map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
	},
	"required":             []any{"summary", "confidence", "sources"},
	"additionalProperties": false,
}

// checkAnswerObject fails unless text is a JSON object of answerSchema.
func checkAnswerObject(t *testing.T, text string) {
	t.Helper()
	var v struct {
		Summary    *string   `json:"summary"`
		Confidence *float64  `json:"confidence"`
		Sources    *[]string `json:"sources"`
	}
	if err := json.Unmarshal([]byte(text), &v); err != nil || v.Summary == nil || *v.Summary == "" || v.Confidence == nil || v.Sources == nil {
		t.Fatalf("not an object of the schema: %q (%v)", text, err)
	}
}

func TestAgentAPIResponsesWithOpenAIGo(t *testing.T) {
	e := start(t, options{})
	ctx := context.Background()
	secret := e.newKey(t, e.alice, agentA, `{"name":"responses"}`)["key"].(string)
	c := apiClient(e.base, secret)
	model := "agentic/" + agentA

	var httpRes *http.Response
	res, err := c.Responses.New(ctx, responses.ResponseNewParams{
		Model:        model,
		Instructions: openai.String("Answer like a pirate."),
		Input:        responses.ResponseNewParamsInputUnion{OfString: openai.String(question)},
		Metadata:     shared.Metadata{"ticket": "42"},
	}, option.WithResponseInto(&httpRes))
	if err != nil {
		t.Fatal(err)
	}
	if res.Object != "response" || res.Status != responses.ResponseStatusCompleted || !strings.HasPrefix(res.ID, "resp_") ||
		!strings.Contains(res.OutputText(), "quadratic formula") || res.Model != model || res.Metadata["ticket"] != "42" ||
		res.Usage.InputTokens <= 0 || res.Usage.OutputTokens <= 0 || res.Usage.TotalTokens != res.Usage.InputTokens+res.Usage.OutputTokens {
		t.Fatalf("response %s", res.RawJSON())
	}
	if id := httpRes.Header.Get("X-Request-Id"); len(id) != 32 {
		t.Fatalf("X-Request-Id %q", id)
	}
	var cost struct {
		Usage struct{ Cost float64 } `json:"usage"`
	}
	if err := json.Unmarshal([]byte(res.RawJSON()), &cost); err != nil || cost.Usage.Cost <= 0 {
		t.Fatalf("usage without cost: %s", res.RawJSON())
	}
	// Citations are url_citation annotations on the output text.
	out := res.Output[0].Content[0]
	if len(out.Annotations) == 0 || out.Annotations[0].Type != "url_citation" || out.Annotations[0].Title == "" ||
		!strings.HasPrefix(out.Annotations[0].URL, "https://docs.google.com/") {
		t.Fatalf("annotations %s", res.Output[0].RawJSON())
	}
	// The instructions went to the model after the agent's own.
	var sent struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(e.front.lastRequest(), &sent); err != nil {
		t.Fatal(err)
	}
	if len(sent.Messages) < 3 || !strings.Contains(sent.Messages[0].Content, "You are Math Tutor") ||
		!strings.HasSuffix(sent.Messages[1].Content, "Answer like a pirate.") {
		t.Fatalf("sent %+v", sent.Messages)
	}

	// Stored: read back as answered, by any key of the agent.
	got, err := c.Responses.Get(ctx, res.ID, responses.ResponseGetParams{})
	if err != nil || got.ID != res.ID || got.OutputText() != res.OutputText() {
		t.Fatalf("retrieve: %v %+v", err, got)
	}
	other := apiClient(e.base, e.newKey(t, e.alice, agentA, `{"name":"second"}`)["key"].(string))
	if got, err := other.Responses.Get(ctx, res.ID, responses.ResponseGetParams{}); err != nil || got.ID != res.ID {
		t.Fatalf("retrieve with another key of the agent: %v", err)
	}
	if _, err := c.Responses.Get(ctx, "resp_unknown", responses.ResponseGetParams{}); asOpenAIError(t, err).StatusCode != 404 {
		t.Fatalf("unknown response: %v", err)
	}

	// previous_response_id: the stored question and answer come before the new question.
	next, err := c.Responses.New(ctx, responses.ResponseNewParams{
		Model: model, PreviousResponseID: openai.String(res.ID),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("And in short?")},
	})
	if err != nil || next.PreviousResponseID != res.ID {
		t.Fatalf("follow-up: %v", err)
	}
	if err := json.Unmarshal(e.front.lastRequest(), &sent); err != nil {
		t.Fatal(err)
	}
	m := sent.Messages
	if len(m) < 3 || m[len(m)-3].Role != "user" || m[len(m)-3].Content != question || m[len(m)-2].Role != "assistant" ||
		m[len(m)-2].Content != res.OutputText() || m[len(m)-1].Content != "And in short?" {
		t.Fatalf("follow-up sent %+v", m)
	}
	_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: model, PreviousResponseID: openai.String("resp_nope"),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Hi")}})
	if ae := asOpenAIError(t, err); ae.StatusCode != 404 || ae.Param != "previous_response_id" {
		t.Fatalf("unknown previous response: %v", err)
	}

	// store: false is answered and not kept.
	unstored, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: model, Store: openai.Bool(false),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(question)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Responses.Get(ctx, unstored.ID, responses.ResponseGetParams{}); asOpenAIError(t, err).StatusCode != 404 {
		t.Fatalf("unstored response was kept: %v", err)
	}

	// Streaming: named events in order, deltas that add up to the text.
	stream := c.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: model,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(question)}})
	var types []string
	var deltas, doneText string
	var completed responses.Response
	for stream.Next() {
		ev := stream.Current()
		types = append(types, ev.Type)
		switch ev.Type {
		case "response.output_text.delta":
			deltas += ev.Delta
		case "response.output_text.done":
			doneText = ev.Text
		case "response.completed":
			completed = ev.Response
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(types, ",")
	if !strings.HasPrefix(joined, "response.created,response.in_progress,response.output_item.added,response.content_part.added,response.output_text.delta") ||
		!strings.HasSuffix(joined, "response.output_text.done,response.content_part.done,response.output_item.done,response.completed") ||
		deltas == "" || deltas != doneText || completed.OutputText() != deltas || completed.Usage.OutputTokens <= 0 {
		t.Fatalf("stream events %s; deltas %q done %q completed %q", joined, deltas, doneText, completed.OutputText())
	}

	// Structured output through text.format.
	structured, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: model,
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(question)},
		Text: responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigUnionParam{
			OfJSONSchema: &responses.ResponseFormatTextJSONSchemaConfigParam{Name: "answer", Schema: answerSchema, Strict: openai.Bool(true)}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	checkAnswerObject(t, structured.OutputText())

	// max_output_tokens reached: incomplete, as OpenAI reports it.
	short, err := c.Responses.New(ctx, responses.ResponseNewParams{Model: model, MaxOutputTokens: openai.Int(3),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(question)}})
	if err != nil || short.Status != responses.ResponseStatusIncomplete || short.IncompleteDetails.Reason != "max_output_tokens" {
		t.Fatalf("bounded response: %v %s", err, short.RawJSON())
	}
}

func TestAgentAPIStructuredOutputAndUnsupportedParameters(t *testing.T) {
	e := start(t, options{})
	ctx := context.Background()
	secret := e.newKey(t, e.alice, agentA, `{"name":"formats"}`)["key"].(string)
	c := apiClient(e.base, secret)
	model := "agentic/" + agentA
	ask := []openai.ChatCompletionMessageParamUnion{openai.UserMessage(question)}

	res, err := c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: model, Messages: ask,
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
			JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "answer", Schema: answerSchema, Strict: openai.Bool(true)}}}})
	if err != nil {
		t.Fatal(err)
	}
	checkAnswerObject(t, res.Choices[0].Message.Content)
	// The format reached the model, and so did a rule asking for JSON.
	var sent struct {
		Messages       []struct{ Role, Content string }
		ResponseFormat struct {
			Type       string `json:"type"`
			JSONSchema struct {
				Name   string         `json:"name"`
				Schema map[string]any `json:"schema"`
			} `json:"json_schema"`
		} `json:"response_format"`
	}
	if err := json.Unmarshal(e.front.lastRequest(), &sent); err != nil {
		t.Fatal(err)
	}
	if sent.ResponseFormat.Type != "json_schema" || sent.ResponseFormat.JSONSchema.Name != "answer" || sent.ResponseFormat.JSONSchema.Schema["required"] == nil ||
		!strings.Contains(sent.Messages[1].Content, "JSON") {
		t.Fatalf("model was sent %s", e.front.lastRequest())
	}

	res, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: model, Messages: ask,
		ResponseFormat: openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &shared.ResponseFormatJSONObjectParam{}}})
	var obj map[string]any
	if err != nil || json.Unmarshal([]byte(res.Choices[0].Message.Content), &obj) != nil || len(obj) == 0 {
		t.Fatalf("json_object: %v %q", err, res.Choices[0].Message.Content)
	}

	// What the agent API cannot honour is refused naming the parameter,
	// before anything is reserved; sampling parameters are accepted.
	reserves := e.wallet.Calls("Reserve")
	for _, c := range []struct {
		name, body, param string
	}{
		{"logprobs", `"logprobs":true`, "logprobs"},
		{"top_logprobs", `"top_logprobs":3`, "top_logprobs"},
		{"audio", `"audio":{"voice":"alloy","format":"mp3"}`, "audio"},
		{"modalities", `"modalities":["text","audio"]`, "modalities"},
		{"tool_choice", `"tool_choice":"required"`, "tool_choice"},
		{"unknown", `"frobnicate":1`, "frobnicate"},
		{"bad format", `"response_format":{"type":"xml"}`, "response_format.type"},
		{"schema without name", `"response_format":{"type":"json_schema","json_schema":{"schema":{}}}`, "response_format.json_schema.name"},
	} {
		body := `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}],` + c.body + `}`
		r := raw(t, "POST", e.base+"/api/v1/chat/completions", "Bearer "+secret, body)
		if ae := apiError(t, r); r.Status != 400 || ae["param"] != c.param || ae["type"] != "invalid_request_error" {
			t.Errorf("%s: %d %s", c.name, r.Status, r.Raw)
		}
	}
	r := raw(t, "POST", e.base+"/api/v1/responses", "Bearer "+secret, `{"model":"`+model+`","input":"hi","background":true}`)
	if ae := apiError(t, r); r.Status != 400 || ae["param"] != "background" {
		t.Errorf("responses background: %d %s", r.Status, r.Raw)
	}
	if e.wallet.Calls("Reserve") != reserves {
		t.Fatalf("refused requests reserved: %d → %d", reserves, e.wallet.Calls("Reserve"))
	}
	ok := raw(t, "POST", e.base+"/api/v1/chat/completions", "Bearer "+secret,
		`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}],"temperature":0.2,"top_p":1,"seed":7,"stop":["\n\n"],"logprobs":false,"user":"u1","tool_choice":"none","parallel_tool_calls":false}`)
	if ok.Status != 200 {
		t.Fatalf("sampling parameters: %d %s", ok.Status, ok.Raw)
	}
}

func TestAgentAPIModelLookupUnknownRoutesAndRequestIDs(t *testing.T) {
	e := start(t, options{})
	ctx := context.Background()
	secret := e.newKey(t, e.alice, agentA, `{"name":"edges"}`)["key"].(string)
	c := apiClient(e.base, secret)
	model := "agentic/" + agentA

	m, err := c.Models.Get(ctx, model) // openai-go escapes the slash
	if err != nil || m.ID != model || m.Object != "model" || m.OwnedBy != "agentic" {
		t.Fatalf("models.get: %v %+v", err, m)
	}
	for _, p := range []string{"/api/v1/models/" + model, "/api/v1/models/" + agentA, "/api/v1/models/" + url.PathEscape(model)} {
		if r := raw(t, "GET", e.base+p, "Bearer "+secret, ""); r.Status != 200 || r.Obj()["id"] != model {
			t.Fatalf("GET %s: %d %s", p, r.Status, r.Raw)
		}
	}
	_, err = c.Models.Get(ctx, "gpt-4o")
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.StatusCode != 404 || oe.Code != "model_not_found" {
		t.Fatalf("unknown model: %v", err)
	}
	if _, err := c.Models.Get(ctx, "agentic/"+agentB); asOpenAIError(t, err).StatusCode != 404 {
		t.Fatalf("another owner's agent: %v", err)
	}

	// Unknown routes and methods: OpenAI's error shape, with a request id.
	for _, q := range []struct {
		method, path string
		status       int
		code         string
	}{
		{"GET", "/api/v1/embeddings", 404, "unknown_url"},
		{"POST", "/api/v1/completions", 404, "unknown_url"},
		{"GET", "/api/v1/chat/completions", 405, "method_not_allowed"},
		{"DELETE", "/api/v1/models", 405, "method_not_allowed"},
		{"POST", "/api/v1/responses/resp_x", 405, "method_not_allowed"},
	} {
		r := raw(t, q.method, e.base+q.path, "Bearer "+secret, "")
		if ae := apiError(t, r); r.Status != q.status || ae["code"] != q.code || len(r.Header.Get("X-Request-Id")) != 32 ||
			(q.status == 405 && r.Header.Get("Allow") == "") {
			t.Errorf("%s %s: %d %v %s", q.method, q.path, r.Status, r.Header, r.Raw)
		}
	}
	// Every answer — success, 401, 400 — carries a distinct request id.
	seen := map[string]bool{}
	for _, r := range []resp{
		raw(t, "GET", e.base+"/api/v1/models", "Bearer "+secret, ""),
		raw(t, "GET", e.base+"/api/v1/models", "Bearer agk_"+strings.Repeat("x", 32), ""),
		raw(t, "POST", e.base+"/api/v1/chat/completions", "Bearer "+secret, `{}`),
	} {
		id := r.Header.Get("X-Request-Id")
		if len(id) != 32 || seen[id] {
			t.Fatalf("%d: X-Request-Id %q", r.Status, id)
		}
		seen[id] = true
	}
}
