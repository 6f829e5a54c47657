package main

import (
	"fmt"
	"strings"
	"time"
)

// outgoing is one e-mail of the run.
type outgoing struct {
	From, To, Subject, Body string
	MessageID               string // without angle brackets
	Date                    time.Time
}

// newMessageID is a unique Message-ID (no angle brackets) for message i of sender s.
func newMessageID(run string, s, i int) string {
	return fmt.Sprintf("bench-%s-%d-%d@bench.example.com", run, s, i)
}

// build returns the RFC 5322 message: plain text, UTF-8, CRLF line ends
// (the SMTP client does the dot-stuffing).
func (m outgoing) build() []byte {
	var b strings.Builder
	h := func(k, v string) { b.WriteString(k + ": " + v + "\r\n") }
	h("From", "<"+m.From+">")
	h("To", "<"+m.To+">")
	h("Subject", m.Subject)
	h("Date", m.Date.Format(time.RFC1123Z))
	h("Message-ID", "<"+m.MessageID+">")
	h("MIME-Version", "1.0")
	h("Content-Type", "text/plain; charset=utf-8")
	h("Content-Transfer-Encoding", "8bit")
	b.WriteString("\r\n")
	body := strings.ReplaceAll(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n", "\r\n")
	b.WriteString(body)
	if !strings.HasSuffix(body, "\r\n") {
		b.WriteString("\r\n")
	}
	return []byte(b.String())
}

// questions are rotated through the run's messages.
var questions = []string{
	"What can you help me with?",
	"Can you explain how to solve a linear equation in one sentence?",
	"What is the difference between a fraction and a ratio?",
	"Give me one tip to study for an algebra exam.",
	"How do I find the slope of a line through two points?",
}

func question(s, i int) string { return questions[(s+i)%len(questions)] }

// bareID: "<id@host>" → "id@host".
func bareID(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "<")
	return strings.TrimSuffix(s, ">")
}
