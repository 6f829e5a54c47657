package llmsim

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"strings"

	"github.com/agentic-app/agentic/services/platform/simembed"
	"github.com/agentic-app/agentic/services/platform/tokens"
)

// EmbeddingModel is the simulator's embeddings model id. Its vectors are
// feature hashes of the words: texts sharing words are close, synonyms are
// not — the name says so wherever it is shown ("simulated embeddings, not
// semantic").
const EmbeddingModel = simembed.Model

// EmbeddingDims is the length of the simulator's vectors.
const EmbeddingDims = simembed.Dims

// maxEmbeddingInputs bounds the inputs of one request (OpenAI's limit).
const maxEmbeddingInputs = 2048

type embeddingsRequest struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
}

// inputs reads input: a string or an array of strings (token arrays are
// not supported).
func (r embeddingsRequest) inputs() ([]string, bool) {
	var one string
	if err := json.Unmarshal(r.Input, &one); err == nil {
		return []string{one}, true
	}
	var many []string
	if err := json.Unmarshal(r.Input, &many); err != nil || len(many) == 0 {
		return nil, false
	}
	return many, true
}

// embeddings serves POST /v1/embeddings (OpenAI's shape). Any model name is
// answered with the same deterministic vectors, reported as the requested
// name (its fault options, e.g. "+fail429x2", apply as in chat).
func (s *Sim) embeddings(w http.ResponseWriter, r *http.Request) {
	s.embeddingRequests.Add(1)
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		apiError(w, http.StatusRequestEntityTooLarge, "invalid_request_error", "", "Request body too large or unreadable.")
		return
	}
	var req embeddingsRequest
	if err := json.Unmarshal(body, &req); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "We could not parse the JSON body of your request: "+err.Error())
		return
	}
	if req.Model == "" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "you must provide a model parameter")
		return
	}
	var faults Faults
	faults.CutAfter = -1
	if rest, ok := strings.CutPrefix(req.Model, EmbeddingModel); ok {
		if _, faults, err = ParseModel(Model + rest); err != nil {
			apiError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
			return
		}
	}
	if err := faults.applyHeaders(r.Header); err != nil {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", err.Error())
		return
	}
	in, ok := req.inputs()
	if !ok || len(in) > maxEmbeddingInputs {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "input must be a string or a non-empty array of at most 2048 strings")
		return
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
		apiError(w, http.StatusBadRequest, "invalid_request_error", "", "encoding_format must be float or base64")
		return
	}
	if status, retryAfter, fail := s.shouldFail(faults, body); fail {
		failWith(w, status, retryAfter)
		return
	}
	type item struct {
		Object    string `json:"object"`
		Index     int    `json:"index"`
		Embedding any    `json:"embedding"`
	}
	data := make([]item, len(in))
	used := 0
	for i, text := range in {
		v := Embed(text)
		used += tokens.Count(text)
		var e any = v
		if req.EncodingFormat == "base64" {
			b := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			e = base64.StdEncoding.EncodeToString(b)
		}
		data[i] = item{Object: "embedding", Index: i, Embedding: e}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": used, "total_tokens": used},
	})
}

// Embed is the simulator's vector of text (platform/simembed: feature
// hashing of its words; deterministic, not semantic).
func Embed(text string) []float32 { return simembed.Embed(text) }
