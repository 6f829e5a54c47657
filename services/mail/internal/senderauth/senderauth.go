// Package senderauth decides whether an inbound message really comes from
// the domain of its From address, so that a forged From cannot make the
// agent answer (and charge) someone else.
//
// A message passes when it carries a valid DKIM signature (go-msgauth
// dkim.Verify) whose d= domain is aligned with the From domain, or — when
// SPF is trusted — when SPF (blitiri.com.ar/go/spf, RFC 7208) passes for the
// connecting IP and the envelope sender's domain and that domain is aligned
// with the From domain. Alignment is DMARC's relaxed alignment: the same
// organisational domain (public-suffix list, golang.org/x/net/publicsuffix),
// so mail.example.org and example.org align. DNS failures are temporary: the
// SMTP server answers 451 and the sender's server tries again.
package senderauth

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"blitiri.com.ar/go/spf"
	"github.com/emersion/go-msgauth/dkim"
	"golang.org/x/net/publicsuffix"
)

// Methods of a Result.
const (
	MethodDKIM    = "dkim"
	MethodSPF     = "spf"
	MethodSkipped = "skipped"
)

// Config configures a Verifier.
type Config struct {
	// Required: refuse messages that pass neither check (production). When
	// false every message passes unchecked (development).
	Required bool
	// TrustSPF accepts an aligned SPF pass when there is no aligned DKIM
	// pass, if the From domain publishes DMARC (an aligned SPF pass is then
	// a DMARC pass). Off by default (MAIL_TRUST_SPF): DKIM only.
	TrustSPF bool
	// Resolver answers the DNS queries of both checks (default net.DefaultResolver).
	Resolver spf.DNSResolver
	// Timeout bounds the DNS work of one check (default 10s).
	Timeout time.Duration
}

// Verifier checks messages.
type Verifier struct{ cfg Config }

// New returns a Verifier.
func New(cfg Config) *Verifier {
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	return &Verifier{cfg: cfg}
}

// Required reports whether messages are checked at all.
func (v *Verifier) Required() bool { return v.cfg.Required }

// Result says how a message was authenticated.
type Result struct {
	Method string // MethodDKIM, MethodSPF or MethodSkipped
	Domain string // the aligned d= or envelope domain
}

// String is the form stored with the message, e.g. "dkim=pass d=example.org".
func (r Result) String() string {
	if r.Method == MethodSkipped {
		return "skipped (development mode)"
	}
	return r.Method + "=pass d=" + r.Domain
}

// ErrNotAuthenticated: neither check passed (permanent).
var ErrNotAuthenticated = errors.New("sender authentication failed")

// TemporaryError: a check could not be completed (DNS); try again later.
type TemporaryError struct{ Detail string }

func (e *TemporaryError) Error() string { return "temporary DNS failure: " + e.Detail }

// IsTemporary reports whether err is a TemporaryError.
func IsTemporary(err error) bool {
	var te *TemporaryError
	return errors.As(err, &te)
}

// Input is what a check looks at.
type Input struct {
	Raw      []byte // the complete message
	IP       net.IP // the connecting client
	HELO     string
	MailFrom string // envelope sender
	From     string // the From header's address
}

// Check authenticates in. It returns ErrNotAuthenticated (wrapped, with the
// reasons) or a *TemporaryError when the message does not pass.
func (v *Verifier) Check(ctx context.Context, in Input) (Result, error) {
	if !v.cfg.Required {
		return Result{Method: MethodSkipped}, nil
	}
	ctx, cancel := context.WithTimeout(ctx, v.cfg.Timeout)
	defer cancel()
	fromDomain := domainOf(in.From)
	if fromDomain == "" {
		return Result{}, fmt.Errorf("%w: From has no domain", ErrNotAuthenticated)
	}
	var reasons []string
	temporary := false

	verifs, err := dkim.VerifyWithOptions(bytes.NewReader(in.Raw), &dkim.VerifyOptions{
		LookupTXT:        func(name string) ([]string, error) { return v.cfg.Resolver.LookupTXT(ctx, name) },
		MaxVerifications: 5,
	})
	if err != nil && !errors.Is(err, dkim.ErrTooManySignatures) {
		reasons = append(reasons, "dkim: "+err.Error())
	}
	for _, vf := range verifs {
		switch {
		case vf.Err == nil && Aligned(vf.Domain, fromDomain):
			return Result{Method: MethodDKIM, Domain: strings.ToLower(vf.Domain)}, nil
		case vf.Err == nil:
			reasons = append(reasons, fmt.Sprintf("dkim: d=%s not aligned with %s", vf.Domain, fromDomain))
		case dkim.IsTempFail(vf.Err):
			temporary = true
			reasons = append(reasons, fmt.Sprintf("dkim d=%s: %v", vf.Domain, vf.Err))
		default:
			reasons = append(reasons, fmt.Sprintf("dkim d=%s: %v", vf.Domain, vf.Err))
		}
	}
	if len(verifs) == 0 && err == nil {
		reasons = append(reasons, "dkim: no signature")
	}

	if v.cfg.TrustSPF {
		envDomain := domainOf(in.MailFrom)
		res, spfErr := spf.CheckHostWithSender(in.IP, in.HELO, in.MailFrom,
			spf.WithResolver(v.cfg.Resolver), spf.WithContext(ctx))
		switch {
		case res == spf.Pass && Aligned(envDomain, fromDomain):
			// SPF alone proves only the envelope: trusted when the From
			// domain publishes DMARC (so aligned SPF is a DMARC pass).
			ok, dmarcErr := v.publishesDMARC(ctx, fromDomain)
			switch {
			case ok:
				return Result{Method: MethodSPF, Domain: envDomain}, nil
			case dmarcErr != nil:
				temporary = true
				reasons = append(reasons, fmt.Sprintf("dmarc: %v", dmarcErr))
			default:
				reasons = append(reasons, fmt.Sprintf("spf: aligned pass, but %s publishes no DMARC record", fromDomain))
			}
		case res == spf.Pass:
			reasons = append(reasons, fmt.Sprintf("spf: %s not aligned with %s", envDomain, fromDomain))
		case res == spf.TempError:
			temporary = true
			reasons = append(reasons, fmt.Sprintf("spf: temperror (%v)", spfErr))
		default:
			reasons = append(reasons, "spf: "+string(res))
		}
	}
	detail := strings.Join(reasons, "; ")
	if temporary {
		return Result{}, &TemporaryError{Detail: detail}
	}
	return Result{}, fmt.Errorf("%w: %s", ErrNotAuthenticated, detail)
}

func domainOf(addr string) string {
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return ""
	}
	return strings.TrimSuffix(strings.ToLower(addr[at+1:]), ".")
}

// publishesDMARC reports whether domain (or else its organizational
// domain) publishes a DMARC record (RFC 7489 6.6.3: _dmarc.<domain> TXT
// "v=DMARC1; …"). An error is a temporary DNS failure; "no such record" is
// not an error.
func (v *Verifier) publishesDMARC(ctx context.Context, domain string) (bool, error) {
	domain = strings.TrimSuffix(strings.ToLower(domain), ".")
	names := []string{"_dmarc." + domain}
	if org, err := publicsuffix.EffectiveTLDPlusOne(domain); err == nil && org != domain {
		names = append(names, "_dmarc."+org)
	}
	for _, name := range names {
		txts, err := v.cfg.Resolver.LookupTXT(ctx, name)
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && dnsErr.IsNotFound {
			continue
		}
		if err != nil {
			return false, err
		}
		for _, t := range txts {
			if strings.HasPrefix(strings.ToLower(strings.TrimSpace(t)), "v=dmarc1") {
				return true, nil
			}
		}
	}
	return false, nil
}

// Aligned reports DMARC relaxed alignment of two domains: equal, or the same
// organisational domain (registrable domain per the public-suffix list).
func Aligned(a, b string) bool {
	a = strings.TrimSuffix(strings.ToLower(a), ".")
	b = strings.TrimSuffix(strings.ToLower(b), ".")
	if a == "" || b == "" {
		return false
	}
	if a == b {
		return true
	}
	oa, err1 := publicsuffix.EffectiveTLDPlusOne(a)
	ob, err2 := publicsuffix.EffectiveTLDPlusOne(b)
	return err1 == nil && err2 == nil && oa == ob
}
