package app

import (
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/platform/apitest"
)

// No body makes the onboarding or interest endpoints answer 5xx against a
// real database. A NUL character in displayName used to give 500 internal
// (PostgreSQL refuses the byte); it is a 400 naming the field now.
func FuzzOnboarding(f *testing.F) {
	r := start(f)
	for _, s := range apitest.Seeds("displayName", "idToken") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		apitest.No5xx(t, http.MethodPost, r.http+"/api/user/onboarding", "token-fuzz", body)
		apitest.No5xx(t, http.MethodPost, r.http+"/api/user/public-agent-interest", "token-fuzz", body)
	})
}

func TestOnboardingRefusesNULNamingTheField(t *testing.T) {
	r := start(t)
	status, body := post(t, r.http+"/api/user/onboarding", "token-nul", `{"displayName":"Ada\u0000"}`)
	fields, _ := body["fields"].(map[string]any)
	if status != 400 || body["error"] != "validation_failed" || body["message"] != "displayName must not contain NUL characters" ||
		fields["displayName"] == nil {
		t.Fatalf("%d %v", status, body)
	}
}
