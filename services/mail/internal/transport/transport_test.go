package transport

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/mail/internal/senderauth"
)

func TestLoopbackOnly(t *testing.T) {
	h := LoopbackOnly(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) }))
	for addr, want := range map[string]int{
		"127.0.0.1:5000": http.StatusTeapot,
		"[::1]:5000":     http.StatusTeapot,
		"10.0.0.7:5000":  http.StatusNotFound,
		"203.0.113.9:25": http.StatusNotFound,
		"garbage":        http.StatusNotFound,
	} {
		r := httptest.NewRequest(http.MethodGet, "/admin/messages", nil)
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != want {
			t.Errorf("%s: %d, want %d", addr, w.Code, want)
		}
	}
}

func TestSMTPErrorMapping(t *testing.T) {
	for err, want := range map[error]string{
		inbox.ErrUnknownRecipient:                                         "550 5.1.1",
		inbox.ErrSenderNotAllowed:                                         "550 5.7.1",
		inbox.ErrNullSender:                                               "550 5.7.1",
		inbox.ErrAgentInactive:                                            "550 5.2.1",
		fmt.Errorf("%w: x", inbox.ErrFromMismatch):                        "550 5.7.1",
		fmt.Errorf("%w: x", inbox.ErrNotAuthenticated):                    "550 5.7.1",
		fmt.Errorf("%w: x", inbox.ErrMalformed):                           "550 5.6.0",
		&inbox.UnavailableError{What: "catalog", Err: errors.New("down")}: "451 4.3.0",
		&inbox.UnavailableError{What: "sender authentication", Err: &senderauth.TemporaryError{Detail: "x"}}: "451 4.7.5",
		errors.New("anything else"): "451 4.3.0",
	} {
		se := smtpError(err)
		if got := fmt.Sprintf("%d %d.%d.%d", se.Code, se.EnhancedCode[0], se.EnhancedCode[1], se.EnhancedCode[2]); got != want {
			t.Errorf("%v: %s, want %s", err, got, want)
		}
	}
}
