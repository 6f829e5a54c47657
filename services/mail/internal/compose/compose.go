// Package compose builds the agent's reply: a complete RFC 5322 message in
// the sender's thread (In-Reply-To / References), "Re: <subject>", with a
// text/plain part (the answer's Markdown, readable as is, and numbered
// sources) and a text/html part (the Markdown rendered by goldmark with
// GitHub-flavoured extensions; raw HTML in the answer is not passed
// through, citations become links).
package compose

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"strings"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/agentic-app/agentic/services/mail/internal/mailtext"
)

// Citation is a source the answer used.
type Citation struct {
	Name string
	URL  string
}

// Reply describes one reply.
type Reply struct {
	// From is the agent (name and address); To is the person who wrote.
	From, To mail.Address
	// Subject is the inbound message's subject (without "Re:" added).
	Subject string
	// MessageID is the reply's own Message-ID, without angle brackets.
	MessageID string
	// InReplyTo is the inbound message's Message-ID; References its
	// References (or, when it had none, its In-Reply-To).
	InReplyTo  string
	References []string
	Date       time.Time
	// Markdown is the body; Citations are listed after it.
	Markdown  string
	Citations []Citation
}

// Subject returns "Re: subject", without stacking "Re:" prefixes.
func Subject(subject string) string {
	s := strings.TrimSpace(subject)
	if s == "" {
		return "Re: (no subject)"
	}
	if len(s) >= 3 && strings.EqualFold(s[:3], "re:") {
		return "Re:" + s[3:]
	}
	return "Re: " + s
}

// References returns the References of a reply to a message with the given
// References, In-Reply-To and Message-ID (RFC 5322 §3.6.4): the parent's
// References (else its In-Reply-To) followed by the parent's id.
func References(refs, inReplyTo []string, messageID string) []string {
	var out []string
	switch {
	case len(refs) > 0:
		out = append(out, refs...)
	case len(inReplyTo) == 1:
		out = append(out, inReplyTo[0])
	}
	return append(out, messageID)
}

var md = goldmark.New(goldmark.WithExtensions(extension.GFM))

// Build renders r as a complete message (CRLF line endings).
func Build(r Reply) ([]byte, error) {
	if r.MessageID == "" || r.InReplyTo == "" || r.From.Address == "" || r.To.Address == "" {
		return nil, fmt.Errorf("compose: reply needs From, To, MessageID and InReplyTo")
	}
	var h mail.Header
	h.SetDate(r.Date)
	h.SetAddressList("From", []*mail.Address{&r.From})
	h.SetAddressList("To", []*mail.Address{&r.To})
	h.SetSubject(Subject(r.Subject))
	h.SetMessageID(r.MessageID)
	h.SetMsgIDList("In-Reply-To", []string{r.InReplyTo})
	h.SetMsgIDList("References", r.References)
	h.Set("MIME-Version", "1.0")
	// An automatic reply (RFC 3834): other auto-responders must not answer it,
	// so an agent and a vacation responder cannot loop.
	h.Set("Auto-Submitted", "auto-replied")

	var buf bytes.Buffer
	w, err := mail.CreateInlineWriter(&buf, h)
	if err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	var th mail.InlineHeader
	th.SetContentType("text/plain", map[string]string{"charset": "utf-8"})
	if err := writePart(w, th, Text(r.Markdown, r.Citations)); err != nil {
		return nil, err
	}
	var hh mail.InlineHeader
	hh.SetContentType("text/html", map[string]string{"charset": "utf-8"})
	body, err := HTML(r.Markdown, r.Citations)
	if err != nil {
		return nil, err
	}
	if err := writePart(w, hh, body); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("compose: %w", err)
	}
	return buf.Bytes(), nil
}

func writePart(w *mail.InlineWriter, h mail.InlineHeader, body string) error {
	pw, err := w.CreatePart(h)
	if err != nil {
		return fmt.Errorf("compose: %w", err)
	}
	if _, err := pw.Write([]byte(body)); err != nil {
		return fmt.Errorf("compose: %w", err)
	}
	return pw.Close()
}

// safeURL returns u when it is an absolute http(s) URL, else "".
func safeURL(u string) string {
	p, err := url.Parse(strings.TrimSpace(u))
	if err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" {
		return ""
	}
	return p.String()
}

// Text is the plain-text body: the Markdown, then "Sources:" with one
// numbered line per citation ("[1] Name <https://…>").
func Text(markdown string, cites []Citation) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(markdown))
	b.WriteString("\n")
	if len(cites) > 0 {
		b.WriteString("\nSources:\n")
		for i, c := range cites {
			fmt.Fprintf(&b, "[%d] %s", i+1, c.Name)
			if u := safeURL(c.URL); u != "" {
				fmt.Fprintf(&b, " <%s>", u)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

// HTML is the HTML body: the Markdown rendered, then the sources as a
// numbered list of links.
func HTML(markdown string, cites []Citation) (string, error) {
	var body bytes.Buffer
	if err := md.Convert([]byte(markdown), &body); err != nil {
		return "", fmt.Errorf("compose: render markdown: %w", err)
	}
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"></head><body>\n")
	b.Write(body.Bytes())
	if len(cites) > 0 {
		b.WriteString("<p><strong>Sources</strong></p>\n<ol>\n")
		for _, c := range cites {
			name := html.EscapeString(c.Name)
			if u := safeURL(c.URL); u != "" {
				fmt.Fprintf(&b, "<li><a href=\"%s\">%s</a></li>\n", html.EscapeString(u), name)
			} else {
				fmt.Fprintf(&b, "<li>%s</li>\n", name)
			}
		}
		b.WriteString("</ol>\n")
	}
	b.WriteString("</body></html>\n")
	// Answers never load remote content (an image URL in a planted document
	// could carry data out): remote images become links naming their host,
	// links say where they go (mailtext.NoRemoteContent).
	return mailtext.NoRemoteContent(b.String())
}
