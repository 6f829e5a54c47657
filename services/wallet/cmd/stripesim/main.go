// Command stripesim runs the development Stripe simulator (see
// services/wallet/internal/stripesim and docs/wallet.md): Checkout in payment
// and setup mode, off-session PaymentIntents, refunds, disputes and lists,
// with admin JSON calls under /admin. Never deploy it.
//
//	STRIPE_SIM_ADDR         listen address (default 127.0.0.1:8110)
//	STRIPE_SIM_PUBLIC_URL   origin of the hosted page in session URLs (default http://<STRIPE_SIM_ADDR>)
//	STRIPE_SIM_WEBHOOK_URL  where signed events go (default http://127.0.0.1:8080/api/stripe/webhook)
//	STRIPE_WEBHOOK_SECRET   signing secret (default whsec_agentic_dev)
//	STRIPE_SECRET_KEY       if set, the only API key accepted
package main

import (
	"context"
	"errors"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentic-app/agentic/services/platform/config"
	"github.com/agentic-app/agentic/services/platform/observability"
	"github.com/agentic-app/agentic/services/wallet/internal/stripesim"
)

func main() {
	logger := observability.NewLogger("stripesim")
	addr := config.String("STRIPE_SIM_ADDR", "127.0.0.1:8110")
	sim := stripesim.New(stripesim.Config{
		PublicURL:     config.String("STRIPE_SIM_PUBLIC_URL", stripesim.ParseAddrURL(addr)),
		WebhookURL:    config.String("STRIPE_SIM_WEBHOOK_URL", "http://127.0.0.1:8080/api/stripe/webhook"),
		WebhookSecret: config.String("STRIPE_WEBHOOK_SECRET", "whsec_agentic_dev"),
		SecretKey:     config.String("STRIPE_SECRET_KEY", ""),
		Logger:        logger,
	})
	srv := &http.Server{Addr: addr, Handler: sim, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	logger.Info("stripe simulator listening", "addr", addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		logger.Error("stripe simulator failed", "error", err)
		os.Exit(1)
	}
}
