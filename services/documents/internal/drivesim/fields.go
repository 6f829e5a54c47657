package drivesim

import (
	"errors"
	"strings"
)

// fieldTree is a parsed Drive "fields" selector: each selected key maps to
// the selection inside it, nil meaning "all of it". A nil tree selects
// everything.
type fieldTree map[string]fieldTree

var errFields = errors.New("invalid field selection")

// parseFields parses the partial-response syntax the Go client sends, e.g.
// "id,name,version" or "nextPageToken,comments(id,author/displayName,replies(id))".
// Empty and "*" select everything.
func parseFields(s string) (fieldTree, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "*" {
		return nil, nil
	}
	p := &fieldParser{s: s}
	t, err := p.list()
	if err != nil {
		return nil, err
	}
	if p.i != len(p.s) {
		return nil, errFields
	}
	return t, nil
}

type fieldParser struct {
	s string
	i int
}

func (p *fieldParser) list() (fieldTree, error) {
	t := fieldTree{}
	for {
		if err := p.item(t); err != nil {
			return nil, err
		}
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		return t, nil
	}
}

// item parses name, name/item or name(list) into t.
func (p *fieldParser) item(t fieldTree) error {
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(",()/", rune(p.s[p.i])) {
		p.i++
	}
	name := strings.TrimSpace(p.s[start:p.i])
	if name == "" {
		return errFields
	}
	if p.i < len(p.s) {
		switch p.s[p.i] {
		case '/':
			p.i++
			sub := fieldTree{}
			if err := p.item(sub); err != nil {
				return err
			}
			merge(t, name, sub)
			return nil
		case '(':
			p.i++
			sub, err := p.list()
			if err != nil {
				return err
			}
			if p.i >= len(p.s) || p.s[p.i] != ')' {
				return errFields
			}
			p.i++
			merge(t, name, sub)
			return nil
		}
	}
	t[name] = nil // the whole value, whatever was selected inside it before
	return nil
}

// merge adds a sub-selection of name to t ("a/b,a/c" selects b and c of a).
func merge(t fieldTree, name string, sub fieldTree) {
	old, had := t[name]
	switch {
	case !had || sub == nil:
		t[name] = sub
	case old == nil: // already all of it
	default:
		for k, v := range sub {
			merge(old, k, v)
		}
	}
}

// applyFields keeps only the selected keys of a JSON-like value; lists are
// filtered element by element. Unknown selected keys are ignored (Drive
// would reject them; the simulator is lenient).
func applyFields(v any, t fieldTree) any {
	if t == nil {
		return v
	}
	if _, all := t["*"]; all {
		return v
	}
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, sub := range t {
			if val, ok := x[k]; ok {
				out[k] = applyFields(val, sub)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = applyFields(e, t)
		}
		return out
	default:
		return v
	}
}
