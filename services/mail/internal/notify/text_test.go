package notify

import (
	"net/mail"
	"strings"
	"testing"
	"time"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
)

func TestDollars(t *testing.T) {
	for micros, want := range map[int64]string{
		0: "$0.00", 1_200_000: "$1.20", 5_000: "$0.01", 4_999: "$0.00", 25_000_000: "$25.00",
		1_234_567_890: "$1,234.57", -500_000: "-$0.50", 10_000_000_000_000: "$10,000,000.00",
	} {
		if got := Dollars(micros); got != want {
			t.Errorf("Dollars(%d) = %s, want %s", micros, got, want)
		}
	}
}

func TestComposeAndBuild(t *testing.T) {
	if _, ok := Compose(&eventsv1.WalletSpendWarning{Threshold: "limit_50"}, DefaultBaseURL); ok {
		t.Error("an unknown threshold is notified")
	}
	n, ok := Compose(&eventsv1.WalletBalanceLow{Uid: "u1", AvailableMicros: 1_200_000, ThresholdMicros: 5_000_000}, "http://localhost:8080/")
	if !ok || n.Kind != KindBalanceLow || n.UID != "u1" {
		t.Fatalf("%+v", n)
	}
	if want := "Your Agentic balance is low: $1.20 left (your threshold is $5.00)."; !strings.Contains(n.Text(), want) ||
		!strings.Contains(n.Text(), "Add funds: http://localhost:8080/dashboard/wallet") {
		t.Errorf("text:\n%s", n.Text())
	}
	from, _ := mail.ParseAddress(DefaultFrom)
	raw1, id1, err := Build(n, *from, mail.Address{Address: "a@example.org"}, "ev-1", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	_, id2, _ := Build(n, *from, mail.Address{Address: "a@example.org"}, "ev-1", time.Now())
	_, id3, _ := Build(n, *from, mail.Address{Address: "a@example.org"}, "ev-2", time.Now())
	if id1 != id2 || id1 == id3 || !strings.HasSuffix(id1, "@agents.agentic.local") {
		t.Errorf("message ids %s %s %s", id1, id2, id3)
	}
	if s := string(raw1); !strings.Contains(s, "multipart/alternative") || !strings.Contains(s, "Auto-Submitted: auto-generated") {
		t.Errorf("raw:\n%s", s)
	}
}
