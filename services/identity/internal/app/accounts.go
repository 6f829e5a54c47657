package app

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	firebase "firebase.google.com/go/v4"
	fbauth "firebase.google.com/go/v4/auth"
	"google.golang.org/grpc"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/identity/internal/users"
	"github.com/agentic-app/agentic/services/platform/auth"
)

// firebaseAccounts is users.Accounts over the Firebase Admin SDK. With
// FIREBASE_AUTH_EMULATOR_HOST set the SDK talks to the emulator without
// credentials; in production it uses the pod's Application Default
// Credentials (revoking and deleting users are privileged calls, unlike
// the token verification of platform/auth).
type firebaseAccounts struct{ client *fbauth.Client }

func newFirebaseAccounts(ctx context.Context, projectID string) (*firebaseAccounts, error) {
	app, err := firebase.NewApp(ctx, &firebase.Config{ProjectID: projectID})
	if err != nil {
		return nil, fmt.Errorf("firebase admin app: %w", err)
	}
	client, err := app.Auth(ctx)
	if err != nil {
		return nil, fmt.Errorf("firebase admin auth client: %w", err)
	}
	return &firebaseAccounts{client: client}, nil
}

func (a *firebaseAccounts) RevokeRefreshTokens(ctx context.Context, uid string) error {
	return a.client.RevokeRefreshTokens(ctx, uid)
}

func (a *firebaseAccounts) DeleteUser(ctx context.Context, uid string) error {
	err := a.client.DeleteUser(ctx, uid)
	if fbauth.IsUserNotFound(err) {
		return nil
	}
	return err
}

// unavailableAccounts answers every call with err (the Admin SDK could not
// be set up: the service still serves everything else).
type unavailableAccounts struct{ err error }

func (u unavailableAccounts) RevokeRefreshTokens(context.Context, string) error { return u.err }
func (u unavailableAccounts) DeleteUser(context.Context, string) error          { return u.err }

// accountsFor returns the override, else the Admin SDK client, else (when
// it cannot be created) an unavailableAccounts, logged.
func accountsFor(ctx context.Context, cfg Config, logger *slog.Logger) users.Accounts {
	if cfg.Accounts != nil {
		return cfg.Accounts
	}
	a, err := newFirebaseAccounts(ctx, cfg.FirebaseProjectID)
	if err != nil {
		logger.Error("firebase admin unavailable: sign out everywhere and account deletion will fail", "err", err)
		return unavailableAccounts{err: err}
	}
	logger.Info("firebase admin", "project", cfg.FirebaseProjectID, "emulator", auth.EmulatorHost())
	return a
}

// grpcWallet is users.Wallet over the wallet's GetBalance (mutual TLS; the
// wallet's policy lets identity call it).
type grpcWallet struct{ client walletv1.WalletServiceClient }

func newGRPCWallet(conn grpc.ClientConnInterface) grpcWallet {
	return grpcWallet{client: walletv1.NewWalletServiceClient(conn)}
}

func (w grpcWallet) Balance(ctx context.Context, uid string) (users.Balance, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	r, err := w.client.GetBalance(ctx, &walletv1.GetBalanceRequest{Uid: uid, IncludeEarningsAndDebt: true})
	if err != nil {
		return users.Balance{}, err
	}
	// The wallet account itself never goes below zero: what a user owes is
	// its own ledger account (debt_micros), shown here as a negative balance.
	micros := r.GetBalanceMicros()
	if r.GetDebtMicros() > 0 && micros == 0 {
		micros = -r.GetDebtMicros()
	}
	return users.Balance{Micros: micros, HeldMicros: r.GetHeldMicros(), EarningsMicros: r.GetEarningsMicros()}, nil
}
