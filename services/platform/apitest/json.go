package apitest

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Response is a JSON API answer as the services' integration tests read it.
type Response struct {
	Status int
	Header http.Header
	// Body is the decoded JSON (nil for a 204), Raw the body as sent.
	Body any
	Raw  string
}

// Obj is the body as a JSON object (nil when it is not one).
func (r Response) Obj() map[string]any {
	m, _ := r.Body.(map[string]any)
	return m
}

// List is the body as a JSON array (nil when it is not one).
func (r Response) List() []any {
	l, _ := r.Body.([]any)
	return l
}

// Do sends a JSON request (body may be empty; token empty: no Authorization
// header) and reads the answer with Send.
func Do(t testing.TB, method, url, token, body string) Response {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	return Send(t, req)
}

// Send sends req and fails the test unless the answer is what every JSON
// route promises: a 204 with no body, or a JSON content type and a body that
// parses.
func Send(t testing.TB, req *http.Request) Response {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := Response{Status: res.StatusCode, Header: res.Header, Raw: string(raw)}
	what := req.Method + " " + req.URL.String()
	if res.StatusCode == http.StatusNoContent {
		if len(raw) != 0 {
			t.Fatalf("%s: 204 with body %q", what, raw)
		}
		return r
	}
	if ct := res.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Fatalf("%s: %d content-type %q body %q", what, res.StatusCode, ct, raw)
	}
	if err := json.Unmarshal(raw, &r.Body); err != nil {
		t.Fatalf("%s: body not JSON: %q", what, raw)
	}
	return r
}
