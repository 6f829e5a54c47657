package pages

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/net/html"
)

// Meta is what a page's <head> says about it. Every text is escaped when
// written; empty fields are not written.
type Meta struct {
	// Title is the <title> ("Math Tutor | Agentic").
	Title string
	// Description is the meta description, og:description and
	// twitter:description.
	Description string
	// OGTitle is og:title and twitter:title ("": Title).
	OGTitle string
	// URL is the canonical link and og:url (absolute).
	URL string
	// Type is og:type ("website").
	Type string
	// NoIndex asks crawlers not to index the page (robots noindex): the
	// 404 page.
	NoIndex bool
}

// MaxDescription bounds a written description (in characters): what a
// link preview shows, and what search engines use, is shorter still.
const MaxDescription = 300

// Render returns the shell with m's tags at the end of its <head>, in place
// of the shell's own <title>, description, robots, canonical link, og:type,
// og:url, og:title, og:description, twitter:title and twitter:description
// (the other tags — the charset first, og:image, og:site_name, the icons,
// the scripts, JSON-LD — stay, so the SPA boots from it as from the shell
// itself). The shell is read with the HTML tokenizer: what is inside
// <script> or <style> is never taken for a tag.
func Render(shell []byte, m Meta) []byte {
	var out bytes.Buffer
	out.Grow(len(shell) + 1024)
	z := html.NewTokenizer(bytes.NewReader(shell))
	var pending []byte // white space in <head> before the next tag, dropped with a replaced one
	inHead, written, skipTitle := false, false, false
	write := func() {
		if !written {
			writeMeta(&out, m)
			written = true
		}
	}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			out.Write(pending)
			if z.Err() != io.EOF {
				out.Write(z.Raw())
			}
			break
		}
		raw := bytes.Clone(z.Raw())
		tok := z.Token()
		switch {
		case skipTitle:
			if tt == html.EndTagToken && tok.Data == "title" {
				skipTitle = false
			}
			continue
		case tt == html.StartTagToken && tok.Data == "head" && !written:
			inHead = true
		case (tt == html.EndTagToken && tok.Data == "head") || (tt == html.StartTagToken && tok.Data == "body"):
			inHead = false
			write() // a shell without <head> gets them before <body>
		case inHead && tt == html.TextToken && len(bytes.TrimSpace(raw)) == 0:
			pending = append(pending, raw...)
			continue
		case inHead && tt == html.StartTagToken && tok.Data == "title":
			pending, skipTitle = nil, true
			continue
		case inHead && (tt == html.StartTagToken || tt == html.SelfClosingTagToken) && replaced(tok):
			pending = nil
			continue
		}
		out.Write(pending)
		pending = nil
		out.Write(raw)
	}
	write()
	return out.Bytes()
}

// replacedNames are the <meta name> and <meta property> values Render
// writes itself.
var replacedNames = map[string]bool{
	"description": true, "robots": true,
	"og:type": true, "og:url": true, "og:title": true, "og:description": true,
	"twitter:title": true, "twitter:description": true, "twitter:url": true,
}

func replaced(t html.Token) bool {
	switch t.Data {
	case "meta":
		for _, a := range t.Attr {
			if (a.Key == "name" || a.Key == "property") && replacedNames[strings.ToLower(strings.TrimSpace(a.Val))] {
				return true
			}
		}
	case "link":
		for _, a := range t.Attr {
			if a.Key == "rel" && strings.EqualFold(strings.TrimSpace(a.Val), "canonical") {
				return true
			}
		}
	}
	return false
}

func writeMeta(out *bytes.Buffer, m Meta) {
	const indent = "\n    "
	ogTitle := m.OGTitle
	if ogTitle == "" {
		ogTitle = m.Title
	}
	desc := Clip(m.Description, MaxDescription)
	tag := func(format string, args ...string) {
		esc := make([]any, len(args))
		for i, a := range args {
			esc[i] = html.EscapeString(a)
		}
		fmt.Fprintf(out, indent+format, esc...)
	}
	if t := Clip(m.Title, 200); t != "" {
		tag("<title>%s</title>", t)
	}
	if desc != "" {
		tag(`<meta name="description" content="%s" />`, desc)
	}
	if m.NoIndex {
		tag(`<meta name="robots" content="noindex" />`)
	} else {
		tag(`<meta name="robots" content="index, follow" />`)
	}
	if m.URL != "" {
		tag(`<link rel="canonical" href="%s" />`, m.URL)
	}
	if m.Type != "" {
		tag(`<meta property="og:type" content="%s" />`, m.Type)
	}
	if m.URL != "" {
		tag(`<meta property="og:url" content="%s" />`, m.URL)
	}
	if t := Clip(ogTitle, 200); t != "" {
		tag(`<meta property="og:title" content="%s" />`, t)
		tag(`<meta name="twitter:title" content="%s" />`, t)
	}
	if desc != "" {
		tag(`<meta property="og:description" content="%s" />`, desc)
		tag(`<meta name="twitter:description" content="%s" />`, desc)
	}
}

// Clip is s on one line (runs of white space and control characters become
// one space), cut to at most n characters at a word boundary where there is
// one, with "…" when cut.
func Clip(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	out := b.String()
	if utf8.RuneCountInString(out) <= n {
		return out
	}
	runes := []rune(out)
	cut := string(runes[:n-1])
	if runes[n-1] != ' ' { // in a word: end at the one before, if not too far
		if i := strings.LastIndexByte(cut, ' '); i > len(cut)/2 {
			cut = cut[:i]
		}
	}
	return strings.TrimRight(cut, " ,;:.-") + "…"
}
