package simembed

import (
	"math"
	"testing"
)

func cosine(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

func TestEmbedIsDeterministicUnitAndWordBased(t *testing.T) {
	a := Embed("Replace the filter cartridges every six months.")
	if len(a) != Dims {
		t.Fatalf("%d dimensions", len(a))
	}
	if n := cosine(a, a); math.Abs(n-1) > 1e-5 {
		t.Fatalf("norm² = %v", n)
	}
	if c := cosine(a, Embed("replace the FILTER cartridge every six month")); c < 0.99 {
		t.Fatalf("same words (case, plurals folded): cosine %v", c)
	}
	shares, unrelated := cosine(a, Embed("filter cartridge")), cosine(a, Embed("quasar xylophone"))
	if shares <= unrelated || shares < 0.4 {
		t.Fatalf("sharing words %v, unrelated %v", shares, unrelated)
	}
	for _, x := range Embed("!!! ...") {
		if x != 0 {
			t.Fatal("a text without words is not the zero vector")
		}
	}
}
