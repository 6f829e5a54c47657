package relay

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-smtp"

	"github.com/agentic-app/agentic/services/mail/internal/smtptest"
)

const msg = "From: bot@agents.test\r\nTo: alice@example.org\r\nSubject: Re: hi\r\nMessage-ID: <r1@agents.test>\r\n\r\nHello Alice.\r\n"

func send(t *testing.T, c *Client) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return c.Send(ctx, "bot@agents.test", []string{"alice@example.org"}, []byte(msg))
}

func TestSendPlain(t *testing.T) {
	sink := smtptest.Start(t, smtptest.Options{})
	c, err := New(Config{URL: "smtp://" + sink.Addr(), LocalName: "mail.agents.test"})
	if err != nil {
		t.Fatal(err)
	}
	if err := send(t, c); err != nil {
		t.Fatal(err)
	}
	got := sink.Messages()
	if len(got) != 1 || got[0].From != "bot@agents.test" || strings.Join(got[0].To, ",") != "alice@example.org" ||
		string(got[0].Data) != msg || got[0].TLS {
		t.Fatalf("sink got %+v", got)
	}
}

func TestSendStartTLSWithAuth(t *testing.T) {
	srvTLS, cliTLS := smtptest.SelfSigned(t)
	sink := smtptest.Start(t, smtptest.Options{TLS: srvTLS, User: "relay-user", Pass: "s3cret"})
	_, port, _ := net.SplitHostPort(sink.Addr())
	c, err := New(Config{URL: "smtp://relay-user:s3cret@127.0.0.1:" + port + "?starttls=true", TLS: cliTLS})
	if err != nil {
		t.Fatal(err)
	}
	if err := send(t, c); err != nil {
		t.Fatal(err)
	}
	if got := sink.Messages(); len(got) != 1 || !got[0].TLS || got[0].User != "relay-user" {
		t.Fatalf("sink got %+v", got)
	}
	// Wrong password: the relay's 535 is permanent.
	bad, _ := New(Config{URL: "smtp://relay-user:wrong@127.0.0.1:" + port + "?starttls=true", TLS: cliTLS})
	if err := send(t, bad); !IsPermanent(err) {
		t.Fatalf("bad password: %v, want permanent", err)
	}
	// Without STARTTLS the sink refuses MAIL (530): permanent too.
	plain, _ := New(Config{URL: "smtp://127.0.0.1:" + port})
	if err := send(t, plain); !IsPermanent(err) {
		t.Fatalf("plain to a TLS-only relay: %v", err)
	}
}

func TestSendImplicitTLS(t *testing.T) {
	srvTLS, cliTLS := smtptest.SelfSigned(t)
	sink := smtptest.Start(t, smtptest.Options{TLS: srvTLS, Implicit: true, User: "u", Pass: "p"})
	_, port, _ := net.SplitHostPort(sink.Addr())
	c, err := New(Config{URL: "smtps://u:p@127.0.0.1:" + port, TLS: cliTLS})
	if err != nil {
		t.Fatal(err)
	}
	if err := send(t, c); err != nil {
		t.Fatal(err)
	}
	if got := sink.Messages(); len(got) != 1 || !got[0].TLS {
		t.Fatalf("sink got %+v", got)
	}
	// An untrusted certificate is not accepted (temporary: it may be fixed).
	untrusted, _ := New(Config{URL: "smtps://u:p@127.0.0.1:" + port})
	if err := send(t, untrusted); err == nil || IsPermanent(err) {
		t.Fatalf("untrusted certificate: %v", err)
	}
}

func TestErrorsAreClassified(t *testing.T) {
	sink := smtptest.Start(t, smtptest.Options{})
	c, _ := New(Config{URL: "smtp://" + sink.Addr()})
	sink.Refuse(&smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "try later"})
	if err := send(t, c); err == nil || IsPermanent(err) {
		t.Fatalf("451: %v, want temporary", err)
	}
	sink.Refuse(&smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"})
	err := send(t, c)
	var se *smtp.SMTPError
	if !IsPermanent(err) || !errors.As(err, &se) || se.Code != 550 {
		t.Fatalf("550: %v, want permanent", err)
	}
	sink.Stop()
	if err := send(t, c); err == nil || IsPermanent(err) {
		t.Fatalf("relay down: %v, want temporary", err)
	}
	sink.Restart()
	sink.Refuse(nil)
	if err := send(t, c); err != nil {
		t.Fatalf("after restart: %v", err)
	}
}

func TestNewValidates(t *testing.T) {
	for _, u := range []string{
		"http://relay:25",
		"smtp://",
		"smtp://u:p@relay.example.com:587", // credentials in the clear
		"smtp://relay.example.com?starttls=maybe",
	} {
		if _, err := New(Config{URL: u}); err == nil {
			t.Errorf("New(%q) accepted", u)
		}
	}
	for u, want := range map[string]string{
		"smtp://127.0.0.1:1025":                          "127.0.0.1:1025",
		"smtp://u:p@localhost:1025":                      "localhost:1025",
		"smtps://u:p@relay.example.com":                  "relay.example.com:465",
		"smtp://u:p@relay.example.com?starttls=true":     "relay.example.com:25",
		"smtp://u:p@relay.example.com:587?starttls=true": "relay.example.com:587",
	} {
		c, err := New(Config{URL: u})
		if err != nil || c.Addr() != want {
			t.Errorf("New(%q) = %v, %v; want addr %s", u, c, err, want)
		}
	}
}

// dkimRecord is the DNS TXT record publishing key's public half.
func dkimRecord(t *testing.T, pub any) string {
	t.Helper()
	switch k := pub.(type) {
	case *rsa.PublicKey:
		der, err := x509.MarshalPKIXPublicKey(k)
		if err != nil {
			t.Fatal(err)
		}
		return "v=DKIM1; k=rsa; p=" + base64.StdEncoding.EncodeToString(der)
	case ed25519.PublicKey:
		return "v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(k)
	}
	t.Fatalf("key %T", pub)
	return ""
}

func TestDKIMSigned(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pkcs1 := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rsaKey)})
	edPub, edKey, _ := ed25519.GenerateKey(rand.Reader)
	der, _ := x509.MarshalPKCS8PrivateKey(edKey)
	pkcs8File := filepath.Join(t.TempDir(), "dkim.pem")
	if err := os.WriteFile(pkcs8File, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, key, domain, wantDomain string
		pub                           any
	}{
		{"rsa pem inline, domain of the sender", string(pkcs1), "", "agents.test", &rsaKey.PublicKey},
		{"ed25519 file, explicit domain", pkcs8File, "Example.NET", "example.net", edPub},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, err := LoadDKIM(c.key, "sel1", c.domain)
			if err != nil {
				t.Fatal(err)
			}
			sink := smtptest.Start(t, smtptest.Options{})
			cl, _ := New(Config{URL: "smtp://" + sink.Addr(), DKIM: d})
			if !cl.Signing() {
				t.Fatal("not signing")
			}
			if err := send(t, cl); err != nil {
				t.Fatal(err)
			}
			data := sink.Messages()[0].Data
			record := dkimRecord(t, c.pub)
			verifs, err := dkim.VerifyWithOptions(bytes.NewReader(data), &dkim.VerifyOptions{
				LookupTXT: func(name string) ([]string, error) {
					if name != "sel1._domainkey."+c.wantDomain {
						return nil, errors.New("no such record " + name)
					}
					return []string{record}, nil
				},
			})
			if err != nil || len(verifs) != 1 || verifs[0].Err != nil || verifs[0].Domain != c.wantDomain {
				t.Fatalf("verify: %v %+v\n%s", err, verifs, data)
			}
			if !bytes.HasSuffix(data, []byte(msg[strings.Index(msg, "\r\n\r\n"):])) {
				t.Error("body changed by signing")
			}
		})
	}
}

func TestLoadDKIM(t *testing.T) {
	if d, err := LoadDKIM("", "", ""); d != nil || err != nil {
		t.Errorf("unset: %v %v", d, err)
	}
	if _, err := LoadDKIM("-----BEGIN PRIVATE KEY-----", "", ""); err == nil {
		t.Error("key without selector accepted")
	}
	if _, err := LoadDKIM("/nonexistent/key.pem", "s", ""); err == nil {
		t.Error("missing file accepted")
	}
	if _, err := LoadDKIM("-----BEGIN X-----\nbm90IGEga2V5\n-----END X-----\n", "s", ""); err == nil {
		t.Error("garbage accepted")
	}
}
