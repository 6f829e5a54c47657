package app

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/agentic-app/agentic/services/platform/apitest"
)

// No body makes checkout, billing settings or the setup session answer 5xx
// against a real database (and Redis, and the Stripe simulator).
func FuzzWalletBodies(f *testing.F) {
	app := start(f, redisURL())
	tok := "token-" + uniq("fuzz")
	for _, s := range apitest.Seeds("amount", "currency", "metadata", "monthlyLimit", "lowBalanceThreshold", "autoRecharge") {
		f.Add(s)
	}
	f.Add([]byte(`{"autoRecharge":{"enabled":true,"threshold":1e308,"amount":"\u0000"}}`))
	f.Add([]byte(`{"amount":1000,"currency":"usd","metadata":{"userId":"\u0000"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		apitest.No5xx(t, http.MethodPost, app.http+"/api/stripe/create-checkout-session", tok, body)
		apitest.No5xx(t, http.MethodPut, app.http+"/api/user/billing-settings", tok, body)
		apitest.No5xx(t, http.MethodPost, app.http+"/api/stripe/setup-session", tok, body)
		// Unsigned: refused, never a 5xx.
		apitest.No5xx(t, http.MethodPost, app.http+"/api/stripe/webhook", "", body)
	})
}

// Query parameters of the transaction list and the CSV export.
func FuzzWalletQueries(f *testing.F) {
	app := start(f, redisURL())
	tok := "token-" + uniq("fuzz")
	for _, s := range apitest.QuerySeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		e := url.QueryEscape(v)
		for _, q := range []string{"limit=" + e, "offset=" + e, "snapshot=" + e, "limit=1&offset=" + e + "&snapshot=" + e} {
			apitest.No5xx(t, http.MethodGet, app.http+"/api/user/transactions?"+q, tok, nil)
		}
		apitest.No5xx(t, http.MethodGet, app.http+"/api/user/transactions.csv?search="+e+"&type="+e, tok, nil)
	})
}
