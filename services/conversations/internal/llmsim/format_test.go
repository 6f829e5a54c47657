package llmsim

import (
	"encoding/json"
	"testing"
)

func TestFormattedFollowsTheRequestedFormat(t *testing.T) {
	if got := formatted(nil, "plain"); got != "plain" {
		t.Fatalf("text: %q", got)
	}
	var obj map[string]string
	if err := json.Unmarshal([]byte(formatted(&responseFormat{Type: "json_object"}, `He said "hi"`)), &obj); err != nil || obj["answer"] != `He said "hi"` {
		t.Fatalf("json_object: %v %v", obj, err)
	}
	f := &responseFormat{Type: "json_schema"}
	f.JSONSchema = &struct {
		Name   string         `json:"name"`
		Schema map[string]any `json:"schema"`
		Strict bool           `json:"strict"`
	}{Name: "a", Schema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"title":  map[string]any{"type": "string"},
			"note":   map[string]any{"type": "string"},
			"score":  map[string]any{"type": "integer"},
			"ok":     map[string]any{"type": "boolean"},
			"tags":   map[string]any{"type": "array", "items": map[string]any{"type": "string"}},
			"level":  map[string]any{"type": "string", "enum": []any{"low", "high"}},
			"nested": map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "number"}}, "required": []any{"n"}},
			"maybe":  map[string]any{"type": []any{"string", "null"}},
			"unused": map[string]any{"type": "string"},
		},
		"required": []any{"title", "note", "score", "ok", "tags", "level", "nested", "maybe"},
	}}
	var v struct {
		Title, Note string
		Score       *int
		OK          *bool
		Tags        []string
		Level       string
		Nested      struct{ N *float64 }
		Maybe       *string
		Unused      *string
	}
	out := formatted(f, "the answer")
	if err := json.Unmarshal([]byte(out), &v); err != nil || v.Title != "the answer" || v.Note == "" || v.Score == nil || v.OK == nil ||
		len(v.Tags) != 1 || v.Level != "low" || v.Nested.N == nil || v.Maybe == nil || v.Unused != nil {
		t.Fatalf("json_schema: %s (%v)", out, err)
	}
}
