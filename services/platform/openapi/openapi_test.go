package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/platform/ratelimit"
	"github.com/agentic-app/agentic/services/platform/server"
)

func TestDocumentIsOpenAPI31(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(Document, &doc); err != nil {
		t.Fatal(err)
	}
	if v, _ := doc["openapi"].(string); !strings.HasPrefix(v, "3.1.") {
		t.Fatalf("openapi = %v", doc["openapi"])
	}
	ops, err := Operations()
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) < 30 {
		t.Fatalf("only %d operations", len(ops))
	}
	seen := map[string]bool{}
	for _, o := range ops {
		if !strings.HasPrefix(o.Path, "/api/") {
			t.Errorf("%s %s: paths are written in full (/api/...)", o.Method, o.Path)
		}
		if o.Service == "" {
			t.Errorf("%s %s: no x-service", o.Method, o.Path)
		}
		// Two templates of one shape would be the same OpenAPI path.
		k := o.Method + " " + Shape(o.Path)
		if seen[k] {
			t.Errorf("%s: documented twice", k)
		}
		seen[k] = true
	}
	// Every $ref resolves.
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if r, ok := x["$ref"].(string); ok {
				if !resolves(doc, r) {
					t.Errorf("$ref %s does not resolve", r)
				}
			}
			for _, c := range x {
				walk(c)
			}
		case []any:
			for _, c := range x {
				walk(c)
			}
		}
	}
	walk(doc)
}

func resolves(doc map[string]any, ref string) bool {
	p, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return false
	}
	var cur any = doc
	for _, part := range strings.Split(p, "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[part]; !ok {
			return false
		}
	}
	return true
}

// The error vocabulary in the document is the platform's.
func TestDocumentListsTheErrorVocabulary(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas struct {
				Error struct {
					Properties struct {
						Error struct {
							Enum []string `json:"enum"`
						} `json:"error"`
					} `json:"properties"`
				} `json:"Error"`
			} `json:"schemas"`
			Codes []struct {
				Code   string `json:"code"`
				Status int    `json:"status"`
			} `json:"x-codes"`
		} `json:"components"`
	}
	if err := json.Unmarshal(Document, &doc); err != nil {
		t.Fatal(err)
	}
	var want, enum, listed []string
	for _, c := range server.Codes {
		want = append(want, c.Code)
	}
	enum = doc.Components.Schemas.Error.Properties.Error.Enum
	statuses := map[string]int{}
	for _, c := range doc.Components.Codes {
		listed = append(listed, c.Code)
		statuses[c.Code] = c.Status
	}
	sort.Strings(want)
	sort.Strings(enum)
	sort.Strings(listed)
	if strings.Join(enum, ",") != strings.Join(want, ",") || strings.Join(listed, ",") != strings.Join(want, ",") {
		t.Fatalf("document codes\n enum   %v\n x-codes %v\nwant (server.Codes)\n        %v", enum, listed, want)
	}
	for _, c := range server.Codes {
		if statuses[c.Code] != c.Status {
			t.Errorf("%s: status %d in the document, %d in server.Codes", c.Code, statuses[c.Code], c.Status)
		}
	}
}

func TestHandlerServesTheDocument(t *testing.T) {
	w := httptest.NewRecorder()
	Handler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, Path, nil))
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "application/json") || !json.Valid(w.Body.Bytes()) {
		t.Fatalf("%d %s", w.Code, w.Header())
	}
}

func TestCheckFindsBothKindsOfDrift(t *testing.T) {
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	mux := http.NewServeMux()
	server.Route(mux, http.MethodGet, "/api/activities", ok)
	server.Route(mux, http.MethodGet, "/api/dashboard/stats", ok)
	server.Route(mux, http.MethodGet, "/api/usage", ok)
	if p := Check("analytics", mux); len(p) != 0 {
		t.Fatalf("complete mux: %v", p)
	}
	undocumented := http.NewServeMux()
	server.Route(undocumented, http.MethodGet, "/api/activities", ok)
	server.Route(undocumented, http.MethodGet, "/api/dashboard/stats", ok)
	server.Route(undocumented, http.MethodGet, "/api/usage", ok)
	server.Route(undocumented, http.MethodPost, "/api/usage", ok)
	if p := Check("analytics", undocumented); len(p) != 1 || !strings.Contains(p[0], "POST /api/usage is registered") {
		t.Fatalf("undocumented route: %v", p)
	}
	missing := http.NewServeMux()
	server.Route(missing, http.MethodGet, "/api/activities", ok)
	server.Route(missing, http.MethodGet, "/api/usage", ok)
	if p := Check("analytics", missing); len(p) != 1 || !strings.Contains(p[0], "GET /api/dashboard/stats is documented") {
		t.Fatalf("missing handler: %v", p)
	}
}

// TestQuotasAreWellFormed: every documented limit names its kind, variable,
// default and what it counts against, and the operation documents the
// answer the limit gives (429 for a rate, 400 for a count).
func TestQuotasAreWellFormed(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(Document, &doc); err != nil {
		t.Fatal(err)
	}
	ops, err := Operations()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, o := range ops {
		for _, q := range o.Quotas {
			n++
			name := o.Method + " " + o.Path + " " + q.Env
			if q.Env == "" || q.Default == "" {
				t.Errorf("%s: env and default are required: %+v", name, q)
			}
			switch q.Per {
			case "user", "agent", "key", "owner", "ip", "subscriber":
			default:
				t.Errorf("%s: per = %q", name, q.Per)
			}
			status := ""
			switch q.Kind {
			case "rate":
				status = "429"
				if _, _, err := ratelimit.ParseRate(q.Default); err != nil {
					t.Errorf("%s: default %q: %v", name, q.Default, err)
				}
			case "count":
				status = "400"
				if !isDigits(q.Default) {
					t.Errorf("%s: default %q is not a number", name, q.Default)
				}
			default:
				t.Errorf("%s: kind = %q", name, q.Kind)
				continue
			}
			if _, ok := doc.Paths[o.Path][strings.ToLower(o.Method)].Responses[status]; !ok {
				t.Errorf("%s: a %s quota but no %s response documented", name, q.Kind, status)
			}
		}
	}
	if n == 0 {
		t.Fatal("no x-quotas in the document")
	}
}

func TestCheckRatesFindsBothKindsOfDrift(t *testing.T) {
	ops, err := Operations()
	if err != nil {
		t.Fatal(err)
	}
	// The conversations service's documented rates, as it would apply them.
	rates := map[string]string{}
	for _, o := range ops {
		for _, q := range o.Quotas {
			if o.Service == "conversations" && q.Kind == "rate" {
				rates[o.Method+" "+o.Path] = q.Env
			}
		}
	}
	if len(rates) == 0 {
		t.Fatal("conversations documents no rates")
	}
	if p := CheckRates("conversations", rates); len(p) != 0 {
		t.Fatalf("agreeing rates: %v", p)
	}
	extra := map[string]string{"POST /api/conversations/{id}/title": "RATE_LIMIT_TITLES"}
	for k, v := range rates {
		extra[k] = v
	}
	if p := CheckRates("conversations", extra); len(p) != 1 || !strings.Contains(p[0], "RATE_LIMIT_TITLES") {
		t.Fatalf("undocumented rate: %v", p)
	}
	var dropped string
	fewer := map[string]string{}
	for k, v := range rates {
		if dropped == "" {
			dropped = k
			continue
		}
		fewer[k] = v
	}
	if p := CheckRates("conversations", fewer); len(p) != 1 || !strings.Contains(p[0], "documents the rate") {
		t.Fatalf("rate documented but not applied (%s): %v", dropped, p)
	}
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}
