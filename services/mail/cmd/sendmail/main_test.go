package main

import (
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/mail/internal/mailtext"
	"github.com/agentic-app/agentic/services/mail/internal/smtptest"
)

func TestRunSendsAParsableThreadedMessage(t *testing.T) {
	sink := smtptest.Start(t, smtptest.Options{})
	if err := run(sink.Addr(), "alice@example.org", "bot@agents.test", "Re: Quadratics", "And x^2 = 4?", false,
		"q2@example.org", "r1@agents.test", "q1@example.org r1@agents.test", false); err != nil {
		t.Fatal(err)
	}
	got := sink.Messages()
	if len(got) != 1 || got[0].From != "alice@example.org" || strings.Join(got[0].To, ",") != "bot@agents.test" {
		t.Fatalf("sink: %+v", got)
	}
	p, err := mailtext.Parse(got[0].Data)
	if err != nil {
		t.Fatal(err)
	}
	if p.From != "alice@example.org" || p.MessageID != "q2@example.org" || p.Text != "And x^2 = 4?" ||
		strings.Join(p.InReplyTo, " ") != "r1@agents.test" || strings.Join(p.References, " ") != "q1@example.org r1@agents.test" {
		t.Errorf("parsed: %+v", p)
	}
	if err := run(sink.Addr(), "", "bot@agents.test", "s", "b", false, "", "", "", false); err == nil {
		t.Error("missing -from accepted")
	}
}
