package notify

import (
	"bytes"
	"fmt"
	"html"
	"net/mail"
	"strings"
	"time"

	gomail "github.com/emersion/go-message/mail"
	"github.com/google/uuid"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/events/v1"
)

// Notification is one e-mail's content.
type Notification struct {
	Kind, UID string
	Subject   string
	// Lines are the paragraphs of the body (plain text); the last one is
	// followed by the call to action "<Action>: <URL>".
	Lines       []string
	Action, URL string
	// Footer is the signature line (default: walletFooter).
	Footer string
}

// The signature lines: why the user gets the e-mail.
const (
	walletFooter        = "Agentic billing. You get this e-mail because of your wallet settings."
	subscriberCapFooter = "Agentic. You get this e-mail because you set a monthly cap for your agent's subscribers."
)

func (n Notification) footer() string {
	if n.Footer != "" {
		return n.Footer
	}
	return walletFooter
}

// Text is the text/plain body.
func (n Notification) Text() string {
	var b strings.Builder
	for _, l := range n.Lines {
		b.WriteString(l)
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "%s: %s\n\n-- \n%s\n", n.Action, n.URL, n.footer())
	return b.String()
}

// HTML is the text/html body.
func (n Notification) HTML() string {
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html><html><body style="font-family: sans-serif; line-height: 1.5">`)
	for _, l := range n.Lines {
		fmt.Fprintf(&b, "<p>%s</p>", html.EscapeString(l))
	}
	fmt.Fprintf(&b, `<p><a href="%s">%s</a></p>`, html.EscapeString(n.URL), html.EscapeString(n.Action))
	fmt.Fprintf(&b, `<p style="color: #666; font-size: 0.9em">%s</p>`, html.EscapeString(n.footer()))
	b.WriteString("</body></html>\n")
	return b.String()
}

// Dollars formats micro-dollars as "$1,234.56" (rounded to the cent).
func Dollars(micros int64) string {
	sign := ""
	if micros < 0 {
		sign, micros = "-", -micros
	}
	cents := (micros + 5_000) / 10_000
	whole, frac := cents/100, cents%100
	s := fmt.Sprintf("%d", whole)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return fmt.Sprintf("%s$%s.%02d", sign, s, frac)
}

// Compose returns the notification of a wallet event payload; false when
// the event is not one to notify.
func Compose(msg proto.Message, baseURL string) (Notification, bool) {
	wallet := strings.TrimRight(baseURL, "/") + WalletPath
	switch m := msg.(type) {
	case *eventsv1.WalletBalanceLow:
		return Notification{
			Kind: KindBalanceLow, UID: m.GetUid(),
			Subject: "Your Agentic balance is low",
			Lines: []string{fmt.Sprintf("Your Agentic balance is low: %s left (your threshold is %s).",
				Dollars(m.GetAvailableMicros()), Dollars(m.GetThresholdMicros())),
				"Your agents stop answering when the balance runs out."},
			Action: "Add funds", URL: wallet,
		}, true
	case *eventsv1.WalletSpendWarning:
		limit, used := Dollars(m.GetMonthlyLimitMicros()), Dollars(m.GetMonthUsageMicros())
		switch m.GetThreshold() {
		case "limit_80":
			return Notification{
				Kind: KindSpend80, UID: m.GetUid(),
				Subject: "You have used 80% of your monthly spending limit",
				Lines: []string{fmt.Sprintf("You have used 80%% of your %s monthly spending limit (%s spent this month).", limit, used),
					"When the limit is reached, your agents stop answering until the next month or until you raise it."},
				Action: "Review your spending limit", URL: wallet,
			}, true
		case "limit_100":
			return Notification{
				Kind: KindSpend100, UID: m.GetUid(),
				Subject: "You have reached your monthly spending limit",
				Lines: []string{fmt.Sprintf("You have used 100%% of your %s monthly spending limit (%s spent this month).", limit, used),
					"Answers that would go over the limit are refused until the next month or until you raise it."},
				Action: "Raise your spending limit", URL: wallet,
			}, true
		}
		return Notification{}, false
	case *eventsv1.WalletRechargeFailed:
		reason := strings.TrimSpace(m.GetFailureMessage())
		if reason == "" {
			reason = "The payment was declined."
		}
		if m.GetAutoRechargeDisabled() {
			return Notification{
				Kind: KindRechargeDisabled, UID: m.GetUid(),
				Subject: "Auto-recharge is off",
				Lines: []string{fmt.Sprintf("Auto-recharge is off after three declined payments: %s", reason),
					"Update your card and turn auto-recharge on again."},
				Action: "Update your card", URL: wallet,
			}, true
		}
		return Notification{
			Kind: KindRechargeFailed, UID: m.GetUid(),
			Subject: "Auto-recharge failed: your card was declined",
			Lines: []string{fmt.Sprintf("Auto-recharge failed: your card was declined. The %s top-up was not paid (%s).",
				Dollars(m.GetAmountMicros()), strings.TrimRight(reason, ".")),
				fmt.Sprintf("Declined payments in a row: %d. After three, auto-recharge is turned off.", m.GetConsecutiveFailures())},
			Action: "Update your card", URL: wallet,
		}, true
	}
	return Notification{}, false
}

// SubscriberCapText composes the owner's e-mail of a SubscriberCapReached
// event; subscriber is the subscriber as identity knows them (the zero User
// when identity does not know them any more).
func SubscriberCapText(m *eventsv1.SubscriberCapReached, subscriber User, baseURL string) Notification {
	name, email := strings.TrimSpace(subscriber.Name), strings.TrimSpace(subscriber.Email)
	who := name // the subject names them by their name, else their address
	switch {
	case who == "" && email != "":
		who = email
	case who == "":
		who = "A subscriber"
	}
	full := who // the body adds the address to a name
	if name != "" && email != "" && !strings.EqualFold(name, email) {
		full = fmt.Sprintf("%s (%s)", name, email)
	}
	agent := strings.TrimSpace(m.GetAgentName())
	if agent == "" {
		agent = "your agent"
	}
	month := "this month"
	if t, err := time.Parse("2006-01", m.GetPeriod()); err == nil {
		month = "in " + t.Format("January 2006")
	}
	return Notification{
		Kind: KindSubscriberCap, UID: m.GetOwnerUid(),
		Subject: fmt.Sprintf("%s reached their monthly cap on %s", who, agent),
		Lines: []string{
			fmt.Sprintf("%s reached the monthly cap you set for them on %s: their answers cost you %s %s, and their cap is %s.",
				full, agent, Dollars(m.GetSpentMicros()), month, Dollars(m.GetCapMicros())),
			"They will be told the agent is unavailable until next month or until you raise their cap.",
		},
		Action: "Review their cap", URL: strings.TrimRight(baseURL, "/") + AgenticUsersPath,
		Footer: subscriberCapFooter,
	}
}

// messageIDNamespace makes a notification's Message-ID a function of its
// event: a resend carries the same id, which mail clients deduplicate.
var messageIDNamespace = uuid.MustParse("6f1c7a52-2f0e-4c55-9a0e-3b7c1f1d2a10")

// Build renders n as a complete message from → to and returns it with its
// Message-ID (without angle brackets).
func Build(n Notification, from, to mail.Address, eventID string, at time.Time) ([]byte, string, error) {
	if at.IsZero() {
		at = time.Now()
	}
	domain := "agentic.invalid"
	if i := strings.LastIndexByte(from.Address, '@'); i >= 0 && i < len(from.Address)-1 {
		domain = from.Address[i+1:]
	}
	msgID := uuid.NewSHA1(messageIDNamespace, []byte(eventID)).String() + "@" + domain
	var h gomail.Header
	h.SetDate(at)
	h.SetAddressList("From", []*gomail.Address{{Name: from.Name, Address: from.Address}})
	h.SetAddressList("To", []*gomail.Address{{Name: to.Name, Address: to.Address}})
	h.SetSubject(n.Subject)
	h.SetMessageID(msgID)
	h.Set("MIME-Version", "1.0")
	// RFC 3834: generated automatically; auto-responders must not answer.
	h.Set("Auto-Submitted", "auto-generated")

	var buf bytes.Buffer
	w, err := gomail.CreateInlineWriter(&buf, h)
	if err != nil {
		return nil, "", fmt.Errorf("notify: %w", err)
	}
	for _, p := range []struct{ ct, body string }{{"text/plain", n.Text()}, {"text/html", n.HTML()}} {
		var ph gomail.InlineHeader
		ph.SetContentType(p.ct, map[string]string{"charset": "utf-8"})
		pw, err := w.CreatePart(ph)
		if err != nil {
			return nil, "", fmt.Errorf("notify: %w", err)
		}
		if _, err := pw.Write([]byte(p.body)); err != nil {
			return nil, "", fmt.Errorf("notify: %w", err)
		}
		if err := pw.Close(); err != nil {
			return nil, "", fmt.Errorf("notify: %w", err)
		}
	}
	if err := w.Close(); err != nil {
		return nil, "", fmt.Errorf("notify: %w", err)
	}
	return buf.Bytes(), msgID, nil
}
