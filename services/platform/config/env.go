package config

import (
	"fmt"
	"strings"
)

// AppEnvKey is the variable that selects the environment.
const AppEnvKey = "APP_ENV"

// Environments (APP_ENV).
const (
	// EnvProduction is the default: no development fallbacks (secrets must be
	// set explicitly, the Firebase Auth emulator is refused).
	EnvProduction = "production"
	// EnvDevelopment is set by make dev, Tilt, the local chart profile and
	// tests: development defaults apply and emulators are allowed.
	EnvDevelopment = "development"
)

// EmulatorHostKey makes the Firebase Admin SDK accept the Auth emulator's
// unsigned ID tokens; it is refused in production.
const EmulatorHostKey = "FIREBASE_AUTH_EMULATOR_HOST"

// Env returns APP_ENV in lower case: EnvProduction when unset or empty,
// EnvDevelopment when so set. Any other value is an error, and Env then
// returns EnvProduction (the safe side).
func Env() (string, error) {
	v, ok := lookup(AppEnvKey)
	if !ok {
		return EnvProduction, nil
	}
	switch strings.ToLower(v) {
	case EnvProduction:
		return EnvProduction, nil
	case EnvDevelopment:
		return EnvDevelopment, nil
	}
	return EnvProduction, &Error{Key: AppEnvKey, Value: v, Want: "environment (production or development)"}
}

// Production reports whether the process runs in production: APP_ENV unset,
// "production", or invalid (an invalid value never unlocks development
// behaviour).
func Production() bool {
	env, _ := Env()
	return env == EnvProduction
}

// ProductionError describes a setting production refuses.
type ProductionError struct {
	Key    string
	Reason string
}

func (e *ProductionError) Error() string {
	return fmt.Sprintf("config: %s (APP_ENV=production; set APP_ENV=development for local development)", e.Reason)
}

// RequireInProduction returns a *ProductionError naming key when env is
// production and key is unset or empty.
func RequireInProduction(env, key, why string) error {
	if env != EnvProduction {
		return nil
	}
	if _, ok := lookup(key); ok {
		return nil
	}
	reason := key + " must be set explicitly"
	if why != "" {
		reason += ": " + why
	}
	return &ProductionError{Key: key, Reason: reason}
}

// RefuseInProduction returns a *ProductionError naming key when env is
// production and key is set (to anything but blanks).
func RefuseInProduction(env, key, why string) error {
	if env != EnvProduction {
		return nil
	}
	v, ok := lookup(key)
	if !ok {
		return nil
	}
	reason := fmt.Sprintf("%s=%q is not allowed in production", key, v)
	if why != "" {
		reason += ": " + why
	}
	return &ProductionError{Key: key, Reason: reason}
}

// CheckAuthEmulator refuses the Firebase Auth emulator in production: with
// FIREBASE_AUTH_EMULATOR_HOST set the Admin SDK accepts unsigned ID tokens,
// so anyone could sign in as anyone.
func CheckAuthEmulator(env string) error {
	return RefuseInProduction(env, EmulatorHostKey, "emulator mode accepts unsigned ID tokens")
}

// Env reads APP_ENV once (see Env), recording an invalid value.
func (l *Loader) Env() string {
	if !l.envRead {
		env, err := Env()
		l.add(err)
		l.env, l.envRead = env, true
	}
	return l.env
}

// Production reports whether l.Env() is production.
func (l *Loader) Production() bool { return l.Env() == EnvProduction }

// DevString is String with a development-only default: in production the
// variable must be set explicitly (an error naming it is recorded when it is
// unset or empty), in development devDef applies.
func (l *Loader) DevString(key, devDef, why string) string {
	if l.Production() {
		l.add(RequireInProduction(EnvProduction, key, why))
		return String(key, "")
	}
	return String(key, devDef)
}

// Check records err (nil is ignored), e.g. a service's own validation.
func (l *Loader) Check(err error) { l.add(err) }

// NoAuthEmulator records an error when the Firebase Auth emulator is
// configured in production (see CheckAuthEmulator).
func (l *Loader) NoAuthEmulator() { l.add(CheckAuthEmulator(l.Env())) }
