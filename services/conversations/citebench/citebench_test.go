package citebench

import (
	"slices"
	"testing"
)

func TestCitedDocuments(t *testing.T) {
	passages := []Passage{
		{DocumentID: "d1", DocumentName: "parking-policy", Text: "Staff park in lot B. Visitors park in lot A near the main entrance."},
		{DocumentID: "d2", DocumentName: "holiday-calendar", Text: "The office closes on New Year's Day and on Labour Day."},
	}
	cited, answer, err := CitedDocuments("Helper", passages, []Turn{{User: "Hi", Assistant: "Hello!"}}, "Where do visitors park?")
	if err != nil {
		t.Fatal(err)
	}
	if len(cited) == 0 || cited[0] != "parking-policy" {
		t.Fatalf("cited %v, want parking-policy first; answer %q", cited, answer)
	}
	if slices.Contains(cited, "holiday-calendar") {
		t.Errorf("cited %v: the holiday calendar does not answer; answer %q", cited, answer)
	}

	cited, answer, err = CitedDocuments("Helper", nil, nil, "Where do visitors park?")
	if err != nil {
		t.Fatal(err)
	}
	if len(cited) != 0 {
		t.Errorf("no passages: cited %v; answer %q", cited, answer)
	}
}
