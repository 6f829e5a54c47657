package server

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

type sample struct {
	DisplayName *string `json:"displayName"`
	Count       int     `json:"count"`
	Flag        bool    `json:"flag"`
}

func TestDecodeJSON(t *testing.T) {
	cases := []struct {
		name       string
		body       string
		allowEmpty bool
		wantStatus int // 0 = success
		wantMsg    string
	}{
		{"valid", `{"displayName":"Ada","count":2}`, false, 0, ""},
		{"unknown fields ignored", `{"idToken":"x"}`, false, 0, ""},
		{"empty not allowed", ``, false, 400, "Request body must not be empty"},
		{"empty allowed", ``, true, 0, ""},
		{"whitespace allowed", " \n ", true, 0, ""},
		{"malformed", `{"displayName":`, false, 400, "Request body contains malformed JSON"},
		{"syntax error", `{displayName: 1}`, false, 400, "Request body contains malformed JSON (at position 2)"},
		{"wrong type string", `{"displayName":5}`, true, 400, "displayName must be a string"},
		{"wrong type number", `{"count":"x"}`, false, 400, "count must be a number"},
		{"wrong type bool", `{"flag":1}`, false, 400, "flag must be a boolean"},
		{"array instead of object", `[1,2]`, true, 400, "Request body must be a JSON object"},
		{"string instead of object", `"hello"`, true, 400, "Request body must be a JSON object"},
		{"trailing data", `{} {}`, false, 400, "Request body must contain a single JSON value"},
		{"too large", `{"displayName":"` + strings.Repeat("a", MaxBodyBytes) + `"}`, false, 413, "Request body must not be larger than 1 MiB"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(tc.body))
			var dst sample
			var opts []DecodeOption
			if tc.allowEmpty {
				opts = append(opts, AllowEmpty())
			}
			err := DecodeJSON(httptest.NewRecorder(), r, &dst, opts...)
			if tc.wantStatus == 0 {
				if err != nil {
					t.Fatalf("unexpected error %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if e.Status != tc.wantStatus || e.Message != tc.wantMsg {
				t.Fatalf("got %d %q, want %d %q", e.Status, e.Message, tc.wantStatus, tc.wantMsg)
			}
			wantCode := "invalid_json"
			if tc.wantStatus == 413 {
				wantCode = "body_too_large"
			}
			if e.Code != wantCode {
				t.Fatalf("code = %q", e.Code)
			}
		})
	}
}

func TestDecodeJSONNilWriterAndBody(t *testing.T) {
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	var dst sample
	if err := DecodeJSON(nil, r, &dst, AllowEmpty()); err != nil {
		t.Fatal(err)
	}
	r = httptest.NewRequest(http.MethodPost, "/", strings.NewReader(`{"displayName":"x"}`))
	if err := DecodeJSON(nil, r, &dst); err != nil || *dst.DisplayName != "x" {
		t.Fatal(err)
	}
}

func TestWriteError(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteError(rec, errors.New("secret db detail"))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "secret") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var body map[string]string
	_ = json.Unmarshal(rec.Body.Bytes(), &body)
	if body["error"] != "internal" || body["message"] != "Internal server error" {
		t.Fatalf("body = %v", body)
	}
	rec = httptest.NewRecorder()
	WriteError(rec, InvalidJSON("nope"))
	if rec.Code != 400 || !strings.Contains(rec.Body.String(), `"error":"invalid_json"`) {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
}
