package llmsim

import (
	"encoding/json"
	"sort"
)

// responseFormat is the part of OpenAI's response_format the simulator
// honours: "text" (the default), "json_object" and "json_schema".
type responseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string         `json:"name"`
		Schema map[string]any `json:"schema"`
		Strict bool           `json:"strict"`
	} `json:"json_schema"`
}

// formatted turns the simulator's plain answer into the structured output
// f asks for, deterministically: for json_object, {"answer": text}; for
// json_schema, an object with the schema's required properties (all of
// them when it names none), each of its declared type — the answer for the
// first string, a short summary for the others, 1 for numbers and
// integers, true for booleans, one item for arrays, nested objects built
// the same way, the first value of an enum. Like a real model, it is not
// semantic: it shows that the format reached the model and came back valid.
func formatted(f *responseFormat, answer string) string {
	if f == nil || f.Type == "" || f.Type == "text" {
		return answer
	}
	var v any = map[string]any{"answer": answer}
	if f.Type == "json_schema" && f.JSONSchema != nil && f.JSONSchema.Schema != nil {
		answered := false
		v = valueFor(f.JSONSchema.Schema, answer, &answered, 0)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return `{}`
	}
	return string(b)
}

// valueFor builds a value that satisfies schema (the subset structured
// outputs use: type, properties, required, items, enum, anyOf).
func valueFor(schema map[string]any, answer string, answered *bool, depth int) any {
	if enum, ok := schema["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if c, ok := schema["const"]; ok {
		return c
	}
	if alts, ok := schema["anyOf"].([]any); ok && len(alts) > 0 {
		if alt, ok := alts[0].(map[string]any); ok {
			return valueFor(alt, answer, answered, depth+1)
		}
	}
	typ := schema["type"]
	if ts, ok := typ.([]any); ok && len(ts) > 0 { // ["string", "null"]
		typ = ts[0]
	}
	if depth > 8 {
		return nil
	}
	switch typ {
	case "string":
		if !*answered {
			*answered = true
			return answer
		}
		return "See the answer above."
	case "number", "integer":
		return 1
	case "boolean":
		return true
	case "null":
		return nil
	case "array":
		item, _ := schema["items"].(map[string]any)
		if item == nil {
			return []any{}
		}
		return []any{valueFor(item, answer, answered, depth+1)}
	}
	// An object (declared, or implied by properties).
	props, _ := schema["properties"].(map[string]any)
	names := requiredNames(schema, props)
	out := make(map[string]any, len(names))
	for _, name := range names {
		sub, _ := props[name].(map[string]any)
		if sub == nil {
			sub = map[string]any{"type": "string"}
		}
		out[name] = valueFor(sub, answer, answered, depth+1)
	}
	return out
}

// requiredNames lists the schema's required properties in its order, or
// every property (sorted) when it requires none.
func requiredNames(schema map[string]any, props map[string]any) []string {
	var names []string
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok {
				names = append(names, s)
			}
		}
	}
	if len(names) == 0 {
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
	}
	return names
}
