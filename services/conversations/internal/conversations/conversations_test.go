package conversations

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
)

func TestValidateMessage(t *testing.T) {
	for _, c := range []struct {
		content, id string
		code        string
	}{
		{"hi", "c1", ""},
		{strings.Repeat("é", MaxContent), "c1", ""}, // characters, not bytes
		{strings.Repeat("x", MaxContent+1), "c1", "invalid_content"},
		{"", "c1", "invalid_content"},
		{" \n", "c1", "invalid_content"},
		{"bad \xff utf-8", "c1", "invalid_content"},
		{"hi", "", "invalid_client_message_id"},
		{"hi", "  ", "invalid_client_message_id"},
		{"hi", strings.Repeat("é", MaxClientMessageID), ""},
		{"hi", strings.Repeat("i", MaxClientMessageID+1), "invalid_client_message_id"},
		{"hi", "a\nb", "invalid_client_message_id"},
	} {
		_, err := ValidateMessage(c.content, c.id)
		var ve *ValidationError
		switch {
		case c.code == "" && err != nil:
			t.Errorf("%.20q/%.20q: %v", c.content, c.id, err)
		case c.code != "" && (!errors.As(err, &ve) || ve.Code != c.code):
			t.Errorf("%.20q/%.20q: %v, want %s", c.content, c.id, err, c.code)
		}
	}
	if id, _ := ValidateMessage("hi", "  k1 "); id != "k1" {
		t.Errorf("client id not trimmed: %q", id)
	}
}

func TestTitles(t *testing.T) {
	if got, err := NormalizeTitle("  Exam  "); err != nil || got != "Exam" {
		t.Errorf("NormalizeTitle: %q %v", got, err)
	}
	for _, bad := range []string{"", "  ", strings.Repeat("x", MaxTitle+1), "a\tb"} {
		if _, err := NormalizeTitle(bad); err == nil {
			t.Errorf("NormalizeTitle(%.20q) accepted", bad)
		}
	}
	if got := cleanTitle("Re:\r\n  Quadratic\tequations "); got != "Re: Quadratic equations" {
		t.Errorf("cleanTitle %q", got)
	}
	if got := cleanTitle(strings.Repeat("é", MaxTitle+10)); len([]rune(got)) != MaxTitle {
		t.Errorf("cleanTitle kept %d characters", len([]rune(got)))
	}
	if got := cleanTitle(" \x00 "); got != DefaultTitle {
		t.Errorf("cleanTitle of nothing %q", got)
	}
}

func TestIdempotencyToClientID(t *testing.T) {
	if got := idempotencyToClientID("<a@b>"); got != "<a@b>" {
		t.Errorf("short key changed: %q", got)
	}
	long := "<" + strings.Repeat("x", 200) + "@b>"
	got := idempotencyToClientID(long)
	if got == long || !strings.HasPrefix(got, "sha256:") || len(got) > MaxClientMessageID || got != idempotencyToClientID(long) {
		t.Errorf("long key → %q", got)
	}
	if _, err := ValidateMessage("hi", got); err != nil {
		t.Errorf("hashed key invalid: %v", err)
	}
}

func TestResolveReferences(t *testing.T) {
	docs := []DocumentRef{{ID: "1", Name: "Syllabus", Labels: []string{"week1"}}, {ID: "2", Name: "Notes."}, {ID: "3", Name: "Other"}}
	ids, labels := resolveReferences("Use @syllabus, @Notes. and @Unknown; see #Week1 and #exam. Mail me at a@b.c (C#).", docs)
	if strings.Join(ids, ",") != "1,2" || strings.Join(labels, ",") != "Week1,exam" {
		t.Fatalf("ids %v labels %v", ids, labels)
	}
	if ids, labels := resolveReferences("no references", docs); ids != nil || labels != nil {
		t.Fatalf("%v %v", ids, labels)
	}
	// Without a directory the labels still resolve (the search takes labels).
	if ids, labels := resolveReferences("@Syllabus #week1", nil); len(ids) != 0 || strings.Join(labels, ",") != "week1" {
		t.Fatalf("no directory: %v %v", ids, labels)
	}
}

func TestCitationsOnePerDocument(t *testing.T) {
	cs := citations([]prompt.Cited{
		{N: 2, Passage: prompt.Passage{DocumentID: "b", DocumentName: "B", URL: "ub", Text: "b one"}},
		{N: 1, Passage: prompt.Passage{DocumentID: "a", DocumentName: "A", URL: "ua", Labels: []string{"x"}, Text: "a one"}},
		{N: 4, Passage: prompt.Passage{DocumentID: "b", DocumentName: "B", URL: "ub", Text: "b two"}},
	})
	if len(cs) != 2 || cs[0].DocumentID != "b" || cs[1].DocumentID != "a" || cs[0].Labels == nil || cs[1].Labels[0] != "x" {
		t.Fatalf("%+v", cs)
	}
	// Each document keeps the markers that cite it and their passages.
	if !reflect.DeepEqual(cs[0].Markers, []int{2, 4}) || !reflect.DeepEqual(cs[0].Passages, []CitedPassage{{2, "b one"}, {4, "b two"}}) ||
		!reflect.DeepEqual(cs[1].Markers, []int{1}) || cs[1].Passages[0].Text != "a one" {
		t.Fatalf("markers/passages: %+v", cs)
	}
	if cs := citations(nil); cs == nil || len(cs) != 0 {
		t.Fatalf("no citations must be an empty list: %#v", cs)
	}
}

func TestReserveInputTokensMargin(t *testing.T) {
	for _, c := range []struct{ in, want int }{{0, 32}, {100, 137}, {10000, 10532}} {
		if got := ReserveInputTokens(c.in); got != int64(c.want) {
			t.Errorf("ReserveInputTokens(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestGenerateAPIKey(t *testing.T) {
	seen := map[string]bool{}
	counts := map[rune]int{}
	for range 2000 {
		k, err := GenerateAPIKey()
		if err != nil {
			t.Fatal(err)
		}
		if !wellFormedAPIKey(k) || seen[k] {
			t.Fatalf("key %q (repeat: %v)", k, seen[k])
		}
		seen[k] = true
		for _, c := range k[len(APIKeyPrefix):] {
			counts[c]++
		}
	}
	// 64,000 characters over 62 symbols: each ≈ 1,032; rejection sampling
	// keeps them even (a biased b % 62 would give the first eight ≈ 1,290).
	if len(counts) != 62 {
		t.Fatalf("%d distinct characters", len(counts))
	}
	for c, n := range counts {
		if n < 850 || n > 1220 {
			t.Fatalf("character %q drawn %d times", c, n)
		}
	}
	for _, bad := range []string{"", "agk_", "agk_short", "sk-" + strings.Repeat("a", 33), "agk_" + strings.Repeat("a", 31) + "-",
		"agk_" + strings.Repeat("a", 33), "AGK_" + strings.Repeat("a", 32), "eyJhbGciOiJSUzI1NiJ9.e30.sig"} {
		if wellFormedAPIKey(bad) {
			t.Errorf("%q accepted as a key", bad)
		}
	}
}

func TestAgentOfModel(t *testing.T) {
	const id = "01900000-0000-7000-8000-00000000000a"
	for in, want := range map[string]string{
		id: id, "agentic/" + id: id, "Agentic/" + strings.ToUpper(id): id, " " + id + " ": id,
		"agentic/": "", "gpt-4o-mini": "", "agentic/agentic/" + id: "", "openai/" + id: "", "": "",
	} {
		if got := AgentOfModel(in); got != want {
			t.Errorf("AgentOfModel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDollarsToMicros(t *testing.T) {
	for in, want := range map[float64]int64{5: 5_000_000, 0.002: 2000, 5.25: 5_250_000, 0.0000004: 0, 0.0000005: 1, 1e6: 1e12} {
		if got, ok := DollarsToMicros(in); !ok || got != want {
			t.Errorf("DollarsToMicros(%v) = %d %v, want %d", in, got, ok, want)
		}
	}
	if _, ok := DollarsToMicros(1e13); ok {
		t.Error("1e13 dollars accepted")
	}
}
