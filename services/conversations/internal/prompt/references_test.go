package prompt

import (
	"reflect"
	"testing"
)

// Cases from the web editor's grammar (docs/web-documents.md, "Reference grammar").
func TestFindReferencesLikeTheWebEditor(t *testing.T) {
	type ref struct {
		label bool
		name  string
		known bool
	}
	docs := []string{"Syllabus", "Notes.", "Ünïcode"}
	labels := []string{"week1"}
	cases := []struct {
		text string
		want []ref
	}{
		{"See @Syllabus.", []ref{{false, "Syllabus", true}}},
		{"See @syllabus, then #week1!", []ref{{false, "syllabus", true}, {true, "week1", true}}},
		{"mail ada@example.com about C# and C#9", nil},
		{"(@Syllabus) \"#week1\"", []ref{{false, "Syllabus", true}, {true, "week1", true}}},
		{"@a@b", []ref{{false, "a", false}}},
		{"@Notes. is known with its dot", []ref{{false, "Notes.", true}}},
		{"@Other... unknown loses punctuation", []ref{{false, "Other", false}}},
		{"@... is nothing", nil},
		{"é@Syllabus follows a letter", nil},
		{"—@Ünïcode after a dash", []ref{{false, "Ünïcode", true}}},
		{"@x\u00a0y: a no-break space ends the run", []ref{{false, "x", false}}},
		{"#week1#week2", []ref{{true, "week1", true}}},
	}
	for _, c := range cases {
		var got []ref
		for _, r := range FindReferences(c.text, docs, labels) {
			got = append(got, ref{r.Label, r.Name, r.Known})
			if c.text[r.Start:r.End] != string("@#"[boolIndex(r.Label)])+r.Name {
				t.Errorf("%q: offsets %d..%d = %q", c.text, r.Start, r.End, c.text[r.Start:r.End])
			}
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("FindReferences(%q) = %+v, want %+v", c.text, got, c.want)
		}
	}
}

func boolIndex(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestReferences(t *testing.T) {
	docs, labels := References("Use @Syllabus. and @syllabus again, @Algebra_I; tag #Week1 #week1 #exam.\nEmail me@x.com")
	if !reflect.DeepEqual(docs, []string{"Syllabus", "Algebra_I"}) {
		t.Fatalf("docs = %q", docs)
	}
	if !reflect.DeepEqual(labels, []string{"Week1", "exam"}) {
		t.Fatalf("labels = %q", labels)
	}
	if d, l := References("no references"); d != nil || l != nil {
		t.Fatalf("got %q %q", d, l)
	}
}
