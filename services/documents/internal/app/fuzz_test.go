package app

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/agentic-app/agentic/services/platform/apitest"
)

// No body makes add, update or the retrieval test answer 5xx against a
// real database.
func FuzzDocumentBodies(f *testing.F) {
	catalogAddr, _ := startCatalog(f)
	r := start(f, catalogAddr, 0)
	base := r.http + "/api/agents/" + agentA + "/documents"
	status, b := apitest.No5xx(f, http.MethodPost, base, "token-alice",
		[]byte(`{"name":"fuzz-doc","url":"https://docs.google.com/document/d/1AbCdEfGhIjKlMnOpQrStUvWxYz0123456789/edit","labels":["x"],"sharingStatus":"shared"}`))
	var d struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(b, &d); status != http.StatusCreated || err != nil {
		f.Fatalf("add: %d %s", status, b)
	}
	for _, s := range apitest.Seeds("name", "url", "driveFileId", "labels", "sharingStatus", "query", "limit") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		apitest.No5xx(t, http.MethodPost, base, "token-alice", body)
		apitest.No5xx(t, http.MethodPut, base+"/"+d.ID, "token-alice", body)
		apitest.No5xx(t, http.MethodPost, r.http+"/api/agents/"+agentA+"/knowledge/search", "token-alice", body)
	})
}

// Path ids reach the database too.
func FuzzDocumentPathIDs(f *testing.F) {
	catalogAddr, _ := startCatalog(f)
	r := start(f, catalogAddr, 0)
	for _, s := range append(apitest.QuerySeeds(), agentA) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, seg string) {
		e := apitest.PathEscape(seg)
		apitest.No5xx(t, http.MethodGet, r.http+"/api/agents/"+e+"/documents", "token-alice", nil)
		apitest.No5xx(t, http.MethodPut, r.http+"/api/agents/"+agentA+"/documents/"+e, "token-alice", []byte(`{"name":"n","labels":[]}`))
		apitest.No5xx(t, http.MethodDelete, r.http+"/api/agents/"+agentA+"/documents/"+e, "token-alice", nil)
		apitest.No5xx(t, http.MethodPost, r.http+"/api/agents/"+agentA+"/documents/"+e+"/sync", "token-alice", nil)
	})
}
