// Package transport exposes the mail service's endpoints over SMTP (the
// agents' inbox, a go-smtp backend) and HTTP (a loopback-only admin API).
package transport

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/mail/internal/endpoints"
	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/mail/internal/inflow"
	"github.com/agentic-app/agentic/services/platform/observability"
)

// DefaultMaxMessageBytes is the largest message accepted (10 MB); larger
// ones get 552 5.3.4.
const DefaultMaxMessageBytes = 10 << 20

// SMTPConfig configures the SMTP server.
type SMTPConfig struct {
	// Domain is the name in the greeting and EHLO answer.
	Domain          string
	MaxMessageBytes int64
	MaxRecipients   int
	// TLS enables STARTTLS.
	TLS *tls.Config
	// ReadTimeout and WriteTimeout bound each command (default 5 minutes, RFC 5321).
	ReadTimeout, WriteTimeout time.Duration
	// RcptTimeout and DataTimeout bound the service calls behind RCPT and DATA.
	RcptTimeout, DataTimeout time.Duration
	Logger                   *slog.Logger
	// Registerer receives mail_smtp_replies_total.
	Registerer prometheus.Registerer
	// Inflow paces transactions to the answering path (waits at MAIL FROM;
	// nil: no pacing).
	Inflow Admitter
}

// Admitter admits a transaction (inflow.Gate).
type Admitter interface {
	Admit(ctx context.Context) (inflow.Done, error)
}

// SMTP replies the session gives (RFC 5321 codes, RFC 3463 enhanced codes).
var (
	replyNullSender   = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Mail from the null sender is not accepted here"}
	replyBadAddress   = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 3}, Message: "Bad address syntax"}
	replyUnknown      = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "No such agent address"}
	replyNotAllowed   = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "The sender may not write to this agent"}
	replyInactive     = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 2, 1}, Message: "This agent is not active"}
	replyFromMismatch = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "The From header must match the envelope sender"}
	replyNotAuth      = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 7, 1}, Message: "Sender authentication failed: a DKIM signature or SPF pass aligned with the From domain is required"}
	replyMalformed    = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "Malformed message"}
	replyNoRecipients = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 5, 1}, Message: "No valid recipients"}
	replyTempFailure  = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 0}, Message: "Temporary failure, please try again later"}
	replyLongLine     = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "Message has a line longer than the limit (RFC 5322 allows 998 characters)"}
	replyAuthTemp     = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 7, 5}, Message: "Sender authentication could not be completed, please try again later"}
	replyBusy         = &smtp.SMTPError{Code: 451, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Too many messages waiting to be answered, please try again later"}
)

// smtpError maps a service error to the SMTP reply.
func smtpError(err error) *smtp.SMTPError {
	var ue *inbox.UnavailableError
	switch {
	case err == nil:
		return nil
	case errors.Is(err, inbox.ErrNullSender):
		return replyNullSender
	case errors.Is(err, inbox.ErrBadAddress):
		return replyBadAddress
	case errors.Is(err, inbox.ErrUnknownRecipient):
		return replyUnknown
	case errors.Is(err, inbox.ErrSenderNotAllowed):
		return replyNotAllowed
	case errors.Is(err, inbox.ErrAgentInactive):
		return replyInactive
	case errors.Is(err, inbox.ErrFromMismatch):
		return replyFromMismatch
	case errors.Is(err, inbox.ErrNotAuthenticated):
		return replyNotAuth
	case errors.Is(err, inbox.ErrMalformed):
		return replyMalformed
	case errors.Is(err, inbox.ErrNoRecipients):
		return replyNoRecipients
	case errors.As(err, &ue) && ue.What == "sender authentication":
		return replyAuthTemp
	default:
		return replyTempFailure
	}
}

// NewSMTPServer returns the go-smtp server of the agents' inbox (call
// Serve with a listener; Close or Shutdown to stop it).
func NewSMTPServer(set endpoints.Set, cfg SMTPConfig) *smtp.Server {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.MaxMessageBytes <= 0 {
		cfg.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if cfg.MaxRecipients <= 0 {
		cfg.MaxRecipients = 20
	}
	if cfg.ReadTimeout <= 0 {
		cfg.ReadTimeout = 5 * time.Minute
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = 5 * time.Minute
	}
	if cfg.RcptTimeout <= 0 {
		cfg.RcptTimeout = 30 * time.Second
	}
	if cfg.DataTimeout <= 0 {
		cfg.DataTimeout = 2 * time.Minute
	}
	if cfg.Domain == "" {
		cfg.Domain = "localhost"
	}
	replies := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "mail_smtp_replies_total",
		Help: "Answers of the inbound SMTP server to MAIL, RCPT and DATA by command and code.",
	}, []string{"command", "code"})
	if cfg.Registerer != nil {
		replies = observability.Register(cfg.Registerer, replies)
	}
	be := &backend{set: set, cfg: cfg, replies: replies}
	srv := smtp.NewServer(be)
	srv.Domain = cfg.Domain
	srv.MaxMessageBytes = cfg.MaxMessageBytes
	srv.MaxRecipients = cfg.MaxRecipients
	srv.ReadTimeout = cfg.ReadTimeout
	srv.WriteTimeout = cfg.WriteTimeout
	srv.TLSConfig = cfg.TLS
	srv.EnableSMTPUTF8 = true // addresses are compared as given; bodies are parsed by go-message
	srv.ErrorLog = slogPrinter{cfg.Logger}
	return srv
}

type backend struct {
	set     endpoints.Set
	cfg     SMTPConfig
	replies *prometheus.CounterVec
}

func (b *backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	var ip net.IP
	if a, ok := c.Conn().RemoteAddr().(*net.TCPAddr); ok {
		ip = a.IP
	}
	return &session{b: b, conn: c, ip: ip, log: b.cfg.Logger.With("remote", c.Conn().RemoteAddr().String())}, nil
}

type session struct {
	b    *backend
	conn *smtp.Conn
	ip   net.IP
	log  *slog.Logger

	from  string
	rcpts []inbox.Recipient
	// done ends the transaction's place in the inflow backlog.
	done inflow.Done
}

// end gives the transaction's place in the backlog back (stored: its
// message now waits in the database instead).
func (s *session) end(stored bool) {
	if s.done != nil {
		s.done(stored)
		s.done = nil
	}
}

func (s *session) count(command string, err error) error {
	code := 250
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		code = se.Code
	}
	s.b.replies.WithLabelValues(command, strconv.Itoa(code)).Inc()
	return err
}

func (s *session) Mail(from string, _ *smtp.MailOptions) error {
	s.end(false)
	s.from, s.rcpts = from, nil
	if from == "" {
		return s.count("MAIL", replyNullSender)
	}
	if s.b.cfg.Inflow != nil {
		done, err := s.b.cfg.Inflow.Admit(context.Background())
		if err != nil {
			s.log.Warn("smtp transaction deferred: the answer backlog stayed full", "from", from, "error", err)
			return s.count("MAIL", replyBusy)
		}
		s.done = done
	}
	return s.count("MAIL", nil)
}

func (s *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.b.cfg.RcptTimeout)
	defer cancel()
	resp, err := s.b.set.AcceptRecipient(ctx, endpoints.AcceptRecipientRequest{MailFrom: s.from, Rcpt: to})
	if err != nil {
		reply := smtpError(err)
		s.log.Info("smtp recipient refused", "from", s.from, "to", to, "code", reply.Code, "reason", err.Error())
		return s.count("RCPT", reply)
	}
	rc := resp.(endpoints.AcceptRecipientResponse).Recipient
	for _, have := range s.rcpts {
		if have.Agent.ID == rc.Agent.ID {
			return s.count("RCPT", nil) // the same agent twice (case, aliases): one copy
		}
	}
	s.rcpts = append(s.rcpts, rc)
	return s.count("RCPT", nil)
}

func (s *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		switch {
		case err == smtp.ErrDataTooLarge:
			s.log.Info("smtp message too large", "from", s.from)
			return s.count("DATA", smtp.ErrDataTooLarge)
		case errors.Is(err, smtp.ErrTooLongLine):
			s.log.Info("smtp message with a too long line", "from", s.from)
			return s.count("DATA", replyLongLine)
		}
		// The connection broke mid-message: the client will not see this.
		return s.count("DATA", replyTempFailure)
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.b.cfg.DataTimeout)
	defer cancel()
	env := inbox.Envelope{RemoteIP: s.ip, HELO: s.conn.Hostname(), MailFrom: s.from, Recipients: s.rcpts}
	resp, err := s.b.set.Receive(ctx, endpoints.ReceiveRequest{Envelope: env, Raw: raw})
	s.end(err == nil && resp.(endpoints.ReceiveResponse).Received.Stored > 0)
	if err != nil {
		reply := smtpError(err)
		s.log.Info("smtp message refused", "from", s.from, "code", reply.Code, "reason", err.Error())
		return s.count("DATA", reply)
	}
	rec := resp.(endpoints.ReceiveResponse).Received
	s.log.Info("smtp message accepted", "from", s.from, "message_id", rec.MessageID, "stored", rec.Stored,
		"duplicates", rec.Duplicates, "auth", rec.Auth, "bytes", len(raw))
	return s.count("DATA", nil)
}

func (s *session) Reset() { s.end(false); s.from, s.rcpts = "", nil }
func (s *session) Logout() error {
	s.end(false)
	return nil
}

type slogPrinter struct{ l *slog.Logger }

func (p slogPrinter) Printf(format string, v ...interface{}) {
	p.l.Warn("smtp server", "detail", fmt.Sprintf(format, v...))
}
func (p slogPrinter) Println(v ...interface{}) { p.l.Warn("smtp server", "detail", fmt.Sprint(v...)) }

// CertReloader serves a certificate pair from files (a mounted Kubernetes
// Secret) and reloads it when the files change, so a renewed certificate
// is used without a restart.
type CertReloader struct {
	certFile, keyFile string
	mu                sync.Mutex
	cert              *tls.Certificate
	mod               time.Time
	checked           time.Time
}

// LoadTLS returns a STARTTLS configuration for the pair (TLS 1.2 or newer).
func LoadTLS(certFile, keyFile string) (*tls.Config, error) {
	r := &CertReloader{certFile: certFile, keyFile: keyFile}
	if _, err := r.load(); err != nil {
		return nil, err
	}
	return &tls.Config{MinVersion: tls.VersionTLS12, GetCertificate: r.GetCertificate}, nil
}

func (r *CertReloader) load() (*tls.Certificate, error) {
	c, err := tls.LoadX509KeyPair(r.certFile, r.keyFile)
	if err != nil {
		return nil, fmt.Errorf("MAIL_TLS_CERT/MAIL_TLS_KEY: %w", err)
	}
	r.cert = &c
	if st, err := os.Stat(r.certFile); err == nil {
		r.mod = st.ModTime()
	}
	return r.cert, nil
}

// GetCertificate implements tls.Config.GetCertificate: at most once a
// minute it looks whether the certificate file changed and reloads it; a
// broken new pair keeps the old one.
func (r *CertReloader) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if time.Since(r.checked) > time.Minute {
		r.checked = time.Now()
		if st, err := os.Stat(r.certFile); err == nil && !st.ModTime().Equal(r.mod) {
			old := r.cert
			if _, err := r.load(); err != nil {
				r.cert = old
			}
		}
	}
	return r.cert, nil
}
