package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// maildevClient reads maildev 3's REST API (the local relay's mailbox).
type maildevClient struct {
	base string
	hc   *http.Client
}

// maildevEmail holds the fields of GET /api/email the bench reads.
type maildevEmail struct {
	ID        string                     `json:"id"`
	Time      string                     `json:"time"`
	InReplyTo string                     `json:"inReplyTo"`
	Headers   map[string]json.RawMessage `json:"headers"`
}

// inReplyTo is the bare In-Reply-To: maildev's parsed field, else the header
// (a string or a list of strings, any case).
func (e maildevEmail) inReplyTo() string {
	if e.InReplyTo != "" {
		return bareID(e.InReplyTo)
	}
	for k, v := range e.Headers {
		if !strings.EqualFold(k, "in-reply-to") {
			continue
		}
		var s string
		if json.Unmarshal(v, &s) == nil {
			return bareID(s)
		}
		var l []string
		if json.Unmarshal(v, &l) == nil && len(l) > 0 {
			return bareID(l[0])
		}
	}
	return ""
}

// arrived is when maildev received the e-mail (its "time"), ok=false when absent or unparsable.
func (e maildevEmail) arrived() (time.Time, bool) {
	if e.Time == "" {
		return time.Time{}, false
	}
	t, err := time.Parse(time.RFC3339Nano, e.Time)
	return t, err == nil
}

func parseEmails(b []byte) ([]maildevEmail, error) {
	var out []maildevEmail
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("maildev: decode /api/email: %w", err)
	}
	return out, nil
}

func (m *maildevClient) req(ctx context.Context, method, path string) ([]byte, error) {
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(cctx, method, m.base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := m.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("maildev %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		return nil, fmt.Errorf("maildev %s %s: HTTP %d %s", method, path, resp.StatusCode, strings.TrimSpace(string(b[:min(len(b), 200)])))
	}
	return b, nil
}

func (m *maildevClient) ping(ctx context.Context) error {
	_, err := m.req(ctx, http.MethodGet, "/healthz")
	if err != nil {
		// older maildev builds have no /healthz: the list answers as well
		_, err = m.req(ctx, http.MethodGet, "/api/email")
	}
	return err
}

// clear deletes every e-mail (DELETE /api/email/all).
func (m *maildevClient) clear(ctx context.Context) error {
	_, err := m.req(ctx, http.MethodDelete, "/api/email/all")
	return err
}

// list returns every e-mail maildev holds (it has no paging: the run starts
// from an empty mailbox, so the list is at most the run's replies).
func (m *maildevClient) list(ctx context.Context) ([]maildevEmail, error) {
	b, err := m.req(ctx, http.MethodGet, "/api/email")
	if err != nil {
		return nil, err
	}
	return parseEmails(b)
}
