package knowledge

import (
	"slices"
	"testing"
)

func TestPhrasesOfPairsAndTriplesOfConsecutiveWords(t *testing.T) {
	// Punctuation and hyphens split words ("write-up" is "write up"); each
	// phrase names the query word it begins in (1-based).
	phrases, starts := phrasesOf([]string{"Final", "write-up,", "please"})
	wantPhrases := []string{"final write", "final write up", "write up", "write up please", "up please"}
	wantStarts := []int32{1, 1, 2, 2, 2}
	if !slices.Equal(phrases, wantPhrases) || !slices.Equal(starts, wantStarts) {
		t.Fatalf("phrasesOf: %q %v, want %q %v", phrases, starts, wantPhrases, wantStarts)
	}
	if p, s := phrasesOf([]string{"alone"}); len(p) != 0 || len(s) != 0 {
		t.Fatalf("one word: %q %v", p, s)
	}
}
