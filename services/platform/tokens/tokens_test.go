package tokens

import "testing"

func TestCountUsesBPE(t *testing.T) {
	// Known cl100k_base counts: "hello world" is 2 tokens, characters/4 would say 3.
	if got := Count("hello world"); got != 2 {
		t.Fatalf("Count(hello world) = %d, want 2", got)
	}
	if got := Count(""); got != 0 {
		t.Fatalf("Count(empty) = %d", got)
	}
	long := "The quick brown fox jumps over the lazy dog. "
	if a, b := Count(long), Count(long+long); b <= a {
		t.Fatalf("longer text counted fewer tokens: %d then %d", a, b)
	}
}

func TestTruncate(t *testing.T) {
	text := "one two three four five six seven eight nine ten"
	cut := Truncate(text, 3)
	if Count(cut) > 3 || cut == "" || len(cut) >= len(text) {
		t.Fatalf("Truncate(…, 3) = %q (%d tokens)", cut, Count(cut))
	}
	if Truncate(text, 1000) != text {
		t.Fatal("Truncate within budget changed the text")
	}
	if Decode(Encode(text)) != text {
		t.Fatal("round trip changed the text")
	}
}
