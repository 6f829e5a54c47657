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
// Stripe-Signature header (HMAC-SHA256, timestamp within 300 s; the API
// version is not enforced).
func (c *Client) ParseWebhook(payload []byte, signatureHeader string) (wallet.WebhookEvent, error) {
	return ParseWebhook(payload, signatureHeader, c.cfg.WebhookSecret)
}

// ParseWebhook verifies and parses a webhook delivery signed with secret.
func ParseWebhook(payload []byte, signatureHeader, secret string) (wallet.WebhookEvent, error) {
	ev, err := webhook.ConstructEventWithOptions(payload, signatureHeader, secret, webhook.ConstructEventOptions{
		Tolerance: WebhookTolerance, IgnoreAPIVersionMismatch: true,
	})
	if err != nil {
		return wallet.WebhookEvent{}, fmt.Errorf("%w: %v", wallet.ErrBadSignature, err)
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
