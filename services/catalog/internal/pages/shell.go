// Package pages renders the marketplace's pages outside /api (issue 27, link
// previews): a listed agent's page is the SPA's shell (its index.html, read
// from the web app and kept briefly) with the agent's <title>, description,
// Open Graph tags and canonical link in its <head>; sitemap.xml lists the
// listed agents. docs/catalog.md, "Link previews and sitemap.xml".
package pages

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// Defaults of a Shell.
const (
	// DefaultShellTTL is how long a read shell is served before it is read
	// again: a new web build reaches the agent pages within a minute.
	DefaultShellTTL = time.Minute
	// ShellFetchTimeout bounds one read of the shell.
	ShellFetchTimeout = 3 * time.Second
	// ShellRetry is how long a failed read is not retried: the last shell
	// (or, without one, the error) is served meanwhile.
	ShellRetry = 5 * time.Second
	// MaxShellBytes bounds the shell (the built index.html is ~5 KB).
	MaxShellBytes = 1 << 20
)

// ErrNoShell: the shell was never read (the web app is unreachable or
// answers something else than an HTML page).
var ErrNoShell = errors.New("the web app's index.html is unavailable")

// Shell is the SPA's index.html, read from URL and kept for TTL. A failed
// read keeps serving the last shell read (and is retried after ShellRetry);
// only one read runs at a time, and while one runs the others serve the
// last shell at once (or, without one, wait for it).
type Shell struct {
	url    string
	ttl    time.Duration
	client *http.Client
	logger *slog.Logger
	now    func() time.Time

	fetching sync.Mutex // held by the one read in progress

	mu      sync.Mutex
	body    []byte    // the last shell read (nil: none yet)
	expires time.Time // read again from then on
	err     error     // the last read's failure, served without a shell until expires
}

// ShellOption configures a Shell.
type ShellOption func(*Shell)

// WithTTL sets how long a shell is kept (0 or less: DefaultShellTTL).
func WithTTL(ttl time.Duration) ShellOption {
	return func(s *Shell) {
		if ttl > 0 {
			s.ttl = ttl
		}
	}
}

// WithClock replaces time.Now (tests).
func WithClock(now func() time.Time) ShellOption { return func(s *Shell) { s.now = now } }

// WithClient replaces the HTTP client (its Timeout is not used: each read
// has ShellFetchTimeout).
func WithClient(c *http.Client) ShellOption { return func(s *Shell) { s.client = c } }

// NewShell returns the shell read from url (the web app's index.html).
func NewShell(url string, logger *slog.Logger, opts ...ShellOption) *Shell {
	if logger == nil {
		logger = slog.Default()
	}
	s := &Shell{url: url, ttl: DefaultShellTTL, client: &http.Client{}, logger: logger, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Get returns the shell: the one read within TTL, else a new read (the last
// one while another caller reads it, or when the read fails).
func (s *Shell) Get(ctx context.Context) ([]byte, error) {
	if b, ok, err := s.cached(); ok {
		return b, err
	}
	if b := s.last(); b != nil {
		if !s.fetching.TryLock() {
			return b, nil // another caller is reading it
		}
	} else {
		s.fetching.Lock()
	}
	defer s.fetching.Unlock()
	if b, ok, err := s.cached(); ok { // read while this caller waited
		return b, err
	}
	body, err := s.fetch(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err != nil {
		s.expires = s.now().Add(ShellRetry)
		if s.body != nil {
			s.logger.WarnContext(ctx, "agent pages: reading the web app's index.html failed; serving the last one", "url", s.url, "error", err)
			s.err = nil
			return s.body, nil
		}
		s.logger.ErrorContext(ctx, "agent pages: reading the web app's index.html failed", "url", s.url, "error", err)
		s.err = fmt.Errorf("%w: %w", ErrNoShell, err)
		return nil, s.err
	}
	s.body, s.err, s.expires = body, nil, s.now().Add(s.ttl)
	return body, nil
}

// cached is the shell (or the last failure) while it has not expired.
func (s *Shell) cached() ([]byte, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if (s.body == nil && s.err == nil) || !s.now().Before(s.expires) {
		return nil, false, nil
	}
	return s.body, true, s.err
}

// last is the last shell read (nil: none).
func (s *Shell) last() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.body
}

// fetch reads the shell: a 200 HTML page with a <head>, at most
// MaxShellBytes. The read is not cancelled with the request that caused it
// (others may wait for it), only bounded by ShellFetchTimeout.
func (s *Shell) fetch(ctx context.Context) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShellFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/html")
	res, err := s.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", s.url, res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, MaxShellBytes+1))
	if err != nil {
		return nil, err
	}
	if len(body) > MaxShellBytes {
		return nil, fmt.Errorf("GET %s: more than %d bytes", s.url, MaxShellBytes)
	}
	if !bytes.Contains(bytes.ToLower(body), []byte("<head")) {
		return nil, fmt.Errorf("GET %s: not an HTML page with a <head>", s.url)
	}
	return body, nil
}
