// Command sendmail sends one test e-mail to the mail service's SMTP server
// (a dev tool: swaks is not installed). The agent's reply then arrives at
// the relay, maildev locally (http://127.0.0.1:1080).
//
//	go run ./services/mail/cmd/sendmail -from alice@example.org \
//	    -to math-tutor-abc234@agents.agentic.local -subject "Quadratics" \
//	    -body "How do I solve x^2 - 5x + 6 = 0?"
//
// To continue a thread, pass the agent's reply Message-ID as -in-reply-to
// (and the thread's ids as -references). The body may come from stdin
// (-body -). It prints the server's answer and the Message-ID it used.
package main

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/emersion/go-message/mail"
	"github.com/emersion/go-smtp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:2525", "the mail service's SMTP address")
	from := flag.String("from", "", "sender address (envelope and From header)")
	to := flag.String("to", "", "the agent's address")
	subject := flag.String("subject", "Test message", "subject")
	body := flag.String("body", "Hello! What can you do?", `message text ("-" reads stdin)`)
	html := flag.Bool("html", false, "send the body as text/html only")
	msgID := flag.String("message-id", "", "Message-ID without <> (default: random)")
	inReplyTo := flag.String("in-reply-to", "", "Message-ID being answered (continues a thread)")
	refs := flag.String("references", "", "space-separated Message-IDs of the thread, root first")
	startTLS := flag.Bool("starttls", false, "use STARTTLS (certificate not verified: dev only)")
	flag.Parse()
	if err := run(*addr, *from, *to, *subject, *body, *html, *msgID, *inReplyTo, *refs, *startTLS); err != nil {
		fmt.Fprintln(os.Stderr, "sendmail:", err)
		os.Exit(1)
	}
}

func run(addr, from, to, subject, body string, html bool, msgID, inReplyTo, refs string, startTLS bool) error {
	if from == "" || to == "" {
		return errors.New("-from and -to are required")
	}
	if body == "-" {
		b, err := io.ReadAll(os.Stdin)
		if err != nil {
			return err
		}
		body = string(b)
	}
	if msgID == "" {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		msgID = hex.EncodeToString(b) + "@sendmail.local"
	}
	var h mail.Header
	h.SetDate(time.Now())
	h.SetAddressList("From", []*mail.Address{{Address: from}})
	h.SetAddressList("To", []*mail.Address{{Address: to}})
	h.SetSubject(subject)
	h.SetMessageID(msgID)
	if inReplyTo != "" {
		h.SetMsgIDList("In-Reply-To", []string{inReplyTo})
	}
	if refs != "" {
		h.SetMsgIDList("References", strings.Fields(refs))
	}
	ct := "text/plain"
	if html {
		ct = "text/html"
	}
	h.SetContentType(ct, map[string]string{"charset": "utf-8"})
	var msg strings.Builder
	w, err := mail.CreateSingleInlineWriter(&msg, h)
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, body); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}

	var c *smtp.Client
	if startTLS {
		c, err = smtp.DialStartTLS(addr, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // dev tool against a local server
	} else {
		c, err = smtp.Dial(addr)
	}
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.SendMail(from, []string{to}, strings.NewReader(msg.String())); err != nil {
		return err
	}
	_ = c.Quit()
	fmt.Printf("250 accepted; Message-ID <%s>\n", msgID)
	return nil
}
