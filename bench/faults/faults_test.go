package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestLoopbackOnly(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:8080", "http://localhost:9099", "postgres://postgres@127.0.0.1:5432", "127.0.0.1:9104", "http://[::1]:8110"} {
		if err := loopbackOnly(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://10.0.0.1:8080", "https://example.com", "192.168.1.2:9104"} {
		if loopbackOnly(bad) == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}

// TestListeners finds this process by a port it listens on.
func TestListeners(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if got := listeners(port); !slices.Contains(got, os.Getpid()) {
		t.Errorf("listeners(%d) = %v, want our pid %d", port, got, os.Getpid())
	}
	l.Close()
	if !waitPortFree(port, 2*time.Second) {
		t.Errorf("port %d still listening after close", port)
	}
}

func TestSignStripe(t *testing.T) {
	payload := []byte(`{"id":"evt_1"}`)
	at := time.Unix(1_700_000_000, 0)
	got := signStripe(payload, "whsec_x", at)
	mac := hmac.New(sha256.New, []byte("whsec_x"))
	mac.Write([]byte("1700000000." + string(payload)))
	if want := "t=1700000000,v1=" + hex.EncodeToString(mac.Sum(nil)); got != want {
		t.Errorf("signature %s, want %s", got, want)
	}
}

func TestTally(t *testing.T) {
	tl := newTally()
	tl.add("chat", "ok")
	tl.add("chat", "503")
	tl.add("balance", "ok")
	tl.add("balance", "transport")
	att, ok, fails := tl.totals()
	if att != 4 || ok != 2 || fails["503"] != 1 || fails["transport"] != 1 {
		t.Errorf("totals %d %d %v", att, ok, fails)
	}
	if s := tl.summary(); s != "4 attempted, 2 succeeded, failed: 503 ×1, transport ×1" {
		t.Errorf("summary %q", s)
	}
	lines := tl.byOp()
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "balance") || !strings.Contains(lines[1], "503 ×1") {
		t.Errorf("byOp %q", lines)
	}
	if tl.lastFail.IsZero() {
		t.Error("lastFail not set")
	}
}

func TestEventReportString(t *testing.T) {
	r := eventReport{produced: 2, published: 2, expected: 4, consumed: 3, missing: 1,
		byTopic: map[string][3]int{"agentic.catalog.v1": {2, 4, 3}}, missingSample: []string{"analytics agentic.catalog.v1 x"}}
	s := r.String()
	for _, want := range []string{"2 produced", "4 expected, 3 consumed", "1 lost", "catalog 2→3/4"} {
		if !strings.Contains(s, want) {
			t.Errorf("%q lacks %q", s, want)
		}
	}
}
