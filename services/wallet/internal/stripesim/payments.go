package stripesim

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Customer is a simulated customer.
type Customer struct {
	ID       string            `json:"id"`
	Object   string            `json:"object"`
	Email    string            `json:"email,omitempty"`
	Name     string            `json:"name,omitempty"`
	Created  int64             `json:"created"`
	Livemode bool              `json:"livemode"`
	Metadata map[string]string `json:"metadata"`
}

// Card is a payment method's card.
type Card struct {
	Brand    string `json:"brand"`
	Last4    string `json:"last4"`
	ExpMonth int64  `json:"exp_month"`
	ExpYear  int64  `json:"exp_year"`
	Funding  string `json:"funding"`
	Country  string `json:"country"`
}

// PaymentMethod is a saved test card.
type PaymentMethod struct {
	ID       string            `json:"id"`
	Object   string            `json:"object"`
	Type     string            `json:"type"`
	Card     Card              `json:"card"`
	Customer string            `json:"customer"`
	Created  int64             `json:"created"`
	Livemode bool              `json:"livemode"`
	Metadata map[string]string `json:"metadata"`
	// Declines: every charge is declined (like 4000000000000341).
	Declines bool `json:"-"`
}

// SetupIntent is what a setup-mode session leaves behind.
type SetupIntent struct {
	ID            string            `json:"id"`
	Object        string            `json:"object"`
	Status        string            `json:"status"`
	Customer      string            `json:"customer"`
	PaymentMethod any               `json:"payment_method"` // id, or the object when expanded
	Usage         string            `json:"usage"`
	Created       int64             `json:"created"`
	Livemode      bool              `json:"livemode"`
	Metadata      map[string]string `json:"metadata"`
	pm            string
}

// PaymentError is a PaymentIntent's last_payment_error.
type PaymentError struct {
	Type        string `json:"type"`
	Code        string `json:"code"`
	DeclineCode string `json:"decline_code"`
	Message     string `json:"message"`
}

// PaymentIntent is a simulated PaymentIntent.
type PaymentIntent struct {
	ID               string            `json:"id"`
	Object           string            `json:"object"`
	Amount           int64             `json:"amount"`
	AmountReceived   int64             `json:"amount_received"`
	Currency         string            `json:"currency"`
	Customer         *string           `json:"customer"`
	PaymentMethod    *string           `json:"payment_method"`
	Status           string            `json:"status"`
	LatestCharge     *string           `json:"latest_charge"`
	LastPaymentError *PaymentError     `json:"last_payment_error"`
	Description      string            `json:"description,omitempty"`
	Created          int64             `json:"created"`
	Livemode         bool              `json:"livemode"`
	Metadata         map[string]string `json:"metadata"`
	seq              int64
}

// Charge is a simulated charge.
type Charge struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	Amount         int64             `json:"amount"`
	AmountRefunded int64             `json:"amount_refunded"`
	Currency       string            `json:"currency"`
	PaymentIntent  string            `json:"payment_intent"`
	Customer       *string           `json:"customer"`
	Paid           bool              `json:"paid"`
	Refunded       bool              `json:"refunded"`
	Disputed       bool              `json:"disputed"`
	Status         string            `json:"status"`
	Created        int64             `json:"created"`
	Livemode       bool              `json:"livemode"`
	Metadata       map[string]string `json:"metadata"`
}

// Refund is a simulated refund.
type Refund struct {
	ID            string `json:"id"`
	Object        string `json:"object"`
	Amount        int64  `json:"amount"`
	Charge        string `json:"charge"`
	PaymentIntent string `json:"payment_intent"`
	Currency      string `json:"currency"`
	Status        string `json:"status"`
	Created       int64  `json:"created"`
}

// Dispute is a simulated dispute.
type Dispute struct {
	ID            string `json:"id"`
	Object        string `json:"object"`
	Amount        int64  `json:"amount"`
	Charge        string `json:"charge"`
	PaymentIntent string `json:"payment_intent"`
	Currency      string `json:"currency"`
	Reason        string `json:"reason"`
	Status        string `json:"status"`
	Created       int64  `json:"created"`
	Livemode      bool   `json:"livemode"`
}

func (s *Sim) createCustomer(r *http.Request, f url.Values) (any, *apiError) {
	c := &Customer{ID: randomID("cus_"), Object: "customer", Email: f.Get("email"), Name: f.Get("name"),
		Created: time.Now().Unix(), Metadata: prefixed(f, "metadata")}
	s.mu.Lock()
	s.customers[c.ID] = c
	s.mu.Unlock()
	return *c, nil
}

func (s *Sim) getCustomer(r *http.Request, _ url.Values) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.customers[r.PathValue("id")]
	if !ok {
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such customer: '"+r.PathValue("id")+"'", "id")
	}
	return *c, nil
}

// saveCard completes a setup-mode session: a card (paying, or declining
// with card=decline) saved to the session's customer through a succeeded
// SetupIntent, then checkout.session.completed.
func (s *Sim) saveCard(w http.ResponseWriter, r *http.Request) {
	_ = r.ParseForm()
	s.mu.Lock()
	cs, ok := s.byID[r.PathValue("id")]
	if !ok || cs.Mode != "setup" {
		s.mu.Unlock()
		http.Error(w, "No such setup session", http.StatusNotFound)
		return
	}
	first := cs.Status == "open"
	if first {
		if cs.Customer == nil {
			c := &Customer{ID: randomID("cus_"), Object: "customer", Email: cs.CustomerEmail, Created: time.Now().Unix(), Metadata: map[string]string{}}
			s.customers[c.ID] = c
			cs.Customer = strPtr(c.ID)
		}
		declines := r.Form.Get("card") == "decline"
		last4 := "4242"
		if declines {
			last4 = "0341"
		}
		pm := &PaymentMethod{ID: randomID("pm_"), Object: "payment_method", Type: "card", Customer: *cs.Customer,
			Card:    Card{Brand: "visa", Last4: last4, ExpMonth: 12, ExpYear: int64(time.Now().Year() + 3), Funding: "credit", Country: "US"},
			Created: time.Now().Unix(), Metadata: map[string]string{}, Declines: declines}
		si := &SetupIntent{ID: randomID("seti_"), Object: "setup_intent", Status: "succeeded", Customer: *cs.Customer,
			PaymentMethod: pm.ID, pm: pm.ID, Usage: "off_session", Created: time.Now().Unix(), Metadata: cs.Metadata}
		s.methods[pm.ID], s.setupIntents[si.ID] = pm, si
		cs.Status, cs.SetupIntent = "complete", strPtr(si.ID)
	}
	out := *cs
	s.mu.Unlock()
	if first {
		s.deliver(context.WithoutCancel(r.Context()), "checkout.session.completed", out)
	}
	http.Redirect(w, r, strings.ReplaceAll(out.SuccessURL, "{CHECKOUT_SESSION_ID}", out.ID), http.StatusSeeOther)
}

func (s *Sim) getSetupIntent(r *http.Request, f url.Values) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	si, ok := s.setupIntents[r.PathValue("id")]
	if !ok {
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such setupintent: '"+r.PathValue("id")+"'", "intent")
	}
	out := *si
	if expands(f, "payment_method") {
		out.PaymentMethod = *s.methods[si.pm]
	}
	return out, nil
}

func (s *Sim) getPaymentMethod(r *http.Request, _ url.Values) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pm, ok := s.methods[r.PathValue("id")]
	if !ok {
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such PaymentMethod: '"+r.PathValue("id")+"'", "payment_method")
	}
	return *pm, nil
}

// newIntent creates a PaymentIntent (caller holds mu).
func (s *Sim) newIntent(amount int64, currency, customer, pm string, meta map[string]string) *PaymentIntent {
	pi := &PaymentIntent{ID: randomID("pi_"), Object: "payment_intent", Amount: amount, Currency: currency,
		Status: "requires_payment_method", Created: time.Now().Unix(), Metadata: meta, seq: s.nextSeq()}
	if pi.Metadata == nil {
		pi.Metadata = map[string]string{}
	}
	if customer != "" {
		pi.Customer = strPtr(customer)
	}
	if pm != "" {
		pi.PaymentMethod, pi.Status = strPtr(pm), "requires_confirmation"
	}
	s.intents[pi.ID] = pi
	return pi
}

// succeed marks pi paid with a new charge (caller holds mu).
func (s *Sim) succeed(pi *PaymentIntent, pm string) {
	ch := &Charge{ID: randomID("ch_"), Object: "charge", Amount: pi.Amount, Currency: pi.Currency, PaymentIntent: pi.ID,
		Customer: pi.Customer, Paid: true, Status: "succeeded", Created: time.Now().Unix(), Metadata: pi.Metadata}
	s.charges[ch.ID] = ch
	pi.Status, pi.AmountReceived, pi.LatestCharge, pi.LastPaymentError = "succeeded", pi.Amount, strPtr(ch.ID), nil
	if pm != "" {
		pi.PaymentMethod = strPtr(pm)
	}
}

// confirm charges pi's payment method: succeeded, or declined (a failed
// charge, status requires_payment_method and a card_error). Caller holds mu.
func (s *Sim) confirm(pi *PaymentIntent) (event string, apiErr *apiError) {
	if pi.PaymentMethod == nil {
		return "", newError(http.StatusBadRequest, "invalid_request_error",
			"You cannot confirm this PaymentIntent because it's missing a payment method.", "payment_method")
	}
	pm, ok := s.methods[*pi.PaymentMethod]
	if !ok {
		return "", newError(http.StatusBadRequest, "invalid_request_error", "No such PaymentMethod: '"+*pi.PaymentMethod+"'", "payment_method")
	}
	if pi.Customer != nil && pm.Customer != *pi.Customer {
		return "", newError(http.StatusBadRequest, "invalid_request_error",
			"The provided PaymentMethod belongs to another customer.", "payment_method")
	}
	if !pm.Declines {
		s.succeed(pi, pm.ID)
		return "payment_intent.succeeded", nil
	}
	ch := &Charge{ID: randomID("ch_"), Object: "charge", Amount: pi.Amount, Currency: pi.Currency, PaymentIntent: pi.ID,
		Customer: pi.Customer, Status: "failed", Created: time.Now().Unix(), Metadata: pi.Metadata}
	s.charges[ch.ID] = ch
	pe := &PaymentError{Type: "card_error", Code: "card_declined", DeclineCode: "generic_decline", Message: "Your card was declined."}
	pi.Status, pi.LatestCharge, pi.LastPaymentError = "requires_payment_method", strPtr(ch.ID), pe
	body := map[string]any{"error": map[string]any{"type": pe.Type, "code": pe.Code, "decline_code": pe.DeclineCode,
		"message": pe.Message, "charge": ch.ID, "payment_intent": *pi}}
	return "payment_intent.payment_failed", &apiError{status: http.StatusPaymentRequired, body: body}
}

// createPaymentIntent supports what an off-session recharge sends: amount,
// currency, customer, payment_method, confirm, off_session, metadata.
func (s *Sim) createPaymentIntent(r *http.Request, f url.Values) (any, *apiError) {
	amount, err := strconv.ParseInt(f.Get("amount"), 10, 64)
	if err != nil || amount < 50 {
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "Amount must be at least 50 cents.", "amount")
	}
	if f.Get("currency") == "" {
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "Missing required param: currency.", "currency")
	}
	s.mu.Lock()
	if c := f.Get("customer"); c != "" {
		if _, ok := s.customers[c]; !ok {
			s.mu.Unlock()
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "No such customer: '"+c+"'", "customer")
		}
	}
	pi := s.newIntent(amount, strings.ToLower(f.Get("currency")), f.Get("customer"), f.Get("payment_method"), prefixed(f, "metadata"))
	pi.Description = f.Get("description")
	var (
		event  string
		apiErr *apiError
	)
	if f.Get("confirm") == "true" {
		event, apiErr = s.confirm(pi)
		if apiErr != nil && event == "" {
			delete(s.intents, pi.ID) // invalid: nothing was created
		}
	}
	out := *pi
	s.mu.Unlock()
	if event != "" {
		s.deliverLater(event, out)
	}
	if apiErr != nil {
		return nil, apiErr
	}
	return out, nil
}

func (s *Sim) confirmPaymentIntent(r *http.Request, f url.Values) (any, *apiError) {
	s.mu.Lock()
	pi, ok := s.intents[r.PathValue("id")]
	if !ok {
		s.mu.Unlock()
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such payment_intent: '"+r.PathValue("id")+"'", "intent")
	}
	if pm := f.Get("payment_method"); pm != "" {
		pi.PaymentMethod = strPtr(pm)
	}
	if pi.Status == "succeeded" {
		s.mu.Unlock()
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "This PaymentIntent has already succeeded.", "")
	}
	event, apiErr := s.confirm(pi)
	out := *pi
	s.mu.Unlock()
	if event != "" {
		s.deliverLater(event, out)
	}
	if apiErr != nil {
		return nil, apiErr
	}
	return out, nil
}

func (s *Sim) getPaymentIntent(r *http.Request, _ url.Values) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	pi, ok := s.intents[r.PathValue("id")]
	if !ok {
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such payment_intent: '"+r.PathValue("id")+"'", "intent")
	}
	return *pi, nil
}

func (s *Sim) listPaymentIntents(r *http.Request, f url.Values) (any, *apiError) {
	s.mu.Lock()
	items := make([]listItem, 0, len(s.intents))
	for _, pi := range s.intents {
		if c := f.Get("customer"); c != "" && (pi.Customer == nil || *pi.Customer != c) {
			continue
		}
		items = append(items, listItem{id: pi.ID, created: pi.Created, seq: pi.seq, obj: *pi})
	}
	s.mu.Unlock()
	return list("/v1/payment_intents", items, f)
}

func (s *Sim) getCharge(r *http.Request, _ url.Values) (any, *apiError) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, ok := s.charges[r.PathValue("id")]
	if !ok {
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such charge: '"+r.PathValue("id")+"'", "charge")
	}
	return *ch, nil
}

// sessionCharge is the succeeded charge of a paid session (caller holds mu).
func (s *Sim) sessionCharge(cs *Session) *Charge {
	if cs.PaymentIntent == nil {
		return nil
	}
	pi := s.intents[*cs.PaymentIntent]
	if pi == nil || pi.LatestCharge == nil {
		return nil
	}
	return s.charges[*pi.LatestCharge]
}

// findCharge resolves a charge from a charge, PaymentIntent or session id
// (caller holds mu).
func (s *Sim) findCharge(chargeID, piID, sessionID string) (*Charge, *apiError) {
	switch {
	case chargeID != "":
		if ch := s.charges[chargeID]; ch != nil {
			return ch, nil
		}
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such charge: '"+chargeID+"'", "charge")
	case piID != "":
		if pi := s.intents[piID]; pi != nil && pi.LatestCharge != nil && pi.Status == "succeeded" {
			return s.charges[*pi.LatestCharge], nil
		}
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "PaymentIntent '"+piID+"' has no succeeded charge.", "payment_intent")
	case sessionID != "":
		if cs := s.byID[sessionID]; cs != nil {
			if ch := s.sessionCharge(cs); ch != nil {
				return ch, nil
			}
		}
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "Session '"+sessionID+"' is not paid.", "session")
	}
	return nil, newError(http.StatusBadRequest, "invalid_request_error", "One of charge or payment_intent is required.", "charge")
}

// refund refunds amount (0: the rest) of ch and returns the refund and the
// charge after it (caller holds mu).
func (s *Sim) refund(ch *Charge, amount int64) (*Refund, Charge, *apiError) {
	if ch.Disputed {
		return nil, Charge{}, newError(http.StatusBadRequest, "invalid_request_error",
			"Charge "+ch.ID+" has been charged back; cannot issue a refund.", "charge")
	}
	rest := ch.Amount - ch.AmountRefunded
	if amount == 0 {
		amount = rest
	}
	if amount <= 0 || amount > rest {
		return nil, Charge{}, newError(http.StatusBadRequest, "invalid_request_error",
			"Refund amount ("+FormatAmount(amount, ch.Currency)+") is greater than unrefunded amount on charge ("+FormatAmount(rest, ch.Currency)+")", "amount")
	}
	ch.AmountRefunded += amount
	ch.Refunded = ch.AmountRefunded == ch.Amount
	re := &Refund{ID: randomID("re_"), Object: "refund", Amount: amount, Charge: ch.ID, PaymentIntent: ch.PaymentIntent,
		Currency: ch.Currency, Status: "succeeded", Created: time.Now().Unix()}
	s.refunds[re.ID] = re
	return re, *ch, nil
}

// createRefund is POST /v1/refunds (charge or payment_intent, optional amount).
func (s *Sim) createRefund(r *http.Request, f url.Values) (any, *apiError) {
	var amount int64
	if v := f.Get("amount"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "Invalid positive integer", "amount")
		}
		amount = n
	}
	s.mu.Lock()
	ch, apiErr := s.findCharge(f.Get("charge"), f.Get("payment_intent"), "")
	if apiErr != nil {
		s.mu.Unlock()
		return nil, apiErr
	}
	re, after, apiErr := s.refund(ch, amount)
	s.mu.Unlock()
	if apiErr != nil {
		return nil, apiErr
	}
	s.deliver(context.WithoutCancel(r.Context()), "charge.refunded", after)
	return *re, nil
}

// pageRefund is the hosted page's Refund button (the rest of the charge).
func (s *Sim) pageRefund(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	ch, apiErr := s.findCharge("", "", r.PathValue("id"))
	var after Charge
	if apiErr == nil {
		_, after, apiErr = s.refund(ch, 0)
	}
	s.mu.Unlock()
	if apiErr != nil {
		writeJSON(w, apiErr.status, apiErr.body)
		return
	}
	s.deliver(context.WithoutCancel(r.Context()), "charge.refunded", after)
	http.Redirect(w, r, "/pay/"+r.PathValue("id"), http.StatusSeeOther)
}

// adminTarget is the JSON body of the admin calls.
type adminTarget struct {
	Session       string `json:"session"`
	PaymentIntent string `json:"payment_intent"`
	Charge        string `json:"charge"`
	Amount        int64  `json:"amount"`
	Outcome       string `json:"outcome"`
	Paused        *bool  `json:"paused"`
}

func readAdmin(w http.ResponseWriter, r *http.Request) (adminTarget, bool) {
	var t adminTarget
	if r.Body != nil {
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(&t); err != nil && !errors.Is(err, io.EOF) {
			stripeError(w, http.StatusBadRequest, "invalid_request_error", "Invalid JSON body.", "")
			return t, false
		}
	}
	return t, true
}

// adminRefund refunds a session's (or PaymentIntent's, or charge's) charge:
// {"session": "cs_..."[, "amount": cents]}.
func (s *Sim) adminRefund(w http.ResponseWriter, r *http.Request) {
	t, ok := readAdmin(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	ch, apiErr := s.findCharge(t.Charge, t.PaymentIntent, t.Session)
	var (
		re    *Refund
		after Charge
	)
	if apiErr == nil {
		re, after, apiErr = s.refund(ch, t.Amount)
	}
	s.mu.Unlock()
	if apiErr != nil {
		writeJSON(w, apiErr.status, apiErr.body)
		return
	}
	s.deliver(context.WithoutCancel(r.Context()), "charge.refunded", after)
	writeJSON(w, http.StatusOK, re)
}

// adminOpenDispute opens a dispute on a charge: the funds are withdrawn
// (charge.dispute.created, then charge.dispute.funds_withdrawn, as Stripe).
func (s *Sim) adminOpenDispute(w http.ResponseWriter, r *http.Request) {
	t, ok := readAdmin(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	ch, apiErr := s.findCharge(t.Charge, t.PaymentIntent, t.Session)
	if apiErr == nil && ch.Disputed {
		apiErr = newError(http.StatusBadRequest, "invalid_request_error", "Charge "+ch.ID+" is already disputed.", "charge")
	}
	if apiErr != nil {
		s.mu.Unlock()
		writeJSON(w, apiErr.status, apiErr.body)
		return
	}
	amount := t.Amount
	if amount <= 0 || amount > ch.Amount-ch.AmountRefunded {
		amount = ch.Amount - ch.AmountRefunded
	}
	ch.Disputed = true
	d := &Dispute{ID: randomID("dp_"), Object: "dispute", Amount: amount, Charge: ch.ID, PaymentIntent: ch.PaymentIntent,
		Currency: ch.Currency, Reason: "fraudulent", Status: "needs_response", Created: time.Now().Unix()}
	s.disputes[d.ID] = d
	out := *d
	s.mu.Unlock()
	ctx := context.WithoutCancel(r.Context())
	s.deliver(ctx, "charge.dispute.created", out)
	s.deliver(ctx, "charge.dispute.funds_withdrawn", out)
	writeJSON(w, http.StatusOK, out)
}

// adminCloseDispute closes a dispute {"outcome": "won"|"lost"}
// (charge.dispute.closed; a win also charge.dispute.funds_reinstated).
func (s *Sim) adminCloseDispute(w http.ResponseWriter, r *http.Request) {
	t, ok := readAdmin(w, r)
	if !ok {
		return
	}
	if t.Outcome != "won" && t.Outcome != "lost" {
		stripeError(w, http.StatusBadRequest, "invalid_request_error", `outcome must be "won" or "lost".`, "outcome")
		return
	}
	s.mu.Lock()
	d, found := s.disputes[r.PathValue("id")]
	if !found || d.Status == "won" || d.Status == "lost" {
		s.mu.Unlock()
		stripeError(w, http.StatusBadRequest, "invalid_request_error", "No such open dispute: '"+r.PathValue("id")+"'", "dispute")
		return
	}
	d.Status = t.Outcome
	out := *d
	s.mu.Unlock()
	ctx := context.WithoutCancel(r.Context())
	s.deliver(ctx, "charge.dispute.closed", out)
	if t.Outcome == "won" {
		s.deliver(ctx, "charge.dispute.funds_reinstated", out)
	}
	writeJSON(w, http.StatusOK, out)
}

// adminWebhooks pauses or resumes webhook delivery {"paused": true|false}.
func (s *Sim) adminWebhooks(w http.ResponseWriter, r *http.Request) {
	t, ok := readAdmin(w, r)
	if !ok {
		return
	}
	if t.Paused == nil {
		stripeError(w, http.StatusBadRequest, "invalid_request_error", "paused (boolean) is required.", "paused")
		return
	}
	s.PauseWebhooks(*t.Paused)
	s.mu.Lock()
	dropped := s.droppedEvents
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"paused": *t.Paused, "dropped": dropped})
}
