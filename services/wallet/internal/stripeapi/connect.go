package stripeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/stripe/stripe-go/v85"

	"github.com/agentic-app/agentic/services/wallet/internal/wallet"
)

// Stripe Connect (creator payouts): Express accounts, onboarding Account
// Links and Transfers to connected accounts. *Client implements
// wallet.Connect.

var _ wallet.Connect = (*Client)(nil)

// AccountParams builds the Express account of a user (type express, the
// transfers capability, metadata uid).
func AccountParams(p wallet.ConnectAccountParams) *stripe.AccountCreateParams {
	params := &stripe.AccountCreateParams{
		Type: stripe.String(string(stripe.AccountTypeExpress)),
		Capabilities: &stripe.AccountCreateCapabilitiesParams{
			Transfers: &stripe.AccountCreateCapabilitiesTransfersParams{Requested: stripe.Bool(true)},
		},
		Metadata: map[string]string{wallet.MetaUID: p.UID},
	}
	if p.Email != "" {
		params.Email = stripe.String(p.Email)
	}
	if p.IdempotencyKey != "" {
		params.SetIdempotencyKey(p.IdempotencyKey)
	}
	return params
}

// CreateExpressAccount implements wallet.Connect.
func (c *Client) CreateExpressAccount(ctx context.Context, p wallet.ConnectAccountParams) (string, error) {
	a, err := c.sc.V1Accounts.Create(ctx, AccountParams(p))
	if err != nil {
		return "", providerError("create the payout account", err)
	}
	if a == nil || a.ID == "" {
		return "", &wallet.ProviderError{Message: "Payment provider error: empty account", Err: errors.New("no account id")}
	}
	return a.ID, nil
}

// AccountLinkParams builds an onboarding Account Link.
func AccountLinkParams(accountID, refreshURL, returnURL string) *stripe.AccountLinkCreateParams {
	return &stripe.AccountLinkCreateParams{
		Account:    stripe.String(accountID),
		Type:       stripe.String(string(stripe.AccountLinkTypeAccountOnboarding)),
		RefreshURL: stripe.String(refreshURL),
		ReturnURL:  stripe.String(returnURL),
	}
}

// CreateAccountLink implements wallet.Connect.
func (c *Client) CreateAccountLink(ctx context.Context, accountID, refreshURL, returnURL string) (string, error) {
	l, err := c.sc.V1AccountLinks.Create(ctx, AccountLinkParams(accountID, refreshURL, returnURL))
	if err != nil {
		return "", providerError("start the payout account onboarding", err)
	}
	if l == nil || l.URL == "" {
		return "", &wallet.ProviderError{Message: "Payment provider error: empty account link", Err: errors.New("no url")}
	}
	return l.URL, nil
}

// TransferParams builds the Transfer of a payout (USD cents to the
// connected account, metadata payout_id and uid, transfer_group the payout).
func TransferParams(p wallet.ConnectTransferParams) *stripe.TransferCreateParams {
	params := &stripe.TransferCreateParams{
		Amount:        stripe.Int64(p.AmountCents),
		Currency:      stripe.String(string(stripe.CurrencyUSD)),
		Destination:   stripe.String(p.AccountID),
		Description:   stripe.String("Agentic creator payout"),
		TransferGroup: stripe.String("payout-" + p.PayoutID),
		Metadata:      map[string]string{wallet.MetaPayoutID: p.PayoutID, wallet.MetaUID: p.UID},
	}
	if p.IdempotencyKey != "" {
		params.SetIdempotencyKey(p.IdempotencyKey)
	}
	return params
}

// TransferRefused reports whether a Transfer call's error is a definitive
// refusal: a Stripe error with a 4xx status other than 429 (rate limited)
// and 409 (idempotency request in progress, lock timeout), not an
// idempotency_error. Nothing was created then. Network errors, timeouts,
// 5xx and the rest are unknown outcomes: Stripe may have made the Transfer.
func TransferRefused(err error) bool {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return false
	}
	st := se.HTTPStatusCode
	switch {
	case st < 400 || st >= 500, st == http.StatusTooManyRequests, st == http.StatusConflict:
		return false
	case se.Type == stripe.ErrorTypeIdempotency:
		return false
	}
	return true
}

// CreateTransfer implements wallet.Connect: a definitive refusal wraps
// wallet.ErrTransferRefused (TransferRefused); other errors are unknown
// outcomes (the caller calls again with the same Idempotency-Key).
func (c *Client) CreateTransfer(ctx context.Context, p wallet.ConnectTransferParams) (string, error) {
	t, err := c.sc.V1Transfers.Create(ctx, TransferParams(p))
	if err != nil {
		if TransferRefused(err) {
			err = fmt.Errorf("%w: %w", wallet.ErrTransferRefused, err)
		}
		return "", providerError("create the transfer", err)
	}
	if t == nil || t.ID == "" {
		return "", &wallet.ProviderError{Message: "Payment provider error: empty transfer", Err: errors.New("no transfer id")}
	}
	return t.ID, nil
}

// connectObject is the part of an account or transfer the wallet reads.
type connectObject struct {
	ID               string `json:"id"`
	PayoutsEnabled   bool   `json:"payouts_enabled"`
	DetailsSubmitted bool   `json:"details_submitted"`
	Requirements     *struct {
		DisabledReason string   `json:"disabled_reason"`
		CurrentlyDue   []string `json:"currently_due"`
	} `json:"requirements"`
	Amount         int64             `json:"amount"`
	AmountReversed int64             `json:"amount_reversed"`
	Reversed       bool              `json:"reversed"`
	Destination    json.RawMessage   `json:"destination"`
	Metadata       map[string]string `json:"metadata"`
}

// parseConnect reads an account (account.updated) or a transfer
// (transfer.*) of an event created at created (Unix seconds).
func parseConnect(kind string, raw json.RawMessage, created int64) (*wallet.ConnectObject, error) {
	var o connectObject
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("%s: %w", kind, err)
	}
	out := &wallet.ConnectObject{Created: created, Metadata: o.Metadata}
	switch kind {
	case "account":
		out.AccountID, out.PayoutsEnabled, out.DetailsSubmitted = o.ID, o.PayoutsEnabled, o.DetailsSubmitted
		if r := o.Requirements; r != nil {
			out.DisabledReason, out.CurrentlyDue = r.DisabledReason, r.CurrentlyDue
		}
	case "transfer":
		out.TransferID, out.Amount, out.AmountReversed, out.Reversed = o.ID, o.Amount, o.AmountReversed, o.Reversed
		out.Destination = idOf(o.Destination)
	}
	return out, nil
}
