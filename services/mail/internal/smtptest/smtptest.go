// Package smtptest runs a small in-process SMTP server (a go-smtp backend)
// that records what it is sent: the stand-in for the outgoing relay in
// tests. It can require STARTTLS or implicit TLS, require AUTH PLAIN, refuse
// messages with a chosen SMTP error, and be stopped and restarted on the
// same address (the relay going down and recovering).
package smtptest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Message is one accepted message.
type Message struct {
	From string
	To   []string
	Data []byte
	// TLS and Auth tell how the client connected.
	TLS  bool
	User string
}

// Options configure a Sink.
type Options struct {
	// TLS enables STARTTLS (or, with Implicit, TLS from the first byte).
	TLS      *tls.Config
	Implicit bool
	// User and Pass require AUTH PLAIN with these credentials before MAIL.
	User, Pass string
}

// Sink is the server.
type Sink struct {
	t    testing.TB
	opts Options

	mu       sync.Mutex
	addr     string
	srv      *smtp.Server
	messages []Message
	refuse   *smtp.SMTPError
	arrived  chan struct{}
}

// Start starts a sink on 127.0.0.1:0; it is stopped in t.Cleanup.
func Start(t testing.TB, opts Options) *Sink {
	t.Helper()
	s := &Sink{t: t, opts: opts, addr: "127.0.0.1:0", arrived: make(chan struct{}, 1024)}
	s.Restart()
	t.Cleanup(s.Stop)
	return s
}

// Addr is host:port of the sink (stable across Stop/Restart).
func (s *Sink) Addr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addr
}

// Stop closes the listener and every connection: the relay is down.
func (s *Sink) Stop() {
	s.mu.Lock()
	srv := s.srv
	s.srv = nil
	s.mu.Unlock()
	if srv != nil {
		_ = srv.Close()
	}
}

// Restart listens again on the same address.
func (s *Sink) Restart() {
	s.t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.srv != nil {
		return
	}
	var ln net.Listener
	var err error
	for i := 0; i < 50; i++ { // the old socket may linger for a moment
		if s.opts.Implicit {
			ln, err = tls.Listen("tcp", s.addr, s.opts.TLS)
		} else {
			ln, err = net.Listen("tcp", s.addr)
		}
		if err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		s.t.Fatalf("smtptest: listen %s: %v", s.addr, err)
	}
	s.addr = ln.Addr().String()
	srv := smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		_, isTLS := c.TLSConnectionState()
		return &session{sink: s, tls: isTLS}, nil
	}))
	srv.Domain = "sink.test"
	srv.MaxMessageBytes = 20 << 20
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.ErrorLog = discardLogger{}
	if !s.opts.Implicit {
		srv.TLSConfig = s.opts.TLS
	}
	s.srv = srv
	go func() { _ = srv.Serve(ln) }()
}

// Refuse makes every DATA answer err (nil: accept again).
func (s *Sink) Refuse(err *smtp.SMTPError) {
	s.mu.Lock()
	s.refuse = err
	s.mu.Unlock()
}

// Messages returns what was accepted so far.
func (s *Sink) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.messages...)
}

// Wait waits until at least n messages were accepted or d elapsed, and
// returns what was accepted.
func (s *Sink) Wait(n int, d time.Duration) []Message {
	deadline := time.After(d)
	for {
		if m := s.Messages(); len(m) >= n {
			return m
		}
		select {
		case <-s.arrived:
		case <-deadline:
			return s.Messages()
		}
	}
}

type session struct {
	sink   *Sink
	tls    bool
	user   string
	from   string
	to     []string
	authed bool
}

func (s *session) AuthMechanisms() []string {
	if s.sink.opts.User == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *session) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if user != s.sink.opts.User || pass != s.sink.opts.Pass {
			return smtp.ErrAuthFailed
		}
		s.user, s.authed = user, true
		return nil
	}), nil
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	if s.sink.opts.User != "" && !s.authed {
		return smtp.ErrAuthRequired
	}
	if s.sink.opts.TLS != nil && !s.tls {
		return &smtp.SMTPError{Code: 530, EnhancedCode: smtp.EnhancedCode{5, 7, 0}, Message: "Must issue a STARTTLS command first"}
	}
	s.from = from
	return nil
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.to = append(s.to, to)
	return nil
}

func (s *session) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.sink.mu.Lock()
	defer s.sink.mu.Unlock()
	if s.sink.refuse != nil {
		return s.sink.refuse
	}
	s.sink.messages = append(s.sink.messages, Message{From: s.from, To: append([]string(nil), s.to...), Data: b, TLS: s.tls, User: s.user})
	select {
	case s.sink.arrived <- struct{}{}:
	default:
	}
	return nil
}

func (s *session) Reset()        { s.from, s.to = "", nil }
func (s *session) Logout() error { return nil }

type discardLogger struct{}

func (discardLogger) Printf(string, ...interface{}) {}
func (discardLogger) Println(...interface{})        {}

// SelfSigned returns a server TLS configuration for a throwaway certificate
// valid for 127.0.0.1 and localhost, and a client configuration trusting it.
func SelfSigned(t testing.TB) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "smtptest"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA:         true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	server = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key, Leaf: cert}}, MinVersion: tls.VersionTLS12}
	client = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return server, client
}

// SelfSignedFiles is SelfSigned written as PEM files (a mounted Secret):
// it returns the certificate and key paths and a client configuration
// trusting the certificate.
func SelfSignedFiles(t testing.TB) (certFile, keyFile string, client *tls.Config) {
	t.Helper()
	server, client := SelfSigned(t)
	c := server.Certificates[0]
	keyDER, err := x509.MarshalPKCS8PrivateKey(c.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "tls.crt"), filepath.Join(dir, "tls.key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile, client
}
