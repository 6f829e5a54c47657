package app

import (
	"net/http"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/documents/internal/drivesim"
	"github.com/agentic-app/agentic/services/documents/internal/embeddings/embeddingstest"
)

// searchHeaders runs Test retrieval and returns its mode headers.
func searchHeaders(t *testing.T, base, query string) (http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, searchPath(base, agentA), strings.NewReader(`{"query":"`+query+`"}`))
	req.Header.Set("Authorization", "Bearer token-alice")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var b strings.Builder
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	if res.StatusCode != 200 || !strings.HasPrefix(b.String(), "[") {
		t.Fatalf("search: %d %s", res.StatusCode, b.String())
	}
	return res.Header, b.String()
}

func TestTestRetrievalSaysTheMode(t *testing.T) {
	catalogAddr, _ := startCatalog(t)
	sim, err := drivesim.New(drivesim.Config{DriveLikeExport: true})
	if err != nil {
		t.Fatal(err)
	}
	prov := embeddingstest.New(t, "")
	hybrid := startWith(t, catalogAddr, options{drive: sim, embeddingsURL: prov.URL})
	lexical := startWith(t, catalogAddr, options{})

	syl, _ := sim.CreateFile(drivesim.File{Title: "CS101 Syllabus", Text: syllabusDoc, SharedWith: []string{agentEmail(agentA)}})
	if r := do(t, "POST", docsPath(hybrid.http, agentA), "token-alice", docBody("Syllabus", drivesim.DocsURL(syl.ID))); r.Status != 201 {
		t.Fatalf("add: %d %s", r.Status, r.Raw)
	}
	waitDocs(t, hybrid.http, agentA, "token-alice")
	if prov.Inputs() == 0 {
		t.Fatal("the synced chunks were not embedded")
	}
	h, body := searchHeaders(t, hybrid.http, "What is the grading policy?")
	if h.Get("X-Retrieval-Mode") != "hybrid" || h.Get("X-Embeddings-Model") != embeddingstest.Model ||
		h.Get("X-Embeddings-Simulated") != "true" || !strings.Contains(body, "Grading") {
		t.Fatalf("hybrid headers %v, body %s", h, body)
	}
	prov.Fail(-1, 400, "")
	if h, _ := searchHeaders(t, hybrid.http, "grading"); h.Get("X-Retrieval-Mode") != "fallback" {
		t.Fatalf("provider failing: %v", h)
	}
	if h, _ := searchHeaders(t, lexical.http, "grading"); h.Get("X-Retrieval-Mode") != "lexical" || h.Get("X-Embeddings-Model") != "" {
		t.Fatalf("lexical headers %v", h)
	}
}
