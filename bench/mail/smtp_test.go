package main

import (
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/agentic-app/agentic/bench/benchstack"
)

type sinkBackend struct {
	mu   sync.Mutex
	msgs []string
}

func (b *sinkBackend) NewSession(*smtp.Conn) (smtp.Session, error) { return &sinkSession{b: b}, nil }

type sinkSession struct {
	b  *sinkBackend
	to string
}

func (s *sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *sinkSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if strings.HasPrefix(to, "stranger") {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Sender not allowed"}
	}
	s.to = to
	return nil
}
func (s *sinkSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	s.b.mu.Lock()
	s.b.msgs = append(s.b.msgs, string(b))
	s.b.mu.Unlock()
	return err
}
func (s *sinkSession) Reset()        {}
func (s *sinkSession) Logout() error { return nil }

// sendAll over real SMTP sessions (go-smtp's server on 127.0.0.1:0): every message accepted, refusals counted by code.
func TestSendAll(t *testing.T) {
	be := &sinkBackend{}
	srv := smtp.NewServer(be)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()

	var ids []string
	snd := sender{acc: &benchstack.Account{Email: "a@bench.example.com"}, agent: &benchstack.Agent{Email: "agent@agents.example"}}
	out := sendAll(context.Background(), ln.Addr().String(), "run1", 2, snd, 5, nil, func(id string, began, at time.Time) {
		if at.Before(began) {
			t.Errorf("%s: 250 OK at %v before MAIL FROM at %v", id, at, began)
		}
		ids = append(ids, id)
	})
	if len(out) != 0 || len(ids) != 5 {
		t.Fatalf("outcomes %v, accepted %v", out, ids)
	}
	be.mu.Lock()
	if len(be.msgs) != 5 || !strings.Contains(be.msgs[0], "Message-ID: <bench-run1-2-0@bench.example.com>") {
		t.Fatalf("stored %d, first:\n%s", len(be.msgs), be.msgs[0])
	}
	be.mu.Unlock()

	bad := sender{acc: &benchstack.Account{Email: "a@bench.example.com"}, agent: &benchstack.Agent{Email: "stranger@agents.example"}}
	out = sendAll(context.Background(), ln.Addr().String(), "run1", 3, bad, 3, nil, func(string, time.Time, time.Time) { t.Error("accepted") })
	if out["550 5.7.1 Sender not allowed"] != 3 {
		t.Fatalf("outcomes %v", out)
	}
}
