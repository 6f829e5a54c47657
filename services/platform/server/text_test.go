package server

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type textSample struct {
	Name  string            `json:"name"`
	Tags  []string          `json:"tags"`
	Meta  map[string]string `json:"metadata"`
	Inner *struct {
		Note *string `json:"note"`
	} `json:"inner"`
}

func TestDecodeJSONRefusesNULAndInvalidUTF8(t *testing.T) {
	cases := []struct {
		name, body string
		wantField  string // "" = accepted
		wantMsg    string
	}{
		{"clean", `{"name":"Ada","tags":["a"],"metadata":{"k":"v"}}`, "", ""},
		{"escaped backslash-u is text, not NUL", `{"name":"a\\u0000b"}`, "", ""},
		{"other control characters pass", `{"name":"a\u0001\tb"}`, "", ""},
		{"lone surrogate escape becomes U+FFFD", `{"name":"\ud800"}`, "", ""},
		{"valid multibyte", `{"name":"日本語 ✓"}`, "", ""},
		{"NUL in a field", `{"name":"a\u0000b"}`, "name", "name must not contain NUL characters"},
		{"NUL alone", `{"name":"\u0000"}`, "name", "name must not contain NUL characters"},
		{"NUL in an array item", `{"tags":["ok","x\u0000"]}`, "tags[1]", "tags[1] must not contain NUL characters"},
		{"NUL in a map value", `{"metadata":{"userId":"\u0000"}}`, "metadata.userId", "metadata.userId must not contain NUL characters"},
		{"NUL in a nested pointer field", `{"inner":{"note":"\u0000"}}`, "inner.note", "inner.note must not contain NUL characters"},
		{"NUL in an unknown field", `{"other":[{"deep":"\u0000"}]}`, "other[0].deep", "other[0].deep must not contain NUL characters"},
		{"NUL in a key", `{"metadata":{"a\u0000":"v"}}`, "metadata", "metadata keys must not contain NUL characters"},
		{"NUL after other values", `{"a":1,"b":[true,null,{"c":2}],"name":"\u0000"}`, "name", "name must not contain NUL characters"},
		{"invalid UTF-8", "{\"name\":\"a\xff\"}", "name", "name must be valid UTF-8"},
		{"invalid UTF-8 in an array", "{\"tags\":[\"\xc3\"]}", "tags[0]", "tags[0] must be valid UTF-8"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			var dst textSample
			err := DecodeJSON(nil, r, &dst)
			if tc.wantField == "" {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.Status != 400 || e.Code != "validation_failed" || e.Message != tc.wantMsg || e.Fields[tc.wantField] != tc.wantMsg {
				t.Fatalf("got %d %s %q %v, want 400 validation_failed %q naming %s", e.Status, e.Code, e.Message, e.Fields, tc.wantMsg, tc.wantField)
			}
			w := httptest.NewRecorder()
			WriteError(w, err)
			var body map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			fields, _ := body["fields"].(map[string]any)
			if w.Code != 400 || body["error"] != "validation_failed" || body["message"] != tc.wantMsg || fields[tc.wantField] != tc.wantMsg {
				t.Fatalf("response %d %s", w.Code, w.Body)
			}
		})
	}
}

func TestErrorWithoutFieldsHasNoFieldsMember(t *testing.T) {
	w := httptest.NewRecorder()
	WriteError(w, ErrNotFound)
	if strings.Contains(w.Body.String(), "fields") {
		t.Fatalf("body %s", w.Body)
	}
}

func TestCheckJSONTextIgnoresMalformedJSON(t *testing.T) {
	for _, body := range []string{`{"name":`, `[`, `}`, ``} {
		if err := CheckJSONText([]byte(body)); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

func TestInputGuard(t *testing.T) {
	h := InputGuard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "ok")
	}))
	cases := []struct {
		target    string
		wantField string
	}{
		{"/api/agents/abc?limit=5", ""},
		{"/api/agents/%E2%9C%93", ""},
		{"/api/agents/%00", "path"},
		{"/api/agents/a%FFb", "path"},
		{"/api/activities?limit=%00", "limit"},
		{"/api/activities?search=%C3", "search"},
		{"/api/activities?a%00=1", "query parameter names"},
	}
	for _, tc := range cases {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, tc.target, nil))
		if tc.wantField == "" {
			if w.Code != 200 {
				t.Errorf("%s: %d %s", tc.target, w.Code, w.Body)
			}
			continue
		}
		var body ValidationErrorJSON
		_ = json.Unmarshal(w.Body.Bytes(), &body)
		if w.Code != 400 || body.Error != "validation_failed" || body.Fields[tc.wantField] == "" {
			t.Errorf("%s: %d %s, want 400 validation_failed naming %q", tc.target, w.Code, w.Body, tc.wantField)
		}
	}
}

func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{`{"name":"\u0000"}`, `{"tags":[1e999]}`, "{\"name\":\"\xff\"}", `[[[[[[[[]]]]]]]]`, ``, `null`, `{"inner":{"note":5}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(string(body)))
		var dst textSample
		err := DecodeJSON(nil, r, &dst, AllowEmpty())
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status >= 500 {
				t.Fatalf("err = %v", err)
			}
			return
		}
		// Whatever was accepted is storable text.
		check := func(s string) {
			if CheckText("x", s) != nil {
				t.Fatalf("accepted %q", s)
			}
		}
		check(dst.Name)
		for _, s := range dst.Tags {
			check(s)
		}
		for k, v := range dst.Meta {
			check(k)
			check(v)
		}
		if dst.Inner != nil && dst.Inner.Note != nil {
			check(*dst.Inner.Note)
		}
	})
}

func TestRoutesListsRouteAndHandle(t *testing.T) {
	mux := http.NewServeMux()
	other := http.NewServeMux()
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	Route(mux, http.MethodPost, "/api/x/{id}", ok)
	Route(mux, http.MethodGet, "/api/x/{id}", ok)
	Handle(mux, http.MethodGet, "/api/x/special", ok)
	Route(other, http.MethodGet, "/api/y", ok)
	got := strings.Join(Routes(mux), ",")
	if got != "GET /api/x/special,GET /api/x/{id},POST /api/x/{id}" {
		t.Fatalf("Routes = %s", got)
	}
}
