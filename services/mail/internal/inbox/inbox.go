// Package inbox is the mail service's domain: the agents' inbox and their
// replies.
//
// Receiving is decoupled from answering. During the SMTP session the
// Service checks every recipient (an existing agent's address) and the
// sender (the owner or an active subscriber, by the address they write
// from), then checks the content (From equals the envelope sender, DKIM or
// SPF in production) and stores the message durably — all before the SMTP
// server answers 250. A redelivery of the same Message-ID to the same agent
// is the same row, so it is answered once.
//
// The AnswerWorker then leases stored messages (FOR UPDATE SKIP LOCKED),
// asks the conversations service to answer (idempotent by the Message-ID,
// one conversation per thread), and queues the reply in the same
// transaction that records the answer. The SendWorker leases queued replies
// and hands them to the SMTP relay, recording "sent" once the relay has
// accepted, retrying with back-off while it is down.
package inbox

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-app/agentic/services/mail/internal/compose"
)

// Migrations holds the service's SQL migrations (dir "migrations").
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Message states.
const (
	StatePending  = "pending"
	StateAnswered = "answered"
	StateRefused  = "refused"
)

// Reply states.
const (
	ReplyPending = "pending"
	ReplySent    = "sent"
	ReplyFailed  = "failed"
)

// Reply kinds.
const (
	KindAnswer       = "answer"
	KindCannotAnswer = "cannot_answer"
	KindRateLimited  = "rate_limited"
	KindTooLong      = "too_long"
)

// Reasons a stored message is not answered (MailMessageRefused.reason).
const (
	ReasonInsufficientFunds = "insufficient_funds"
	ReasonAgentUnavailable  = "agent_unavailable" // the owner's monthly cap for this subscriber is spent
	ReasonModelUnavailable  = "model_unavailable"
	ReasonUnavailable       = "unavailable" // the conversations service failed for too long
	ReasonNoAccess          = "no_access"   // the sender lost access between receipt and answer
	ReasonRejected          = "rejected"    // the conversations service refused the request itself
	ReasonRateLimited       = "rate_limited"
	ReasonTooLong           = "too_long"
	ReasonEmpty             = "empty"
	ReasonAutoSubmitted     = "auto_submitted"
)

// Texts of the short replies that replace an answer.
const (
	MsgCannotAnswer = "The agent cannot answer right now."
	// MsgAgentUnavailable is the sentence every channel gives a subscriber
	// whose monthly cap is spent (it does not say why: the cap is the
	// owner's business).
	MsgAgentUnavailable = "This agent is unavailable right now."
	MsgTooLong          = "Your message is too long for the agent to answer (at most 8,000 characters). Please send a shorter message."
)

// MsgAgentFeeDue is the owner's reply when the agent's monthly fee is due
// with the answer and the wallet cannot pay it (the fee, then what to add,
// rounded up to the cent): the same sentence as the chat and the API.
const MsgAgentFeeDue = "This agent's monthly fee of %s is due: add %s to your wallet to continue."

// AgentFeeDueError is ErrInsufficientFunds when the refusal is the agent's
// monthly fee, due with the answer (the sender is the owner): the fee and
// what is missing, in micro-dollars.
type AgentFeeDueError struct {
	FeeMicros, MissingMicros int64
}

func (e *AgentFeeDueError) Error() string {
	return fmt.Sprintf("agent fee due (fee %d, missing %d micro-dollars)", e.FeeMicros, e.MissingMicros)
}

// Unwrap makes errors.Is(err, ErrInsufficientFunds) hold.
func (e *AgentFeeDueError) Unwrap() error { return ErrInsufficientFunds }

// Message is the reply's text.
func (e *AgentFeeDueError) Message() string {
	return fmt.Sprintf(MsgAgentFeeDue, centsText(e.FeeMicros), centsText(roundUpToCent(e.MissingMicros)))
}

// centsText shows micro-dollars as dollars and cents ("$10.00").
func centsText(micros int64) string {
	return fmt.Sprintf("$%d.%02d", micros/1_000_000, micros%1_000_000/10_000)
}

// roundUpToCent rounds a positive amount up to a whole cent.
func roundUpToCent(micros int64) int64 {
	if micros <= 0 {
		return 0
	}
	return (micros + 9_999) / 10_000 * 10_000
}

// MsgRateLimited is the reply when a sender reached the hourly limit.
func MsgRateLimited(limit int) string {
	return fmt.Sprintf("You have reached the limit of %d messages per hour to this agent, so this message will not be answered. Please try again later.", limit)
}

// Limits.
const (
	// MaxContent is the longest question the conversations service accepts (runes).
	MaxContent = 8000
	// MaxKey is the longest idempotency key / thread key passed as is; longer
	// Message-IDs are passed as "sha256:<hex>" (the conversations service
	// limits client message ids to 100 characters).
	MaxKey = 100
)

// Agent is an agent as the catalog describes it.
type Agent struct {
	ID       string
	Email    string
	Name     string
	OwnerUID string
	Status   string // "active", "inactive" or "pending"
}

// Recipient is an accepted RCPT TO: the agent and the uid of the sender
// who may use it.
type Recipient struct {
	Agent     Agent
	SenderUID string
}

// Envelope is an SMTP transaction's envelope.
type Envelope struct {
	RemoteIP   net.IP
	HELO       string
	MailFrom   string
	Recipients []Recipient
}

// Directory looks agents and users up (catalog and identity over gRPC).
type Directory interface {
	// AgentByEmail returns the agent whose address is address;
	// ErrUnknownRecipient when there is none.
	AgentByEmail(ctx context.Context, address string) (Agent, error)
	// UsersByEmail returns the uids of the users with this address (usually
	// zero or one).
	UsersByEmail(ctx context.Context, address string) ([]string, error)
	// CanUse reports whether uid is the agent's owner or an active subscriber.
	CanUse(ctx context.Context, agentID, uid string) (bool, error)
}

// AnswerRequest asks the conversations service for an answer.
type AnswerRequest struct {
	AgentID, UserUID, ThreadKey, Title, Content, IdempotencyKey string
}

// Answer is the conversations service's answer.
type Answer struct {
	ConversationID string
	MessageID      string
	Markdown       string
	Citations      []compose.Citation
	TotalMicros    int64
	Replayed       bool
}

// Answerer answers (the conversations service's Answer).
type Answerer interface {
	// Answer returns ErrInsufficientFunds, ErrAgentUnavailable,
	// ErrModelUnavailable, ErrNoAccess or ErrRejected for the refusals the
	// service defines; any other error is temporary.
	Answer(ctx context.Context, req AnswerRequest) (Answer, error)
}

// Errors of Answerer.
var (
	ErrInsufficientFunds = errors.New("insufficient funds")
	ErrAgentUnavailable  = errors.New("the agent is unavailable to the sender (subscriber cap)")
	ErrModelUnavailable  = errors.New("model unavailable")
	ErrNoAccess          = errors.New("the sender may not use the agent")
	ErrRejected          = errors.New("the answer request was rejected")
)

// Errors of the SMTP-facing methods (the transport maps them to replies).
var (
	ErrNullSender       = errors.New("null sender")
	ErrBadAddress       = errors.New("malformed address")
	ErrUnknownRecipient = errors.New("no agent has this address")
	ErrSenderNotAllowed = errors.New("the sender may not use this agent")
	ErrAgentInactive    = errors.New("the agent is not active")
	ErrFromMismatch     = errors.New("the From header does not match the envelope sender")
	ErrNotAuthenticated = errors.New("the sender's domain did not authenticate the message")
	ErrMalformed        = errors.New("malformed message")
	ErrNoRecipients     = errors.New("no recipients")
)

// UnavailableError: a dependency (catalog, identity, DNS, the database)
// failed; the sending server should try again later (SMTP 451).
type UnavailableError struct {
	What string
	Err  error
}

func (e *UnavailableError) Error() string { return e.What + " unavailable: " + e.Err.Error() }
func (e *UnavailableError) Unwrap() error { return e.Err }

// IsUnavailable reports whether err is an UnavailableError.
func IsUnavailable(err error) bool {
	var ue *UnavailableError
	return errors.As(err, &ue)
}

// NormalizeAddress lower-cases and trims an address; "" stays "".
func NormalizeAddress(a string) string { return strings.ToLower(strings.TrimSpace(a)) }

// validAddress is a minimal syntax check of an envelope address.
func validAddress(a string) bool {
	at := strings.LastIndexByte(a, '@')
	return at > 0 && at < len(a)-1 && !strings.ContainsAny(a, " \t\r\n<>")
}

// ConversationKey is id as an idempotency or thread key: itself when short
// enough and printable, else "sha256:" and its hash (same id, same key).
func ConversationKey(id string) string {
	if utf8.RuneCountInString(id) <= MaxKey && !strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Content is what the agent is asked: the body (else the subject), and the
// attachments' names, which the agent cannot read.
func Content(body, subject string, attachments []string) string {
	c := strings.TrimSpace(body)
	if c == "" {
		c = strings.TrimSpace(subject)
	}
	if c != "" && len(attachments) > 0 {
		c += "\n\n[Attachments not read: " + strings.Join(attachments, ", ") + "]"
	}
	return c
}

// Title is a new conversation's title: the subject, else "(no subject)".
func Title(subject string) string {
	if s := strings.TrimSpace(subject); s != "" {
		return s
	}
	return "(no subject)"
}

// domainOf returns the domain of an address.
func domainOf(a string) string {
	if at := strings.LastIndexByte(a, '@'); at >= 0 {
		return a[at+1:]
	}
	return ""
}

// backoff is the wait before attempt n+1 after n failures: base·2^(n−1),
// capped at max, minus up to 20% jitter so retries of many messages spread.
func backoff(n int, base, max time.Duration, jitter float64) time.Duration {
	d := base
	for i := 1; i < n && d < max; i++ {
		d *= 2
	}
	d = min(d, max)
	return d - time.Duration(float64(d)*0.2*jitter)
}
