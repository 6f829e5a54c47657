package transport

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/server"
)

// The Responses API (POST /api/v1/responses, GET /api/v1/responses/{id}):
// the same answer path and metering as Chat Completions, in the shapes of
// OpenAI's Responses API, which the Vercel AI SDK's default OpenAI provider
// and newer OpenAI SDK code call.

// responsesRequest is the part of a Responses API request the agent API
// reads; responsesParams says what happens to the others.
type responsesRequest struct {
	Model              *string           `json:"model"`
	Input              json.RawMessage   `json:"input"`
	Instructions       *string           `json:"instructions"`
	MaxOutputTokens    *int64            `json:"max_output_tokens"`
	Stream             *bool             `json:"stream"`
	PreviousResponseID *string           `json:"previous_response_id"`
	Store              *bool             `json:"store"`
	Metadata           map[string]string `json:"metadata"`
	Text               *struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
	Tools json.RawMessage `json:"tools"`
}

var responsesParams = paramPolicy{
	honoured: []string{"model", "input", "instructions", "max_output_tokens", "stream", "previous_response_id",
		"store", "metadata", "text", "tools"},
	noEffect: []string{"temperature", "top_p", "user", "parallel_tool_calls", "service_tier", "prompt_cache_key",
		"prompt_cache_retention", "safety_identifier", "stream_options", "reasoning", "max_tool_calls"},
	refused: []string{"tool_choice", "include", "background", "conversation", "prompt", "top_logprobs", "truncation"},
}

// Metadata bounds (OpenAI's).
const (
	maxMetadataKeys     = 16
	maxMetadataKeyLen   = 64
	maxMetadataValueLen = 512
)

// parsedResponse is a validated Responses API request.
type parsedResponse struct {
	parsedAnswer
	stream       bool
	store        bool
	instructions *string
	maxOutSet    *int64
	previous     string
	metadata     map[string]string
	formatJSON   json.RawMessage
}

func parseResponses(b responsesRequest, key conversations.APIKey) (parsedResponse, error) {
	p := parsedResponse{store: b.Store == nil || *b.Store, stream: b.Stream != nil && *b.Stream,
		instructions: b.Instructions, maxOutSet: b.MaxOutputTokens, metadata: b.Metadata}
	if err := checkModel(b.Model, key); err != nil {
		return p, err
	}
	if nonEmptyJSON(b.Tools) {
		return p, unsupportedParam("tools", "Tools are not supported by the agent API.")
	}
	var err error
	if p.maxOut, err = maxOutput(outputBound{"max_output_tokens", b.MaxOutputTokens}); err != nil {
		return p, err
	}
	p.formatJSON = json.RawMessage(`{"type":"text"}`)
	if b.Text != nil && nonEmptyJSON(b.Text.Format) {
		if p.format, err = parseFormat(b.Text.Format, "text.format", true); err != nil {
			return p, err
		}
		p.formatJSON = b.Text.Format
	}
	if len(b.Metadata) > maxMetadataKeys {
		return p, badParam("metadata", "invalid_value", fmt.Sprintf("metadata may have at most %d keys.", maxMetadataKeys))
	}
	for k, v := range b.Metadata {
		if utf8.RuneCountInString(k) > maxMetadataKeyLen || utf8.RuneCountInString(v) > maxMetadataValueLen {
			return p, badParam("metadata", "invalid_value",
				fmt.Sprintf("metadata keys must be at most %d characters and values at most %d.", maxMetadataKeyLen, maxMetadataValueLen))
		}
	}
	if b.PreviousResponseID != nil {
		p.previous = strings.TrimSpace(*b.PreviousResponseID)
	}
	var system []string
	if b.Instructions != nil && strings.TrimSpace(*b.Instructions) != "" {
		system = append(system, *b.Instructions)
	}
	turns, more, err := responseInput(b.Input)
	if err != nil {
		return p, err
	}
	system = append(system, more...)
	if len(turns) == 0 || turns[len(turns)-1].Role != "user" {
		return p, badParam("input", "invalid_value", "The last input item (other than system messages) must have role user: it is the question the agent answers.")
	}
	p.question = turns[len(turns)-1].Content
	for _, t := range turns[:len(turns)-1] {
		if strings.TrimSpace(t.Content) != "" {
			p.history = append(p.history, t)
		}
	}
	p.system = strings.Join(system, "\n\n")
	return p, nil
}

// responseInput reads input: a string (the question) or a list of message
// items ({type?: "message", role, content}); system and developer messages
// come back apart.
func responseInput(raw json.RawMessage) (turns []conversations.Message, system []string, err error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return nil, nil, badParam("input", "missing_required_parameter", "input is required: a string or a list of messages.")
	}
	if s[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return nil, nil, badParam("input", "invalid_type", "input must be a string or a list of messages.")
		}
		return []conversations.Message{{Role: "user", Content: text}}, nil, nil
	}
	var items []struct {
		Type    *string         `json:"type"`
		Role    *string         `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, nil, badParam("input", "invalid_type", "input must be a string or a list of messages.")
	}
	if len(items) == 0 {
		return nil, nil, badParam("input", "invalid_value", "input must not be empty.")
	}
	for i, it := range items {
		at := fmt.Sprintf("input[%d]", i)
		if it.Type != nil && *it.Type != "message" {
			return nil, nil, badParam(at+".type", "unsupported_value",
				fmt.Sprintf("Only message items are supported (not %q): the agent API has no tools; send earlier turns as messages or use previous_response_id.", *it.Type))
		}
		if it.Role == nil {
			return nil, nil, badParam(at+".role", "missing_required_parameter", at+".role is required.")
		}
		text, err := messageText(it.Content, at+".content")
		if err != nil {
			return nil, nil, err
		}
		switch *it.Role {
		case "system", "developer":
			if strings.TrimSpace(text) != "" {
				system = append(system, text)
			}
		case "user", "assistant":
			turns = append(turns, conversations.Message{Role: *it.Role, Content: text})
		default:
			return nil, nil, badParam(at+".role", "invalid_value", at+".role must be system, developer, user or assistant.")
		}
	}
	return turns, system, nil
}

// Response bodies (OpenAI's shapes).
type (
	responseJSON struct {
		ID                 string              `json:"id"`
		Object             string              `json:"object"`
		CreatedAt          int64               `json:"created_at"`
		Status             string              `json:"status"`
		Error              *responseErrorJSON  `json:"error"`
		IncompleteDetails  *incompleteJSON     `json:"incomplete_details"`
		Instructions       *string             `json:"instructions"`
		MaxOutputTokens    *int64              `json:"max_output_tokens"`
		Model              string              `json:"model"`
		Output             []outputMessageJSON `json:"output"`
		ParallelToolCalls  bool                `json:"parallel_tool_calls"`
		PreviousResponseID *string             `json:"previous_response_id"`
		Store              bool                `json:"store"`
		Temperature        *float64            `json:"temperature"`
		Text               responseTextJSON    `json:"text"`
		ToolChoice         string              `json:"tool_choice"`
		Tools              []any               `json:"tools"`
		TopP               *float64            `json:"top_p"`
		Truncation         string              `json:"truncation"`
		Usage              *responseUsageJSON  `json:"usage"`
		Metadata           map[string]string   `json:"metadata"`
	}
	responseErrorJSON struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	incompleteJSON struct {
		Reason string `json:"reason"`
	}
	responseTextJSON struct {
		Format json.RawMessage `json:"format"`
	}
	outputMessageJSON struct {
		Type    string           `json:"type"`
		ID      string           `json:"id"`
		Status  string           `json:"status"`
		Role    string           `json:"role"`
		Content []outputTextJSON `json:"content"`
	}
	outputTextJSON struct {
		Type        string           `json:"type"`
		Text        string           `json:"text"`
		Annotations []annotationJSON `json:"annotations"`
		Logprobs    []any            `json:"logprobs"`
	}
	// annotationJSON is a cited document as OpenAI's url_citation: the
	// marker's place in the text, the document's link and name.
	annotationJSON struct {
		Type       string `json:"type"`
		StartIndex int    `json:"start_index"`
		EndIndex   int    `json:"end_index"`
		URL        string `json:"url"`
		Title      string `json:"title"`
	}
	responseUsageJSON struct {
		InputTokens        int64 `json:"input_tokens"`
		InputTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokens        int64 `json:"output_tokens"`
		OutputTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
		TotalTokens int64 `json:"total_tokens"`
		// Cost is what the answer was charged, in dollars (an extension).
		Cost float64 `json:"cost"`
		// MarkupMicros and GreetingMicros (extensions): a consumer's parts
		// of Cost for the creator (0 otherwise).
		MarkupMicros   int64 `json:"markupMicros"`
		GreetingMicros int64 `json:"greetingMicros"`
	}
)

// responseIDs are a response's id and its output message's id.
func responseIDs(assistantMessageID string) (string, string) {
	return "resp_" + assistantMessageID, "msg_" + assistantMessageID
}

// annotations places each citation's markers ("[1]") in text, in
// characters (runes); a citation whose marker is not found is annotated at
// the end of the text.
func annotations(text string, cs []conversations.Citation) []annotationJSON {
	out := []annotationJSON{}
	for _, c := range cs {
		placed := false
		for _, l := range c.Labels {
			marker := "[" + l + "]"
			if i := strings.Index(text, marker); i >= 0 {
				start := utf8.RuneCountInString(text[:i])
				out = append(out, annotationJSON{Type: "url_citation", StartIndex: start, EndIndex: start + utf8.RuneCountInString(marker), URL: c.URL, Title: c.DocumentName})
				placed = true
			}
		}
		if !placed {
			n := utf8.RuneCountInString(text)
			out = append(out, annotationJSON{Type: "url_citation", StartIndex: n, EndIndex: n, URL: c.URL, Title: c.DocumentName})
		}
	}
	return out
}

// object is the response for an answer (or, with no answer yet, the
// in-progress response a stream starts with).
func (p parsedResponse) object(id, itemID, model string, created int64, m *endpoints.MessageResponse) responseJSON {
	r := responseJSON{ID: id, Object: "response", CreatedAt: created, Status: "in_progress", Instructions: p.instructions,
		MaxOutputTokens: p.maxOutSet, Model: model, Output: []outputMessageJSON{}, Store: p.store,
		Text: responseTextJSON{Format: p.formatJSON}, ToolChoice: "auto", Tools: []any{}, Truncation: "disabled",
		Metadata: p.metadata}
	if r.Metadata == nil {
		r.Metadata = map[string]string{}
	}
	if p.previous != "" {
		prev := p.previous
		r.PreviousResponseID = &prev
	}
	if m == nil {
		return r
	}
	a := m.Turn.Assistant
	r.Status = "completed"
	itemStatus := "completed"
	switch finishReason(*m) {
	case "length":
		r.Status, itemStatus = "incomplete", "incomplete"
		r.IncompleteDetails = &incompleteJSON{Reason: "max_output_tokens"}
	case "error":
		r.Status, itemStatus = "failed", "incomplete"
		r.Error = &responseErrorJSON{Code: "answer_interrupted", Message: conversations.MsgInterrupted}
	}
	r.Output = []outputMessageJSON{{Type: "message", ID: itemID, Status: itemStatus, Role: "assistant",
		Content: []outputTextJSON{{Type: "output_text", Text: a.Content, Annotations: annotations(a.Content, a.Citations), Logprobs: []any{}}}}}
	if u := a.Usage; u != nil {
		r.Usage = &responseUsageJSON{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
			TotalTokens: u.InputTokens + u.OutputTokens, Cost: Dollars(u.TotalMicros),
			MarkupMicros: u.MarkupMicros, GreetingMicros: u.GreetingMicros}
	}
	return r
}

func (a *agentAPI) createResponse(w http.ResponseWriter, r *http.Request) {
	var body responsesRequest
	c, ok := a.openCall(w, r, &body, responsesParams)
	if !ok {
		return
	}
	key, ctx, received := c.key, c.ctx, c.received
	p, err := parseResponses(body, key)
	if err != nil {
		a.fail(ctx, w, err)
		return
	}
	// An answer takes as long as the model does (bounded by LLM_TIMEOUT):
	// the server's write timeout must not cut it, streamed or not.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	model := conversations.ModelID(key.AgentID)
	req := endpoints.RespondRequest{Request: conversations.APIResponseRequest{
		APIAnswerRequest: p.request(c, r), PreviousResponseID: p.previous,
	}}
	var sink *responseSink
	if p.stream {
		sink = &responseSink{sse: sse{w: w, rc: http.NewResponseController(w)}, p: p, model: model, created: received.Unix()}
		req.Sink = sink
	}
	resp, err := a.respond(ctx, req)
	if err != nil {
		if sink != nil && sink.started {
			sink.fail(a.apiError(ctx, err))
			return
		}
		a.fail(ctx, w, err)
		return
	}
	m := resp.(endpoints.MessageResponse)
	id, itemID := responseIDs(m.Turn.Assistant.ID)
	obj := p.object(id, itemID, model, received.Unix(), &m)
	if p.store {
		a.store(r, key, p, obj)
	}
	if sink == nil {
		server.WriteJSON(w, http.StatusOK, obj)
		return
	}
	sink.finish(m, obj)
}

// store keeps a response for GET /api/v1/responses/{id} and
// previous_response_id. The answer is already given and charged: a failure
// to store it is logged, and the response is still returned.
func (a *agentAPI) store(r *http.Request, key conversations.APIKey, p parsedResponse, obj responseJSON) {
	ctx := r.Context()
	body, err := json.Marshal(obj)
	if err == nil {
		input := append(append([]conversations.Message{}, p.history...), conversations.Message{Role: "user", Content: p.question})
		output := ""
		if len(obj.Output) > 0 && len(obj.Output[0].Content) > 0 {
			output = obj.Output[0].Content[0].Text
		}
		_, err = a.saveResponse(ctx, endpoints.SaveResponseRequest{Key: key, Response: conversations.StoredResponse{
			ID: obj.ID, PreviousID: p.previous, Input: input, Output: output, Body: body,
		}})
	}
	if err != nil {
		a.log.WarnContext(ctx, "agent api response not stored", "response_id", obj.ID, "error", err)
	}
}

func (a *agentAPI) retrieveResponse(w http.ResponseWriter, r *http.Request) {
	key, ctx, ok := a.key(w, r)
	if !ok {
		return
	}
	resp, err := a.getResponse(ctx, endpoints.GetResponseRequest{Key: key, ID: r.PathValue("id")})
	if err != nil {
		a.fail(ctx, w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(resp.(endpoints.StoredResponseResponse).Response.Body)
}

// responseSink writes an answer as the Responses API's named events:
// response.created, response.in_progress, response.output_item.added and
// response.content_part.added with the first token; one
// response.output_text.delta per piece; then the annotations,
// response.output_text.done, response.content_part.done,
// response.output_item.done and response.completed (or
// response.incomplete at the output bound). An answer cut short ends with
// an "error" event. Every event carries its type and a sequence number.
type responseSink struct {
	sse
	p       parsedResponse
	model   string
	created int64
	id      string
	itemID  string
	seq     int
}

func (s *responseSink) send(typ string, fields map[string]any) error {
	fields["type"] = typ
	fields["sequence_number"] = s.seq
	s.seq++
	return s.event(typ, fields)
}

// Start implements conversations.Sink.
func (s *responseSink) Start(info conversations.StartInfo) error {
	if !s.started {
		addAnswerTiming(s.w.Header(), info)
	}
	s.id, s.itemID = responseIDs(info.AssistantMessageID)
	pending := s.p.object(s.id, s.itemID, s.model, s.created, nil)
	for _, typ := range []string{"response.created", "response.in_progress"} {
		if err := s.send(typ, map[string]any{"response": pending}); err != nil {
			return err
		}
	}
	if err := s.send("response.output_item.added", map[string]any{"output_index": 0, "item": outputMessageJSON{
		Type: "message", ID: s.itemID, Status: "in_progress", Role: "assistant", Content: []outputTextJSON{}}}); err != nil {
		return err
	}
	return s.send("response.content_part.added", map[string]any{"item_id": s.itemID, "output_index": 0, "content_index": 0,
		"part": outputTextJSON{Type: "output_text", Annotations: []annotationJSON{}, Logprobs: []any{}}})
}

// Delta implements conversations.Sink.
func (s *responseSink) Delta(text string) error {
	return s.send("response.output_text.delta", map[string]any{"item_id": s.itemID, "output_index": 0, "content_index": 0,
		"delta": text, "logprobs": []any{}})
}

func (s *responseSink) finish(m endpoints.MessageResponse, obj responseJSON) {
	a := m.Turn.Assistant
	if !s.started {
		// A replay (Idempotency-Key), or an answer with no text at all.
		if err := s.Start(conversations.StartInfo{AssistantMessageID: a.ID}); err != nil {
			return
		}
		if m.Turn.Replayed && a.Content != "" {
			if err := s.Delta(a.Content); err != nil {
				return
			}
		}
	}
	item := obj.Output[0]
	part := item.Content[0]
	for i, an := range part.Annotations {
		if err := s.send("response.output_text.annotation.added", map[string]any{"item_id": s.itemID, "output_index": 0,
			"content_index": 0, "annotation_index": i, "annotation": an}); err != nil {
			return
		}
	}
	if obj.Status == "failed" {
		// Cut short after some output: charged for what was generated; the
		// SDKs raise this event as the stream's error.
		s.fail(&APIError{Status: http.StatusBadGateway, Type: typeServer, Code: "answer_interrupted", Message: conversations.MsgInterrupted})
		return
	}
	steps := []struct {
		typ    string
		fields map[string]any
	}{
		{"response.output_text.done", map[string]any{"item_id": s.itemID, "output_index": 0, "content_index": 0, "text": part.Text, "logprobs": []any{}}},
		{"response.content_part.done", map[string]any{"item_id": s.itemID, "output_index": 0, "content_index": 0, "part": part}},
		{"response.output_item.done", map[string]any{"output_index": 0, "item": item}},
	}
	final := "response.completed"
	if obj.Status == "incomplete" {
		final = "response.incomplete"
	}
	steps = append(steps, struct {
		typ    string
		fields map[string]any
	}{final, map[string]any{"response": obj}})
	for _, st := range steps {
		if err := s.send(st.typ, st.fields); err != nil {
			return
		}
	}
}

// fail ends the stream with an "error" event.
func (s *responseSink) fail(e *APIError) {
	var param any
	if e.Param != "" {
		param = e.Param
	}
	_ = s.send("error", map[string]any{"code": e.Code, "message": e.Message, "param": param})
}
