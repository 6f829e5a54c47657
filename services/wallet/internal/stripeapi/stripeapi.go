// Package stripeapi is the wallet's Stripe adapter (wallet.Payments): it
// creates Checkout Sessions with stripe-go against a configurable API base
// (Stripe, the dev simulator or stripe-mock) and verifies webhook signatures
// with stripe-go's webhook package.
package stripeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v85"
	"github.com/stripe/stripe-go/v85/webhook"

	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// ProductName is the line item's product name on the hosted page.
const ProductName = "Agentic wallet top-up"

// WebhookTolerance is the accepted age of a webhook signature timestamp.
const WebhookTolerance = 300 * time.Second

// Config configures the client.
type Config struct {
	// APIBase is the API origin, e.g. https://api.stripe.com or http://127.0.0.1:8110.
	APIBase        string
	SecretKey      string
	PublishableKey string
	WebhookSecret  string
	// HTTPClient defaults to a client with a 20 s timeout.
	HTTPClient *http.Client
	// MaxNetworkRetries defaults to 2 (stripe-go reuses the idempotency key).
	MaxNetworkRetries *int64
}

// Client implements wallet.Payments.
type Client struct {
	sc  *stripe.Client
	cfg Config
}

// New returns a Client.
func New(cfg Config) *Client {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: 20 * time.Second}
	}
	bc := &stripe.BackendConfig{
		HTTPClient:        cfg.HTTPClient,
		MaxNetworkRetries: cfg.MaxNetworkRetries,
		LeveledLogger:     &stripe.LeveledLogger{Level: stripe.LevelNull}, // errors are returned and logged by the service
	}
	if cfg.APIBase != "" {
		bc.URL = stripe.String(strings.TrimRight(cfg.APIBase, "/"))
	}
	backends := &stripe.Backends{
		API:     stripe.GetBackendWithConfig(stripe.APIBackend, bc),
		Connect: stripe.GetBackendWithConfig(stripe.ConnectBackend, bc),
		Uploads: stripe.GetBackendWithConfig(stripe.UploadsBackend, bc),
	}
	return &Client{sc: stripe.NewClient(cfg.SecretKey, stripe.WithBackends(backends)), cfg: cfg}
}

// PublishableKey implements wallet.Payments.
func (c *Client) PublishableKey() string { return c.cfg.PublishableKey }

// Params builds the Checkout Session parameters for p (exported for tests).
func Params(p wallet.CheckoutParams) *stripe.CheckoutSessionCreateParams {
	params := &stripe.CheckoutSessionCreateParams{
		Mode: stripe.String(string(stripe.CheckoutSessionModePayment)),
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{
				Currency:    stripe.String(p.Currency),
				UnitAmount:  stripe.Int64(p.AmountCents),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String(ProductName)},
			},
			Quantity: stripe.Int64(1),
		}},
		SuccessURL:        stripe.String(p.SuccessURL),
		CancelURL:         stripe.String(p.CancelURL),
		ClientReferenceID: stripe.String(p.UID),
		Metadata:          p.Metadata,
	}
	if p.Email != "" {
		params.CustomerEmail = stripe.String(p.Email)
	}
	if p.IdempotencyKey != "" {
		params.SetIdempotencyKey(p.IdempotencyKey)
	}
	return params
}

// CreateCheckoutSession implements wallet.Payments. Failures are returned as
// *wallet.ProviderError (HTTP 502).
func (c *Client) CreateCheckoutSession(ctx context.Context, p wallet.CheckoutParams) (wallet.ProviderSession, error) {
	s, err := c.sc.V1CheckoutSessions.Create(ctx, Params(p))
	if err != nil {
		msg := "Payment provider error: could not create the checkout session"
		var se *stripe.Error
		if errors.As(err, &se) && se.Msg != "" {
			msg += " (" + se.Msg + ")"
		}
		return wallet.ProviderSession{}, &wallet.ProviderError{Message: msg, Err: err}
	}
	if s == nil || s.ID == "" {
		return wallet.ProviderSession{}, &wallet.ProviderError{Message: "Payment provider error: empty checkout session", Err: errors.New("no session id")}
	}
	return wallet.ProviderSession{ID: s.ID, URL: s.URL}, nil
}

// eventObject is the part of an event's data.object the wallet reads: a
// checkout.session, charge, dispute or payment_intent (fields of the others
// stay empty). Ids of related objects may be a string or, when expanded, an
// object with an id.
type eventObject struct {
	ID                string            `json:"id"`
	Object            string            `json:"object"`
	Mode              string            `json:"mode"`
	PaymentStatus     string            `json:"payment_status"`
	AmountTotal       int64             `json:"amount_total"`
	Currency          string            `json:"currency"`
	ClientReferenceID string            `json:"client_reference_id"`
	PaymentIntent     json.RawMessage   `json:"payment_intent"`
	SetupIntent       json.RawMessage   `json:"setup_intent"`
	Customer          json.RawMessage   `json:"customer"`
	Charge            json.RawMessage   `json:"charge"`
	Amount            int64             `json:"amount"`
	AmountRefunded    int64             `json:"amount_refunded"`
	Status            string            `json:"status"`
	Metadata          map[string]string `json:"metadata"`
	LatestCharge      json.RawMessage   `json:"latest_charge"`
	LastPaymentError  *struct {
		Message string `json:"message"`
		Code    string `json:"code"`
	} `json:"last_payment_error"`
}

// idOf reads an id that is either a JSON string or an object with an id.
func idOf(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &o)
	return o.ID
}

// ParseWebhook implements wallet.Payments: stripe-go verifies the
// Stripe-Signature header (HMAC-SHA256, timestamp within 300 s either way; the API
// version is not enforced).
func (c *Client) ParseWebhook(payload []byte, signatureHeader string) (wallet.WebhookEvent, error) {
	return ParseWebhook(payload, signatureHeader, c.cfg.WebhookSecret)
}

// signatureTime is the t= timestamp of a Stripe-Signature header.
func signatureTime(header string) (time.Time, bool) {
	for _, part := range strings.Split(header, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(part), "t="); ok {
			sec, err := strconv.ParseInt(v, 10, 64)
			return time.Unix(sec, 0), err == nil
		}
	}
	return time.Time{}, false
}

// ParseWebhook verifies and parses a webhook delivery signed with secret.
func ParseWebhook(payload []byte, signatureHeader, secret string) (wallet.WebhookEvent, error) {
	ev, err := webhook.ConstructEventWithOptions(payload, signatureHeader, secret, webhook.ConstructEventOptions{
		Tolerance: WebhookTolerance, IgnoreAPIVersionMismatch: true,
	})
	if err != nil {
		return wallet.WebhookEvent{}, fmt.Errorf("%w: %v", wallet.ErrBadSignature, err)
	}
	// stripe-go refuses only old timestamps; one further in the future than
	// the tolerance is refused too (a captured signature cannot be made to
	// last longer by a sender whose clock, or forgery, runs ahead).
	if ts, ok := signatureTime(signatureHeader); !ok || time.Until(ts) > WebhookTolerance {
		return wallet.WebhookEvent{}, fmt.Errorf("%w: signature timestamp more than %s in the future", wallet.ErrBadSignature, WebhookTolerance)
	}
	if ev.ID == "" || ev.Type == "" {
		return wallet.WebhookEvent{}, fmt.Errorf("%w: event without id or type", wallet.ErrBadSignature)
	}
	out := wallet.WebhookEvent{ID: ev.ID, Type: string(ev.Type)}
	if ev.Data == nil || len(ev.Data.Raw) == 0 {
		return out, nil
	}
	var obj eventObject
	if err := json.Unmarshal(ev.Data.Raw, &obj); err != nil {
		return wallet.WebhookEvent{}, fmt.Errorf("%w: data.object: %v", wallet.ErrBadSignature, err)
	}
	switch obj.Object {
	case "account", "transfer":
		if out.Connect, err = parseConnect(obj.Object, ev.Data.Raw, ev.Created); err != nil {
			return wallet.WebhookEvent{}, fmt.Errorf("%w: data.object: %v", wallet.ErrBadSignature, err)
		}
	case "checkout.session":
		out.SessionID, out.PaymentStatus, out.AmountTotal = obj.ID, obj.PaymentStatus, obj.AmountTotal
		out.Currency, out.ClientReferenceID, out.Mode = obj.Currency, obj.ClientReferenceID, obj.Mode
		out.PaymentIntentID, out.SetupIntentID, out.CustomerID = idOf(obj.PaymentIntent), idOf(obj.SetupIntent), idOf(obj.Customer)
		out.Metadata = obj.Metadata
	case "charge":
		out.ChargeID, out.ChargeAmount, out.AmountRefunded = obj.ID, obj.Amount, obj.AmountRefunded
		out.PaymentIntentID, out.Currency = idOf(obj.PaymentIntent), obj.Currency
	case "dispute":
		out.DisputeID, out.DisputeStatus, out.DisputeAmount = obj.ID, obj.Status, obj.Amount
		out.ChargeID, out.PaymentIntentID, out.Currency = idOf(obj.Charge), idOf(obj.PaymentIntent), obj.Currency
	case "payment_intent":
		out.PaymentIntentID, out.PaymentIntentStatus, out.PaymentIntentAmount = obj.ID, obj.Status, obj.Amount
		out.Metadata, out.ChargeID, out.CustomerID, out.Currency = obj.Metadata, idOf(obj.LatestCharge), idOf(obj.Customer), obj.Currency
		if e := obj.LastPaymentError; e != nil {
			out.FailureMessage = e.Message
			if out.FailureMessage == "" {
				out.FailureMessage = e.Code
			}
		}
	}
	return out, nil
}

// providerError wraps a Stripe failure as *wallet.ProviderError with
// Stripe's message.
func providerError(what string, err error) error {
	msg := "Payment provider error: could not " + what
	var se *stripe.Error
	if errors.As(err, &se) && se.Msg != "" {
		msg += " (" + se.Msg + ")"
	}
	return &wallet.ProviderError{Message: msg, Err: err}
}

// CustomerParams builds the customer that keeps a user's saved card.
func CustomerParams(uid, email, idempotencyKey string) *stripe.CustomerCreateParams {
	p := &stripe.CustomerCreateParams{Metadata: map[string]string{wallet.MetaUID: uid}}
	if email != "" {
		p.Email = stripe.String(email)
	}
	if idempotencyKey != "" {
		p.SetIdempotencyKey(idempotencyKey)
	}
	return p
}

// CreateCustomer implements wallet.Payments.
func (c *Client) CreateCustomer(ctx context.Context, uid, email, idempotencyKey string) (string, error) {
	cus, err := c.sc.V1Customers.Create(ctx, CustomerParams(uid, email, idempotencyKey))
	if err != nil {
		return "", providerError("create the customer", err)
	}
	return cus.ID, nil
}

// SetupParams builds a Checkout Session in setup mode: a card for
// off-session payments, saved to the user's customer.
func SetupParams(p wallet.SetupParams) *stripe.CheckoutSessionCreateParams {
	meta := map[string]string{wallet.MetaUID: p.UID, "purpose": "auto_recharge"}
	params := &stripe.CheckoutSessionCreateParams{
		Mode:               stripe.String(string(stripe.CheckoutSessionModeSetup)),
		Currency:           stripe.String("usd"),
		Customer:           stripe.String(p.CustomerID),
		PaymentMethodTypes: []*string{stripe.String("card")},
		SuccessURL:         stripe.String(p.SuccessURL),
		CancelURL:          stripe.String(p.CancelURL),
		ClientReferenceID:  stripe.String(p.UID),
		Metadata:           meta,
		SetupIntentData:    &stripe.CheckoutSessionCreateSetupIntentDataParams{Metadata: meta},
	}
	if p.IdempotencyKey != "" {
		params.SetIdempotencyKey(p.IdempotencyKey)
	}
	return params
}

// CreateSetupSession implements wallet.Payments.
func (c *Client) CreateSetupSession(ctx context.Context, p wallet.SetupParams) (wallet.ProviderSession, error) {
	s, err := c.sc.V1CheckoutSessions.Create(ctx, SetupParams(p))
	if err != nil {
		return wallet.ProviderSession{}, providerError("create the setup session", err)
	}
	return wallet.ProviderSession{ID: s.ID, URL: s.URL}, nil
}

// CardLabel renders a card for the wallet screen, e.g. "Visa •••• 4242".
func CardLabel(brand, last4 string) string {
	if brand == "" {
		brand = "Card"
	}
	names := map[string]string{"visa": "Visa", "mastercard": "Mastercard", "amex": "American Express", "discover": "Discover",
		"jcb": "JCB", "diners": "Diners Club", "unionpay": "UnionPay"}
	if n, ok := names[strings.ToLower(brand)]; ok {
		brand = n
	}
	return brand + " •••• " + last4
}

// RetrieveSetupIntent implements wallet.Payments (payment_method expanded
// for the card label).
func (c *Client) RetrieveSetupIntent(ctx context.Context, id string) (wallet.SavedCard, error) {
	params := &stripe.SetupIntentRetrieveParams{}
	params.AddExpand("payment_method")
	si, err := c.sc.V1SetupIntents.Retrieve(ctx, id, params)
	if err != nil {
		return wallet.SavedCard{}, providerError("read the saved card", err)
	}
	if si.PaymentMethod == nil || si.PaymentMethod.ID == "" {
		return wallet.SavedCard{}, &wallet.ProviderError{Message: "Payment provider error: the setup saved no payment method",
			Err: fmt.Errorf("setup intent %s without payment_method", id)}
	}
	card := wallet.SavedCard{PaymentMethodID: si.PaymentMethod.ID, Label: "Saved card"}
	if si.Customer != nil {
		card.CustomerID = si.Customer.ID
	}
	if pc := si.PaymentMethod.Card; pc != nil {
		card.Label = CardLabel(string(pc.Brand), pc.Last4)
	}
	return card, nil
}

// OffSessionParams builds an off-session PaymentIntent confirmed at once
// (the user is not there: no redirects, card only).
func OffSessionParams(p wallet.OffSessionParams) *stripe.PaymentIntentCreateParams {
	params := &stripe.PaymentIntentCreateParams{
		Amount:             stripe.Int64(p.AmountCents),
		Currency:           stripe.String("usd"),
		Customer:           stripe.String(p.CustomerID),
		PaymentMethod:      stripe.String(p.PaymentMethodID),
		PaymentMethodTypes: []*string{stripe.String("card")},
		OffSession:         stripe.Bool(true),
		Confirm:            stripe.Bool(true),
		Description:        stripe.String("Agentic wallet auto-recharge"),
		Metadata:           map[string]string{wallet.MetaUID: p.UID, wallet.MetaRechargeID: p.RechargeID},
	}
	if p.IdempotencyKey != "" {
		params.SetIdempotencyKey(p.IdempotencyKey)
	}
	return params
}

// CreateOffSessionPayment implements wallet.Payments. A card error (402:
// declined, expired, authentication required off-session) is a result with
// Declined set; anything else is a *wallet.ProviderError (retried later
// with the same idempotency key).
func (c *Client) CreateOffSessionPayment(ctx context.Context, p wallet.OffSessionParams) (wallet.OffSessionResult, error) {
	pi, err := c.sc.V1PaymentIntents.Create(ctx, OffSessionParams(p))
	if err != nil {
		var se *stripe.Error
		if errors.As(err, &se) && se.Type == stripe.ErrorTypeCard {
			out := wallet.OffSessionResult{Declined: true, FailureMessage: se.Msg}
			if se.PaymentIntent != nil {
				out.PaymentIntentID, out.Status = se.PaymentIntent.ID, string(se.PaymentIntent.Status)
			}
			if out.FailureMessage == "" {
				out.FailureMessage = string(se.Code)
			}
			return out, nil
		}
		return wallet.OffSessionResult{}, providerError("charge the saved card", err)
	}
	return wallet.OffSessionResult{PaymentIntentID: pi.ID, Status: string(pi.Status)}, nil
}

// ListParams builds a list query for objects created since then (100 per page).
func listSince(since time.Time) (*stripe.RangeQueryParams, stripe.ListParams) {
	return &stripe.RangeQueryParams{GreaterThanOrEqual: since.Unix()}, stripe.ListParams{Limit: stripe.Int64(100)}
}

// ListCheckoutSessions implements wallet.Payments: every page of sessions
// created since then, as checkout.session.completed events would carry them.
func (c *Client) ListCheckoutSessions(ctx context.Context, since time.Time) ([]wallet.WebhookEvent, error) {
	created, lp := listSince(since)
	var out []wallet.WebhookEvent
	for s, err := range c.sc.V1CheckoutSessions.List(ctx, &stripe.CheckoutSessionListParams{ListParams: lp, CreatedRange: created}).All(ctx) {
		if err != nil {
			return nil, providerError("list checkout sessions", err)
		}
		ev := wallet.WebhookEvent{Type: wallet.EventCheckoutCompleted, SessionID: s.ID, PaymentStatus: string(s.PaymentStatus),
			AmountTotal: s.AmountTotal, Currency: string(s.Currency), ClientReferenceID: s.ClientReferenceID,
			Mode: string(s.Mode), Metadata: s.Metadata, SessionStatus: string(s.Status)}
		if s.PaymentIntent != nil {
			ev.PaymentIntentID = s.PaymentIntent.ID
		}
		if s.SetupIntent != nil {
			ev.SetupIntentID = s.SetupIntent.ID
		}
		if s.Customer != nil {
			ev.CustomerID = s.Customer.ID
		}
		out = append(out, ev)
	}
	return out, nil
}

// ListPaymentIntents implements wallet.Payments: every page of
// PaymentIntents created since then, as payment_intent.* events would carry them.
func (c *Client) ListPaymentIntents(ctx context.Context, since time.Time) ([]wallet.WebhookEvent, error) {
	created, lp := listSince(since)
	var out []wallet.WebhookEvent
	for pi, err := range c.sc.V1PaymentIntents.List(ctx, &stripe.PaymentIntentListParams{ListParams: lp, CreatedRange: created}).All(ctx) {
		if err != nil {
			return nil, providerError("list payment intents", err)
		}
		ev := wallet.WebhookEvent{PaymentIntentID: pi.ID, PaymentIntentStatus: string(pi.Status),
			PaymentIntentAmount: pi.Amount, Currency: string(pi.Currency), Metadata: pi.Metadata}
		switch pi.Status {
		case stripe.PaymentIntentStatusSucceeded:
			ev.Type = wallet.EventPaymentIntentSucceeded
		case stripe.PaymentIntentStatusRequiresPaymentMethod, stripe.PaymentIntentStatusCanceled:
			ev.Type = wallet.EventPaymentIntentPaymentFailed
			if pi.LastPaymentError != nil {
				ev.FailureMessage = pi.LastPaymentError.Msg
			}
		}
		if pi.LatestCharge != nil {
			ev.ChargeID = pi.LatestCharge.ID
		}
		if pi.Customer != nil {
			ev.CustomerID = pi.Customer.ID
		}
		out = append(out, ev)
	}
	return out, nil
}
