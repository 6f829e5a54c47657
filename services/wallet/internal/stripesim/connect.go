package stripesim

import (
	"context"
	"encoding/json"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Stripe Connect in the simulator (creator payouts):
//
//   - Express accounts (POST /v1/accounts type=express, GET /v1/accounts/{id});
//     a new account cannot receive payouts (details not submitted).
//   - Account Links (POST /v1/account_links type=account_onboarding) whose
//     url is the simulator's hosted onboarding page /connect/onboarding/{id}:
//     "Complete onboarding" enables payouts, delivers account.updated and
//     redirects to return_url; "Submit, payouts held for review" submits
//     the details without enabling payouts (disabled_reason under_review);
//     "Cancel" redirects to refresh_url.
//   - Transfers (POST /v1/transfers, idempotent, GET /v1/transfers/{id}):
//     transfer.created follows. A Transfer of exactly FailingTransferCents
//     ($13.13) is refused like Stripe's balance_insufficient (400), and
//     so is one to an account without payouts enabled.
//   - Admin JSON: POST /admin/transfers/{id}/reverse (transfer.reversed,
//     the whole amount or {"amount": cents}), POST /admin/transfers/{id}/fail
//     (transfer.failed), POST /admin/accounts/{id}/restrict
//     {"reason": "requirements.past_due"} (payouts disabled, account.updated).

// FailingTransferCents is the magic amount whose Transfer the simulator refuses.
const FailingTransferCents = 1313

// Requirements is an account's requirements hash.
type Requirements struct {
	CurrentlyDue   []string `json:"currently_due"`
	EventuallyDue  []string `json:"eventually_due"`
	PastDue        []string `json:"past_due"`
	DisabledReason *string  `json:"disabled_reason"`
}

// Account is a simulated connected (Express) account.
type Account struct {
	ID               string            `json:"id"`
	Object           string            `json:"object"`
	Type             string            `json:"type"`
	Email            string            `json:"email,omitempty"`
	Country          string            `json:"country"`
	DefaultCurrency  string            `json:"default_currency"`
	ChargesEnabled   bool              `json:"charges_enabled"`
	PayoutsEnabled   bool              `json:"payouts_enabled"`
	DetailsSubmitted bool              `json:"details_submitted"`
	Capabilities     map[string]string `json:"capabilities"`
	Requirements     Requirements      `json:"requirements"`
	Created          int64             `json:"created"`
	Livemode         bool              `json:"livemode"`
	Metadata         map[string]string `json:"metadata"`
}

// AccountLink is a simulated onboarding link.
type AccountLink struct {
	Object    string `json:"object"`
	Created   int64  `json:"created"`
	ExpiresAt int64  `json:"expires_at"`
	URL       string `json:"url"`
	account   string
	refresh   string
	ret       string
}

// Transfer is a simulated Transfer to a connected account.
type Transfer struct {
	ID             string            `json:"id"`
	Object         string            `json:"object"`
	Amount         int64             `json:"amount"`
	AmountReversed int64             `json:"amount_reversed"`
	Currency       string            `json:"currency"`
	Description    string            `json:"description,omitempty"`
	Destination    string            `json:"destination"`
	Reversed       bool              `json:"reversed"`
	TransferGroup  string            `json:"transfer_group,omitempty"`
	Created        int64             `json:"created"`
	Livemode       bool              `json:"livemode"`
	Metadata       map[string]string `json:"metadata"`
}

func pendingRequirements() Requirements {
	reason := "requirements.past_due"
	due := []string{"business_type", "external_account", "individual.dob.day", "tos_acceptance.date"}
	return Requirements{CurrentlyDue: due, EventuallyDue: due, PastDue: due, DisabledReason: &reason}
}

func (s *Sim) registerConnect() {
	s.mux.HandleFunc("POST /v1/accounts", s.api(s.createAccount))
	s.mux.HandleFunc("GET /v1/accounts/{id}", s.api(s.getAccount))
	s.mux.HandleFunc("POST /v1/account_links", s.api(s.createAccountLink))
	s.mux.HandleFunc("POST /v1/transfers", s.api(s.createTransfer))
	s.mux.HandleFunc("GET /v1/transfers/{id}", s.api(s.getTransfer))
	s.mux.HandleFunc("GET /connect/onboarding/{id}", s.onboardingPage)
	s.mux.HandleFunc("POST /connect/onboarding/{id}/complete", s.onboardingComplete)
	s.mux.HandleFunc("POST /connect/onboarding/{id}/submit", s.onboardingSubmit)
	s.mux.HandleFunc("POST /connect/onboarding/{id}/cancel", s.onboardingCancel)
	s.mux.HandleFunc("POST /admin/transfers/{id}/reverse", s.adminReverseTransfer)
	s.mux.HandleFunc("POST /admin/transfers/{id}/fail", s.adminFailTransfer)
	s.mux.HandleFunc("POST /admin/accounts/{id}/restrict", s.adminRestrictAccount)
}

// Account returns a copy of a connected account.
func (s *Sim) Account(id string) (Account, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.accounts[id]
	if !ok {
		return Account{}, false
	}
	return *a, true
}

// Transfer returns a copy of a transfer.
func (s *Sim) Transfer(id string) (Transfer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.transfers[id]
	if !ok {
		return Transfer{}, false
	}
	return *t, true
}

func (s *Sim) createAccount(r *http.Request, f url.Values) (any, *apiError) {
	if f.Get("type") != "express" {
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "The simulator supports type=express accounts.", "type")
	}
	a := &Account{ID: randomID("acct_"), Object: "account", Type: "express", Email: f.Get("email"), Country: "US",
		DefaultCurrency: "usd", Capabilities: map[string]string{"transfers": "inactive"}, Requirements: pendingRequirements(),
		Created: time.Now().Unix(), Metadata: prefixed(f, "metadata")}
	if c := f.Get("country"); c != "" {
		a.Country = c
	}
	s.mu.Lock()
	s.accounts[a.ID] = a
	s.mu.Unlock()
	s.log.Info("connect account created", "account_id", a.ID, "metadata", a.Metadata)
	return *a, nil
}

func (s *Sim) getAccount(r *http.Request, _ url.Values) (any, *apiError) {
	a, ok := s.Account(r.PathValue("id"))
	if !ok {
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such account: '"+r.PathValue("id")+"'", "account")
	}
	return a, nil
}

func (s *Sim) createAccountLink(r *http.Request, f url.Values) (any, *apiError) {
	for _, p := range []string{"account", "type", "refresh_url", "return_url"} {
		if f.Get(p) == "" {
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "Missing required param: "+p+".", p)
		}
	}
	if t := f.Get("type"); t != "account_onboarding" {
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "The simulator supports type=account_onboarding.", "type")
	}
	if _, ok := s.Account(f.Get("account")); !ok {
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "No such account: '"+f.Get("account")+"'", "account")
	}
	now := time.Now()
	id := randomID("acctlink_")
	l := &AccountLink{Object: "account_link", Created: now.Unix(), ExpiresAt: now.Add(5 * time.Minute).Unix(),
		URL: s.cfg.PublicURL + "/connect/onboarding/" + id, account: f.Get("account"), refresh: f.Get("refresh_url"), ret: f.Get("return_url")}
	s.mu.Lock()
	s.links[id] = l
	s.mu.Unlock()
	return *l, nil
}

var onboardingTmpl = template.Must(template.New("onboarding").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Stripe simulator — Express onboarding</title>
<style>body{font-family:system-ui,sans-serif;max-width:30rem;margin:4rem auto;padding:0 1rem}
.card{border:1px solid #ddd;border-radius:8px;padding:1.5rem}button{font-size:1rem;padding:.6rem 1.4rem;margin:0 .5rem .5rem 0;cursor:pointer}
.pay{background:#635bff;color:#fff;border:0;border-radius:6px}.cancel{background:#fff;border:1px solid #aaa;border-radius:6px}
.muted{color:#666;font-size:.9rem}</style></head>
<body><main class="card" aria-labelledby="title">
<p class="muted">Stripe simulator (development only) — no real account is created.</p>
<h1 id="title">Set up payouts</h1>
<p>Connected account <strong>{{.Account}}</strong>{{if .Email}} for {{.Email}}{{end}}.</p>
<p class="muted">Status: {{if .Enabled}}payouts enabled{{else}}payouts not enabled yet{{end}}</p>
<form method="post" action="/connect/onboarding/{{.ID}}/complete" style="display:inline"><button class="pay" type="submit" aria-label="Complete onboarding">Complete</button></form>
<form method="post" action="/connect/onboarding/{{.ID}}/submit" style="display:inline"><button class="cancel" type="submit" aria-label="Submit details, payouts held for review">Submit, payouts held for review</button></form>
<form method="post" action="/connect/onboarding/{{.ID}}/cancel" style="display:inline"><button class="cancel" type="submit" aria-label="Cancel onboarding">Cancel</button></form>
</main></body></html>`))

// link returns the link and its account (locked by the caller: no).
func (s *Sim) link(id string) (AccountLink, *Account, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l, ok := s.links[id]
	if !ok {
		return AccountLink{}, nil, false
	}
	return *l, s.accounts[l.account], true
}

func (s *Sim) onboardingPage(w http.ResponseWriter, r *http.Request) {
	l, a, ok := s.link(r.PathValue("id"))
	if !ok || a == nil {
		http.Error(w, "No such account link", http.StatusNotFound)
		return
	}
	s.mu.Lock()
	data := map[string]any{"ID": r.PathValue("id"), "Account": a.ID, "Email": a.Email, "Enabled": a.PayoutsEnabled}
	s.mu.Unlock()
	_ = l
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_ = onboardingTmpl.Execute(w, data)
}

// setAccount changes an account under the lock and delivers account.updated.
func (s *Sim) setAccount(ctx context.Context, id string, change func(a *Account)) (Account, bool) {
	s.mu.Lock()
	a, ok := s.accounts[id]
	if !ok {
		s.mu.Unlock()
		return Account{}, false
	}
	change(a)
	out := *a
	s.mu.Unlock()
	s.deliver(ctx, "account.updated", out)
	return out, true
}

func (s *Sim) onboardingComplete(w http.ResponseWriter, r *http.Request) {
	l, _, ok := s.link(r.PathValue("id"))
	if !ok {
		http.Error(w, "No such account link", http.StatusNotFound)
		return
	}
	// Delivered before the redirect: the earnings page usually shows the
	// enabled account when the browser lands on it.
	s.setAccount(context.WithoutCancel(r.Context()), l.account, func(a *Account) {
		a.DetailsSubmitted, a.PayoutsEnabled, a.ChargesEnabled = true, true, true
		a.Capabilities["transfers"] = "active"
		a.Requirements = Requirements{CurrentlyDue: []string{}, EventuallyDue: []string{}, PastDue: []string{}}
	})
	http.Redirect(w, r, l.ret, http.StatusSeeOther)
}

func (s *Sim) onboardingSubmit(w http.ResponseWriter, r *http.Request) {
	l, _, ok := s.link(r.PathValue("id"))
	if !ok {
		http.Error(w, "No such account link", http.StatusNotFound)
		return
	}
	s.setAccount(context.WithoutCancel(r.Context()), l.account, func(a *Account) {
		reason := "under_review"
		a.DetailsSubmitted, a.PayoutsEnabled = true, false
		a.Capabilities["transfers"] = "inactive"
		a.Requirements = Requirements{CurrentlyDue: []string{}, EventuallyDue: []string{}, PastDue: []string{}, DisabledReason: &reason}
	})
	http.Redirect(w, r, l.ret, http.StatusSeeOther)
}

func (s *Sim) onboardingCancel(w http.ResponseWriter, r *http.Request) {
	l, _, ok := s.link(r.PathValue("id"))
	if !ok {
		http.Error(w, "No such account link", http.StatusNotFound)
		return
	}
	http.Redirect(w, r, l.refresh, http.StatusSeeOther)
}

func (s *Sim) createTransfer(r *http.Request, f url.Values) (any, *apiError) {
	for _, p := range []string{"amount", "currency", "destination"} {
		if f.Get(p) == "" {
			return nil, newError(http.StatusBadRequest, "invalid_request_error", "Missing required param: "+p+".", p)
		}
	}
	amount, err := strconv.ParseInt(f.Get("amount"), 10, 64)
	if err != nil || amount < 1 {
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "Invalid positive integer", "amount")
	}
	dest := f.Get("destination")
	a, ok := s.Account(dest)
	switch {
	case !ok:
		return nil, newError(http.StatusBadRequest, "invalid_request_error", "No such destination: '"+dest+"'", "destination")
	case !a.PayoutsEnabled || a.Capabilities["transfers"] != "active":
		return nil, newError(http.StatusBadRequest, "invalid_request_error",
			"Your destination account needs to have at least one of the following capabilities enabled: transfers, crypto_transfers, legacy_payments", "destination")
	case amount == FailingTransferCents:
		e := newError(http.StatusBadRequest, "invalid_request_error",
			"You have insufficient available funds in your Stripe account. Try adding funds directly to your available balance by creating Charges using the 4000000000000077 test card.", "")
		e.body["error"].(map[string]any)["code"] = "balance_insufficient"
		return nil, e
	}
	t := &Transfer{ID: randomID("tr_"), Object: "transfer", Amount: amount, Currency: strings.ToLower(f.Get("currency")),
		Description: f.Get("description"), Destination: dest, TransferGroup: f.Get("transfer_group"), Created: time.Now().Unix(),
		Metadata: prefixed(f, "metadata")}
	s.mu.Lock()
	s.transfers[t.ID] = t
	s.mu.Unlock()
	s.log.Info("transfer created", "transfer_id", t.ID, "amount", amount, "destination", dest)
	s.deliverLater("transfer.created", *t)
	return *t, nil
}

func (s *Sim) getTransfer(r *http.Request, _ url.Values) (any, *apiError) {
	t, ok := s.Transfer(r.PathValue("id"))
	if !ok {
		return nil, newError(http.StatusNotFound, "invalid_request_error", "No such transfer: '"+r.PathValue("id")+"'", "id")
	}
	return t, nil
}

// adminReverseTransfer reverses a transfer (the rest, or {"amount": cents}).
func (s *Sim) adminReverseTransfer(w http.ResponseWriter, r *http.Request) {
	t, ok := readAdmin(w, r)
	if !ok {
		return
	}
	s.mu.Lock()
	tr, found := s.transfers[r.PathValue("id")]
	if !found || tr.Reversed {
		s.mu.Unlock()
		stripeError(w, http.StatusBadRequest, "invalid_request_error", "No such reversible transfer: '"+r.PathValue("id")+"'", "transfer")
		return
	}
	amount := t.Amount
	if amount <= 0 || amount > tr.Amount-tr.AmountReversed {
		amount = tr.Amount - tr.AmountReversed
	}
	tr.AmountReversed += amount
	tr.Reversed = tr.AmountReversed == tr.Amount
	out := *tr
	s.mu.Unlock()
	s.deliver(context.WithoutCancel(r.Context()), "transfer.reversed", out)
	writeJSON(w, http.StatusOK, out)
}

// adminFailTransfer reports a transfer as failed (transfer.failed).
func (s *Sim) adminFailTransfer(w http.ResponseWriter, r *http.Request) {
	tr, found := s.Transfer(r.PathValue("id"))
	if !found {
		stripeError(w, http.StatusBadRequest, "invalid_request_error", "No such transfer: '"+r.PathValue("id")+"'", "transfer")
		return
	}
	s.deliver(context.WithoutCancel(r.Context()), "transfer.failed", tr)
	writeJSON(w, http.StatusOK, tr)
}

// adminRestrictAccount disables an account's payouts {"reason": "..."}.
func (s *Sim) adminRestrictAccount(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Reason string `json:"reason"`
	}
	if r.Body != nil {
		_ = jsonDecode(w, r, &body)
	}
	if body.Reason == "" {
		body.Reason = "requirements.past_due"
	}
	out, ok := s.setAccount(context.WithoutCancel(r.Context()), r.PathValue("id"), func(a *Account) {
		reason := body.Reason
		a.PayoutsEnabled = false
		a.Capabilities["transfers"] = "inactive"
		a.Requirements = Requirements{CurrentlyDue: []string{"individual.verification.document"}, EventuallyDue: []string{},
			PastDue: []string{"individual.verification.document"}, DisabledReason: &reason}
	})
	if !ok {
		stripeError(w, http.StatusNotFound, "invalid_request_error", "No such account: '"+r.PathValue("id")+"'", "account")
		return
	}
	writeJSON(w, http.StatusOK, out)
}

func jsonDecode(w http.ResponseWriter, r *http.Request, v any) error {
	return json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<16)).Decode(v)
}
