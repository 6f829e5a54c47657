// Package relay sends outgoing mail through an SMTP relay named by a URL
// (SMTP_RELAY_URL) with go-smtp's client, DKIM-signing each message first
// when a key is configured (go-msgauth's dkim.Sign).
//
//	smtp://127.0.0.1:1025                      plain SMTP (maildev, local only)
//	smtp://user:pass@relay.example:587?starttls=true   STARTTLS required, then AUTH PLAIN
//	smtps://user:pass@relay.example:465        implicit TLS, then AUTH PLAIN
//
// Credentials are never sent over a plain connection to a non-loopback host:
// New refuses such a URL.
package relay

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// Config configures a Client.
type Config struct {
	// URL is SMTP_RELAY_URL.
	URL string
	// LocalName is the name the client gives in EHLO (default "localhost").
	LocalName string
	// Timeout bounds one delivery when ctx has no deadline (default 60s).
	Timeout time.Duration
	// TLS is the base TLS configuration (tests: a private root CA); the
	// server name is the URL's host.
	TLS *tls.Config
	// DKIM signs every message when set (see LoadDKIM).
	DKIM *DKIM
}

// DKIM is a signing identity.
type DKIM struct {
	Selector string
	// Domain is the signing domain (d=); "" means the domain of the
	// message's envelope sender (the agent's address).
	Domain string
	Signer crypto.Signer
}

// Client delivers messages to the relay. It is safe for concurrent use: each
// Send opens its own connection.
type Client struct {
	addr      string
	host      string
	implicit  bool // smtps
	starttls  bool
	user      string
	pass      string
	localName string
	timeout   time.Duration
	tls       *tls.Config
	dkim      *DKIM
}

// New parses cfg.URL.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("relay: SMTP_RELAY_URL: %w", err)
	}
	c := &Client{localName: cfg.LocalName, timeout: cfg.Timeout, tls: cfg.TLS, dkim: cfg.DKIM}
	if c.localName == "" {
		c.localName = "localhost"
	}
	if c.timeout <= 0 {
		c.timeout = 60 * time.Second
	}
	port := ""
	switch u.Scheme {
	case "smtp":
		port = "25"
		if v := u.Query().Get("starttls"); v != "" {
			c.starttls, err = strconv.ParseBool(v)
			if err != nil {
				return nil, fmt.Errorf("relay: SMTP_RELAY_URL: starttls=%q is not a boolean", v)
			}
		}
	case "smtps":
		port = "465"
		c.implicit = true
	default:
		return nil, fmt.Errorf("relay: SMTP_RELAY_URL scheme %q: want smtp or smtps", u.Scheme)
	}
	c.host = u.Hostname()
	if c.host == "" {
		return nil, errors.New("relay: SMTP_RELAY_URL has no host")
	}
	if p := u.Port(); p != "" {
		port = p
	}
	c.addr = net.JoinHostPort(c.host, port)
	if u.User != nil {
		c.user = u.User.Username()
		c.pass, _ = u.User.Password()
		if !c.implicit && !c.starttls && !isLoopback(c.host) {
			return nil, errors.New("relay: SMTP_RELAY_URL has credentials but no TLS (use smtps:// or ?starttls=true)")
		}
	}
	return c, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Addr is the relay's host:port.
func (c *Client) Addr() string { return c.addr }

// Signing reports whether messages are DKIM-signed.
func (c *Client) Signing() bool { return c.dkim != nil }

// PermanentError is a 5xx answer of the relay: sending the same message
// again would fail the same way.
type PermanentError struct{ Err *smtp.SMTPError }

func (e *PermanentError) Error() string { return "relay refused the message: " + e.Err.Error() }
func (e *PermanentError) Unwrap() error { return e.Err }

// IsPermanent reports whether err is a PermanentError.
func IsPermanent(err error) bool {
	var pe *PermanentError
	return errors.As(err, &pe)
}

// Send delivers raw (a complete message with CRLF line endings) from the
// envelope sender from to the recipients to. It returns nil only when the
// relay accepted the message (250 after the final dot). A 5xx answer is a
// *PermanentError; anything else (connection refused, timeouts, 4xx) is
// temporary and worth retrying.
func (c *Client) Send(ctx context.Context, from string, to []string, raw []byte) error {
	if c.dkim != nil {
		signed, err := c.sign(from, raw)
		if err != nil {
			return err
		}
		raw = signed
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	conn, err := c.dial(ctx)
	if err != nil {
		return fmt.Errorf("relay %s: %w", c.addr, err)
	}
	// The client has no context: the connection's deadline bounds it, and a
	// cancelled ctx closes the connection.
	if d, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(d)
	}
	stop := context.AfterFunc(ctx, func() { _ = conn.Close() })
	defer stop()

	var cl *smtp.Client
	if c.starttls {
		cl, err = smtp.NewClientStartTLS(conn, c.tlsConfig())
		if err == nil {
			err = cl.Hello(c.localName) // EHLO again, over TLS, with our name
		}
	} else {
		cl = smtp.NewClient(conn)
		err = cl.Hello(c.localName)
	}
	if err != nil {
		_ = conn.Close()
		return c.classify(err)
	}
	defer cl.Close()
	if c.user != "" {
		if err := cl.Auth(sasl.NewPlainClient("", c.user, c.pass)); err != nil {
			return c.classify(fmt.Errorf("auth: %w", err))
		}
	}
	if err := cl.SendMail(from, to, bytes.NewReader(raw)); err != nil {
		return c.classify(err)
	}
	_ = cl.Quit() // accepted; a failing QUIT changes nothing
	return nil
}

func (c *Client) tlsConfig() *tls.Config {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if c.tls != nil {
		cfg = c.tls.Clone()
	}
	cfg.ServerName = c.host
	return cfg
}

func (c *Client) dial(ctx context.Context) (net.Conn, error) {
	d := &net.Dialer{Timeout: 30 * time.Second}
	if c.implicit {
		return (&tls.Dialer{NetDialer: d, Config: c.tlsConfig()}).DialContext(ctx, "tcp", c.addr)
	}
	return d.DialContext(ctx, "tcp", c.addr)
}

func (c *Client) classify(err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) && se.Code >= 500 && se.Code < 600 {
		return &PermanentError{Err: se}
	}
	return fmt.Errorf("relay %s: %w", c.addr, err)
}

// dkimHeaders are the header fields signed (RFC 6376 §5.4.1's recommendation
// for what a reply carries).
var dkimHeaders = []string{"From", "To", "Subject", "Date", "Message-ID", "In-Reply-To", "References",
	"MIME-Version", "Content-Type", "Auto-Submitted"}

func (c *Client) sign(from string, raw []byte) ([]byte, error) {
	domain := c.dkim.Domain
	if domain == "" {
		at := strings.LastIndexByte(from, '@')
		if at < 0 {
			return nil, fmt.Errorf("relay: dkim: sender %q has no domain", from)
		}
		domain = strings.ToLower(from[at+1:])
	}
	var out bytes.Buffer
	err := dkim.Sign(&out, bytes.NewReader(raw), &dkim.SignOptions{
		Domain:                 domain,
		Selector:               c.dkim.Selector,
		Signer:                 c.dkim.Signer,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed,
		BodyCanonicalization:   dkim.CanonicalizationRelaxed,
		HeaderKeys:             dkimHeaders,
	})
	if err != nil {
		return nil, fmt.Errorf("relay: dkim sign: %w", err)
	}
	return out.Bytes(), nil
}

// LoadDKIM reads a private key for signing: key is the PEM text itself or
// the path of a PEM file (a mounted Secret), PKCS#8 or PKCS#1 RSA, or
// PKCS#8 Ed25519. It returns nil when key or selector is empty (signing off).
func LoadDKIM(key, selector, domain string) (*DKIM, error) {
	key, selector = strings.TrimSpace(key), strings.TrimSpace(selector)
	if key == "" || selector == "" {
		if key != "" || selector != "" {
			return nil, errors.New("relay: MAIL_DKIM_KEY and MAIL_DKIM_SELECTOR must be set together")
		}
		return nil, nil
	}
	data := []byte(key)
	if !strings.HasPrefix(key, "-----BEGIN") {
		b, err := os.ReadFile(key)
		if err != nil {
			return nil, fmt.Errorf("relay: MAIL_DKIM_KEY: %w", err)
		}
		data = b
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("relay: MAIL_DKIM_KEY: no PEM block")
	}
	var signer crypto.Signer
	if k, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		switch k := k.(type) {
		case *rsa.PrivateKey:
			signer = k
		case ed25519.PrivateKey:
			signer = k
		default:
			return nil, fmt.Errorf("relay: MAIL_DKIM_KEY: unsupported key type %T (want RSA or Ed25519)", k)
		}
	} else if k, err := x509.ParsePKCS1PrivateKey(block.Bytes); err == nil {
		signer = k
	} else {
		return nil, errors.New("relay: MAIL_DKIM_KEY: not a PKCS#8 or PKCS#1 private key")
	}
	return &DKIM{Selector: selector, Domain: strings.ToLower(strings.TrimSpace(domain)), Signer: signer}, nil
}
