// Package drive reads Google Docs through the Google Drive v3 API **as the
// agent**: every call carries an OAuth2 token whose subject is the agent's
// e-mail address, so a document is readable exactly when it is shared with
// that address (or with anyone who has the link).
//
// Production: a service account with domain-wide delegation
// (GOOGLE_APPLICATION_CREDENTIALS) mints a token per agent (JWT subject = the
// agent's address, scope drive.readonly). Local and tests: the Drive simulator
// (GOOGLE_DRIVE_ENDPOINT) with dev tokens "dev:<address>". Both paths use the
// same client from google.golang.org/api/drive/v3; only the token source
// differs.
package drive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"
	drivev3 "google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"

	"github.com/agentic-app/agentic/services/platform/observability"
)

// GoogleDocsMimeType is the only type the service reads.
const GoogleDocsMimeType = "application/vnd.google-apps.document"

// MaxTextBytes bounds the text of one document (2 MB = 2 MiB of UTF-8, after
// normalisation).
const MaxTextBytes = 2 << 20

// getFields are the file fields a sync needs.
const getFields = "id,name,mimeType,modifiedTime,version"

// Defaults of Config.
const (
	DefaultMaxAttempts   = 4
	DefaultBaseDelay     = 500 * time.Millisecond
	DefaultMaxDelay      = 8 * time.Second
	DefaultMaxRetryAfter = 30 * time.Second
	DefaultTimeout       = 30 * time.Second
	maxCachedAgents      = 10000
)

// Kind classifies a failure.
type Kind int

// Failure kinds.
const (
	// KindFailed: any other refusal (bad credentials, 400, ...); not retried.
	KindFailed Kind = iota + 1
	// KindNotShared: Drive answered 403/404: the agent cannot open the file.
	KindNotShared
	// KindRetryable: 429, 5xx, a rate-limit 403 or a network failure that
	// persisted through the client's own retries; worth trying again later.
	KindRetryable
	// KindTooLarge: the exported text exceeds MaxTextBytes.
	KindTooLarge
	// KindUnsupported: the file is not a Google Docs document.
	KindUnsupported
)

func (k Kind) String() string {
	switch k {
	case KindNotShared:
		return "not_shared"
	case KindRetryable:
		return "retryable"
	case KindTooLarge:
		return "too_large"
	case KindUnsupported:
		return "unsupported"
	default:
		return "failed"
	}
}

// Error is a classified Drive failure. Message is fit for the creator's eyes.
type Error struct {
	Kind    Kind
	Status  int // HTTP status, 0 for network failures
	Message string
	// RetryAfter is the server's Retry-After when it asked for more patience
	// than the client waits by itself (the caller reschedules).
	RetryAfter time.Duration
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// KindOf returns err's Kind (KindFailed for an unclassified error, 0 for nil).
func KindOf(err error) Kind {
	if err == nil {
		return 0
	}
	var de *Error
	if errors.As(err, &de) {
		return de.Kind
	}
	return KindFailed
}

// Meta is a file's metadata.
type Meta struct {
	ID           string
	Title        string
	MimeType     string
	ModifiedTime time.Time
	Version      int64
}

// Config configures the client.
type Config struct {
	// Endpoint is the Drive API base URL ("" = Google's, e.g.
	// "http://127.0.0.1:8111/drive/v3/" for the simulator).
	Endpoint string
	// DevTokens sends "Bearer dev:<address>" instead of real OAuth2 tokens
	// (the simulator's convention). Refused with Google's endpoint.
	DevTokens bool
	// CredentialsFile / CredentialsJSON: the service account key with
	// domain-wide delegation (production). CredentialsJSON wins when set.
	CredentialsFile string
	CredentialsJSON []byte
	// Transport is the base HTTP transport (default http.DefaultTransport).
	Transport http.RoundTripper
	// Timeout bounds one HTTP request (default 30s).
	Timeout time.Duration
	// MaxAttempts is how many times one call is tried on 429/5xx/network
	// failures (default 4); BaseDelay and MaxDelay shape the exponential
	// back-off with jitter (defaults 500ms, 8s). A Retry-After up to
	// MaxRetryAfter (default 30s) is honoured in place; a longer one ends the
	// call with KindRetryable and RetryAfter set.
	MaxAttempts   int
	BaseDelay     time.Duration
	MaxDelay      time.Duration
	MaxRetryAfter time.Duration
	// Registerer receives documents_drive_requests_total (optional).
	Registerer prometheus.Registerer
}

// Client reads files as agents.
type Client struct {
	cfg      Config
	jwt      []byte // service account key (production)
	base     http.RoundTripper
	requests *prometheus.CounterVec
	sleep    func(ctx context.Context, d time.Duration) error

	mu       sync.Mutex
	services map[string]*drivev3.Service // by scope + agent address
}

// isGoogleEndpoint reports whether endpoint is Google's real Drive API.
func isGoogleEndpoint(endpoint string) bool {
	if endpoint == "" {
		return true
	}
	u, err := url.Parse(endpoint)
	if err != nil {
		return false
	}
	h := strings.ToLower(u.Hostname())
	return h == "googleapis.com" || strings.HasSuffix(h, ".googleapis.com")
}

// New returns a client. It fails when neither dev tokens nor credentials are
// configured, or when dev tokens would be sent to Google.
func New(cfg Config) (*Client, error) {
	if cfg.DevTokens && isGoogleEndpoint(cfg.Endpoint) {
		return nil, errors.New("drive: dev tokens are only for the Drive simulator; set GOOGLE_DRIVE_ENDPOINT to it or turn GOOGLE_DRIVE_DEV_IDENTITY off")
	}
	c := &Client{cfg: cfg, services: map[string]*drivev3.Service{}, sleep: sleepCtx}
	if !cfg.DevTokens {
		key := cfg.CredentialsJSON
		if len(key) == 0 {
			if cfg.CredentialsFile == "" {
				return nil, errors.New("drive: GOOGLE_APPLICATION_CREDENTIALS (a service account key with domain-wide delegation) is required unless GOOGLE_DRIVE_DEV_IDENTITY=true")
			}
			b, err := os.ReadFile(cfg.CredentialsFile)
			if err != nil {
				return nil, fmt.Errorf("drive: read credentials: %w", err)
			}
			key = b
		}
		// Parse once now so a bad key fails the start-up, not every sync.
		if _, err := google.JWTConfigFromJSON(key, drivev3.DriveReadonlyScope); err != nil {
			return nil, fmt.Errorf("drive: credentials: %w", err)
		}
		c.jwt = key
	}
	if c.cfg.Transport == nil {
		c.cfg.Transport = http.DefaultTransport
	}
	c.base = c.cfg.Transport
	if c.cfg.Timeout <= 0 {
		c.cfg.Timeout = DefaultTimeout
	}
	if c.cfg.MaxAttempts <= 0 {
		c.cfg.MaxAttempts = DefaultMaxAttempts
	}
	if c.cfg.BaseDelay <= 0 {
		c.cfg.BaseDelay = DefaultBaseDelay
	}
	if c.cfg.MaxDelay <= 0 {
		c.cfg.MaxDelay = DefaultMaxDelay
	}
	if c.cfg.MaxRetryAfter <= 0 {
		c.cfg.MaxRetryAfter = DefaultMaxRetryAfter
	}
	c.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "documents_drive_requests_total",
		Help: "Google Drive API requests by operation (get, export) and result (ok, not_shared, retryable, failed, ...).",
	}, []string{"op", "result"})
	if cfg.Registerer != nil {
		c.requests = observability.Register(cfg.Registerer, c.requests)
	}
	return c, nil
}

// tokenSource returns the OAuth2 token source that acts as agent with scope.
func (c *Client) tokenSource(agent, scope string) (oauth2.TokenSource, error) {
	if c.cfg.DevTokens {
		return oauth2.StaticTokenSource(&oauth2.Token{AccessToken: "dev:" + agent, TokenType: "Bearer"}), nil
	}
	conf, err := google.JWTConfigFromJSON(c.jwt, scope)
	if err != nil {
		return nil, err
	}
	// Domain-wide delegation: the token is the agent's, so Drive applies the
	// agent's sharing, nothing broader.
	conf.Subject = agent
	// The token endpoint is called with the base transport and the per-request
	// timeout; the returned source caches the token until it expires.
	ctx := context.WithValue(context.Background(), oauth2.HTTPClient, &http.Client{Transport: c.base, Timeout: c.cfg.Timeout})
	return conf.TokenSource(ctx), nil
}

// service returns the Drive client acting as agent (cached: one token
// source per agent keeps its token between syncs).
func (c *Client) service(agent string) (*drivev3.Service, error) {
	return c.serviceWith(agent, drivev3.DriveReadonlyScope)
}

// serviceWith returns the Drive client acting as agent with scope (reading
// uses drive.readonly; replying to comments needs the full drive scope).
func (c *Client) serviceWith(agent, scope string) (*drivev3.Service, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key := scope + " " + agent
	if s, ok := c.services[key]; ok {
		return s, nil
	}
	ts, err := c.tokenSource(agent, scope)
	if err != nil {
		return nil, err
	}
	hc := &http.Client{Transport: &oauth2.Transport{Source: ts, Base: c.base}, Timeout: c.cfg.Timeout}
	opts := []option.ClientOption{option.WithHTTPClient(hc)}
	if c.cfg.Endpoint != "" {
		opts = append(opts, option.WithEndpoint(c.cfg.Endpoint))
	}
	s, err := drivev3.NewService(context.Background(), opts...)
	if err != nil {
		return nil, err
	}
	if len(c.services) >= maxCachedAgents {
		for k := range c.services { // arbitrary eviction keeps the map bounded
			delete(c.services, k)
			break
		}
	}
	c.services[key] = s
	return s, nil
}

// Get reads a file's metadata as agent.
func (c *Client) Get(ctx context.Context, agent, fileID string) (Meta, error) {
	s, err := c.service(agent)
	if err != nil {
		return Meta{}, &Error{Kind: KindFailed, Message: "Could not set up Google Drive access", Err: err}
	}
	var f *drivev3.File
	err = c.retry(ctx, "get", func(ctx context.Context) error {
		var err error
		f, err = s.Files.Get(fileID).SupportsAllDrives(true).Fields(getFields).Context(ctx).Do()
		return err
	})
	if err != nil {
		return Meta{}, err
	}
	m := Meta{ID: f.Id, Title: f.Name, MimeType: f.MimeType, Version: f.Version}
	if f.ModifiedTime != "" {
		t, err := time.Parse(time.RFC3339Nano, f.ModifiedTime)
		if err != nil {
			return Meta{}, &Error{Kind: KindFailed, Message: "Google Drive sent an invalid modifiedTime", Err: err}
		}
		m.ModifiedTime = t.UTC()
	}
	return m, nil
}

// CheckReadable returns a KindUnsupported error unless m is a Google Doc.
func CheckReadable(m Meta) error {
	if m.MimeType == GoogleDocsMimeType {
		return nil
	}
	return &Error{Kind: KindUnsupported, Message: "Only Google Docs documents can be read (this file is " + describeType(m.MimeType) + ")"}
}

// describeType names a MIME type for people.
func describeType(mime string) string {
	switch mime {
	case "":
		return "of an unknown type"
	case "application/vnd.google-apps.spreadsheet":
		return "a Google Sheets spreadsheet"
	case "application/vnd.google-apps.presentation":
		return "a Google Slides presentation"
	case "application/vnd.google-apps.form":
		return "a Google Form"
	case "application/vnd.google-apps.folder":
		return "a folder"
	case "application/pdf":
		return "a PDF"
	case "application/vnd.openxmlformats-officedocument.wordprocessingml.document":
		return "a Word document; open it in Google Docs and use File > Save as Google Docs"
	}
	return mime
}

// MsgTooLarge is the error of a document over MaxTextBytes.
const MsgTooLarge = "Document is larger than 2 MB of text"

// Export returns the file's text (text/plain export) as agent: valid UTF-8,
// without the byte-order mark Google puts first, with "\n" line ends.
func (c *Client) Export(ctx context.Context, agent, fileID string) (string, error) {
	s, err := c.service(agent)
	if err != nil {
		return "", &Error{Kind: KindFailed, Message: "Could not set up Google Drive access", Err: err}
	}
	var raw []byte
	err = c.retry(ctx, "export", func(ctx context.Context) error {
		res, err := s.Files.Export(fileID, "text/plain").Context(ctx).Download()
		if err != nil {
			return err
		}
		defer res.Body.Close()
		// The limit is on the text, after the BOM and CRs Google adds are
		// dropped; those at most double the bytes (an empty line is "\r\n").
		raw, err = io.ReadAll(io.LimitReader(res.Body, 2*MaxTextBytes+8))
		return err
	})
	if err != nil {
		return "", err
	}
	text := NormalizeText(raw)
	if len(text) > MaxTextBytes {
		return "", &Error{Kind: KindTooLarge, Message: MsgTooLarge}
	}
	return text, nil
}

// NormalizeText makes exported bytes into the text that is indexed: invalid
// UTF-8 replaced, a leading BOM dropped, CRLF and CR turned into LF.
func NormalizeText(raw []byte) string {
	s := string(raw)
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = strings.TrimPrefix(s, "\uFEFF")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// retry runs call until it succeeds, fails for good, or the attempts are
// used up; 429/5xx/network failures are retried with exponential back-off
// and jitter, honouring Retry-After.
func (c *Client) retry(ctx context.Context, op string, call func(context.Context) error) error {
	return c.retryN(ctx, op, c.cfg.MaxAttempts, call)
}

// retryN is retry with at most maxAttempts tries.
func (c *Client) retryN(ctx context.Context, op string, maxAttempts int, call func(context.Context) error) error {
	for attempt := 1; ; attempt++ {
		err := call(ctx)
		if err == nil {
			c.requests.WithLabelValues(op, "ok").Inc()
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		de := classify(err)
		c.requests.WithLabelValues(op, de.Kind.String()).Inc()
		if de.Kind != KindRetryable || attempt >= maxAttempts {
			return de
		}
		if de.RetryAfter > c.cfg.MaxRetryAfter {
			return de // the caller reschedules after RetryAfter
		}
		delay := max(c.backoff(attempt), de.RetryAfter)
		de.RetryAfter = 0
		if err := c.sleep(ctx, delay); err != nil {
			return err
		}
	}
}

// backoff is the delay after the attempt-th failure: exponential, capped,
// with "equal jitter" (half fixed, half random) so that many documents
// failing together do not retry in lockstep.
func (c *Client) backoff(attempt int) time.Duration {
	d := c.cfg.BaseDelay << (attempt - 1)
	if d > c.cfg.MaxDelay || d <= 0 {
		d = c.cfg.MaxDelay
	}
	return d/2 + rand.N(d/2+1)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Reasons Google gives with a 403 that do not mean "no access".
var (
	rateLimitReasons = map[string]bool{"rateLimitExceeded": true, "userRateLimitExceeded": true, "sharingRateLimitExceeded": true}
	tooLargeReasons  = map[string]bool{"exportSizeLimitExceeded": true}
	typeReasons      = map[string]bool{"fileNotExportable": true, "fileNotDownloadable": true}
)

// classify maps an error of the Drive client to an *Error.
func classify(err error) *Error {
	var de *Error
	if errors.As(err, &de) {
		return de
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		e := &Error{Status: ge.Code, Err: err}
		e.RetryAfter = parseRetryAfter(ge.Header.Get("Retry-After"), time.Now())
		reason := ""
		if len(ge.Errors) > 0 {
			reason = ge.Errors[0].Reason
		}
		switch {
		case ge.Code == http.StatusForbidden && rateLimitReasons[reason]:
			e.Kind, e.Message = KindRetryable, "Google Drive is rate limiting requests"
		case ge.Code == http.StatusForbidden && tooLargeReasons[reason]:
			e.Kind, e.Message = KindTooLarge, MsgTooLarge
		case ge.Code == http.StatusForbidden && typeReasons[reason]:
			e.Kind, e.Message = KindUnsupported, "Only Google Docs documents can be read"
		case ge.Code == http.StatusForbidden || ge.Code == http.StatusNotFound:
			e.Kind, e.Message = KindNotShared, "The agent cannot open this document"
		case ge.Code == http.StatusTooManyRequests:
			e.Kind, e.Message = KindRetryable, "Google Drive is rate limiting requests (HTTP 429)"
		case ge.Code >= 500:
			e.Kind, e.Message = KindRetryable, fmt.Sprintf("Google Drive is unavailable (HTTP %d)", ge.Code)
		case ge.Code == http.StatusUnauthorized:
			e.Kind, e.Message = KindFailed, "Google Drive did not accept the agent's credentials (HTTP 401)"
		default:
			e.Kind, e.Message = KindFailed, fmt.Sprintf("Google Drive refused the request (HTTP %d)", ge.Code)
		}
		return e
	}
	// The token endpoint (domain-wide delegation) refused or failed.
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		if status >= 500 || status == http.StatusTooManyRequests {
			return &Error{Kind: KindRetryable, Status: status, Message: "Google's token service is unavailable", Err: err}
		}
		return &Error{Kind: KindFailed, Status: status, Message: "Google refused to issue a token for the agent's address (check the service account's domain-wide delegation)", Err: err}
	}
	var ne net.Error
	var ue *url.Error
	if errors.As(err, &ne) || errors.As(err, &ue) || errors.Is(err, io.ErrUnexpectedEOF) {
		return &Error{Kind: KindRetryable, Message: "Google Drive could not be reached", Err: err}
	}
	return &Error{Kind: KindFailed, Message: "Reading the document from Google Drive failed", Err: err}
}

// parseRetryAfter reads a Retry-After header (seconds or an HTTP date).
func parseRetryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}
