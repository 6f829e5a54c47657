package app

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
)

// The inbox is paced to the answers (package inflow): with two messages
// waiting for their answer, a third sender waits at MAIL FROM, is accepted
// as soon as the answers come, and is told to try again later (451 4.3.2)
// when they do not come within the longest wait. Nothing refused is stored.
func TestInflowPacesTheInboxToTheAnswers(t *testing.T) {
	for _, tc := range []struct {
		name    string
		maxWait time.Duration
		answer  bool // the held answers are let through while the third sender waits
		want    string
		stored  int
		metric  string
	}{
		{name: "admitted when the backlog drains", maxWait: 20 * time.Second, answer: true, want: "250 2.0.0",
			stored: 3, metric: "mail_inflow_wait_seconds_count 3"},
		{name: "try again later when it does not", maxWait: 700 * time.Millisecond, want: "451 4.3.2",
			stored: 2, metric: "mail_inflow_refused_total 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			app := start(t, func(c *Config) { c.InflowBacklog, c.InflowMaxWait = 2, tc.maxWait })
			release := make(chan struct{})
			app.conv.fail = func(int, *conversationsv1.AnswerRequest) error {
				select {
				case <-release:
				case <-time.After(30 * time.Second):
				}
				return nil
			}
			defer func() {
				select {
				case <-release:
				default:
					close(release)
				}
			}()
			for i := range 2 {
				raw := message(owner, agentEmail, "Waiting", fmt.Sprintf("inflow-%d@example.org", i), nil, "Question")
				if err := send(t, app.smtp, owner, []string{agentEmail}, raw); err != nil {
					t.Fatalf("message %d within the backlog: %v", i, err)
				}
			}
			third := make(chan error, 1)
			go func() {
				third <- send(t, app.smtp, owner, []string{agentEmail},
					message(owner, agentEmail, "Third", "inflow-third@example.org", nil, "Question"))
			}()
			select {
			case err := <-third:
				if tc.answer {
					t.Fatalf("third message not held while the backlog was full: %s", code(err))
				}
				if got := code(err); got != tc.want {
					t.Fatalf("third message: %s, want %s", got, tc.want)
				}
			case <-time.After(400 * time.Millisecond):
				if tc.answer {
					close(release)
				}
				select {
				case err := <-third:
					if got := code(err); got != tc.want {
						t.Fatalf("third message: %s, want %s", got, tc.want)
					}
				case <-time.After(20 * time.Second):
					t.Fatal("third message never answered by the inbox")
				}
			}
			if tc.answer {
				app.sink.Wait(tc.stored, 20*time.Second)
			}
			if got := len(admin(t, app.http)); got != tc.stored {
				t.Fatalf("messages stored: %d, want %d", got, tc.stored)
			}
			resp, err := http.Get(app.http + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !strings.Contains(string(b), tc.metric) {
				t.Errorf("metrics lack %q", tc.metric)
			}
		})
	}
}
