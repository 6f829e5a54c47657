package auth

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	firebase "firebase.google.com/go/v4"
	fbauth "firebase.google.com/go/v4/auth"
	"google.golang.org/api/option"

	"github.com/agentic-app/agentic/services/platform/config"
)

// FirebaseVerifier verifies ID tokens with the Firebase Admin SDK.
type FirebaseVerifier struct {
	client *fbauth.Client
}

// NewFirebaseVerifier creates a verifier for projectID.
//
// The app is created with option.WithoutAuthentication: verifying ID tokens
// needs no Google credentials (production fetches Google's public certificates
// anonymously), so the service starts offline and without a service account.
// When FIREBASE_AUTH_EMULATOR_HOST is set the SDK accepts the emulator's
// unsigned tokens and checks that the user exists (and is not disabled) with
// an accounts:lookup call to the emulator. Emulator mode is refused unless
// APP_ENV=development (config.CheckAuthEmulator): the services' LoadConfig
// refuses it first; this is the last line of defence.
func NewFirebaseVerifier(ctx context.Context, projectID string) (*FirebaseVerifier, error) {
	if strings.TrimSpace(projectID) == "" {
		return nil, fmt.Errorf("auth: firebase project id is empty (set FIREBASE_PROJECT_ID)")
	}
	env, err := config.Env()
	if err != nil {
		return nil, err
	}
	if err := config.CheckAuthEmulator(env); err != nil {
		return nil, err
	}
	app, err := firebase.NewApp(ctx, &firebase.Config{ProjectID: projectID}, option.WithoutAuthentication())
	if err != nil {
		return nil, fmt.Errorf("auth: firebase app: %w", err)
	}
	client, err := app.Auth(ctx)
	if err != nil {
		return nil, fmt.Errorf("auth: firebase auth client: %w", err)
	}
	return &FirebaseVerifier{client: client}, nil
}

// EmulatorHost returns FIREBASE_AUTH_EMULATOR_HOST ("" in production).
func EmulatorHost() string { return os.Getenv("FIREBASE_AUTH_EMULATOR_HOST") }

// VerifyIDToken implements Verifier. It checks the signature and claims
// locally (Google's public keys are fetched and cached); it does not ask
// whether the token was revoked (except in emulator mode, where the SDK
// always looks the user up).
func (v *FirebaseVerifier) VerifyIDToken(ctx context.Context, raw string) (Claims, error) {
	return v.verify(ctx, raw, v.client.VerifyIDToken)
}

// VerifyIDTokenAndCheckRevoked implements RevocationVerifier: VerifyIDToken
// plus a user lookup (one Identity Toolkit call) refusing a token issued
// before the user's refresh tokens were revoked, or of a disabled or deleted
// user.
func (v *FirebaseVerifier) VerifyIDTokenAndCheckRevoked(ctx context.Context, raw string) (Claims, error) {
	return v.verify(ctx, raw, v.client.VerifyIDTokenAndCheckRevoked)
}

func (v *FirebaseVerifier) verify(ctx context.Context, raw string, fn func(context.Context, string) (*fbauth.Token, error)) (Claims, error) {
	tok, err := fn(ctx, raw)
	if err != nil {
		if isTokenProblem(err) {
			return Claims{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
		}
		return Claims{}, fmt.Errorf("auth: verify id token: %w", err)
	}
	c := Claims{
		UID:       tok.UID,
		ExpiresAt: time.Unix(tok.Expires, 0),
	}
	c.Email, _ = tok.Claims["email"].(string)
	c.EmailVerified, _ = tok.Claims["email_verified"].(bool)
	c.Name, _ = tok.Claims["name"].(string)
	c.Picture, _ = tok.Claims["picture"].(string)
	return c, nil
}

func isTokenProblem(err error) bool {
	return fbauth.IsIDTokenInvalid(err) || fbauth.IsIDTokenExpired(err) ||
		fbauth.IsIDTokenRevoked(err) || fbauth.IsUserDisabled(err) ||
		fbauth.IsUserNotFound(err) || fbauth.IsTenantIDMismatch(err)
}
