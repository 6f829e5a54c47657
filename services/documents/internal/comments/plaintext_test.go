package comments

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestPlainText(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "Just text.", "Just text."},
		{"bold", "This is **important** and __vital__.", "This is important and vital."},
		{"italic", "An *aside* and an _aside_ too.", "An aside and an aside too."},
		{"adjacent italics", "*a* *b*", "a b"},
		{"snake_case kept", "Use my_var_name and 2*3*4.", "Use my_var_name and 2*3*4."},
		{"code", "Run `make test` now.", "Run make test now."},
		{"code keeps stars", "Type `**x**` literally.", "Type **x** literally."},
		{"strike", "~~old~~ new", "old new"},
		{"headings", "# Title\n## Sub heading ##\nBody", "Title\nSub heading\nBody"},
		{"bullets", "- one\n* two\n+ three", "• one\n• two\n• three"},
		{"nested bullets", "- one\n  - sub", "• one\n  • sub"},
		{"task list", "- [ ] todo\n- [x] done", "• todo\n• done"},
		{"numbered", "1. first\n2) second\n10. tenth", "1. first\n2. second\n10. tenth"},
		{"link", "See [the syllabus](https://docs.google.com/document/d/x/edit).",
			"See the syllabus (https://docs.google.com/document/d/x/edit)."},
		{"link same as url", "[https://a.example](https://a.example)", "https://a.example"},
		{"autolink", "<https://a.example/x>", "https://a.example/x"},
		{"image", "![diagram](https://a.example/d.png)", "diagram (https://a.example/d.png)"},
		{"quote", "> quoted **text**", "quoted text"},
		{"rule dropped", "above\n\n---\n\nbelow", "above\n\nbelow"},
		{"fence", "Code:\n```go\nx := *p\n```\nDone.", "Code:\nx := *p\nDone."},
		{"table", "| a | b |\n|---|---|\n| 1 | 2 |", "a | b\n1 | 2"},
		{"escapes", `2 \* 3 \_x\_`, "2 * 3 _x_"},
		{"citation markers kept", "Week 1 covers sets [1][2].", "Week 1 covers sets [1][2]."},
		{"bold in list", "1. **Sets**: basics", "1. Sets: basics"},
		{"blank runs", "a\n\n\n\nb", "a\n\nb"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := PlainText(c.in); got != c.want {
				t.Fatalf("PlainText(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestFormatReplyPlain(t *testing.T) {
	got := FormatReply("**Week 1** is about `sets`.", []Citation{{Name: "Syllabus", URL: "https://a"}})
	if want := "Week 1 is about sets.\n\nSources: Syllabus (https://a)"; got != want {
		t.Fatalf("FormatReply = %q, want %q", got, want)
	}
}

func TestSign(t *testing.T) {
	if got := Sign("Hello.\n", "Study Buddy"); got != "Hello.\n\n— Study Buddy" {
		t.Fatalf("Sign = %q", got)
	}
	if got := Sign("Hello.", "  "); got != "Hello." {
		t.Fatalf("Sign without a name = %q", got)
	}
}

type names map[string]string

func (n names) AgentName(_ context.Context, id string) (string, error) { return n[id], nil }

// A reply is plain text signed with the agent's name as its owner wrote it,
// not the Drive account's display name (derived from the address, whose
// local part carries a random suffix).
func TestReplyPlainAndSigned(t *testing.T) {
	e := newEnv(t)
	_, fileID := e.link(t, "shared")
	w, err := New(Config{Pool: e.pool, Drive: e.drive, Agents: agents{agentID: agentAddr}, Names: names{agentID: "Study Buddy"},
		Directory: e.dir, Answerer: e.ans, Logger: testLogger(), Registerer: e.reg, Interval: time.Hour,
		Lease: time.Minute, AnswerTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	c, err := e.sim.AddComment(fileID, ownerEmail, "Alice", "@"+agentAddr+" what is **week 1** about?")
	if err != nil {
		t.Fatal(err)
	}
	e.pollAll(t, w)
	got := agentReplies(e.comment(t, fileID, c.ID))
	want := "Answer: what is week 1 about?\n\nSources: Syllabus (https://docs.google.com/document/d/x/edit)\n\n— Study Buddy"
	if len(got) != 1 || got[0].Content != want {
		t.Fatalf("replies = %+v, want one %q", got, want)
	}
	if strings.Contains(got[0].Content, "**") {
		t.Fatalf("Markdown left in %q", got[0].Content)
	}
	// Polled again: the recorded (signed) reply is recognised, not posted twice.
	e.pollAll(t, w)
	if n := len(agentReplies(e.comment(t, fileID, c.ID))); n != 1 {
		t.Fatalf("replies after a second poll = %d", n)
	}
}
