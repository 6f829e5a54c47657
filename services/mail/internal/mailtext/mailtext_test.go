package mailtext

import (
	"strings"
	"testing"
)

func crlf(s string) []byte { return []byte(strings.ReplaceAll(s, "\n", "\r\n")) }

func TestParsePlainWithQuotedHistoryAndSignature(t *testing.T) {
	raw := crlf(`From: "Alice Example" <Alice@Example.ORG>
To: math-tutor-abc123@agents.agentic.local
Subject: Re: Quadratic equations
Message-ID: <reply-2@example.org>
In-Reply-To: <agent-reply-1@agents.agentic.local>
References: <root-1@example.org> <agent-reply-1@agents.agentic.local>
Date: Mon, 02 Jan 2024 10:00:00 +0000
Content-Type: text/plain; charset=utf-8

Thanks! And what about x^2 + 1 = 0?

On Mon, 1 Jan 2024 at 09:00, Math Tutor <math-tutor-abc123@agents.agentic.local> wrote:
> The roots of x^2 - 1 = 0 are 1 and -1.
> Sources: ...

-- 
Alice Example
+1 555 0100
`)
	p, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != "Thanks! And what about x^2 + 1 = 0?" {
		t.Errorf("Text = %q", p.Text)
	}
	if p.From != "alice@example.org" || p.FromName != "Alice Example" {
		t.Errorf("From = %q %q", p.From, p.FromName)
	}
	if p.MessageID != "reply-2@example.org" || p.Subject != "Re: Quadratic equations" {
		t.Errorf("id/subject = %q %q", p.MessageID, p.Subject)
	}
	if strings.Join(p.References, " ") != "root-1@example.org agent-reply-1@agents.agentic.local" ||
		strings.Join(p.InReplyTo, " ") != "agent-reply-1@agents.agentic.local" {
		t.Errorf("threading = %v / %v", p.References, p.InReplyTo)
	}
	if p.FromHTML || p.AutoSubmitted || len(p.Attachments) != 0 || p.Date.IsZero() {
		t.Errorf("flags: %+v", p)
	}
}

func TestParseHTMLOnly(t *testing.T) {
	raw := crlf(`From: bob@example.com
To: bot@agents.agentic.local
Subject: =?UTF-8?Q?Caf=C3=A9_question?=
Message-ID: <html-1@example.com>
MIME-Version: 1.0
Content-Type: text/html; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

<html><head><style>p{color:red}</style><title>t</title></head><body>
<p>Hello&nbsp;agent,</p><p>What is a <b>caf=E9</b> cr=E8me?<br>Read <a href=3D"https://example.com/x">this page</a>.</p>
<ul><li>one</li><li>two</li></ul>
<div class=3D"gmail_signature">Bob, CEO</div>
<div class=3D"gmail_quote"><div class=3D"gmail_attr">On Mon, Bot wrote:</div><blockquote>old text</blockquote></div>
</body></html>
`)
	p, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := "Hello agent,\n\nWhat is a café crème?\nRead this page (https://example.com/x).\n\n- one\n- two"
	if p.Text != want {
		t.Errorf("Text =\n%q\nwant\n%q", p.Text, want)
	}
	if !p.FromHTML || p.Subject != "Café question" {
		t.Errorf("FromHTML=%v subject=%q", p.FromHTML, p.Subject)
	}
}

func TestParsePrefersPlainAndListsAttachmentsWithoutReadingThem(t *testing.T) {
	raw := crlf(`From: carol@example.net
Subject: Report
Message-ID: <m-3@example.net>
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="outer"

--outer
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=utf-8

Please summarise the attached report.
--alt
Content-Type: text/html; charset=utf-8

<p>HTML version that must not win</p>
--alt--
--outer
Content-Type: application/pdf; name="report.pdf"
Content-Disposition: attachment; filename="Q3 report.pdf"
Content-Transfer-Encoding: base64

!!!not-base64-and-never-read!!!
--outer
Content-Type: image/png
Content-Disposition: inline
Content-Transfer-Encoding: base64

iVBORw0KGgo=
--outer
Content-Type: text/plain
Content-Disposition: attachment; filename="notes.txt"

secret notes that are not the question
--outer--
`)
	p, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != "Please summarise the attached report." || p.FromHTML {
		t.Errorf("Text = %q (html %v)", p.Text, p.FromHTML)
	}
	if got := strings.Join(p.Attachments, "|"); got != "Q3 report.pdf|unnamed (image/png)|notes.txt" {
		t.Errorf("Attachments = %q", got)
	}
}

func TestParseHeaders(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		err       error
		check     func(Parsed) bool
	}{
		{"no from", "Subject: x\n\nbody\n", ErrNoFrom, nil},
		{"two froms", "From: a@x.org, b@x.org\n\nbody\n", ErrMultipleFrom, nil},
		{"missing message id is derived from the bytes", "From: a@x.org\n\nbody\n", nil, func(p Parsed) bool {
			q, _ := Parse(crlf("From: a@x.org\n\nbody\n"))
			r, _ := Parse(crlf("From: a@x.org\n\nother body\n"))
			return strings.HasSuffix(p.MessageID, "@"+MissingIDDomain) && p.MessageID == q.MessageID && p.MessageID != r.MessageID
		}},
		{"auto-submitted", "From: a@x.org\nAuto-Submitted: auto-replied\n\nI am away\n", nil, func(p Parsed) bool { return p.AutoSubmitted }},
		{"auto-submitted no", "From: a@x.org\nAuto-Submitted: no\n\nhi\n", nil, func(p Parsed) bool { return !p.AutoSubmitted }},
		{"bulk", "From: a@x.org\nPrecedence: bulk\n\nnews\n", nil, func(p Parsed) bool { return p.AutoSubmitted }},
		{"mailing list", "From: a@x.org\nList-Id: <dev.lists.example.org>\n\nnews\n", nil, func(p Parsed) bool { return p.AutoSubmitted }},
		{"no content type", "From: a@x.org\n\nplain body\n", nil, func(p Parsed) bool { return p.Text == "plain body" }},
		{"subject control chars", "From: a@x.org\nSubject: =?UTF-8?Q?a=0Db?=\n\nx\n", nil, func(p Parsed) bool { return p.Subject == "a b" }},
	} {
		p, err := Parse(crlf(c.raw))
		if err != c.err {
			t.Errorf("%s: err = %v, want %v", c.name, err, c.err)
			continue
		}
		if c.check != nil && !c.check(p) {
			t.Errorf("%s: %+v", c.name, p)
		}
	}
}

func TestParseFlowed(t *testing.T) {
	raw := crlf("From: a@x.org\nContent-Type: text/plain; charset=utf-8; format=flowed\n\nThis is one long \nparagraph split by \nthe client.\n\nSecond.\n-- \nsig\n")
	p, err := Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	if p.Text != "This is one long paragraph split by the client.\n\nSecond." {
		t.Errorf("Text = %q", p.Text)
	}
}

func TestClean(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"nothing to strip", "Line one\nLine two", "Line one\nLine two"},
		{"crlf and trailing spaces", "a  \r\nb\t\r\n", "a\nb"},
		{"blank runs collapse", "\n\n\na\n\n\n\nb\n\n", "a\n\nb"},
		{"gmail attribution", "Answer please\n\nOn Tue, Jan 2, 2024 at 9:00 AM Bot <bot@x.org> wrote:\n> old\n", "Answer please"},
		{"wrapped attribution", "Yes.\nOn Tue, Jan 2, 2024 at 9:00 AM Very Long Name <\nbot@agents.agentic.local> wrote:\n> old", "Yes."},
		{"french", "Merci\nLe mar. 2 janv. 2024 à 09:00, Bot <bot@x.org> a écrit :\n> vieux", "Merci"},
		{"german", "Danke\nAm 02.01.2024 um 09:00 schrieb Bot:\n> alt", "Danke"},
		{"inline quoting keeps own lines", "> question one?\nmy answer one\n> question two?\nmy answer two", "my answer one\nmy answer two"},
		{"nested quote", "top\n>> deep\n > spaced", "top"},
		{"signature", "Body text\n-- \nAlice\nPhone", "Body text"},
		{"signature without space", "Body text\n--\nAlice", "Body text"},
		{"outlook original", "See below\n\n-----Original Message-----\nFrom: Bot\nSent: today\nold", "See below"},
		{"outlook header block", "Reply here\n\nFrom: Bot <bot@x.org>\nSent: Tuesday, January 2, 2024 9:00 AM\nTo: me\nSubject: old\n\nold body", "Reply here"},
		{"outlook underscores", "Reply\n________________________________\nFrom: Bot", "Reply"},
		{"from in prose is kept", "From: the book, chapter 2.\nWhat does it mean?", "From: the book, chapter 2.\nWhat does it mean?"},
		{"on in prose is kept", "On Monday I studied.\nIs that enough?", "On Monday I studied.\nIs that enough?"},
		{"only quoted", "> all quoted\n> text", ""},
	} {
		if got := Clean(c.in); got != c.want {
			t.Errorf("%s: Clean(%q) = %q, want %q", c.name, c.in, got, c.want)
		}
	}
}

func TestHTMLToText(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"paragraphs and breaks", "<p>One<br>Two</p><p>Three</p>", "One\nTwo\n\nThree"},
		{"whitespace collapses", "<div>  a \n  b\t c </div>", "a b c"},
		{"inline elements keep spaces", "<p>a <b>bold</b> <i>word</i>.</p>", "a bold word."},
		{"pre keeps spacing", "<pre>x  = 1\n  y = 2</pre>", "x  = 1\n  y = 2"},
		{"link text is the url", `<a href="https://example.org/a">https://example.org/a</a>`, "https://example.org/a"},
		{"non-http link", `<a href="mailto:a@x.org">write me</a>`, "write me"},
		{"script and style dropped", "<script>alert(1)</script><style>.x{}</style>text", "text"},
		{"blockquote dropped", "mine<blockquote type=\"cite\">theirs</blockquote>", "mine"},
		{"outlook reply header and rest dropped", `<div>Reply</div><div id="appendonsend"></div><hr><div id="divRplyFwdMsg">From: Bot</div><div>old body</div>`, "Reply"},
		{"thunderbird", `<p>Sure</p><div class="moz-cite-prefix">On 1/1/24 Bot wrote:</div><blockquote>old</blockquote><pre class="moz-signature">-- sig</pre>`, "Sure"},
		{"table cells", "<table><tr><td>a</td><td>b</td></tr><tr><td>c</td></tr></table>", "a b\nc"},
		{"image alt", `see <img src="x.png" alt="diagram"> here`, "see diagram here"},
		{"entities", "<p>5 &lt; 6 &amp;&amp; caf&eacute;</p>", "5 < 6 && café"},
		{"broken markup", "<p>unclosed <b>bold<p>next", "unclosed bold\n\nnext"},
	} {
		if got := Clean(HTMLToText(c.in)); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
