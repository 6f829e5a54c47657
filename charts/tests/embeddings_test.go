package tests

import "testing"

// The documents service's embeddings provider: the API key comes from an
// optional Secret (absent: unset), the base URL and model from the
// ConfigMap only when set (empty: lexical retrieval only).
func TestDocumentsEmbeddingsSettings(t *testing.T) {
	ty := decodeAll(t, allServices)
	d := ty.deployment(release + "-documents")
	if d == nil {
		t.Fatal("no documents Deployment")
	}
	found := false
	for _, e := range d.Spec.Template.Spec.Containers[0].Env {
		if e.Name != "EMBEDDINGS_API_KEY" {
			continue
		}
		ref := e.ValueFrom.SecretKeyRef
		if ref == nil || ref.Name != "agentic-embeddings" || ref.Key != "api-key" || ref.Optional == nil || !*ref.Optional {
			t.Fatalf("EMBEDDINGS_API_KEY = %+v", e.ValueFrom)
		}
		found = true
	}
	if !found {
		t.Fatal("EMBEDDINGS_API_KEY is not passed to documents")
	}
	if cm := ty.configMap(release + "-documents"); cm != nil {
		if _, ok := cm.Data["EMBEDDINGS_BASE_URL"]; ok {
			t.Errorf("an empty EMBEDDINGS_BASE_URL must not be set: %v", cm.Data)
		}
	}
}
