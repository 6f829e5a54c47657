package mailtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// Every text Parse returns goes into PostgreSQL text columns, which refuse
// NUL and invalid UTF-8 (docs/conventions.md): a hostile message must not
// make the SMTP session fail with a database error.
func TestParseYieldsStorableText(t *testing.T) {
	raws := []string{
		"From: A <ab@example.com>\r\nTo: x@agents.test\r\nMessage-ID: <id\x00\xff@x>\r\nIn-Reply-To: <r\x00@x>\r\nReferences: <q\x00\xfe@x>\r\nSubject: hi\x00\xff\r\n\r\nbody\x00\xff\r\n",
		"From: A <ab@example.com>\r\nMessage-ID: <id\xff@x>\r\nIn-Reply-To: <r\xfe@x>\r\nSubject: =?utf-8?q?a=00b=FF?=\r\nContent-Type: text/html\r\n\r\n<p>x\x00\xc3</p>\r\n",
		"From: \"A\xff\" <ab@example.com>\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\nContent-Type: text/plain; charset=latin1\r\n\r\n\x00\xe9\r\n--b\r\nContent-Disposition: attachment; filename=\"f\x00\xff.txt\"\r\n\r\nx\r\n--b--\r\n",
	}
	for _, raw := range raws {
		p, err := Parse([]byte(raw))
		if err != nil {
			continue // refused: nothing is stored
		}
		texts := []string{p.From, p.FromName, p.MessageID, p.Subject, p.Text}
		texts = append(texts, p.InReplyTo...)
		texts = append(texts, p.References...)
		texts = append(texts, p.Attachments...)
		for _, s := range texts {
			if strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) {
				t.Errorf("Parse(%q) yields %q", raw, s)
			}
		}
	}
}
