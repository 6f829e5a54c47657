package inbox

import (
	"strings"
	"testing"
	"time"
)

func TestConversationKey(t *testing.T) {
	short := "CAF=abc+123@mail.gmail.com"
	if ConversationKey(short) != short {
		t.Errorf("short id changed: %s", ConversationKey(short))
	}
	long := strings.Repeat("a", 120) + "@x"
	k := ConversationKey(long)
	if !strings.HasPrefix(k, "sha256:") || len(k) != 71 || k != ConversationKey(long) || k == ConversationKey(long+"y") {
		t.Errorf("long id key %q", k)
	}
	if k := ConversationKey("a\x01b@x"); !strings.HasPrefix(k, "sha256:") {
		t.Errorf("control characters kept: %q", k)
	}
}

func TestContentAndTitle(t *testing.T) {
	for _, c := range []struct {
		body, subject string
		att           []string
		want          string
	}{
		{"  Question?  ", "Subj", nil, "Question?"},
		{"", "Only a subject", nil, "Only a subject"},
		{"See file", "", []string{"a.pdf", "b.png"}, "See file\n\n[Attachments not read: a.pdf, b.png]"},
		{"", "", []string{"a.pdf"}, ""},
	} {
		if got := Content(c.body, c.subject, c.att); got != c.want {
			t.Errorf("Content(%q, %q, %v) = %q, want %q", c.body, c.subject, c.att, got, c.want)
		}
	}
	if Title("  ") != "(no subject)" || Title(" Hi ") != "Hi" {
		t.Error("Title")
	}
}

func TestBackoff(t *testing.T) {
	base, max := time.Second, 10*time.Second
	for n, want := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 4: 8 * time.Second, 5: 10 * time.Second, 50: 10 * time.Second} {
		if got := backoff(n, base, max, 0); got != want {
			t.Errorf("backoff(%d) = %v, want %v", n, got, want)
		}
	}
	if got := backoff(3, base, max, 1); got != 4*time.Second*8/10 {
		t.Errorf("full jitter: %v", got)
	}
}
