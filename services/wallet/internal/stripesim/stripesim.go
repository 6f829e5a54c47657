// Package stripesim is a small, stateful development double of the Stripe
// API: exactly the calls the wallet makes, plus hosted pages. State lives in
// memory; every event is delivered as a correctly signed webhook (stripe-go's
// webhook.GenerateTestSignedPayload, the same HMAC-SHA256 scheme as Stripe).
//
//   - Checkout Sessions in payment mode: the hosted page's Pay completes the
//     session with a PaymentIntent and a charge, delivers
//     checkout.session.completed and redirects to the success URL; Cancel
//     redirects to the cancel URL; a paid session's page offers Refund.
//   - Checkout Sessions in setup mode: the page's "Save card" saves a test
//     card that pays (Visa •••• 4242), "Save declining card" one whose
//     charges are declined (Visa •••• 0341, like Stripe's 4000000000000341).
//   - Customers, SetupIntents, PaymentMethods, off-session PaymentIntents
//     (confirm: succeeded, or 402 card_declined per the saved card, then
//     payment_intent.succeeded / payment_intent.payment_failed), refunds
//     (charge.refunded) and lists of sessions and PaymentIntents.
//   - Admin JSON (development only): refunds of a session's charge, disputes
//     opened and closed won or lost (charge.dispute.*), and pausing webhook
//     delivery (to try reconciliation).
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
	"sort"
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
	Customer          *string           `json:"customer"`
	Created           int64             `json:"created"`
	ExpiresAt         int64             `json:"expires_at"`
	Livemode          bool              `json:"livemode"`
	Metadata          map[string]string `json:"metadata"`
	Mode              string            `json:"mode"`
	PaymentIntent     *string           `json:"payment_intent"`
	SetupIntent       *string           `json:"setup_intent"`
	PaymentStatus     string            `json:"payment_status"`
	Status            string            `json:"status"`
	SuccessURL        string            `json:"success_url"`
	CancelURL         string            `json:"cancel_url"`
	URL               string            `json:"url,omitempty"`
	ProductName       string            `json:"-"`
	seq               int64
}

// Sim is the simulator (an http.Handler).
type Sim struct {
	cfg  Config
	log  *slog.Logger
	mux  *http.ServeMux
	mu   sync.Mutex
	byID map[string]*Session
	// Idempotency: "<method> <path> <key>" → the first response (Stripe
	// replays it for the same key).
	idem          map[string]stored
	customers     map[string]*Customer
	methods       map[string]*PaymentMethod
	setupIntents  map[string]*SetupIntent
	intents       map[string]*PaymentIntent
	charges       map[string]*Charge
	refunds       map[string]*Refund
	disputes      map[string]*Dispute
	accounts      map[string]*Account     // Connect (connect.go)
	links         map[string]*AccountLink // by link id
	transfers     map[string]*Transfer
	seq           int64
	pausedHooks   bool
	droppedEvents int
	wg            sync.WaitGroup
}

type stored struct {
	status int
	body   []byte
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
	s := &Sim{cfg: cfg, log: cfg.Logger, mux: http.NewServeMux(), byID: map[string]*Session{}, idem: map[string]stored{},
		customers: map[string]*Customer{}, methods: map[string]*PaymentMethod{}, setupIntents: map[string]*SetupIntent{},
		intents: map[string]*PaymentIntent{}, charges: map[string]*Charge{}, refunds: map[string]*Refund{},
		disputes: map[string]*Dispute{}, accounts: map[string]*Account{}, links: map[string]*AccountLink{},
		transfers: map[string]*Transfer{}}
	s.registerConnect()
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("POST /v1/checkout/sessions", s.api(s.createSession))
	s.mux.HandleFunc("GET /v1/checkout/sessions", s.api(s.listSessions))
	s.mux.HandleFunc("GET /v1/checkout/sessions/{id}", s.api(s.getSession))
	s.mux.HandleFunc("POST /v1/checkout/sessions/{id}/expire", s.api(s.expireSession))
	s.mux.HandleFunc("POST /v1/customers", s.api(s.createCustomer))
	s.mux.HandleFunc("GET /v1/customers/{id}", s.api(s.getCustomer))
	s.mux.HandleFunc("GET /v1/setup_intents/{id}", s.api(s.getSetupIntent))
	s.mux.HandleFunc("GET /v1/payment_methods/{id}", s.api(s.getPaymentMethod))
	s.mux.HandleFunc("POST /v1/payment_intents", s.api(s.createPaymentIntent))
	s.mux.HandleFunc("GET /v1/payment_intents", s.api(s.listPaymentIntents))
	s.mux.HandleFunc("GET /v1/payment_intents/{id}", s.api(s.getPaymentIntent))
	s.mux.HandleFunc("POST /v1/payment_intents/{id}/confirm", s.api(s.confirmPaymentIntent))
	s.mux.HandleFunc("GET /v1/charges/{id}", s.api(s.getCharge))
	s.mux.HandleFunc("POST /v1/refunds", s.api(s.createRefund))
	s.mux.HandleFunc("GET /pay/{id}", s.page)
	s.mux.HandleFunc("POST /pay/{id}/pay", s.pay)
	s.mux.HandleFunc("POST /pay/{id}/save", s.saveCard)
	s.mux.HandleFunc("POST /pay/{id}/cancel", s.cancel)
	s.mux.HandleFunc("POST /pay/{id}/refund", s.pageRefund)
	s.mux.HandleFunc("POST /admin/refunds", s.adminRefund)
	s.mux.HandleFunc("POST /admin/disputes", s.adminOpenDispute)
	s.mux.HandleFunc("POST /admin/disputes/{id}/close", s.adminCloseDispute)
	s.mux.HandleFunc("POST /admin/webhooks", s.adminWebhooks)
	s.mux.HandleFunc("GET /{$}", s.index)
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		stripeError(w, http.StatusNotFound, "invalid_request_error", "Unrecognized request URL ("+r.Method+": "+r.URL.Path+").", "")
	})
	return s
}

// ServeHTTP implements http.Handler.
func (s *Sim) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Wait blocks until background webhook deliveries have finished (tests, shutdown).
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

// PauseWebhooks drops (true) or delivers again (false) every event from now
// on: a dropped event is lost, as when an endpoint was unreachable for days.
func (s *Sim) PauseWebhooks(paused bool) {
	s.mu.Lock()
	s.pausedHooks = paused
	s.mu.Unlock()
}

func (s *Sim) nextSeq() int64 { s.seq++; return s.seq }

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// apiError is a Stripe error answer.
type apiError struct {
	status int
	body   map[string]any
}

func newError(status int, typ, msg, param string) *apiError {
	e := map[string]any{"type": typ, "message": msg}
	if param != "" {
		e["param"] = param
	}
	return &apiError{status: status, body: map[string]any{"error": e}}
}

func stripeError(w http.ResponseWriter, status int, typ, msg, param string) {
	e := newError(status, typ, msg, param)
	writeJSON(w, e.status, e.body)
}

func randomID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// api checks the API key, parses the form (or the query of a GET) and, for
// POSTs with an Idempotency-Key, replays the first answer like Stripe.
func (s *Sim) api(h func(r *http.Request, f url.Values) (any, *apiError)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
		if !ok || key == "" || (s.cfg.SecretKey != "" && key != s.cfg.SecretKey) {
			stripeError(w, http.StatusUnauthorized, "invalid_request_error", "Invalid API Key provided.", "")
			return
		}
		if err := r.ParseForm(); err != nil {
			stripeError(w, http.StatusBadRequest, "invalid_request_error", "Invalid form body.", "")
			return
		}
		f := r.Form
		var idemKey string
		if k := r.Header.Get("Idempotency-Key"); k != "" && r.Method == http.MethodPost {
			idemKey = r.Method + " " + r.URL.Path + " " + k
			s.mu.Lock()
			prev, seen := s.idem[idemKey]
			if !seen {
				s.idem[idemKey] = stored{} // in progress
			}
			s.mu.Unlock()
			if seen && prev.status == 0 {
				stripeError(w, http.StatusConflict, "idempotency_error",
					"There is currently another in-progress request using this Idempotent Key.", "")
				return
			}
			if seen {
				w.Header().Set("Idempotent-Replayed", "true")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(prev.status)
				_, _ = w.Write(prev.body)
				return
			}
		}
		out, apiErr := h(r, f)
		status, body := http.StatusOK, any(out)
		if apiErr != nil {
			status, body = apiErr.status, apiErr.body
		}
		raw, _ := json.Marshal(body)
		if idemKey != "" {
			s.mu.Lock()
			if status == http.StatusBadRequest {
				delete(s.idem, idemKey) // invalid requests are not saved (Stripe)
			} else {
				s.idem[idemKey] = stored{status: status, body: raw}
			}
			s.mu.Unlock()
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(append(raw, '\n'))
	}
}

// prefixed collects form fields name[key]=value into a map (metadata).
func prefixed(f url.Values, name string) map[string]string {
	out := map[string]string{}
	for k, v := range f {
		if inner, ok := strings.CutPrefix(k, name+"["); ok && strings.HasSuffix(inner, "]") && len(v) > 0 &&
			!strings.Contains(strings.TrimSuffix(inner, "]"), "[") {
			out[strings.TrimSuffix(inner, "]")] = v[0]
		}
	}
	return out
}

// expands reports whether the request asks to expand field.
func expands(f url.Values, field string) bool {
	for k, vs := range f {
		if k == "expand" || k == "expand[]" || strings.HasPrefix(k, "expand[") {
			for _, v := range vs {
				if v == field {
					return true
				}
			}
		}
	}
	return false
}

func strPtr(s string) *string { return &s }

// createSession accepts the form encoding stripe-go sends, e.g.
// line_items[0][price_data][unit_amount]=1000, in payment or setup mode.
func (s *Sim) createSession(r *http.Request, f url.Values) (any, *apiError) {
	mode := f.Get("mode")
	if mode != "payment" && mode != "setup" {
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "The simulator supports mode=payment and mode=setup.", "mode")
	}
	required := []string{"success_url", "cancel_url"}
	if mode == "payment" {
		required = append(required, "line_items[0][price_data][currency]", "line_items[0][price_data][unit_amount]",
			"line_items[0][price_data][product_data][name]", "line_items[0][quantity]")
	}
	for _, p := range required {
		if f.Get(p) == "" {
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "Missing required param: "+p+".", p)
		}
	}
	now := time.Now()
	cs := &Session{
		ID: randomID("cs_test_"), Object: "checkout.session", ClientReferenceID: f.Get("client_reference_id"),
		CustomerEmail: f.Get("customer_email"), Created: now.Unix(), ExpiresAt: now.Add(24 * time.Hour).Unix(),
		Metadata: prefixed(f, "metadata"), Mode: mode, PaymentStatus: "unpaid", Status: "open",
		SuccessURL: f.Get("success_url"), CancelURL: f.Get("cancel_url"), Currency: strings.ToLower(f.Get("currency")),
	}
	if mode == "payment" {
		unit, err := strconv.ParseInt(f.Get("line_items[0][price_data][unit_amount]"), 10, 64)
		if err != nil || unit < 1 {
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "Invalid integer: unit_amount.", "line_items[0][price_data][unit_amount]")
		}
		qty, err := strconv.ParseInt(f.Get("line_items[0][quantity]"), 10, 64)
		if err != nil || qty < 1 {
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "Invalid integer: quantity.", "line_items[0][quantity]")
		}
		cs.AmountSubtotal, cs.AmountTotal = unit*qty, unit*qty
		cs.Currency = strings.ToLower(f.Get("line_items[0][price_data][currency]"))
		cs.ProductName = f.Get("line_items[0][price_data][product_data][name]")
	} else {
		cs.PaymentStatus, cs.ProductName = "no_payment_required", "Save a card for auto-recharge"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := f.Get("customer"); c != "" {
		if _, ok := s.customers[c]; !ok {
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "No such customer: '"+c+"'", "customer")
		}
		cs.Customer = strPtr(c)
	}
	cs.URL = s.cfg.PublicURL + "/pay/" + cs.ID
	cs.seq = s.nextSeq()
	s.byID[cs.ID] = cs
	s.log.Info("checkout session created", "session_id", cs.ID, "mode", mode, "amount", cs.AmountTotal, "client_reference_id", cs.ClientReferenceID)
	return *cs, nil
}

func (s *Sim) getSession(r *http.Request, _ url.Values) (any, *apiError) {
	cs, ok := s.Session(r.PathValue("id"))
	if !ok {
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such checkout.session: '"+r.PathValue("id")+"'", "session")
	}
	return cs, nil
}

func (s *Sim) expireSession(r *http.Request, _ url.Values) (any, *apiError) {
	s.mu.Lock()
	cs, ok := s.byID[r.PathValue("id")]
	if !ok {
		s.mu.Unlock()
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such checkout.session", "session")
	}
	if cs.Status != "open" {
		s.mu.Unlock()
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "Only open sessions can be expired.", "")
	}
	cs.Status, cs.URL = "expired", ""
	out := *cs
	s.mu.Unlock()
	s.deliver(context.WithoutCancel(r.Context()), "checkout.session.expired", out)
	return out, nil
}

// listPage is a Stripe list answer.
type listPage struct {
	Object  string `json:"object"`
	Data    []any  `json:"data"`
	HasMore bool   `json:"has_more"`
	URL     string `json:"url"`
}

// listItem is an object with the fields lists filter and page on.
type listItem struct {
	id      string
	created int64
	seq     int64
	obj     any
}

// list pages items like Stripe: newest first, created[gte|gt|lte|lt]
// filters, limit (default 10, at most 100) and starting_after.
func list(path string, items []listItem, f url.Values) (any, *apiError) {
	sort.Slice(items, func(i, j int) bool {
		if items[i].created != items[j].created {
			return items[i].created > items[j].created
		}
		return items[i].seq > items[j].seq
	})
	limit := 10
	if v := f.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "Invalid limit: must be between 1 and 100.", "limit")
		}
		limit = n
	}
	bound := func(op string) (int64, bool) {
		v := f.Get("created[" + op + "]")
		if v == "" {
			return 0, false
		}
		n, err := strconv.ParseInt(v, 10, 64)
		return n, err == nil
	}
	var filtered []listItem
	for _, it := range items {
		if v, ok := bound("gte"); ok && it.created < v {
			continue
		}
		if v, ok := bound("gt"); ok && it.created <= v {
			continue
		}
		if v, ok := bound("lte"); ok && it.created > v {
			continue
		}
		if v, ok := bound("lt"); ok && it.created >= v {
			continue
		}
		filtered = append(filtered, it)
	}
	start := 0
	if after := f.Get("starting_after"); after != "" {
		start = -1
		for i, it := range filtered {
			if it.id == after {
				start = i + 1
			}
		}
		if start < 0 {
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "No such object: '"+after+"'", "starting_after")
		}
	}
	page := listPage{Object: "list", Data: []any{}, URL: path}
	for i := start; i < len(filtered) && len(page.Data) < limit; i++ {
		page.Data = append(page.Data, filtered[i].obj)
	}
	page.HasMore = start+len(page.Data) < len(filtered)
	return page, nil
}

func (s *Sim) listSessions(r *http.Request, f url.Values) (any, *apiError) {
	s.mu.Lock()
	items := make([]listItem, 0, len(s.byID))
	for _, cs := range s.byID {
		items = append(items, listItem{id: cs.ID, created: cs.Created, seq: cs.seq, obj: *cs})
	}
	s.mu.Unlock()
	return list("/v1/checkout/sessions", items, f)
}

var pageTmpl = template.Must(template.New("pay").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stripe simulator — Checkout</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:4rem auto;padding:0 1rem}
.card{border:1px solid #ddd;border-radius:8px;padding:1.5rem}button{font-size:1rem;padding:.6rem 1.4rem;margin:0 .5rem .5rem 0;cursor:pointer}
.pay{background:#635bff;color:#fff;border:0;border-radius:6px}.cancel{background:#fff;border:1px solid #aaa;border-radius:6px}
.muted{color:#666;font-size:.9rem}</style></head>
<body><div class="card">
<p class="muted">Stripe simulator (development only) — no real payment is made.</p>
<h1>{{.Product}}</h1>
{{if eq .Mode "setup"}}<p>Save a card for off-session payments (auto-recharge).</p>
{{else}}<p>Amount: <strong id="amount">{{.Amount}}</strong></p>{{end}}
<p class="muted">Session {{.ID}} · status {{.Status}}</p>
{{if eq .Status "open"}}
{{if eq .Mode "setup"}}
<form method="post" action="/pay/{{.ID}}/save" style="display:inline"><input type="hidden" name="card" value="ok"><button class="pay" type="submit">Save card</button></form>
<form method="post" action="/pay/{{.ID}}/save" style="display:inline"><input type="hidden" name="card" value="decline"><button class="cancel" type="submit">Save declining card</button></form>
{{else}}
<form method="post" action="/pay/{{.ID}}/pay" style="display:inline"><button class="pay" type="submit">Pay</button></form>
{{end}}
<form method="post" action="/pay/{{.ID}}/cancel" style="display:inline"><button class="cancel" type="submit">Cancel</button></form>
{{else}}<p>This session is {{.Status}}.</p>
{{if .Refundable}}<form method="post" action="/pay/{{.ID}}/refund"><button class="cancel" type="submit">Refund</button></form>
<p class="muted">Refunded so far: {{.Refunded}}</p>{{end}}
{{end}}
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
	s.mu.Lock()
	cs, ok := s.byID[r.PathValue("id")]
	var (
		out        Session
		refundable bool
		refunded   int64
	)
	if ok {
		out = *cs
		if ch := s.sessionCharge(cs); ch != nil {
			refunded = ch.AmountRefunded
			refundable = ch.AmountRefunded < ch.Amount && !ch.Disputed
		}
	}
	s.mu.Unlock()
	if !ok {
		http.Error(w, "No such checkout session", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = pageTmpl.Execute(w, map[string]any{
		"ID": out.ID, "Amount": FormatAmount(out.AmountTotal, out.Currency), "Status": out.Status, "Product": out.ProductName,
		"Mode": out.Mode, "Refundable": refundable, "Refunded": FormatAmount(refunded, out.Currency),
	})
}

func (s *Sim) index(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	n, pis := len(s.byID), len(s.intents)
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	fmt.Fprintf(w, "Stripe simulator (development only). %d checkout session(s), %d payment intent(s).\n"+
		"API: /v1/checkout/sessions, /v1/customers, /v1/setup_intents, /v1/payment_methods, /v1/payment_intents, /v1/refunds; hosted page: /pay/{id}\n"+
		"Connect: /v1/accounts, /v1/account_links, /v1/transfers (a $13.13 transfer is refused); onboarding page: /connect/onboarding/{id}\n"+
		"Admin (JSON): POST /admin/transfers/{id}/reverse {\"amount\"?}, POST /admin/transfers/{id}/fail, POST /admin/accounts/{id}/restrict {\"reason\"?}, POST /admin/refunds {\"session\"|\"payment_intent\"|\"charge\", \"amount\"?}, POST /admin/disputes {same}, "+
		"POST /admin/disputes/{id}/close {\"outcome\":\"won\"|\"lost\"}, POST /admin/webhooks {\"paused\":true|false}\n", n, pis)
}

// pay completes a payment-mode session: a succeeded PaymentIntent with its
// charge, then checkout.session.completed.
func (s *Sim) pay(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	cs, ok := s.byID[r.PathValue("id")]
	if !ok || cs.Mode != "payment" {
		s.mu.Unlock()
		http.Error(w, "No such checkout session", http.StatusNotFound)
		return
	}
	first := cs.Status == "open"
	if first {
		pi := s.newIntent(cs.AmountTotal, cs.Currency, "", "", cs.Metadata)
		s.succeed(pi, "")
		cs.Status, cs.PaymentStatus, cs.PaymentIntent = "complete", "paid", strPtr(pi.ID)
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

// Event builds the Stripe event JSON for an object (a session, charge,
// dispute or PaymentIntent).
func Event(eventType string, obj any) ([]byte, string) {
	id := randomID("evt_")
	b, _ := json.Marshal(map[string]any{
		"id": id, "object": "event", "api_version": stripe.APIVersion, "created": time.Now().Unix(),
		"livemode": false, "pending_webhooks": 1, "type": eventType,
		"request": map[string]any{"id": nil, "idempotency_key": nil},
		"data":    map[string]any{"object": obj},
	})
	return b, id
}

// Sign returns the Stripe-Signature header for payload.
func Sign(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}

// deliver sends the event once synchronously and, on failure, retries in
// the background (re-signed each time, like Stripe). While webhooks are
// paused the event is dropped.
func (s *Sim) deliver(ctx context.Context, eventType string, obj any) {
	if s.cfg.WebhookURL == "" {
		return
	}
	payload, id := Event(eventType, obj)
	s.mu.Lock()
	paused := s.pausedHooks
	if paused {
		s.droppedEvents++
	}
	s.mu.Unlock()
	if paused {
		s.log.Warn("webhook dropped (deliveries paused)", "event_id", id, "type", eventType)
		return
	}
	if err := s.send(ctx, payload); err == nil {
		s.log.Info("webhook delivered", "event_id", id, "type", eventType)
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
				s.log.Info("webhook delivered", "event_id", id, "type", eventType)
				return
			} else {
				s.log.Warn("webhook delivery failed", "event_id", id, "error", err)
			}
		}
		s.log.Error("webhook delivery abandoned", "event_id", id, "type", eventType)
	}()
}

// deliverLater delivers after the API answer has gone out, as Stripe does.
func (s *Sim) deliverLater(eventType string, obj any) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		time.Sleep(20 * time.Millisecond)
		s.deliver(context.Background(), eventType, obj)
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
