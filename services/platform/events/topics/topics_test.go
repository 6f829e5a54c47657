package topics

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var (
	topicRE = regexp.MustCompile(`^agentic\.[a-z]+\.v1$`)
	typeRE  = regexp.MustCompile(`^agentic\.[a-z]+\.[a-z_]+\.[a-z_]+\.v1$`)
)

// constant is one declaration of the package, read from its source so that
// a constant added later is checked without being listed here.
type constant struct {
	name, value string
	block       int // index of its const block (one per producer)
}

func TestTopics(t *testing.T) {
	consts := parseConstants(t)
	if len(consts) == 0 {
		t.Fatal("no constants found")
	}

	seen := map[string]string{}
	topicOf := map[int]string{}
	for _, c := range consts {
		if other, dup := seen[c.value]; dup {
			t.Errorf("%s and %s share the value %q", other, c.name, c.value)
		}
		seen[c.value] = c.name
		if want := goName(c.value); c.name != want {
			t.Errorf("%s = %q: want it named %s", c.name, c.value, want)
		}
		if !topicRE.MatchString(c.value) {
			continue
		}
		if prev, ok := topicOf[c.block]; ok {
			t.Errorf("const block of %s declares a second topic %s (one block per producer)", prev, c.value)
		}
		topicOf[c.block] = c.value
	}

	for _, c := range consts {
		if topicRE.MatchString(c.value) {
			continue
		}
		if !typeRE.MatchString(c.value) {
			t.Errorf("%s = %q: neither a topic agentic.<name>.v1 nor a type agentic.<name>.<aggregate>.<verb>.v1", c.name, c.value)
			continue
		}
		topic, ok := topicOf[c.block]
		if !ok {
			t.Errorf("%s = %q is in a const block without a topic", c.name, c.value)
			continue
		}
		if prefix := strings.TrimSuffix(topic, "v1"); !strings.HasPrefix(c.value, prefix) {
			t.Errorf("%s = %q is declared with topic %s but does not start with %q", c.name, c.value, topic, prefix)
		}
	}

	// The source read above is the package compiled here.
	for name, value := range map[string]string{
		"Identity": Identity, "Catalog": Catalog, "Documents": Documents,
		"Wallet": Wallet, "Usage": Usage, "Mail": Mail,
	} {
		if seen[value] != name {
			t.Errorf("topic %s = %q not found in the parsed source", name, value)
		}
	}
}

// goName is the constant name a value must have: its words between
// "agentic." and ".v1", capitalised (agentic.usage.subscriber_cap.reached.v1
// → UsageSubscriberCapReached).
func goName(value string) string {
	body := strings.TrimSuffix(strings.TrimPrefix(value, "agentic."), ".v1")
	var b strings.Builder
	for _, w := range strings.FieldsFunc(body, func(r rune) bool { return r == '.' || r == '_' }) {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

func parseConstants(t *testing.T) []constant {
	t.Helper()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var out []constant
	block := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			block++
			for _, spec := range gen.Specs {
				vs := spec.(*ast.ValueSpec)
				for i, id := range vs.Names {
					var lit *ast.BasicLit
					if i < len(vs.Values) {
						lit, _ = vs.Values[i].(*ast.BasicLit)
					}
					if lit == nil || lit.Kind != token.STRING {
						t.Errorf("%s: %s must be a string literal", fset.Position(id.Pos()), id.Name)
						continue
					}
					v, err := strconv.Unquote(lit.Value)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, constant{name: id.Name, value: v, block: block})
				}
			}
		}
	}
	return out
}
