package config

import (
	"errors"
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	for _, tc := range []struct {
		value, want string
		prod, err   bool
	}{
		{"", EnvProduction, true, false},
		{"  ", EnvProduction, true, false},
		{"production", EnvProduction, true, false},
		{"Development", EnvDevelopment, false, false},
		{" development ", EnvDevelopment, false, false},
		{"dev", EnvProduction, true, true},
		{"staging", EnvProduction, true, true},
	} {
		t.Run(tc.value, func(t *testing.T) {
			t.Setenv(AppEnvKey, tc.value)
			got, err := Env()
			if got != tc.want || (err != nil) != tc.err || Production() != tc.prod {
				t.Fatalf("Env() = %q, %v; Production() = %v", got, err, Production())
			}
			if err != nil && !strings.Contains(err.Error(), "APP_ENV") {
				t.Fatalf("error does not name APP_ENV: %v", err)
			}
		})
	}
}

func TestLoaderDevString(t *testing.T) {
	t.Setenv("CFG_SECRET", "")

	t.Setenv(AppEnvKey, "development")
	var dev Loader
	if got := dev.DevString("CFG_SECRET", "dev-value", ""); got != "dev-value" || dev.Err() != nil {
		t.Fatalf("development: %q, %v", got, dev.Err())
	}

	t.Setenv(AppEnvKey, "")
	var prod Loader
	if got := prod.DevString("CFG_SECRET", "dev-value", "needed for X"); got != "" {
		t.Fatalf("production used the development default: %q", got)
	}
	var pe *ProductionError
	if err := prod.Err(); !errors.As(err, &pe) || pe.Key != "CFG_SECRET" ||
		!strings.Contains(err.Error(), "CFG_SECRET must be set explicitly: needed for X") {
		t.Fatalf("production error = %v", err)
	}

	t.Setenv("CFG_SECRET", "real")
	var set Loader
	if got := set.DevString("CFG_SECRET", "dev-value", ""); got != "real" || set.Err() != nil {
		t.Fatalf("explicit value: %q, %v", got, set.Err())
	}
}

func TestLoaderInvalidEnvIsAnErrorAndProduction(t *testing.T) {
	t.Setenv(AppEnvKey, "prod")
	t.Setenv("CFG_SECRET", "")
	var l Loader
	_ = l.DevString("CFG_SECRET", "dev-value", "")
	if !l.Production() {
		t.Fatal("an invalid APP_ENV must not unlock development defaults")
	}
	err := l.Err()
	if err == nil || !strings.Contains(err.Error(), `APP_ENV="prod"`) || !strings.Contains(err.Error(), "CFG_SECRET") {
		t.Fatalf("err = %v", err)
	}
}

func TestNoAuthEmulator(t *testing.T) {
	t.Setenv(EmulatorHostKey, "127.0.0.1:9099")
	t.Setenv(AppEnvKey, "production")
	var prod Loader
	prod.NoAuthEmulator()
	if err := prod.Err(); err == nil || !strings.Contains(err.Error(), "FIREBASE_AUTH_EMULATOR_HOST") ||
		!strings.Contains(err.Error(), "unsigned") {
		t.Fatalf("production with the emulator: %v", err)
	}

	t.Setenv(AppEnvKey, "development")
	var dev Loader
	dev.NoAuthEmulator()
	if err := dev.Err(); err != nil {
		t.Fatalf("development with the emulator: %v", err)
	}

	t.Setenv(AppEnvKey, "")
	t.Setenv(EmulatorHostKey, "")
	if err := CheckAuthEmulator(EnvProduction); err != nil {
		t.Fatalf("production without the emulator: %v", err)
	}
}
