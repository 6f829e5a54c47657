// Package mailtext turns an inbound RFC 5322 message into what the agent is
// asked: the headers that matter for routing and threading, and the text the
// sender actually wrote.
//
// The body is taken from the first text/plain part, else from the first
// text/html part converted to text (golang.org/x/net/html: a tree walk that
// drops the quoted-reply and signature blocks mail clients mark up). Quoted
// reply history ("On … wrote:" and what follows, lines starting with ">",
// Outlook's "-----Original Message-----" / "From: … Sent: …" blocks) and
// signatures (the "-- " delimiter) are stripped. Attachments are listed by
// name and never read.
package mailtext

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // decode the non-UTF-8 charsets mail clients still send
	"github.com/emersion/go-message/mail"
)

// MaxTextPartBytes bounds how much of one text part is read (the message as a
// whole is bounded by the SMTP server); a longer part is cut.
const MaxTextPartBytes = 1 << 20

// MissingIDDomain is the right-hand side of the Message-ID given to a message
// that has none (see Parsed.MessageID).
const MissingIDDomain = "missing-id.agentic.invalid"

// Parsed is the part of a message the mail service uses.
type Parsed struct {
	// MessageID is the Message-ID without angle brackets. A message without
	// one gets "<sha256 of the raw message>@missing-id.agentic.invalid", so
	// that a redelivery of the same bytes is still recognised.
	MessageID string
	// InReplyTo and References are message ids without angle brackets, in
	// header order (References: root first).
	InReplyTo  []string
	References []string
	Subject    string
	// From is the single address of the From header (lower-cased address).
	From     string
	FromName string
	Date     time.Time
	// Text is what the sender wrote, quoted history and signature removed.
	Text string
	// FromHTML reports that Text was converted from the text/html part.
	FromHTML bool
	// Attachments are the file names of the attachments (or their content
	// type when unnamed), never their contents.
	Attachments []string
	// AutoSubmitted reports a message a machine sent (Auto-Submitted other
	// than "no", Precedence bulk/junk/list, a mailing list's List-Id): it is
	// never answered, so two auto-responders cannot loop (RFC 3834).
	AutoSubmitted bool
}

// Errors of Parse that make the message unacceptable.
var (
	ErrNoFrom       = errors.New("the message has no From address")
	ErrMultipleFrom = errors.New("the message has more than one From address")
)

// Parse reads raw (a complete message) and extracts Parsed. An unknown
// charset or transfer encoding of one part is tolerated (that part is used
// as well as it can be); a malformed header section is an error.
func Parse(raw []byte) (Parsed, error) {
	// An unknown charset of the top-level entity still yields a reader.
	mr, err := mail.CreateReader(bytes.NewReader(raw))
	if mr == nil {
		return Parsed{}, fmt.Errorf("parse message: %w", err)
	}
	defer mr.Close()
	h := mr.Header
	var p Parsed

	from, err := h.AddressList("From")
	switch {
	case err != nil:
		return Parsed{}, fmt.Errorf("parse From: %w", err)
	case len(from) == 0:
		return Parsed{}, ErrNoFrom
	case len(from) > 1:
		return Parsed{}, ErrMultipleFrom
	}
	p.From = strings.ToLower(from[0].Address)
	p.FromName = cleanLine(from[0].Name)

	p.MessageID, _ = h.MessageID()
	p.MessageID = strings.TrimSpace(p.MessageID)
	if p.MessageID == "" {
		sum := sha256.Sum256(raw)
		p.MessageID = hex.EncodeToString(sum[:16]) + "@" + MissingIDDomain
	}
	// A malformed list keeps the ids parsed before the error.
	p.InReplyTo, _ = h.MsgIDList("In-Reply-To")
	p.References, _ = h.MsgIDList("References")
	if s, err := h.Subject(); err == nil {
		p.Subject = strings.TrimSpace(s)
	} else {
		p.Subject = strings.TrimSpace(h.Get("Subject"))
	}
	p.Subject = cleanLine(p.Subject)
	p.Date, _ = h.Date()
	p.AutoSubmitted = autoSubmitted(h.Header)

	var plain, html string
	havePlain, haveHTML := false, false
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil && !message.IsUnknownCharset(err) {
			// A broken MIME structure: keep what was found so far.
			break
		}
		switch ph := part.Header.(type) {
		case *mail.InlineHeader:
			ct, params, _ := ph.ContentType()
			switch {
			case ct == "text/plain" && !havePlain:
				body, _ := readText(part.Body)
				if strings.EqualFold(params["format"], "flowed") {
					body = unflow(body, strings.EqualFold(params["delsp"], "yes"))
				}
				plain, havePlain = body, true
			case ct == "text/html" && !haveHTML:
				html, _ = readText(part.Body)
				haveHTML = true
			case ct == "" && !havePlain: // no Content-Type: text/plain by default
				plain, _ = readText(part.Body)
				havePlain = true
			case !strings.HasPrefix(ct, "text/"):
				// An inline image or the like: list it, do not read it.
				p.Attachments = append(p.Attachments, attachmentName(ph.Header, ct))
			}
		case *mail.AttachmentHeader:
			ct, _, _ := ph.ContentType()
			p.Attachments = append(p.Attachments, attachmentName(ph.Header, ct))
		}
	}
	switch {
	case havePlain && strings.TrimSpace(plain) != "":
		p.Text = Clean(plain)
	case haveHTML:
		p.Text = Clean(HTMLToText(html))
		p.FromHTML = true
	default:
		p.Text = Clean(plain)
	}
	// PostgreSQL text cannot hold NUL; nothing a person writes contains it.
	p.Text = strings.ReplaceAll(p.Text, "\x00", "")
	return p, nil
}

// readText reads at most MaxTextPartBytes of a decoded text part and makes
// it valid UTF-8.
func readText(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, MaxTextPartBytes))
	s := string(b)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s, err
}

func attachmentName(h message.Header, contentType string) string {
	ah := mail.AttachmentHeader{Header: h}
	if name, err := ah.Filename(); err == nil && strings.TrimSpace(name) != "" {
		return cleanLine(name)
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	return "unnamed (" + contentType + ")"
}

// cleanLine removes control characters (a header value is shown as one line).
func cleanLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s)
}

func autoSubmitted(h message.Header) bool {
	if v := strings.ToLower(strings.TrimSpace(h.Get("Auto-Submitted"))); v != "" && v != "no" {
		return true
	}
	switch strings.ToLower(strings.TrimSpace(h.Get("Precedence"))) {
	case "bulk", "junk", "list":
		return true
	}
	return h.Get("List-Id") != ""
}

// unflow joins the soft line breaks of a format=flowed text (RFC 3676): a
// line ending in a space continues on the next one. The signature delimiter
// "-- " is not a soft break. Space-stuffing (a leading space) is removed.
func unflow(s string, delsp bool) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var b strings.Builder
	for i, line := range lines {
		line = strings.TrimPrefix(line, " ")
		if line != "-- " && strings.HasSuffix(line, " ") && i < len(lines)-1 {
			if delsp {
				line = line[:len(line)-1]
			}
			b.WriteString(line)
			continue
		}
		b.WriteString(line)
		if i < len(lines)-1 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
