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
// an accounts:lookup call to the emulator.
func NewFirebaseVerifier(ctx context.Context, projectID string) (*FirebaseVerifier, error) {
	if strings.TrimSpace(projectID) == "" {
		return nil, fmt.Errorf("auth: firebase project id is empty (set FIREBASE_PROJECT_ID)")
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

// VerifyIDToken implements Verifier.
func (v *FirebaseVerifier) VerifyIDToken(ctx context.Context, raw string) (Claims, error) {
	tok, err := v.client.VerifyIDToken(ctx, raw)
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
