package server

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/platform/auth"
)

func TestWriteValidationFailed(t *testing.T) {
	rec := httptest.NewRecorder()
	WriteValidationFailed(rec, "Name is required", map[string]string{"name": "Name is required", "url": "URL is invalid"})
	want := `{"error":"validation_failed","message":"Name is required","fields":{"name":"Name is required","url":"URL is invalid"}}`
	if rec.Code != http.StatusBadRequest || strings.TrimSpace(rec.Body.String()) != want ||
		rec.Header().Get("Content-Type") != "application/json; charset=utf-8" {
		t.Errorf("got %d %s %q", rec.Code, rec.Body, rec.Header().Get("Content-Type"))
	}
}

func TestClaimsFrom(t *testing.T) {
	c, err := ClaimsFrom(auth.NewContext(context.Background(), auth.Claims{UID: "u1"}))
	if err != nil || c.UID != "u1" {
		t.Errorf("with claims: %+v, %v", c, err)
	}
	for _, ctx := range []context.Context{context.Background(), auth.NewContext(context.Background(), auth.Claims{})} {
		_, err := ClaimsFrom(ctx)
		var e *Error
		if !errors.As(err, &e) || e.Status != http.StatusUnauthorized || e.Code != "unauthenticated" || e.Message != auth.MessageUnauthenticated {
			t.Errorf("without claims: %v", err)
		}
	}
}

func TestKitOptions(t *testing.T) {
	var encoded error
	h := httptransport.NewServer(
		func(context.Context, any) (any, error) { return nil, BadRequest("invalid_request", "bad") },
		func(context.Context, *http.Request) (any, error) { return nil, nil },
		func(context.Context, http.ResponseWriter, any) error { return nil },
		KitOptions(func(_ context.Context, err error, w http.ResponseWriter) {
			encoded = err
			WriteError(w, err)
		})...,
	)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	if encoded == nil || rec.Code != http.StatusBadRequest ||
		strings.TrimSpace(rec.Body.String()) != `{"error":"invalid_request","message":"bad"}` {
		t.Errorf("got %d %s (encoded %v)", rec.Code, rec.Body, encoded)
	}
}
