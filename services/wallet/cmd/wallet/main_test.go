package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestProductionWithoutWebhookSecretExits builds the real binary and runs it
// with APP_ENV=production and no STRIPE_WEBHOOK_SECRET: it must exit (status
// 2) before touching the network, with a log line naming the variable.
func TestProductionWithoutWebhookSecretExits(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "wallet")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	for name, env := range map[string][]string{
		"APP_ENV=production": {"APP_ENV=production"},
		"APP_ENV unset":      {},
	} {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(bin)
			// A minimal environment: nothing from the developer's shell (no
			// Stripe variables, no emulator); addresses that cannot be reached
			// would only matter if the binary got past its configuration.
			cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
				"STRIPE_SECRET_KEY=sk_live_x", "HTTP_ADDR=127.0.0.1:0", "GRPC_ADDR=127.0.0.1:0",
				"DATABASE_URL=postgres://nobody@127.0.0.1:1/none?connect_timeout=1"}, env...)
			done := make(chan struct{})
			var out []byte
			var err error
			go func() { out, err = cmd.CombinedOutput(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				t.Fatal("the wallet did not exit on a production configuration without STRIPE_WEBHOOK_SECRET")
			}
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 2 {
				t.Fatalf("exit: %v, want status 2\n%s", err, out)
			}
			s := string(out)
			if !strings.Contains(s, "invalid configuration") || !strings.Contains(s, "STRIPE_WEBHOOK_SECRET must be set explicitly") ||
				!strings.Contains(s, "APP_ENV=production") {
				t.Fatalf("output does not explain the refusal:\n%s", s)
			}
		})
	}
}
