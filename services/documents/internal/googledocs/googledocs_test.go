package googledocs

import (
	"errors"
	"strings"
	"testing"
)

const id44 = "1aBcD_eFgH-iJkLmNoPqRsTuVwXyZ0123456789abcde"

func TestParseDocumentURL(t *testing.T) {
	cases := []struct {
		name, in, wantID string
		want             Kind // 0 = accepted
	}{
		{"edit link", "https://docs.google.com/document/d/" + id44 + "/edit", id44, 0},
		{"edit link with query and fragment", "https://docs.google.com/document/d/" + id44 + "/edit?usp=sharing#heading=h.x", id44, 0},
		{"trimmed", "  \thttps://docs.google.com/document/d/" + id44 + "/edit\n", id44, 0},
		{"http", "http://docs.google.com/document/d/" + id44, id44, 0},
		{"upper-case host and scheme", "HTTPS://DOCS.GOOGLE.COM/document/d/" + id44 + "/edit", "", KindNotDocument},
		{"mixed-case host, path as is", "https://Docs.Google.Com/document/d/" + id44, "", KindNotDocument},
		{"account segment", "https://docs.google.com/document/u/1/d/" + id44 + "/edit", id44, 0},
		{"exactly 25", "https://docs.google.com/document/d/" + id44[:25], id44[:25], 0},
		{"24 is not an id", "https://docs.google.com/document/d/" + id44[:24] + "/edit", "", KindNoID},
		{"id in the query", "https://docs.google.com/document/?id=" + id44, id44, 0},
		// Literal spec: the FIRST run of 25+ wins, even a long path segment before the id.
		{"first run wins", "https://docs.google.com/document/" + strings.Repeat("x", 30) + "/d/" + id44, strings.Repeat("x", 30), 0},
		{"published link takes the published id", "https://docs.google.com/document/d/e/2PACX-" + id44 + "/pub", "2PACX-" + id44, 0},
		{"dots end runs", "https://docs.google.com/document/d/" + id44[:10] + "." + id44[10:] + "/edit", id44[10:], 0},

		{"empty", "", "", KindRequired},
		{"blank", "  \n ", "", KindRequired},
		{"too long", "https://docs.google.com/document/d/" + id44 + "/" + strings.Repeat("a", 2048), "", KindTooLong},
		{"not a URL", "not a url", "", KindInvalid},
		{"no scheme", "docs.google.com/document/d/" + id44, "", KindInvalid},
		{"space inside", "https://docs.google.com/document/d/" + id44 + " /edit", "", KindInvalid},
		{"control character", "https://docs.google.com/document/d/" + id44 + "\x00", "", KindInvalid},
		{"opaque", "mailto:docs.google.com/document/" + id44, "", KindInvalid},
		{"no host", "https:///document/d/" + id44, "", KindInvalid},
		{"bad escape", "https://docs.google.com/document/d/%zz" + id44, "", KindInvalid},
		{"spreadsheet", "https://docs.google.com/spreadsheets/d/" + id44 + "/edit", "", KindNotDocument},
		{"drive file", "https://drive.google.com/file/d/" + id44 + "/view", "", KindNotDocument},
		{"no id", "https://docs.google.com/document/d/short/edit", "", KindNoID},
		{"no id at all", "https://docs.google.com/document/", "", KindNoID},
		{"other host with the path", "https://evil.example/docs.google.com/document/d/" + id44, "", KindNotService},
		{"look-alike host", "https://docs.google.com.evil.example/document/d/" + id44, "", KindNotDocument},
		{"look-alike host with the path", "https://docs.google.com.evil.example/docs.google.com/document/d/" + id44, "", KindNotService},
		{"subdomain host", "https://xdocs.google.com/document/d/" + id44, "", KindNotService},
		{"user info", "https://" + id44 + "@docs.google.com/document/d/" + id44, "", KindNotService},
		{"port", "https://docs.google.com:8443/document/d/" + id44, "", KindNotDocument},
		{"port with the path", "https://docs.google.com:8443/docs.google.com/document/d/" + id44, "", KindNotService},
		{"empty port", "https://docs.google.com:/docs.google.com/document/d/" + id44, "", KindNotService},
		{"ftp", "ftp://docs.google.com/document/d/" + id44, "", KindNotService},
		{"javascript", "javascript://docs.google.com/document/%0aalert(1)//" + id44, "", KindNotService},
		{"path elsewhere", "https://docs.google.com/a/b?next=docs.google.com/document/" + id44, "", KindNotService},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			norm, id, err := ParseDocumentURL(c.in)
			if c.want == 0 {
				if err != nil {
					t.Fatalf("ParseDocumentURL(%q) error %v", c.in, err)
				}
				if id != c.wantID || norm != strings.TrimSpace(c.in) {
					t.Fatalf("ParseDocumentURL(%q) = %q, %q; want id %q", c.in, norm, id, c.wantID)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != c.want || e.Message != messages[c.want] || id != "" || norm != "" {
				t.Fatalf("ParseDocumentURL(%q) = %q, %q, %v; want kind %d", c.in, norm, id, err, c.want)
			}
		})
	}
}

func TestMessagesAreTheSpecs(t *testing.T) {
	want := map[Kind]string{
		KindRequired:    "Document URL is required",
		KindInvalid:     "Please enter a valid URL",
		KindNotDocument: "URL must be a document URL (docs.google.com/document/...)",
		KindNoID:        "Invalid Google Docs URL: Could not extract document ID from the provided URL.",
		KindNotService:  "Invalid URL: Only Google Docs URLs (docs.google.com/document/) are supported.",
	}
	for k, m := range want {
		if messages[k] != m {
			t.Errorf("kind %d: %q, want %q", k, messages[k], m)
		}
	}
}

func FuzzParseDocumentURL(f *testing.F) {
	for _, s := range []string{
		"https://docs.google.com/document/d/" + id44 + "/edit",
		"https://docs.google.com/document/u/0/d/" + id44 + "/edit?usp=sharing",
		"https://evil.example/docs.google.com/document/d/" + id44,
		"https://docs.google.com/document/d/short",
		" http://docs.google.com/document/" + id44 + " ",
		"https://user@docs.google.com:1/document/" + id44,
		"", "not a url", "%", "https://docs.google.com/document/\x00" + id44,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		norm, id, err := ParseDocumentURL(in)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Message == "" || e.Message != messages[e.Kind] {
				t.Fatalf("ParseDocumentURL(%q): untyped or unknown error %v", in, err)
			}
			if id != "" || norm != "" {
				t.Fatalf("ParseDocumentURL(%q): error %v with results %q %q", in, err, norm, id)
			}
			return
		}
		if !IDPattern.MatchString(id) {
			t.Fatalf("ParseDocumentURL(%q): id %q does not match %s", in, id, IDPattern)
		}
		if !strings.Contains(in, id) || !strings.Contains(norm, id) {
			t.Fatalf("ParseDocumentURL(%q): id %q is not a substring of the input", in, id)
		}
		if !strings.Contains(norm, Service) || norm != strings.TrimSpace(in) {
			t.Fatalf("ParseDocumentURL(%q): accepted %q without %s", in, norm, Service)
		}
		// Deterministic and idempotent on its own output.
		n2, id2, err2 := ParseDocumentURL(norm)
		if err2 != nil || n2 != norm || id2 != id {
			t.Fatalf("ParseDocumentURL(%q) again = %q %q %v", norm, n2, id2, err2)
		}
	})
}
