// Package simembed is the LLM simulator's embedding of a text, shared by the
// simulator (conversations' llmsim serves it at /v1/embeddings) and the
// documents service's tests, which stand in for the simulator in-process.
// Deterministic and not semantic: texts are close only when they share
// words.
package simembed

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// Model is the simulator's embeddings model id; its name says what the
// vectors are wherever it is shown ("simulated embeddings, not semantic").
const Model = "sim-embeddings-not-semantic"

// Dims is the length of the vectors.
const Dims = 256

// Embed is the vector of text: Dims-dimensional feature hashing of its
// lower-cased words (letters and digits; plurals folded), each with a
// hashed sign, L2-normalised. A text without words is the zero vector.
func Embed(text string) []float32 {
	v := make([]float64, Dims)
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = w[:len(w)-1]
		}
		h := fnv.New64a()
		_, _ = h.Write([]byte(w))
		x := h.Sum64()
		sign := 1.0
		if x>>63 == 1 {
			sign = -1
		}
		v[x%Dims] += sign
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	out := make([]float32, Dims)
	if norm == 0 {
		return out
	}
	norm = math.Sqrt(norm)
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}
