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

func TestSubscriberCapText(t *testing.T) {
	ev := &eventsv1.SubscriberCapReached{AgentId: "a1", OwnerUid: "alice", AgentName: "Math Tutor", SubscriberUid: "erin",
		CapMicros: 5_000_000, SpentMicros: 4_987_654, Period: "2026-01"}
	n := SubscriberCapText(ev, User{Name: "Erin", Email: "erin@example.net"}, "https://app.example.test/")
	if n.Kind != KindSubscriberCap || n.UID != "alice" {
		t.Errorf("kind %q uid %q", n.Kind, n.UID)
	}
	if want := "Erin reached their monthly cap on Math Tutor"; n.Subject != want {
		t.Errorf("subject %q, want %q", n.Subject, want)
	}
	text := n.Text()
	for _, want := range []string{
		"Erin (erin@example.net) reached the monthly cap you set for them on Math Tutor: their answers cost you $4.99 in January 2026, and their cap is $5.00.",
		"They will be told the agent is unavailable until next month or until you raise their cap.",
		"Review their cap: https://app.example.test/dashboard/agentic-users\n",
		"you set a monthly cap for your agent's subscribers",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "wallet settings") {
		t.Errorf("the wallet's footer:\n%s", text)
	}
	h := n.HTML()
	for _, want := range []string{`<a href="https://app.example.test/dashboard/agentic-users">Review their cap</a>`,
		"They will be told the agent is unavailable until next month or until you raise their cap.",
		"you set a monthly cap for your agent&#39;s subscribers"} {
		if !strings.Contains(h, want) {
			t.Errorf("html lacks %q:\n%s", want, h)
		}
	}

	// Without a display name the subject uses the address; without either,
	// "A subscriber"; a bad period reads "this month".
	if n := SubscriberCapText(ev, User{Email: "erin@example.net"}, DefaultBaseURL); n.Subject != "erin@example.net reached their monthly cap on Math Tutor" ||
		!strings.Contains(n.Text(), "erin@example.net reached the monthly cap you set for them") {
		t.Errorf("address only: %q\n%s", n.Subject, n.Text())
	}
	ev.Period = "January"
	if n := SubscriberCapText(ev, User{}, DefaultBaseURL); n.Subject != "A subscriber reached their monthly cap on Math Tutor" ||
		!strings.Contains(n.Text(), "cost you $4.99 this month") {
		t.Errorf("nobody: %q\n%s", n.Subject, n.Text())
	}

	// The wallet's e-mails keep their footer.
	if n, _ := Compose(&eventsv1.WalletBalanceLow{Uid: "u1"}, DefaultBaseURL); !strings.Contains(n.Text(), "because of your wallet settings") ||
		!strings.Contains(n.HTML(), "because of your wallet settings") {
		t.Errorf("wallet footer:\n%s", n.Text())
	}
}
