package app

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentic-app/agentic/services/platform/config"
)

// clearStripeEnv unsets what LoadConfig's production checks read.
func clearStripeEnv(t *testing.T) {
	for _, k := range []string{"STRIPE_SECRET_KEY", "STRIPE_WEBHOOK_SECRET", "FIREBASE_AUTH_EMULATOR_HOST"} {
		t.Setenv(k, "")
	}
}

func TestLoadConfigDevelopmentDefaults(t *testing.T) {
	clearStripeEnv(t)
	t.Setenv("APP_ENV", "development")
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", "127.0.0.1:9099")
	c, err := LoadConfig()
	if err != nil {
		t.Fatalf("development defaults: %v", err)
	}
	if c.StripeWebhookSecret != "whsec_agentic_dev" || c.StripeSecretKey != "sk_test_agentic_dev" {
		t.Fatalf("development Stripe defaults: %q %q", c.StripeSecretKey, c.StripeWebhookSecret)
	}
}

func TestLoadConfigProductionRequiresStripeSecrets(t *testing.T) {
	for _, env := range []string{"", "production"} { // unset means production
		clearStripeEnv(t)
		t.Setenv("APP_ENV", env)
		_, err := LoadConfig()
		var pe *config.ProductionError
		if err == nil || !errors.As(err, &pe) {
			t.Fatalf("APP_ENV=%q without Stripe secrets: err = %v, want a ProductionError", env, err)
		}
		for _, want := range []string{"STRIPE_WEBHOOK_SECRET must be set explicitly", "STRIPE_SECRET_KEY must be set explicitly"} {
			if !strings.Contains(err.Error(), want) {
				t.Fatalf("APP_ENV=%q: error %q does not say %q", env, err, want)
			}
		}
	}

	// Only the webhook secret missing (also: set but blank).
	clearStripeEnv(t)
	t.Setenv("APP_ENV", "production")
	t.Setenv("STRIPE_SECRET_KEY", "sk_live_x")
	t.Setenv("STRIPE_WEBHOOK_SECRET", "   ")
	if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), "STRIPE_WEBHOOK_SECRET") ||
		strings.Contains(err.Error(), "STRIPE_SECRET_KEY") {
		t.Fatalf("blank webhook secret: %v", err)
	}

	// Both set explicitly: the Stripe checks pass, with exactly those values
	// (production may still refuse other settings, e.g. internal gRPC TLS).
	t.Setenv("STRIPE_WEBHOOK_SECRET", "whsec_live_x")
	c, err := LoadConfig()
	if (err != nil && strings.Contains(err.Error(), "STRIPE")) || c.StripeWebhookSecret != "whsec_live_x" || c.StripeSecretKey != "sk_live_x" {
		t.Fatalf("explicit secrets: %q %q %v", c.StripeSecretKey, c.StripeWebhookSecret, err)
	}
}

func TestLoadConfigProductionRefusesAuthEmulator(t *testing.T) {
	clearStripeEnv(t)
	t.Setenv("APP_ENV", "production")
	t.Setenv("STRIPE_SECRET_KEY", "sk_live_x")
	t.Setenv("STRIPE_WEBHOOK_SECRET", "whsec_live_x")
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", "127.0.0.1:9099")
	if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), "FIREBASE_AUTH_EMULATOR_HOST") {
		t.Fatalf("production with the Auth emulator: %v", err)
	}
}

func TestLoadConfigInvalidAppEnv(t *testing.T) {
	clearStripeEnv(t)
	t.Setenv("APP_ENV", "dev")
	if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), `APP_ENV="dev"`) {
		t.Fatalf("APP_ENV=dev: %v", err)
	}
}

// A checkout limit needs a window: zero or less is refused at start, not
// found out at the first checkout.
func TestLoadConfigRefusesAnEmptyCheckoutWindow(t *testing.T) {
	for _, w := range []string{"0s", "-1m"} {
		clearStripeEnv(t)
		t.Setenv("APP_ENV", "development")
		t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", "127.0.0.1:9099")
		t.Setenv("CHECKOUT_RATE_WINDOW", w)
		if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), "CHECKOUT_RATE_WINDOW") {
			t.Errorf("CHECKOUT_RATE_WINDOW=%s: %v", w, err)
		}
	}
}
