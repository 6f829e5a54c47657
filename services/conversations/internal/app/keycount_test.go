package app

import (
	"net/http"
	"testing"
)

// MAX_API_KEYS_PER_AGENT bounds an agent's live keys: with a bound of 2 the
// third key is refused with 400 limit_reached naming the bound, and a
// revoked key frees its place.
func TestAPIKeyCountLimitIsConfigurable(t *testing.T) {
	e := start(t, options{maxAPIKeys: 2})
	first := e.newKey(t, e.alice, agentA, `{"name":"one"}`)
	e.newKey(t, e.alice, agentA, `{"name":"two"}`)
	r := e.do(t, "POST", "/api/agents/"+agentA+"/api-keys", e.alice, `{"name":"three"}`)
	want := "This agent already has the maximum number of API keys (2). Revoke one first."
	if r.Status != http.StatusBadRequest || r.Obj()["error"] != "limit_reached" || r.Obj()["message"] != want {
		t.Fatalf("third key: %d %s", r.Status, r.Raw)
	}
	if l := e.do(t, "GET", "/api/agents/"+agentA+"/api-keys", e.alice, ""); l.Status != 200 || len(l.List()) != 2 {
		t.Fatalf("keys after the refusal: %d %s", l.Status, l.Raw)
	}
	// Another agent's count is its own.
	e.newKey(t, e.dave, agentB, `{"name":"dave's"}`)
	if d := e.do(t, "DELETE", "/api/agents/"+agentA+"/api-keys/"+first["id"].(string), e.alice, ""); d.Status != http.StatusNoContent {
		t.Fatalf("revoke: %d %s", d.Status, d.Raw)
	}
	e.newKey(t, e.alice, agentA, `{"name":"three"}`)
}
