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

func TestAccountStatus(t *testing.T) {
	for _, c := range []struct {
		enabled, submitted bool
		want               string
	}{{true, true, "enabled"}, {true, false, "enabled"}, {false, false, "onboarding"}, {false, true, "restricted"}} {
		if got := accountStatus(c.enabled, c.submitted); got != c.want {
			t.Errorf("accountStatus(%v, %v) = %s, want %s", c.enabled, c.submitted, got, c.want)
		}
	}
	base := map[string]any{"id": "acct_1", "object": "account", "payouts_enabled": false}
	o := accountObject(base, true, true, "under_review")
	if o["payouts_enabled"] != true || base["payouts_enabled"] != false || o["id"] != "acct_1" {
		t.Errorf("accountObject %v (base %v)", o, base)
	}
	if r := o["requirements"].(map[string]any); r["disabled_reason"] != nil {
		t.Errorf("enabled account with a disabled reason: %v", r)
	}
	if r := accountObject(base, false, true, "under_review")["requirements"].(map[string]any); r["disabled_reason"] != "under_review" {
		t.Errorf("restricted account requirements %v", r)
	}
}

func TestUUIDV4(t *testing.T) {
	u := uuidV4()
	if len(u) != 36 || u[14] != '4' || strings.Count(u, "-") != 4 {
		t.Errorf("uuidV4 %q", u)
	}
}

func TestEarningsLedger(t *testing.T) {
	e := earningsLedger{present: true, transfers: 2, transferMicros: 30, rows: 2, rowMicros: 30, partMicros: 30}
	if !e.ok() || !strings.Contains(e.String(), "2 earning transfers Σ 30 µ$ = Σ 2 earnings rows 30 µ$") {
		t.Errorf("ok %v %q", e.ok(), e.String())
	}
	e.partMicros = 29
	if e.ok() {
		t.Error("Σ markup + greeting ≠ Σ rows accepted")
	}
	e.partMicros, e.creditedTwice, e.problems = 30, 1, []string{"answer m credited 2 times"}
	if e.ok() || !strings.Contains(e.String(), "credited more than once: 1") {
		t.Errorf("ok %v %q", e.ok(), e.String())
	}
	if l := (ledger{earn: earningsLedger{}}); !l.ok() || !strings.Contains(l.String(), "no earnings tables") {
		t.Errorf("a wallet without earnings: %v %q", l.ok(), l.String())
	}
	r := consumerReport{charges: 3, captured: 2, credited: 2, states: map[string]int{"captured": 2, "released": 1}}
	if !r.ok() {
		t.Errorf("consumers %s", r)
	}
	r.credited, r.twice = 1, 1
	if r.ok() {
		t.Errorf("an answer credited twice accepted: %s", r)
	}
}
