package readmodel

import (
	"math"
	"testing"
	"time"
)

func TestGrowth(t *testing.T) {
	cases := []struct {
		name          string
		current, prev int64
		want          float64
	}{
		{"zero base, zero now", 0, 0, 0},
		{"zero base, positive now", 3, 0, 100},
		{"zero base, negative now", -2, 0, -100},
		{"no change", 5, 5, 0},
		{"doubled", 2, 1, 100},
		{"one of eight", 9, 8, 12.5},
		{"negative growth", 1, 2, -50},
		{"down to zero", 0, 4, -100},
		{"rounds to one decimal", 4, 3, 33.3},
		{"rounds half away from zero", 10_005, 10_000, 0.1},
		{"tiny negative is zero, not -0", 99_999, 100_000, 0},
		{"negative rounding", 2, 3, -33.3},
		{"big", 1_000_000, 1, 99_999_900},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Growth(c.current, c.prev)
			if got != c.want || math.Signbit(got) != math.Signbit(c.want) {
				t.Fatalf("Growth(%d, %d) = %v, want %v", c.current, c.prev, got, c.want)
			}
		})
	}
}

func TestMonthStart(t *testing.T) {
	berlin := time.FixedZone("CET", 3600)
	cases := []struct {
		in   time.Time
		want time.Time
	}{
		{time.Date(2026, 3, 15, 12, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2026, 2, 28, 23, 59, 59, 999_999_999, time.UTC), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)},
		// 00:30 on 1 March in UTC+1 is still February in UTC.
		{time.Date(2026, 3, 1, 0, 30, 0, 0, berlin), time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)},
		{time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)},
	}
	for _, c := range cases {
		if got := MonthStart(c.in); !got.Equal(c.want) || got.Location() != time.UTC {
			t.Errorf("MonthStart(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestDescribe(t *testing.T) {
	cases := []struct{ kind, subject, agent, want string }{
		{KindAgentCreated, "Tutor", "Tutor", "Created agent Tutor"},
		{KindAgentUpdated, "instructions and tags", "Tutor", "Updated the instructions and tags of Tutor"},
		{KindAgentUpdated, "", "Tutor", "Updated the configuration of Tutor"},
		{KindAgentStatusChanged, "inactive", "Tutor", "Tutor is now inactive"},
		{KindSubscriberActivated, "Erin E", "Tutor", "Erin E subscribed to Tutor"},
		{KindDocumentAdded, "Syllabus", "Tutor", `Document "Syllabus" added to Tutor`},
		{KindDocumentUpdated, "Syllabus", "Tutor", `Document "Syllabus" updated on Tutor`},
		{KindDocumentRemoved, "Syllabus", "Tutor", `Document "Syllabus" removed from Tutor`},
		{KindInteraction, "", "Tutor", "Tutor answered a question"},
		{KindDocumentAdded, "Syllabus", "", `Document "Syllabus" added to Unknown agent`},
		{KindDocumentSynced, "Syllabus", "Tutor", `Document "Syllabus" synced from Google Docs to Tutor`},
		{"something.else", "", "Tutor", "Activity on Tutor"},
	}
	for _, c := range cases {
		if got := Describe(c.kind, c.subject, c.agent); got != c.want {
			t.Errorf("Describe(%q, %q, %q) = %q, want %q", c.kind, c.subject, c.agent, got, c.want)
		}
	}
}

func TestChangedFieldsPhrase(t *testing.T) {
	cases := map[string][]string{
		"":                                 nil,
		"instructions":                     {"instructions"},
		"instructions and tags":            {"instructions", "tags"},
		"description, tags and visibility": {"description", "tags", "isPublic", "tags"},
	}
	for want, in := range cases {
		if got := ChangedFieldsPhrase(in); got != want {
			t.Errorf("ChangedFieldsPhrase(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestCentsFromMicros(t *testing.T) {
	if got := CentsFromMicros(12_509_999); got != 1250 {
		t.Fatalf("got %d", got)
	}
}
