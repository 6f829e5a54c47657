package app

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/auth/authtest"
	"github.com/agentic-app/agentic/services/platform/testwait"
)

// accountsVerifier is authtest.Tokens that also knows which accounts are
// disabled (as the Firebase Admin SDK's user lookup does).
type accountsVerifier struct {
	auth.VerifierFunc
	mu       sync.Mutex
	disabled map[string]bool
}

func (a *accountsVerifier) AccountDisabled(_ context.Context, uid string) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.disabled[uid], nil
}

func (a *accountsVerifier) disable(uid string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.disabled[uid] = true
}

// Issue 30 item 1: the API keys of an owner whose account is disabled stop
// within 5 s (the account state is cached that long), with a 401 that says
// why; the keys of other owners keep working.
func TestAPIKeysOfADisabledOwnerAreRefused(t *testing.T) {
	v := &accountsVerifier{VerifierFunc: authtest.Tokens, disabled: map[string]bool{}}
	e := start(t, options{verifier: v})
	alices := e.newKey(t, e.alice, agentA, `{"name":"alice"}`)["key"].(string)
	daves := e.newKey(t, e.dave, agentB, `{"name":"dave"}`)["key"].(string)
	models := e.base + "/api/v1/models"
	if r := raw(t, "GET", models, "Bearer "+alices, ""); r.Status != 200 {
		t.Fatalf("before: %d %s", r.Status, r.Raw)
	}
	v.disable(e.alice)
	var last resp
	testwait.Until(t, "the disabled owner's key to be refused", func() bool {
		last = raw(t, "GET", models, "Bearer "+alices, "")
		return last.Status == 401
	})
	if ae := apiError(t, last); ae["code"] != "invalid_api_key" || !strings.Contains(ae["message"].(string), "owner account is disabled") {
		t.Fatalf("refusal %s", last.Raw)
	}
	chat := raw(t, "POST", e.base+"/api/v1/chat/completions", "Bearer "+alices, completionBody(agentA, false, user(question)))
	if chat.Status != 401 {
		t.Fatalf("answer with a disabled owner's key: %d %s", chat.Status, chat.Raw)
	}
	if r := raw(t, "GET", models, "Bearer "+daves, ""); r.Status != 200 {
		t.Fatalf("another owner's key: %d %s", r.Status, r.Raw)
	}
}
