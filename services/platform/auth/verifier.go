package auth

import (
	"context"
	"log/slog"
)

// NewVerifier returns the service's token verifier: override when it is not
// nil (tests), otherwise a FirebaseVerifier for projectID (logged), wrapped
// in a CachingVerifier either way.
func NewVerifier(ctx context.Context, override Verifier, projectID string, logger *slog.Logger) (*CachingVerifier, error) {
	if logger == nil {
		logger = slog.Default()
	}
	v := override
	if v == nil {
		fv, err := NewFirebaseVerifier(ctx, projectID)
		if err != nil {
			return nil, err
		}
		v = fv
		logger.Info("firebase token verification", "project", projectID, "emulator", EmulatorHost())
	}
	return NewCachingVerifier(v), nil
}
