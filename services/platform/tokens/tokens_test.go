package tokens

import (
	"fmt"
	"strings"
	"testing"
)

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

// A remembered count is the count, also once the cache has started over, and
// the cache stays within its bounds.
func TestCountCachedAgreesWithCountAndStaysBounded(t *testing.T) {
	texts := []string{"", "hello world", "Late work loses 10% per day.", strings.Repeat("long passage ", 5000)}
	for round := 0; round < 2; round++ {
		for _, s := range texts {
			if got, want := CountCached(s), Count(s); got != want {
				t.Fatalf("CountCached(%.20q) = %d, want %d", s, got, want)
			}
		}
	}
	for i := 0; i < cacheMaxEntries+10; i++ {
		s := fmt.Sprintf("text %d", i)
		if got, want := CountCached(s), Count(s); got != want {
			t.Fatalf("CountCached(%q) = %d, want %d", s, got, want)
		}
	}
	countCache.Lock()
	entries, bytes := len(countCache.m), countCache.bytes
	countCache.Unlock()
	if entries > cacheMaxEntries || bytes > cacheMaxBytes {
		t.Fatalf("cache holds %d entries, %d bytes; bounds %d, %d", entries, bytes, cacheMaxEntries, cacheMaxBytes)
	}
}
