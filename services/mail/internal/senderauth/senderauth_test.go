package senderauth

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/emersion/go-msgauth/dkim"
)

func message(from string) []byte {
	return []byte("From: " + from + "\r\nTo: bot@agents.test\r\nSubject: hi\r\nMessage-ID: <m1@x>\r\n\r\nWhat is 2+2?\r\n")
}

func sign(t *testing.T, raw []byte, domain string, key ed25519.PrivateKey) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := dkim.Sign(&out, bytes.NewReader(raw), &dkim.SignOptions{Domain: domain, Selector: "s1", Signer: key}); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

func TestCheck(t *testing.T) {
	pub, key, _ := ed25519.GenerateKey(rand.Reader)
	dns := &StaticResolver{Fail: map[string]bool{"s1._domainkey.flaky.test": true, "flaky-spf.test": true}}
	record := "v=DKIM1; k=ed25519; p=" + base64.StdEncoding.EncodeToString(pub)
	for _, d := range []string{"example.org", "evil.test", "flaky.test"} {
		dns.SetTXT("s1._domainkey."+d, record)
	}
	dns.SetTXT("s1._domainkey.flaky.test") // present but failing (Fail wins)
	dns.SetTXT("spf.example.net", "v=spf1 ip4:192.0.2.10 -all")
	dns.SetTXT("_dmarc.example.net", "v=DMARC1; p=reject")
	dns.SetTXT("nodmarc.test", "v=spf1 ip4:192.0.2.10 -all")
	dns.SetTXT("mail.dmarcorg.test", "v=spf1 ip4:192.0.2.10 -all")
	dns.SetTXT("_dmarc.dmarcorg.test", "v=DMARC1; p=none")
	dns.SetTXT("soft.example.net", "v=spf1 ~all")
	ip := net.ParseIP("192.0.2.10")
	other := net.ParseIP("198.51.100.7")

	tampered := sign(t, message("alice@example.org"), "example.org", key)
	tampered = bytes.Replace(tampered, []byte("2+2"), []byte("2+3"), 1)

	cases := []struct {
		name     string
		cfg      Config
		in       Input
		method   string // "" = refused
		temp     bool
		inReason string
	}{
		{"development skips", Config{}, Input{Raw: message("alice@example.org")}, MethodSkipped, false, ""},
		{"dkim aligned", Config{Required: true},
			Input{Raw: sign(t, message("alice@example.org"), "example.org", key), IP: other, MailFrom: "alice@example.org", From: "alice@example.org"}, MethodDKIM, false, ""},
		{"dkim relaxed alignment (subdomain From)", Config{Required: true},
			Input{Raw: sign(t, message("alice@mail.example.org"), "example.org", key), IP: other, MailFrom: "alice@mail.example.org", From: "alice@mail.example.org"}, MethodDKIM, false, ""},
		{"dkim valid but for another domain", Config{Required: true},
			Input{Raw: sign(t, message("alice@example.org"), "evil.test", key), IP: other, MailFrom: "alice@example.org", From: "alice@example.org"}, "", false, "not aligned"},
		{"dkim body changed", Config{Required: true},
			Input{Raw: tampered, IP: other, MailFrom: "alice@example.org", From: "alice@example.org"}, "", false, "body hash"},
		{"unsigned", Config{Required: true},
			Input{Raw: message("alice@example.org"), IP: other, MailFrom: "alice@example.org", From: "alice@example.org"}, "", false, "no signature"},
		{"dkim key lookup fails temporarily", Config{Required: true},
			Input{Raw: sign(t, message("alice@flaky.test"), "flaky.test", key), IP: other, MailFrom: "alice@flaky.test", From: "alice@flaky.test"}, "", true, "key unavailable"},
		{"spf pass trusted", Config{Required: true, TrustSPF: true},
			Input{Raw: message("bob@spf.example.net"), IP: ip, HELO: "mx.example.net", MailFrom: "bob@spf.example.net", From: "bob@spf.example.net"}, MethodSPF, false, ""},
		{"spf pass, DMARC on the organizational domain", Config{Required: true, TrustSPF: true},
			Input{Raw: message("bob@mail.dmarcorg.test"), IP: ip, MailFrom: "bob@mail.dmarcorg.test", From: "bob@mail.dmarcorg.test"}, MethodSPF, false, ""},
		{"spf pass without DMARC", Config{Required: true, TrustSPF: true},
			Input{Raw: message("bob@nodmarc.test"), IP: ip, MailFrom: "bob@nodmarc.test", From: "bob@nodmarc.test"}, "", false, "publishes no DMARC record"},
		{"spf pass not trusted", Config{Required: true},
			Input{Raw: message("bob@spf.example.net"), IP: ip, MailFrom: "bob@spf.example.net", From: "bob@spf.example.net"}, "", false, "no signature"},
		{"spf from another ip", Config{Required: true, TrustSPF: true},
			Input{Raw: message("bob@spf.example.net"), IP: other, MailFrom: "bob@spf.example.net", From: "bob@spf.example.net"}, "", false, "spf: fail"},
		{"spf softfail", Config{Required: true, TrustSPF: true},
			Input{Raw: message("bob@soft.example.net"), IP: ip, MailFrom: "bob@soft.example.net", From: "bob@soft.example.net"}, "", false, "spf: softfail"},
		{"spf pass for an unaligned envelope", Config{Required: true, TrustSPF: true},
			Input{Raw: message("alice@example.org"), IP: ip, MailFrom: "bounce@spf.example.net", From: "alice@example.org"}, "", false, "not aligned"},
		{"spf temporary", Config{Required: true, TrustSPF: true},
			Input{Raw: message("bob@flaky-spf.test"), IP: ip, MailFrom: "bob@flaky-spf.test", From: "bob@flaky-spf.test"}, "", true, "temperror"},
	}
	for _, c := range cases {
		c.cfg.Resolver = dns
		res, err := New(c.cfg).Check(context.Background(), c.in)
		switch {
		case c.method != "":
			if err != nil || res.Method != c.method {
				t.Errorf("%s: %v %v, want %s", c.name, res, err, c.method)
			}
		case c.temp:
			if !IsTemporary(err) || !strings.Contains(err.Error(), c.inReason) {
				t.Errorf("%s: %v, want temporary with %q", c.name, err, c.inReason)
			}
		default:
			if !errors.Is(err, ErrNotAuthenticated) || IsTemporary(err) || !strings.Contains(err.Error(), c.inReason) {
				t.Errorf("%s: %v, want refused with %q", c.name, err, c.inReason)
			}
		}
	}
}

func TestAligned(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"example.org", "example.org", true},
		{"Example.ORG.", "example.org", true},
		{"mail.example.org", "example.org", true},
		{"a.example.co.uk", "b.example.co.uk", true},
		{"example.co.uk", "other.co.uk", false},
		{"co.uk", "example.co.uk", false},
		{"example.org", "example.net", false},
		{"", "example.org", false},
	} {
		if got := Aligned(c.a, c.b); got != c.want {
			t.Errorf("Aligned(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
