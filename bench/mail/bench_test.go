package main

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestPerSender(t *testing.T) {
	total := 0
	for i := range 50 {
		n := perSender(1000, 50, i)
		if n != 20 {
			t.Fatalf("sender %d: %d", i, n)
		}
		total += n
	}
	total = 0
	for i := range 3 {
		total += perSender(10, 3, i)
	}
	if total != 10 || perSender(10, 3, 0) != 4 || perSender(10, 3, 2) != 3 {
		t.Fatalf("uneven split wrong: total %d", total)
	}
	if err := (config{senders: 50, messages: 1000, hourlyLimit: 30, timeout: time.Minute, poll: time.Second}).check(); err != nil {
		t.Fatal(err)
	}
	if err := (config{senders: 10, messages: 1000, hourlyLimit: 30, timeout: time.Minute, poll: time.Second}).check(); err == nil {
		t.Fatal("100 per sender over the hourly limit accepted")
	}
}

func TestBuildMessage(t *testing.T) {
	m := outgoing{From: "a@bench.example.com", To: "agent@agents.example", Subject: "Hi", Body: "line one\nline two",
		MessageID: newMessageID("abc", 3, 7), Date: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	got := string(m.build())
	for _, want := range []string{
		"From: <a@bench.example.com>\r\n", "To: <agent@agents.example>\r\n", "Subject: Hi\r\n",
		"Message-ID: <bench-abc-3-7@bench.example.com>\r\n", "Date: Fri, 02 Jan 2026 03:04:05 +0000\r\n",
		"Content-Type: text/plain; charset=utf-8\r\n", "\r\n\r\nline one\r\nline two\r\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(strings.ReplaceAll(got, "\r\n", ""), "\n") {
		t.Error("bare LF in the message")
	}
	if strings.Count(got, "From:") != 1 {
		t.Error("want exactly one From")
	}
}

func TestParseMaildev(t *testing.T) {
	body := `[
	 {"id":"a1","time":"2026-01-02T03:04:05.678Z","subject":"Re: Hi","inReplyTo":"<x1@bench.example.com>","headers":{"in-reply-to":"<other@x>"}},
	 {"id":"a2","time":"2026-01-02T03:04:06.000Z","headers":{"In-Reply-To":"<x2@bench.example.com>","references":["<r1>","<r2>"]}},
	 {"id":"a3","headers":{"in-reply-to":["<x3@bench.example.com>"]}},
	 {"id":"a4","time":"not a time","headers":{"subject":"no thread"}}
	]`
	es, err := parseEmails([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 4 {
		t.Fatalf("%d emails", len(es))
	}
	for i, want := range []string{"x1@bench.example.com", "x2@bench.example.com", "x3@bench.example.com", ""} {
		if got := es[i].inReplyTo(); got != want {
			t.Errorf("email %d: In-Reply-To %q, want %q", i, got, want)
		}
	}
	at, ok := es[0].arrived()
	if !ok || !at.Equal(time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC)) {
		t.Errorf("arrived %v %v", at, ok)
	}
	if _, ok := es[2].arrived(); ok {
		t.Error("no time: want !ok")
	}
	if _, ok := es[3].arrived(); ok {
		t.Error("bad time: want !ok")
	}
	if _, err := parseEmails([]byte(`{"error":"x"}`)); err == nil {
		t.Error("an object: want an error")
	}
}

func TestReplyLatency(t *testing.T) {
	acc := time.Unix(100, 0)
	obs := acc.Add(900 * time.Millisecond)
	if got := replyLatency(acc, obs, acc.Add(400*time.Millisecond)); got != 400*time.Millisecond {
		t.Errorf("maildev time: %v", got)
	}
	if got := replyLatency(acc, obs, time.Time{}); got != 900*time.Millisecond {
		t.Errorf("no maildev time: %v", got)
	}
	if got := replyLatency(acc, obs, obs.Add(time.Second)); got != 900*time.Millisecond {
		t.Errorf("maildev time after the poll: %v", got)
	}
	if got := replyLatency(acc, obs, acc.Add(-time.Second)); got != 0 {
		t.Errorf("clock skew: %v", got)
	}
}

func TestLoopbackOnly(t *testing.T) {
	for _, ok := range []string{"http://127.0.0.1:1080", "http://localhost:8080", "http://[::1]:9099"} {
		if err := loopbackURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	if err := loopbackURL("http://example.com"); err == nil {
		t.Error("example.com accepted")
	}
	if err := loopbackHostPort("10.0.0.1:2525"); err == nil {
		t.Error("10.0.0.1 accepted")
	}
	if err := loopbackHostPort("127.0.0.1:2525"); err != nil {
		t.Error(err)
	}
}

func TestPacerSpacesMessages(t *testing.T) {
	p := newPacer(200) // one slot per 5 ms
	ctx := context.Background()
	start := time.Now()
	for range 11 {
		if !p.wait(ctx) {
			t.Fatal("wait refused with a live context")
		}
	}
	// Eleven slots are ten intervals apart: at least 50 ms in all.
	if got := time.Since(start); got < 50*time.Millisecond {
		t.Fatalf("11 paced messages took %s, want ≥ 50ms", got)
	}
	var none *pacer
	if !none.wait(ctx) {
		t.Fatal("no pacer must not block")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if none.wait(cancelled) || p.wait(cancelled) {
		t.Fatal("wait with a cancelled context must report false")
	}
}
