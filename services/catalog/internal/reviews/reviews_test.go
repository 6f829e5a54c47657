package reviews

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
)

func TestValidateReview(t *testing.T) {
	n := func(i int) *int { return &i }
	for _, c := range []struct {
		in     ReviewInput
		fields string // field names in order, "" = valid
	}{
		{ReviewInput{Rating: n(1)}, ""},
		{ReviewInput{Rating: n(5), Text: strings.Repeat("é", MaxText)}, ""},
		{ReviewInput{Rating: n(5), Text: "  " + strings.Repeat("x", MaxText) + "  "}, ""}, // trimmed first
		{ReviewInput{}, "rating"},
		{ReviewInput{Rating: n(0)}, "rating"},
		{ReviewInput{Rating: n(6)}, "rating"},
		{ReviewInput{RatingInvalid: true}, "rating"},
		{ReviewInput{Rating: n(3), Text: strings.Repeat("x", MaxText+1)}, "text"},
		{ReviewInput{Rating: n(9), Text: strings.Repeat("x", MaxText+1)}, "rating,text"},
	} {
		rating, text, err := ValidateReview(c.in)
		var ve *agents.ValidationError
		switch {
		case c.fields == "" && err != nil:
			t.Errorf("%+v: %v", c.in, err)
		case c.fields == "":
			if rating != *c.in.Rating || text != strings.TrimSpace(c.in.Text) {
				t.Errorf("%+v: %d %q", c.in, rating, text)
			}
		case !errors.As(err, &ve):
			t.Errorf("%+v: %v, want a ValidationError", c.in, err)
		default:
			var got []string
			for _, f := range ve.Fields {
				got = append(got, f.Field)
				if want := map[string]string{"rating": MsgRating, "text": MsgText}[f.Field]; f.Message != want {
					t.Errorf("%s: %q", f.Field, f.Message)
				}
			}
			if strings.Join(got, ",") != c.fields {
				t.Errorf("%+v: fields %v, want %s", c.in, got, c.fields)
			}
		}
	}
}

func TestParseQueryAndCursor(t *testing.T) {
	sort, limit, after, err := parseQuery(ListQuery{})
	if err != nil || sort != SortNewest || limit != DefaultLimit || after != nil {
		t.Fatalf("defaults: %s %d %v %v", sort, limit, after, err)
	}
	c := Cursor{Sort: SortHighest, Rating: 4, CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC), ID: "0190a0a0-0000-7000-8000-000000000001"}
	sort, limit, after, err = parseQuery(ListQuery{Sort: "highest", Limit: "50", Cursor: c.Encode()})
	if err != nil || sort != SortHighest || limit != 50 || after == nil || *after != c {
		t.Fatalf("round trip: %s %d %+v %v", sort, limit, after, err)
	}
	for _, q := range []ListQuery{
		{Limit: "0"}, {Limit: "51"}, {Limit: "1.5"}, {Limit: "-3"}, {Limit: "999999999999999999999"},
	} {
		var qe *QueryError
		if _, _, _, err := parseQuery(q); !errors.As(err, &qe) || qe.Param != "limit" || qe.Message != MsgLimit {
			t.Errorf("%+v: %v", q, err)
		}
	}
	for _, q := range []ListQuery{
		{Sort: "best"},
		{Cursor: "%%%"},
		{Cursor: "e30"},                      // {}
		{Sort: "newest", Cursor: c.Encode()}, // another sort's cursor
		{Cursor: strings.Repeat("A", 600)},   // too long
		{Sort: "lowest", Cursor: Cursor{Sort: "lowest", Rating: 9, CreatedAt: c.CreatedAt, ID: c.ID}.Encode()},
	} {
		var qe *QueryError
		if _, _, _, err := parseQuery(q); !errors.As(err, &qe) || qe.Param == "limit" {
			t.Errorf("%+v: %v", q, err)
		}
	}
}

func TestAuthorNameNeverAUIDOrAnAddress(t *testing.T) {
	for _, c := range []struct{ name, uid, email, want string }{
		{"Bob B", "u1", "bob@example.org", "Bob B"},
		{"  Bob  ", "u1", "bob@example.org", "Bob"},
		{"", "u1", "bob@example.org", AnonymousName},
		{"u1", "u1", "bob@example.org", AnonymousName},
		{"BOB@example.org", "u1", "bob@example.org", AnonymousName},
		{"someone@else.com", "u1", "bob@example.org", AnonymousName},
		{"Bob @ Home", "u1", "", "Bob @ Home"},
	} {
		if got := authorName(c.name, c.uid, c.email); got != c.want {
			t.Errorf("authorName(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

func TestValidSlug(t *testing.T) {
	for s, want := range map[string]bool{"math-tutor": true, "a1-2": true, "": false, "Math": false, "a b": false, "ä": false,
		"a/b": false, strings.Repeat("a", 201): false} {
		if validSlug(s) != want {
			t.Errorf("validSlug(%q) = %v", s, !want)
		}
	}
}
