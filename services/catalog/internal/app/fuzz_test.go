package app

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/platform/apitest"
)

// fuzzAgent creates an agent for uid and returns its id.
func fuzzAgent(t testing.TB, base, uid string) string {
	t.Helper()
	status, b := apitest.No5xx(t, http.MethodPost, base+"/api/agents", "token-"+uid,
		[]byte(`{"name":"Fuzz agent","description":"An agent for fuzzing","category":"test"}`))
	var a struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &a); status != http.StatusCreated || err != nil || a.ID == "" {
		t.Fatalf("create agent: %d %s", status, b)
	}
	return a.ID
}

// No body makes create, update or invite answer 5xx against a real
// database. A NUL character in an agent's name or instructions used to give
// 500 internal (PostgreSQL refuses the byte).
func FuzzAgentBodies(f *testing.F) {
	idAddr, _ := startIdentity(f)
	r := start(f, idAddr)
	id := fuzzAgent(f, r.http, "fuzz-owner")
	status, b := apitest.No5xx(f, http.MethodPost, r.http+"/api/agents/"+id+"/subscribers", "token-fuzz-owner", []byte(`{"email":"fuzzed@example.org"}`))
	var sub struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &sub); status != http.StatusCreated || err != nil || sub.ID == "" {
		f.Fatalf("invite: %d %s", status, b)
	}
	for _, s := range apitest.Seeds("name", "description", "category", "iconName", "iconColor", "instructions", "tags", "isPublic", "status", "email", "userId",
		"subscriberMonthlyCapCents", "capMode", "monthlyCapCents") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		apitest.No5xx(t, http.MethodPost, r.http+"/api/agents", "token-fuzz-owner", body)
		apitest.No5xx(t, http.MethodPatch, r.http+"/api/agents/"+id, "token-fuzz-owner", body)
		apitest.No5xx(t, http.MethodPost, r.http+"/api/agents/"+id+"/subscribers", "token-fuzz-owner", body)
		apitest.No5xx(t, http.MethodPatch, r.http+"/api/agents/"+id+"/subscribers/"+sub.ID, "token-fuzz-owner", body)
	})
}

// Path ids reach the database too.
func FuzzAgentPathIDs(f *testing.F) {
	idAddr, _ := startIdentity(f)
	r := start(f, idAddr)
	id := fuzzAgent(f, r.http, "fuzz-owner")
	for _, s := range append(apitest.QuerySeeds(), id, id+"x", "shared") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seg string) {
		p := "/api/agents/" + apitest.PathEscape(seg)
		apitest.No5xx(t, http.MethodGet, r.http+p, "token-fuzz-owner", nil)
		apitest.No5xx(t, http.MethodGet, r.http+p+"/subscribers", "token-fuzz-owner", nil)
		apitest.No5xx(t, http.MethodPatch, r.http+"/api/agents/"+id+"/subscribers/"+apitest.PathEscape(seg), "token-fuzz-owner", []byte(`{"capMode":"none"}`))
		apitest.No5xx(t, http.MethodDelete, r.http+"/api/agents/"+id+"/subscribers/"+apitest.PathEscape(seg), "token-fuzz-owner", nil)
	})
}

func TestAgentTextWithNULIsRefusedNamingTheField(t *testing.T) {
	idAddr, _ := startIdentity(t)
	r := start(t, idAddr)
	id := fuzzAgent(t, r.http, "nul-owner")
	for _, c := range []struct{ method, path, body, field string }{
		{http.MethodPost, "/api/agents", `{"name":"Bad\u0000name","description":"A description here","category":"x"}`, "name"},
		{http.MethodPatch, "/api/agents/" + id, `{"instructions":"be \u0000 nice"}`, "instructions"},
		{http.MethodPatch, "/api/agents/" + id, `{"tags":["ok","\u0000"]}`, "tags[1]"},
		{http.MethodGet, "/api/agents/%00", ``, "path"},
	} {
		status, b := apitest.No5xx(t, c.method, r.http+c.path, "token-nul-owner", []byte(c.body))
		var e struct {
			Error   string            `json:"error"`
			Message string            `json:"message"`
			Fields  map[string]string `json:"fields"`
		}
		_ = json.Unmarshal(b, &e)
		if status != 400 || e.Error != "validation_failed" || e.Fields[c.field] == "" {
			t.Errorf("%s %s %s: %d %s", c.method, c.path, c.body, status, b)
		}
	}
}
