// Package stripesim is a small, stateful development double of the Stripe
// API: exactly the Checkout Session calls the wallet makes, plus a hosted
// checkout page with Pay and Cancel buttons. Pay completes the session,
// delivers a correctly signed checkout.session.completed webhook (stripe-go's
// webhook.GenerateTestSignedPayload, the same HMAC-SHA256 scheme as Stripe)
// and redirects to the session's success URL; Cancel redirects to its cancel
// URL. State lives in memory.
package stripesim

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"
)

// Config configures the simulator.
type Config struct {
	// PublicURL is the origin browsers use to reach the hosted page, e.g. http://127.0.0.1:8110.
	PublicURL string
	// WebhookURL receives the signed events (e.g. http://127.0.0.1:8080/api/stripe/webhook).
	WebhookURL string
	// WebhookSecret signs them (whsec_...).
	WebhookSecret string
	// SecretKey, when set, is the only API key accepted (Authorization: Bearer).
	SecretKey string
	Logger    *slog.Logger
	// HTTPClient delivers webhooks (default: 10 s timeout).
	HTTPClient *http.Client
	// RetryDelays between webhook delivery attempts after a failure (default 1s, 2s, 5s, 10s, 30s).
	RetryDelays []time.Duration
}

// Session is a simulated Checkout Session.
type Session struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	AmountSubtotal    int64             `json:"amount_subtotal"`
	AmountTotal       int64             `json:"amount_total"`
	Currency          string            `json:"currency"`
	ClientReferenceID string            `json:"client_reference_id,omitempty"`
	CustomerEmail     string            `json:"customer_email,omitempty"`
	Created           int64             `json:"created"`
	ExpiresAt         int64             `json:"expires_at"`
	Livemode          bool              `json:"livemode"`
	Metadata          map[string]string `json:"metadata"`
	Mode              string            `json:"mode"`
	PaymentStatus     string            `json:"payment_status"`
	Status            string            `json:"status"`
	SuccessURL        string            `json:"success_url"`
	CancelURL         string            `json:"cancel_url"`
	URL               string            `json:"url,omitempty"`
	ProductName       string            `json:"-"`
}

// Sim is the simulator (an http.Handler).
type Sim struct {
	cfg  Config
	log  *slog.Logger
	mux  *http.ServeMux
	mu   sync.Mutex
	byID map[string]*Session
	// idempotency keys → session id (Stripe replays the first response).
	byKey map[string]string
	wg    sync.WaitGroup
}

// New returns a simulator.
func New(cfg Config) *Sim {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 10 * time.Second}
	}
	if cfg.RetryDelays == nil {
		cfg.RetryDelays = []time.Duration{time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 30 * time.Second}
	}
	cfg.PublicURL = strings.TrimRight(cfg.PublicURL, "/")
	s := &Sim{cfg: cfg, log: cfg.Logger, mux: http.NewServeMux(), byID: map[string]*Session{}, byKey: map[string]string{}}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("POST /v1/checkout/sessions", s.auth(s.createSession))
	s.mux.HandleFunc("GET /v1/checkout/sessions/{id}", s.auth(s.getSession))
	s.mux.HandleFunc("POST /v1/checkout/sessions/{id}/expire", s.auth(s.expireSession))
	s.mux.HandleFunc("GET /pay/{id}", s.page)
	s.mux.HandleFunc("POST /pay/{id}/pay", s.pay)
	s.mux.HandleFunc("POST /pay/{id}/cancel", s.cancel)
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		stripeError(w, http.StatusNotFound, "invalid_request_error", "Unrecognized request URL ("+r.Method+": "+r.URL.Path+").", "")
	})
	return s
}

// ServeHTTP implements http.Handler.
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Wait blocks until background webhook retries have finished (tests, shutdown).
func (s *Sim) Wait() { s.wg.Wait() }

// Session returns a copy of a session.
func (s *Sim) Session(id string) (Session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cs, ok := s.byID[id]
	if !ok {
		return Session{}, false
	}
	return *cs, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func stripeError(w http.ResponseWriter, status int, typ, msg, param string) {
	e := map[string]any{"type": typ, "message": msg}
	if param != "" {
		e["param"] = param
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func randomID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func (s *Sim) auth(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || key == "" || (s.cfg.SecretKey != "" && key != s.cfg.SecretKey) {
			stripeError(w, http.StatusUnauthorized, "invalid_request_error", "Invalid API Key provided.", "")
			return
		}
		h(w, r)
	}
}

// createSession accepts the form encoding stripe-go sends, e.g.
// line_items[0][price_data][unit_amount]=1000.
func (s *Sim) createSession(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		stripeError(w, http.StatusBadRequest, "invalid_request_error", "Invalid form body.", "")
		return
	}
	f := r.PostForm
	if key := r.Header.Get("Idempotency-Key"); key != "" {
		s.mu.Lock()
		id, seen := s.byKey[key]
		var cs Session
		if seen {
			cs = *s.byID[id]
		}
		s.mu.Unlock()
		if seen {
			w.Header().Set("Idempotent-Replayed", "true")
			writeJSON(w, http.StatusOK, cs)
			return
		}
	}
	if mode := f.Get("mode"); mode != "payment" {
		stripeError(w, http.StatusBadRequest, "invalid_request_error", "The simulator supports mode=payment only.", "mode")
		return
	}
	for _, p := range []string{"success_url", "cancel_url", "line_items[0][price_data][currency]",
		"line_items[0][price_data][unit_amount]", "line_items[0][price_data][product_data][name]", "line_items[0][quantity]"} {
		if f.Get(p) == "" {
			stripeError(w, http.StatusBadRequest, "invalid_request_error", "Missing required param: "+p+".", p)
			return
		}
	}
	unit, err := strconv.ParseInt(f.Get("line_items[0][price_data][unit_amount]"), 10, 64)
	if err != nil || unit < 1 {
		stripeError(w, http.StatusBadRequest, "invalid_request_error", "Invalid integer: unit_amount.", "line_items[0][price_data][unit_amount]")
		return
	}
	qty, err := strconv.ParseInt(f.Get("line_items[0][quantity]"), 10, 64)
	if err != nil || qty < 1 {
		stripeError(w, http.StatusBadRequest, "invalid_request_error", "Invalid integer: quantity.", "line_items[0][quantity]")
		return
	}
	meta := map[string]string{}
	for k, v := range f {
		if name, ok := strings.CutPrefix(k, "metadata["); ok && strings.HasSuffix(name, "]") && len(v) > 0 {
			meta[strings.TrimSuffix(name, "]")] = v[0]
		}
	}
	now := time.Now()
	cs := &Session{
		ID: randomID("cs_test_"), Object: "checkout.session", AmountSubtotal: unit * qty, AmountTotal: unit * qty,
		Currency: strings.ToLower(f.Get("line_items[0][price_data][currency]")), ClientReferenceID: f.Get("client_reference_id"),
		CustomerEmail: f.Get("customer_email"), Created: now.Unix(), ExpiresAt: now.Add(24 * time.Hour).Unix(),
		Metadata: meta, Mode: "payment", PaymentStatus: "unpaid", Status: "open",
		SuccessURL: f.Get("success_url"), CancelURL: f.Get("cancel_url"),
		ProductName: f.Get("line_items[0][price_data][product_data][name]"),
	}
	cs.URL = s.cfg.PublicURL + "/pay/" + cs.ID
	s.mu.Lock()
	s.byID[cs.ID] = cs
	if key := r.Header.Get("Idempotency-Key"); key != "" {
		s.byKey[key] = cs.ID
	}
	out := *cs
	s.mu.Unlock()
	s.log.Info("checkout session created", "session_id", cs.ID, "amount", cs.AmountTotal, "client_reference_id", cs.ClientReferenceID)
	writeJSON(w, http.StatusOK, out)
}

func (s *Sim) getSession(w http.ResponseWriter, r *http.Request) {
	cs, ok := s.Session(r.PathValue("id"))
	if !ok {
		stripeError(w, http.StatusNotFound, "invalid_request_error", "No such checkout.session: '"+r.PathValue("id")+"'", "session")
		return
	}
	writeJSON(w, http.StatusOK, cs)
}

func (s *Sim) expireSession(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	cs, ok := s.byID[r.PathValue("id")]
	if ok && cs.Status != "open" {
		s.mu.Unlock()
		stripeError(w, http.StatusBadRequest, "invalid_request_error", "Only open sessions can be expired.", "")
		return
	}
	var out Session
	if ok {
		cs.Status, cs.URL = "expired", ""
		out = *cs
	}
	s.mu.Unlock()
	if !ok {
		stripeError(w, http.StatusNotFound, "invalid_request_error", "No such checkout.session", "session")
		return
	}
	s.deliver(context.WithoutCancel(r.Context()), "checkout.session.expired", out)
	writeJSON(w, http.StatusOK, out)
}

var pageTmpl = template.Must(template.New("pay").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stripe simulator — Checkout</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}
.card{border:1px solid #ddd;border-radius:8px;padding:1.5rem}button{font-size:1rem;padding:.6rem 1.4rem;margin-right:.5rem;cursor:pointer}
.pay{background:#635bff;color:#fff;border:0;border-radius:6px}.cancel{background:#fff;border:1px solid #aaa;border-radius:6px}
.muted{color:#666;font-size:.9rem}</style></head>
<body><div class="card">
<p class="muted">Stripe simulator (development only) — no real payment is made.</p>
<h1>{{.Product}}</h1>
<p>Amount: <strong id="amount">{{.Amount}}</strong></p>
<p class="muted">Session {{.ID}} · status {{.Status}}</p>
{{if eq .Status "open"}}
<form method="post" action="/pay/{{.ID}}/pay" style="display:inline"><button class="pay" type="submit">Pay</button></form>
<form method="post" action="/pay/{{.ID}}/cancel" style="display:inline"><button class="cancel" type="submit">Cancel</button></form>
{{else}}<p>This session is {{.Status}}.</p>{{end}}
</div></body></html>`))

// FormatAmount renders cents as a currency amount, e.g. "$12.50".
func FormatAmount(cents int64, currency string) string {
	s := fmt.Sprintf("%d.%02d", cents/100, cents%100)
	if strings.EqualFold(currency, "usd") {
		return "$" + s
	}
	return s + " " + strings.ToUpper(currency)
}

func (s *Sim) page(w http.ResponseWriter, r *http.Request) {
	cs, ok := s.Session(r.PathValue("id"))
	if !ok {
		http.Error(w, "No such checkout session", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTmpl.Execute(w, map[string]any{
		"ID": cs.ID, "Amount": FormatAmount(cs.AmountTotal, cs.Currency), "Status": cs.Status, "Product": cs.ProductName,
	})
}

func (s *Sim) index(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n := len(s.byID)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "Stripe simulator (development only). %d checkout session(s).\nAPI: POST /v1/checkout/sessions, GET /v1/checkout/sessions/{id}; hosted page: /pay/{id}\n", n)
}

func (s *Sim) pay(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	cs, ok := s.byID[r.PathValue("id")]
	if !ok {
		s.mu.Unlock()
		http.Error(w, "No such checkout session", http.StatusNotFound)
		return
	}
	first := cs.Status == "open"
	if first {
		cs.Status, cs.PaymentStatus = "complete", "paid"
	}
	out := *cs
	s.mu.Unlock()
	if first {
		// Delivered before the redirect, so the wallet usually has credited
		// the top-up when the browser lands on the success page.
		s.deliver(context.WithoutCancel(r.Context()), "checkout.session.completed", out)
	}
	http.Redirect(w, r, strings.ReplaceAll(out.SuccessURL, "{CHECKOUT_SESSION_ID}", out.ID), http.StatusSeeOther)
}

func (s *Sim) cancel(w http.ResponseWriter, r *http.Request) {
	cs, ok := s.Session(r.PathValue("id"))
	if !ok {
		http.Error(w, "No such checkout session", http.StatusNotFound)
		return
	}
	http.Redirect(w, r, strings.ReplaceAll(cs.CancelURL, "{CHECKOUT_SESSION_ID}", cs.ID), http.StatusSeeOther)
}

// Event builds the Stripe event JSON for a session.
func Event(eventType string, cs Session) ([]byte, string) {
	id := randomID("evt_")
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "event", "api_version": stripe.APIVersion, "created": time.Now().Unix(),
		"livemode": false, "pending_webhooks": 1, "type": eventType,
		"request": map[string]any{"id": nil, "idempotency_key": nil},
		"data":    map[string]any{"object": cs},
	})
	return b, id
}

// Sign returns the Stripe-Signature header for payload.
func Sign(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}

// deliver sends the event once synchronously and, on failure, retries in
// the background (re-signed each time, like Stripe).
func (s *Sim) deliver(ctx context.Context, eventType string, cs Session) {
	if s.cfg.WebhookURL == "" {
		return
	}
	payload, id := Event(eventType, cs)
	if err := s.send(ctx, payload); err == nil {
		s.log.Info("webhook delivered", "event_id", id, "type", eventType, "session_id", cs.ID)
		return
	} else {
		s.log.Warn("webhook delivery failed, retrying in the background", "event_id", id, "error", err)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for _, d := range s.cfg.RetryDelays {
			time.Sleep(d)
			if err := s.send(ctx, payload); err == nil {
				s.log.Info("webhook delivered", "event_id", id, "type", eventType, "session_id", cs.ID)
				return
			} else {
				s.log.Warn("webhook delivery failed", "event_id", id, "error", err)
			}
		}
		s.log.Error("webhook delivery abandoned", "event_id", id, "session_id", cs.ID)
	}()
}

func (s *Sim) send(ctx context.Context, payload []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.cfg.WebhookURL, bytes.NewReader(payload))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("Stripe-Signature", Sign(payload, s.cfg.WebhookSecret, time.Now()))
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("webhook endpoint answered %d", resp.StatusCode)
	}
	return nil
}

// ParseAddrURL returns the http origin for a listen address like 127.0.0.1:8110.
func ParseAddrURL(addr string) string {
	u := url.URL{Scheme: "http", Host: addr}
	return u.String()
}
