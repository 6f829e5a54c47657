package knowledge_test

import (
	"context"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge/wordnet"
)

const handbook = `Course Handbook

Required Textbook
Students buy "Modern Algebra" by Ada Stone at the campus store before the first week.

Office Hours
The professor meets students on Wednesdays from 3 to 5 pm in room 214, no appointment needed.

Travel
Field trips are booked through the department; tickets are refunded within two weeks.

Society Grants
The university contributes 50 euros a term to every registered society.
`

// Issue 32, lexical recall: a question in a person's own words finds its
// passage through WordNet's related words ("book" → "textbook", the phrase
// "chip in" → "contribute"), and a
// misspelled word through the agent's most similar lexeme (pg_trgm);
// without the related words loaded, the own-words question misses.
func TestSearchForgivesMisspellingsAndUsesRelatedWords(t *testing.T) {
	pool := newPool(t)
	ix := knowledge.NewIndex(pool)
	ctx := context.Background()
	addDoc(t, pool, agent, "Handbook", nil, handbook, small)
	first := func(q string) string {
		t.Helper()
		ps, err := ix.Search(ctx, knowledge.Query{AgentID: agent, Text: q, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		if len(ps) == 0 {
			return ""
		}
		return ps[0].HeadingPath
	}
	own := "Which volume must I purchase?"
	if got := first(own); strings.HasSuffix(got, "Required Textbook") {
		t.Fatalf("without related words %q already finds the textbook: the test proves nothing", own)
	}
	phrasal := "Will anyone chip in?"
	if got := first(phrasal); strings.HasSuffix(got, "Society Grants") {
		t.Fatalf("without related words %q already finds the grants: the test proves nothing", phrasal)
	}
	// Misspelled on purpose: neither word of the agent is spelled as asked.
	if got := first("When does the profesor meet students on wednsdays?"); !strings.HasSuffix(got, "Office Hours") { //nolint:misspell // the typo is the input
		t.Fatalf("misspelled question: first passage under %q", got)
	}
	if _, err := wordnet.Load(ctx, pool); err != nil {
		t.Fatal(err)
	}
	// "volume" is a synonym of "book", whose hyponym is "textbook".
	if got := first(own); !strings.HasSuffix(got, "Required Textbook") {
		t.Fatalf("with related words %q: first passage under %q", own, got)
	}
	// A phrase WordNet has as one lemma: "chip in" is contribute, though
	// neither "chip" nor "in" is related to it alone.
	if got := first(phrasal); !strings.HasSuffix(got, "Society Grants") {
		t.Fatalf("with related words %q: first passage under %q", phrasal, got)
	}
	// The user's own words still weigh more than related ones: a question
	// naming travel tickets is about travel.
	if got := first("How are tickets for trips refunded?"); !strings.HasSuffix(got, "Travel") {
		t.Fatalf("own words: first passage under %q", got)
	}
}

const staffGuide = `Staff Guide

Reporting Sick
If you are ill, phone your boss before nine.

Parental Leave
Parents tell the office early; when you come back, we hold a welcome meeting.

Parking
Staff park in the yard behind the warehouse; visitors use the street.
`

// Issue 32: words common in English ("come", "tell": the sense-tagged
// corpus counts them hundreds of times) count for less than specific ones
// ("boss", and "unwell", whose related word "ill" finds the right section),
// though in the agent's three chunks "tell" is as rare as "boss".
func TestCommonEnglishWordsWeighLessThanSpecificOnes(t *testing.T) {
	pool := newPool(t)
	ix := knowledge.NewIndex(pool)
	ctx := context.Background()
	addDoc(t, pool, agent, "Staff Guide", nil, staffGuide, small)
	if _, err := wordnet.Load(ctx, pool); err != nil {
		t.Fatal(err)
	}
	ps, err := ix.Search(ctx, knowledge.Query{AgentID: agent, Text: "I feel unwell and can't come in: must I tell my boss?", Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) == 0 || !strings.HasSuffix(ps[0].HeadingPath, "Reporting Sick") {
		t.Fatalf("first passage: %+v", ps)
	}
}
