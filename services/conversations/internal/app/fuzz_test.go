package app

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/platform/apitest"
)

// fuzzCreate POSTs body as uid and returns the "id" (or "key") member.
func fuzzCreate(t testing.TB, url, uid, body, member string) string {
	t.Helper()
	status, b := apitest.No5xx(t, http.MethodPost, url, tok(uid), []byte(body))
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	s, _ := m[member].(string)
	if status != http.StatusCreated || s == "" {
		t.Fatalf("POST %s: %d %s", url, status, b)
	}
	return s
}

// No body makes the conversation, message, API key or agent API endpoints
// answer 5xx against a real database (and the LLM simulator).
func FuzzConversationBodies(f *testing.F) {
	e := start(f, options{})
	convs := e.base + "/api/agents/" + agentA + "/conversations"
	conv := fuzzCreate(f, convs, e.alice, `{"title":"fuzz"}`, "id")
	key := fuzzCreate(f, e.base+"/api/agents/"+agentA+"/api-keys", e.alice, `{"name":"fuzz"}`, "key")
	for _, s := range apitest.Seeds("title", "content", "clientMessageId", "name", "expiresAt", "monthlyLimit",
		"model", "messages", "stream", "max_tokens", "n") {
		f.Add(s)
	}
	f.Add([]byte(`{"model":"` + agentA + `","messages":[{"role":"user","content":"hi\u0000"}]}`))
	f.Add([]byte(`{"model":"` + agentA + `","messages":[{"role":"user","content":[{"type":"text","text":"\u0000"}]}]}`))
	f.Add([]byte(`{"model":"agentic/\u0000","messages":[{"role":"user","content":"hi"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		apitest.No5xx(t, http.MethodPost, convs, tok(e.alice), body)
		apitest.No5xx(t, http.MethodPatch, e.base+"/api/conversations/"+conv, tok(e.alice), body)
		apitest.No5xx(t, http.MethodPost, e.base+"/api/conversations/"+conv+"/messages", tok(e.alice), body)
		apitest.No5xx(t, http.MethodPost, e.base+"/api/agents/"+agentA+"/api-keys", tok(e.alice), body)
		apitest.No5xx(t, http.MethodPost, e.base+"/api/v1/chat/completions", key, body)
	})
}

// Path ids reach the database too.
func FuzzConversationPathIDs(f *testing.F) {
	e := start(f, options{})
	for _, s := range append(apitest.QuerySeeds(), agentA) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seg string) {
		p := apitest.PathEscape(seg)
		apitest.No5xx(t, http.MethodGet, e.base+"/api/agents/"+p+"/conversations", tok(e.alice), nil)
		apitest.No5xx(t, http.MethodGet, e.base+"/api/conversations/"+p, tok(e.alice), nil)
		apitest.No5xx(t, http.MethodDelete, e.base+"/api/agents/"+agentA+"/api-keys/"+p, tok(e.alice), nil)
	})
}

func TestAgentAPIRefusesNULNamingTheField(t *testing.T) {
	e := start(t, options{})
	key := fuzzCreate(t, e.base+"/api/agents/"+agentA+"/api-keys", e.alice, `{"name":"nul"}`, "key")
	status, b := apitest.No5xx(t, http.MethodPost, e.base+"/api/v1/chat/completions", key,
		[]byte(`{"model":"`+agentA+`","messages":[{"role":"user","content":"hi\u0000"}]}`))
	var m struct {
		Error struct {
			Param, Code, Message string
		}
	}
	_ = json.Unmarshal(b, &m)
	if status != 400 || m.Error.Param != "messages[0].content" || m.Error.Message != "messages[0].content must not contain NUL characters." {
		t.Fatalf("%d %s", status, b)
	}
}
