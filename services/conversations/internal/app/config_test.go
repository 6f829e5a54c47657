package app

import (
	"strings"
	"testing"
	"time"
)

func TestLoadConfig(t *testing.T) {
	// Development: production also requires the internal gRPC TLS files.
	t.Setenv("APP_ENV", "development")
	c, err := LoadConfig()
	if err != nil {
		t.Fatalf("defaults: %v", err)
	}
	if c.HTTPAddr != "127.0.0.1:8106" || c.GRPCAddr != "127.0.0.1:9106" || c.LLMModel != "agentic-sim" || !c.LLMSimulated ||
		c.LLMBaseURL != "http://127.0.0.1:8112/v1" || c.MaxOutputTokens != 1024 || c.HoldTTL != 10*time.Minute ||
		c.WalletGRPCAddr != "127.0.0.1:9104" || c.DocumentsGRPCAddr != "127.0.0.1:9103" || c.CatalogGRPCAddr != "127.0.0.1:9102" ||
		c.APIKeyRateLimit != 120 || c.APIOwnerRateLimit != 600 || c.APIRateWindow != time.Minute || c.APIKeyCacheTTL != time.Second ||
		c.MaxAPIKeysPerAgent != 25 || c.AccessCacheTTL != 10*time.Second {
		t.Fatalf("defaults %+v", c)
	}

	t.Setenv("MAX_API_KEYS_PER_AGENT", "3")
	if c, err := LoadConfig(); err != nil || c.MaxAPIKeysPerAgent != 3 {
		t.Fatalf("MAX_API_KEYS_PER_AGENT: %d %v", c.MaxAPIKeysPerAgent, err)
	}
	t.Setenv("LLM_MODEL", "gpt-4o-mini")
	t.Setenv("LLM_PRICES", `{"my-model":{"input":1,"output":2}}`)
	if c, err := LoadConfig(); err != nil || c.LLMSimulated || c.Prices["my-model"].Output != 2 {
		t.Fatalf("real model: %+v %v", c.LLMSimulated, err)
	}
	for _, bad := range []struct{ key, value, want string }{
		{"LLM_MODEL", "unpriced-model", "LLM_MODEL"},
		{"HOLD_TTL", "2m", "HOLD_TTL"},
		{"HOLD_TTL", "2h", "HOLD_TTL"},
		{"LLM_MAX_OUTPUT_TOKENS", "20000", "LLM_MAX_OUTPUT_TOKENS"},
		{"LLM_PRICES", `{"x":{"input":1}}`, "missing"},
		{"CHAT_RATE_WINDOW", "soon", "CHAT_RATE_WINDOW"},
		{"API_RATE_WINDOW", "0s", "API_RATE_WINDOW"},
		{"API_KEY_CACHE_TTL", "2s", "API_KEY_CACHE_TTL"},
		{"API_KEY_RATE_LIMIT", "many", "API_KEY_RATE_LIMIT"},
		{"MAX_API_KEYS_PER_AGENT", "0", "MAX_API_KEYS_PER_AGENT"},
		{"FOLLOW_UP_SEARCH", "always", "FOLLOW_UP_SEARCH"},
	} {
		t.Run(bad.key+"="+bad.value, func(t *testing.T) {
			t.Setenv(bad.key, bad.value)
			if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), bad.want) {
				t.Fatalf("got %v, want an error about %s", err, bad.want)
			}
		})
	}
}

func TestLoadConfigProductionRefusesAuthEmulator(t *testing.T) {
	t.Setenv("APP_ENV", "production")
	t.Setenv("FIREBASE_AUTH_EMULATOR_HOST", "127.0.0.1:9099")
	if _, err := LoadConfig(); err == nil || !strings.Contains(err.Error(), "FIREBASE_AUTH_EMULATOR_HOST") {
		t.Fatalf("production with the Auth emulator: %v", err)
	}
}
