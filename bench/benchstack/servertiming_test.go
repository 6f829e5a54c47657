package benchstack

import (
	"net/http"
	"testing"
	"time"
)

func TestServerTiming(t *testing.T) {
	h := http.Header{}
	h.Add("Server-Timing", `key;desc="API key check";dur=0.250`)
	h.Add("Server-Timing", `model;desc="model to first token";dur=3.125, platform;desc="before the model";dur=7.5`)
	h.Add("Server-Timing", `cache;desc="hit"`)
	for name, want := range map[string]time.Duration{
		"key": 250 * time.Microsecond, "model": 3125 * time.Microsecond, "platform": 7500 * time.Microsecond,
	} {
		if got, ok := ServerTiming(h, name); !ok || got != want {
			t.Errorf("ServerTiming(%q) = %v, %v; want %v", name, got, ok, want)
		}
	}
	for _, name := range []string{"cache", "db", "model;"} {
		if got, ok := ServerTiming(h, name); ok {
			t.Errorf("ServerTiming(%q) = %v, true; want absent", name, got)
		}
	}
	bad := http.Header{"Server-Timing": {`model;dur=soon`}}
	if _, ok := ServerTiming(bad, "model"); ok {
		t.Error("an unparsable duration must not count")
	}
}
