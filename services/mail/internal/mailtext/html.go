package mailtext

import (
	"strings"
	"unicode"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// HTMLToText converts an HTML mail body to plain text by walking its parse
// tree (golang.org/x/net/html, the HTML5 parser, so broken markup is read as
// a browser would): block elements end lines, list items get "- ", links
// keep their address ("text (https://…)"), <pre> keeps its spacing, and
// what is never the sender's own words is dropped: <head>, <script>,
// <style>, quoted replies (<blockquote>, Gmail's gmail_quote, Thunderbird's
// moz-cite-prefix, Outlook's divRplyFwdMsg and what follows it) and marked
// signatures (gmail_signature, moz-signature).
func HTMLToText(src string) string {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return ""
	}
	w := &htmlWriter{}
	w.walk(doc)
	return w.String()
}

type htmlWriter struct {
	b       strings.Builder
	pre     int  // depth of <pre>
	space   bool // a collapsed space is pending
	stopped bool // the rest of the document is quoted history
}

func (w *htmlWriter) String() string { return w.b.String() }

// newline ends the current line, if any.
func (w *htmlWriter) newline() {
	w.space = false
	if s := w.b.String(); s != "" && !strings.HasSuffix(s, "\n") {
		w.b.WriteByte('\n')
	}
}

// paragraph ends the current paragraph with a blank line, if any.
func (w *htmlWriter) paragraph() {
	w.newline()
	if s := w.b.String(); s != "" && !strings.HasSuffix(s, "\n\n") {
		w.b.WriteByte('\n')
	}
}

func (w *htmlWriter) text(s string) {
	if w.pre > 0 {
		w.b.WriteString(s)
		w.space = false
		return
	}
	fields := strings.Fields(s) // also collapses non-breaking spaces
	if len(fields) == 0 {
		if s != "" {
			w.space = true
		}
		return
	}
	leading := strings.TrimLeftFunc(s, unicode.IsSpace) != s
	cur := w.b.String()
	if (w.space || leading) && cur != "" && !strings.HasSuffix(cur, "\n") && !strings.HasSuffix(cur, " ") {
		w.b.WriteByte(' ')
	}
	w.b.WriteString(strings.Join(fields, " "))
	w.space = strings.TrimRightFunc(s, unicode.IsSpace) != s
}

func hasClass(n *html.Node, names ...string) bool {
	for _, a := range n.Attr {
		if a.Key != "class" {
			continue
		}
		for _, c := range strings.Fields(a.Val) {
			for _, name := range names {
				if c == name {
					return true
				}
			}
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// skipped reports an element whose content is never the sender's text.
func skipped(n *html.Node) bool {
	switch n.DataAtom {
	case atom.Head, atom.Script, atom.Style, atom.Title, atom.Template, atom.Noscript, atom.Blockquote:
		return true
	}
	return hasClass(n, "gmail_quote", "gmail_signature", "gmail_extra", "moz-signature", "moz-cite-prefix", "yahoo_quoted") ||
		attr(n, "data-smartmail") == "gmail_signature"
}

// quoteStart reports an element after which the rest of the document is the
// quoted original (Outlook puts it in siblings, not inside one element).
func quoteStart(n *html.Node) bool {
	id := attr(n, "id")
	return id == "divRplyFwdMsg" || id == "appendonsend" || hasClass(n, "OutlookMessageHeader")
}

// breakAround ends the line (or, for paragraph-like elements, the
// paragraph) before and after an element; inline elements do neither.
func (w *htmlWriter) breakAround(a atom.Atom) {
	switch a {
	case atom.P, atom.Ul, atom.Ol, atom.Table, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Pre,
		atom.Dl, atom.Section, atom.Article:
		w.paragraph()
	case atom.Div, atom.Li, atom.Tr, atom.Dt, atom.Dd, atom.Header, atom.Footer, atom.Address, atom.Center:
		w.newline()
	}
}

func (w *htmlWriter) walk(n *html.Node) {
	if w.stopped {
		return
	}
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		if quoteStart(n) {
			w.stopped = true
			return
		}
		if skipped(n) {
			return
		}
		switch n.DataAtom {
		case atom.Br:
			w.b.WriteByte('\n')
			w.space = false
			return
		case atom.Hr:
			w.newline()
			return
		case atom.Img:
			if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
				w.text(" " + alt + " ")
			}
			return
		}
		w.breakAround(n.DataAtom)
		switch n.DataAtom {
		case atom.Li:
			w.b.WriteString("- ")
			w.space = false
		case atom.Pre:
			w.pre++
		case atom.Td, atom.Th:
			w.text(" ")
		}
	}
	start := w.b.Len()
	for c := n.FirstChild; c != nil && !w.stopped; c = c.NextSibling {
		w.walk(c)
	}
	if n.Type != html.ElementNode {
		return
	}
	switch n.DataAtom {
	case atom.Pre:
		w.pre--
	case atom.A:
		href := strings.TrimSpace(attr(n, "href"))
		// The address is kept unless the link text already shows it.
		linkText := w.b.String()[start:]
		if (strings.HasPrefix(href, "http://") || strings.HasPrefix(href, "https://")) &&
			!strings.Contains(linkText, strings.TrimPrefix(strings.TrimPrefix(href, "https://"), "http://")) {
			w.text(" (" + href + ")")
		}
	}
	w.breakAround(n.DataAtom)
}
