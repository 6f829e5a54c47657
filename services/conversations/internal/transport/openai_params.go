package transport

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/platform/server"
)

// paramPolicy says what the agent API does with each top-level parameter
// of an OpenAI request. A parameter it does not know is refused, as
// OpenAI refuses one ("Unrecognized request argument"); one it knows but
// cannot honour is refused naming it — before anything is reserved, so no
// request is charged for an answer that ignored what it asked for.
type paramPolicy struct {
	// honoured are read by the request's parser.
	honoured []string
	// noEffect tune how a model samples (temperature, top_p, …) or label the
	// request (user, metadata): the agent's model settings are the
	// service's, so they are accepted and leave the answer as it is.
	noEffect []string
	// refused are known parameters that change what is returned, which the
	// agent API cannot do (tools, logprobs, audio…), when set to anything
	// but their neutral value (checked by neutral).
	refused []string
}

// neutralValue reports whether a refused parameter's value asks for
// nothing (false, null, 0, an empty list or object, or a neutral word).
func neutralValue(name string, raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	switch s {
	case "", "null", "false", "0", "[]", "{}":
		return true
	}
	switch name {
	case "tool_choice":
		return s == `"none"` || s == `"auto"`
	case "modalities":
		return s == `["text"]`
	case "truncation":
		return s == `"disabled"` || s == `"auto"`
	case "include":
		return false
	}
	return false
}

// checkParams applies policy to the body's top-level fields.
func checkParams(fields map[string]json.RawMessage, policy paramPolicy) error {
	known := make(map[string]int, len(policy.honoured)+len(policy.noEffect)+len(policy.refused))
	for _, n := range policy.honoured {
		known[n] = 1
	}
	for _, n := range policy.noEffect {
		known[n] = 2
	}
	for _, n := range policy.refused {
		known[n] = 3
	}
	names := make([]string, 0, len(fields))
	for n := range fields {
		names = append(names, n)
	}
	sort.Strings(names) // the same request always names the same parameter
	for _, n := range names {
		switch known[n] {
		case 0:
			return unsupportedParam(n, fmt.Sprintf("Unrecognized request argument supplied: %s.", n))
		case 3:
			if !neutralValue(n, fields[n]) {
				return unsupportedParam(n, fmt.Sprintf("%s is not supported by the agent API: an agent answers with text only (no tools, log probabilities, audio or background runs).", n))
			}
		}
	}
	return nil
}

// readAPIBody reads a JSON object body (at most server.MaxBodyBytes) into
// dst, checking its parameters against policy. It returns the request's
// fingerprint for Idempotency-Key (requestFingerprint).
func readAPIBody(w http.ResponseWriter, r *http.Request, dst any, policy paramPolicy) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, server.MaxBodyBytes))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, &APIError{Status: http.StatusRequestEntityTooLarge, Type: typeInvalidRequest, Code: "body_too_large",
				Message: "The request body must not be larger than 1 MiB."}
		}
		return nil, badParam("", "invalid_json", "The request body could not be read.")
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, badParam("", "invalid_json", "The request body must be a JSON object.")
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil || fields == nil {
		return nil, badParam("", "invalid_json", "The request body is not valid JSON (a JSON object is expected).")
	}
	if err := json.Unmarshal(body, dst); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return nil, badParam(ute.Field, "invalid_type", fmt.Sprintf("%s must be %s.", ute.Field, jsonTypeName(ute.Type.String())))
		}
		return nil, badParam("", "invalid_json", "The request body is not valid JSON (a JSON object is expected).")
	}
	// NUL characters and invalid UTF-8 cannot be stored (PostgreSQL refuses
	// them): 400 naming the field, as on every other JSON route.
	if te := server.CheckJSONText(body); te != nil {
		for field := range te.Fields {
			return nil, badParam(field, "invalid_value", te.Message+".")
		}
	}
	if err := checkParams(fields, policy); err != nil {
		return nil, err
	}
	return requestFingerprint(r, fields)
}

// requestFingerprint hashes the method, the path and the body's fields
// (sorted, compacted) except stream and stream_options: a retry that asks
// for the same answer streamed or not is the same request (it replays the
// stored answer), while the same Idempotency-Key with another question,
// model or bound is another one.
func requestFingerprint(r *http.Request, fields map[string]json.RawMessage) ([]byte, error) {
	kept := make(map[string]json.RawMessage, len(fields))
	for k, v := range fields {
		if k != "stream" && k != "stream_options" {
			kept[k] = v
		}
	}
	canonical, err := json.Marshal(kept) // sorted keys, compacted values
	if err != nil {
		return nil, badParam("", "invalid_json", "The request body is not valid JSON (a JSON object is expected).")
	}
	h := sha256.New()
	_, _ = fmt.Fprintf(h, "%s %s\n", r.Method, r.URL.Path)
	_, _ = h.Write(canonical)
	return h.Sum(nil), nil
}

func jsonTypeName(goType string) string {
	switch {
	case strings.Contains(goType, "string"):
		return "a string"
	case strings.Contains(goType, "bool"):
		return "a boolean"
	case strings.Contains(goType, "int"), strings.Contains(goType, "float"):
		return "a number"
	}
	return "a valid value"
}

func nonEmptyJSON(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s != "" && s != "null" && s != "[]" && s != "{}"
}

// formatJSON is a structured output format: Chat Completions'
// response_format ({type, json_schema: {name, schema, strict}}) or the
// Responses API's text.format ({type, name, schema, strict}).
type formatJSON struct {
	Type        *string         `json:"type"`
	JSONSchema  *schemaJSON     `json:"json_schema"`
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Strict      *bool           `json:"strict"`
}

type schemaJSON struct {
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Strict      *bool           `json:"strict"`
}

// parseFormat validates a format (param names it for errors): nil for
// text, or what the model is asked for.
func parseFormat(raw json.RawMessage, param string, nested bool) (*llm.ResponseFormat, error) {
	if !nonEmptyJSON(raw) {
		return nil, nil
	}
	var f formatJSON
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, badParam(param, "invalid_type", param+" must be an object with a type.")
	}
	if f.Type == nil {
		return nil, badParam(param+".type", "missing_required_parameter", param+".type is required: text, json_object or json_schema.")
	}
	switch *f.Type {
	case "text":
		return nil, nil
	case llm.FormatJSONObject:
		return &llm.ResponseFormat{Type: llm.FormatJSONObject}, nil
	case llm.FormatJSONSchema:
	default:
		return nil, badParam(param+".type", "unsupported_value", fmt.Sprintf("%s.type must be text, json_object or json_schema, not %q.", param, *f.Type))
	}
	s := schemaJSON{Name: f.Name, Description: f.Description, Schema: f.Schema, Strict: f.Strict}
	at := param
	if !nested {
		if f.JSONSchema == nil {
			return nil, badParam(param+".json_schema", "missing_required_parameter", param+".json_schema is required for type json_schema.")
		}
		s, at = *f.JSONSchema, param+".json_schema"
	}
	if s.Name == nil || !validSchemaName(*s.Name) {
		return nil, badParam(at+".name", "invalid_value", at+".name is required: 1 to 64 letters, digits, underscores or dashes.")
	}
	out := &llm.ResponseFormat{Type: llm.FormatJSONSchema, Name: *s.Name, Strict: s.Strict != nil && *s.Strict}
	if s.Description != nil {
		out.Description = *s.Description
	}
	if nonEmptyJSON(s.Schema) {
		if err := json.Unmarshal(s.Schema, &out.Schema); err != nil {
			return nil, badParam(at+".schema", "invalid_type", at+".schema must be a JSON Schema object.")
		}
	}
	return out, nil
}

func validSchemaName(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	for _, c := range n {
		if !(c == '_' || c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// checkModel resolves the request's model to the key's agent (404
// model_not_found for any other model).
func checkModel(model *string, key conversations.APIKey) error {
	if model == nil || strings.TrimSpace(*model) == "" {
		return badParam("model", "missing_required_parameter", "model is required: the agent's id or \"agentic/<agent id>\".")
	}
	if id := conversations.AgentOfModel(*model); id == "" || id != strings.ToLower(key.AgentID) {
		return conversations.ErrAgentNotFound
	}
	return nil
}

// apiCall is an agent API request whose key and body were accepted.
type apiCall struct {
	key         conversations.APIKey
	ctx         context.Context
	received    time.Time
	fingerprint []byte
}

// openCall authenticates the key and reads the body into dst under policy;
// on failure the error has been written.
func (a *agentAPI) openCall(w http.ResponseWriter, r *http.Request, dst any, policy paramPolicy) (apiCall, bool) {
	c := apiCall{received: time.Now()}
	var ok bool
	if c.key, c.ctx, ok = a.key(w, r); !ok {
		return c, false
	}
	var err error
	if c.fingerprint, err = readAPIBody(w, r, dst, policy); err != nil {
		a.fail(c.ctx, w, err)
		return c, false
	}
	return c, true
}

// parsedAnswer is what both APIs ask of an answer: the question, the
// conversation before it, the caller's system text, the output bound and
// the format.
type parsedAnswer struct {
	question string
	history  []conversations.Message
	system   string
	maxOut   int
	format   *llm.ResponseFormat
}

// request is the answer request of call (Idempotency-Key from r).
func (p parsedAnswer) request(c apiCall, r *http.Request) conversations.APIAnswerRequest {
	return conversations.APIAnswerRequest{
		Key: c.key, Content: p.question, History: p.history, System: p.system, MaxOutputTokens: p.maxOut,
		IdempotencyKey: r.Header.Get("Idempotency-Key"), Received: c.received, Format: p.format, Fingerprint: c.fingerprint,
	}
}

// outputBound is an output bound parameter of a request and its value (nil: not set).
type outputBound struct {
	name string
	v    *int64
}

// maxOutput validates output bounds (the smallest one set wins; 0: none).
func maxOutput(bounds ...outputBound) (int, error) {
	out := 0
	for _, f := range bounds {
		if f.v == nil {
			continue
		}
		if *f.v < 1 {
			return 0, badParam(f.name, "invalid_value", f.name+" must be at least 1.")
		}
		if out == 0 || int(min(*f.v, 1<<30)) < out {
			out = int(min(*f.v, 1<<30))
		}
	}
	return out, nil
}

// messageText reads a message's content: a string, or an array of content
// parts of which only text parts are supported (text, input_text and
// output_text, as both APIs name them).
func messageText(raw json.RawMessage, at string) (string, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return "", nil
	}
	if s[0] == '"' {
		var text string
		if err := json.Unmarshal(raw, &text); err != nil {
			return "", badParam(at, "invalid_type", at+" must be a string or an array of text parts.")
		}
		return text, nil
	}
	var parts []struct {
		Type *string `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", badParam(at, "invalid_type", at+" must be a string or an array of text parts.")
	}
	texts := make([]string, 0, len(parts))
	for j, part := range parts {
		if part.Type == nil || !textPart(*part.Type) || part.Text == nil {
			return "", badParam(fmt.Sprintf("%s[%d]", at, j), "unsupported_value", "Only text content parts are supported.")
		}
		texts = append(texts, *part.Text)
	}
	return strings.Join(texts, "\n"), nil
}

func textPart(t string) bool { return t == "text" || t == "input_text" || t == "output_text" }
