// Package apitest helps the services' fuzz tests of their JSON endpoints:
// seed bodies that have broken handlers before (NUL characters, invalid
// UTF-8, huge numbers, wrong types, deep nesting, empty bodies, arrays) and
// a request helper that fails the test on any 5xx answer.
package apitest

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Seeds returns seed bodies for a JSON endpoint whose body fields are
// fields: generic hostile documents plus, per field, a NUL character, an
// invalid UTF-8 byte, a lone surrogate, huge and odd numbers, each wrong
// JSON type and an oversized string.
func Seeds(fields ...string) [][]byte {
	out := []string{
		``, ` `, `null`, `{}`, `[]`, `[{}]`, `"x"`, `0`, `1e999`, `true`, `{`, `{"a":}`, `{} {}`,
		`{"` + "\x00" + `":1}`, "{\"a\":\"\xff\"}", `{"\u0000":"x"}`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 2000) + `1` + strings.Repeat(`}`, 2000),
	}
	for _, f := range fields {
		q := `"` + f + `":`
		for _, v := range []string{
			`"\u0000"`, `"a\u0000b"`, "\"a\xffb\"", `"\ud800"`, `"\\u0000"`, `""`, `" "`,
			`1e999`, `-1e999`, `1e308`, `-0`, `0.5`, `9223372036854775808`, `-9223372036854775809`, `1e-400`,
			`true`, `null`, `[]`, `["\u0000"]`, `[1,"a",null]`, `{}`, `{"x":"\u0000"}`, `0`, `-1`,
			`"` + strings.Repeat("x", 100000) + `"`,
		} {
			out = append(out, `{`+q+v+`}`)
		}
	}
	b := make([][]byte, len(out))
	for i, s := range out {
		b[i] = []byte(s)
	}
	return b
}

// QuerySeeds returns hostile values for a query parameter or path segment
// (URL-escaped where needed by the caller).
func QuerySeeds() []string {
	return []string{"", "0", "-1", "1", "50", "51", "1e999", "9223372036854775808", "abc", "\x00", "a\x00", "\xff", "%00",
		"2024-02-30", "0000-01-01", "9999-12-31", "\u202e", strings.Repeat("9", 400)}
}

var client = &http.Client{Timeout: 60 * time.Second}

// No5xx sends method url with body (and "Authorization: Bearer token" when
// token is set) and fails t if the answer is a 5xx or the request fails. It
// returns the status and body.
func No5xx(t testing.TB, method, url, token string, body []byte) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, nil // not a request a client could send
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 500 {
		t.Fatalf("%s %s with body %.200q: %d %s", method, url, body, resp.StatusCode, b)
	}
	return resp.StatusCode, b
}

// PathEscape escapes s as one path segment.
func PathEscape(s string) string { return url.PathEscape(s) }
