// Package conversations is the conversations service's domain: users'
// conversations with agents, their messages, and the one answering path
// (Answer) every channel goes through: access, idempotency, rate limit,
// prompt assembly, reserve, model, capture, persist + event. Store persists
// conversations, messages and the charges (metering records) and enqueues
// events in the same transactions.
package conversations

import (
	"embed"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/agentic-app/agentic/services/conversations/internal/metering"
)

// Migrations holds the service's SQL migrations (dir "migrations").
//
//go:embed migrations/*.sql
var Migrations embed.FS

// Channels an answer can come through.
const (
	ChannelChat        = "chat"
	ChannelEmail       = "email"
	ChannelDocsComment = "docs_comment"
	ChannelAPI         = "api"
)

// Roles of a message.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
)

// Message statuses. Pending is internal: the assistant message of a turn
// being answered, never shown.
const (
	StatusPending  = "pending"
	StatusComplete = "complete"
	StatusPartial  = "partial"
	StatusFailed   = "failed"
	// StatusStopped: the answer was stopped (Stop, or the client left)
	// before its first token. Empty; its question is kept. It is charged
	// for its input only when the model had already been sent the prompt
	// (Usage set), else nothing (Usage nil). Never part of the history.
	StatusStopped = "stopped"
)

// Access roles (catalog CheckAccess).
const (
	AccessOwner      = "owner"
	AccessSubscriber = "subscriber"
	// AccessConsumer: a signed-in user talking to a listed agent they
	// neither own nor subscribe to (issue 28). They pay from their own
	// wallet: cost + fee + the creator's markup, and the greeting cost with
	// the conversation's first charged answer.
	AccessConsumer = "consumer"
)

// Limits (characters).
const (
	MaxTitle           = 200
	MaxContent         = 8000
	MaxClientMessageID = 100
	DefaultTitle       = "New conversation"
)

// Messages of the errors the API shows.
const (
	MsgNotFound             = "Not found"
	MsgConversationNotFound = "Conversation not found"
	MsgAgentNotFound        = "Agent not found"
	MsgInvalidTitle         = "Title must be 1 to 200 characters without control characters."
	MsgInvalidContent       = "Message must be 1 to 8,000 characters."
	MsgInvalidClientID      = "clientMessageId must be 1 to 100 characters."
	MsgInsufficientOwner    = "Insufficient funds: add funds to your wallet to keep talking to this agent."
	// MsgInsufficientConsumer: a consumer's wallet cannot hold the answer's
	// worst case (what it needs, then what the wallet has; dollars and
	// cents). MsgInsufficientConsumerShort when the wallet did not say.
	MsgInsufficientConsumer      = "This answer needs up to %s; your wallet has %s. Add funds to continue."
	MsgInsufficientConsumerShort = "This answer needs up to %s. Add funds to continue."
	MsgInsufficientOther         = MsgAgentUnavailable
	// MsgAgentUnavailable is all a subscriber is told when the agent may not
	// answer them for a reason of the owner's (money, their monthly cap).
	MsgAgentUnavailable = "This agent is unavailable right now."
	// MsgAgentFeeDue: the owner's refusal when the agent's monthly fee is due
	// with this answer and the wallet cannot pay it and the answer (the fee,
	// then what to add).
	MsgAgentFeeDue      = "This agent's monthly fee of %s is due: add %s to your wallet to continue."
	MsgMonthlyLimit     = "Monthly spending limit reached: raise your limit in the wallet to keep talking to this agent."
	MsgDebt             = "Your wallet has an outstanding balance: add funds to keep talking to this agent."
	MsgAgentPaused      = "This agent is paused until its monthly fee is paid: add funds to your wallet."
	MsgRateLimited      = "Too many messages. Please wait a moment and try again."
	MsgModelUnavailable = "The model is unavailable right now. Nothing was charged."
	MsgInterrupted      = "The answer was interrupted. You were charged only for what was generated."
	MsgInProgress       = "This message is still being answered."
	MsgCatalogDown      = "The agent service is unavailable. Please try again."
	MsgWalletDown       = "The wallet is unavailable right now. Nothing was charged."
	MsgKnowledgeDown    = "The agent's documents are unavailable right now. Nothing was charged."
	MsgTooLong          = "The agent's instructions and this message are too long for the model."
)

// Citation is a document an answer cites: the answer's [n] markers that cite
// it and the cited passages' text, so that a reader can open a marker and see
// what it refers to (both empty for a non-owner when the agent hides its
// sources, and in messages stored before markers were kept).
type Citation struct {
	DocumentID   string         `json:"documentId"`
	DocumentName string         `json:"documentName"`
	URL          string         `json:"url"`
	Labels       []string       `json:"labels"`
	Markers      []int          `json:"markers"`
	Passages     []CitedPassage `json:"passages"`
}

// CitedPassage is one passage an answer cites as [N].
type CitedPassage struct {
	N    int    `json:"n"`
	Text string `json:"text"`
}

// Usage is what an answer used and cost.
type Usage struct {
	Model        string
	InputTokens  int64
	OutputTokens int64
	CostMicros   int64
	FeeMicros    int64
	// MarkupMicros and GreetingMicros are a consumer's answer's parts for
	// the creator (0 otherwise); TotalMicros includes them.
	MarkupMicros   int64
	GreetingMicros int64
	TotalMicros    int64
	// Estimated: the provider sent no usage (stream cut) and the tokens were
	// counted by the service.
	Estimated bool
}

// Conversation is one user's conversation with an agent.
type Conversation struct {
	ID            string
	AgentID       string
	UserUID       string
	Title         string
	Channel       string
	CreatedAt     time.Time
	UpdatedAt     time.Time
	LastMessageAt *time.Time
	// Greeting is the agent's greeting when the conversation was created
	// ("" for none), shown as its first assistant message (free, no usage)
	// with id GreetingMessageID.
	Greeting          string
	GreetingMessageID string
	// AccessRole is the caller's access role when the conversation was
	// created (AccessOwner, AccessSubscriber or AccessConsumer; "" for
	// conversations created before it was recorded). The Library lists the
	// consumer ones.
	AccessRole string
}

// Message is one message of a conversation.
type Message struct {
	ID              string
	ConversationID  string
	Role            string
	Content         string
	Citations       []Citation
	Usage           *Usage // assistant messages with an answer
	Status          string
	ClientMessageID string // user messages
	ReplyTo         string // assistant messages: the user message answered
	HoldID          string
	TransferID      string
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

// ConversationWithMessages is a conversation and its shown messages, oldest first.
type ConversationWithMessages struct {
	Conversation
	Messages []Message
}

// Errors.
var (
	ErrConversationNotFound = errors.New("conversation not found")
	ErrAgentNotFound        = errors.New("agent not found")
	// ErrInProgress: the turn with this clientMessageId is being answered.
	ErrInProgress = errors.New("message in progress")
	// ErrModelUnavailable: the model failed before any output; nothing was charged.
	ErrModelUnavailable = errors.New("model unavailable")
	// ErrCatalogUnavailable: access could not be checked.
	ErrCatalogUnavailable = errors.New("catalog unavailable")
	// ErrWalletUnavailable: the wallet could not reserve (nothing charged).
	ErrWalletUnavailable = errors.New("wallet unavailable")
	// ErrKnowledgeUnavailable: the documents service could not be searched.
	ErrKnowledgeUnavailable = errors.New("knowledge unavailable")
	// ErrTooLong: instructions + message do not fit the model's context window.
	ErrTooLong = errors.New("prompt too long")
	// ErrInterrupted: the answer stopped after partial output (it is kept
	// and charged for what was generated).
	ErrInterrupted = errors.New("answer interrupted")
)

// ValidationError is a 400 with a machine code (invalid_title,
// invalid_content, invalid_client_message_id).
type ValidationError struct {
	Code    string
	Message string
}

func (e *ValidationError) Error() string { return e.Code + ": " + e.Message }

// InsufficientFundsError: the payer's wallet refused the worst case of the
// answer (402): not enough available balance, or another money rule
// (Reason: monthly limit reached, debt outstanding, agent paused). Role
// tells who asked: the owner is told what to do, a subscriber only that the
// agent is unavailable (never the owner's money matters).
type InsufficientFundsError struct {
	Role, Reason string
	// Short is how much was missing, when the wallet said.
	Short *metering.Shortfall
	// NeededMicros is the worst case that was asked for (a consumer is told
	// it when the wallet gave no Short).
	NeededMicros int64
}

func (e *InsufficientFundsError) Error() string {
	return "insufficient funds (" + e.Role + ", " + e.Reason + ")"
}

// Message is what the caller is told.
func (e *InsufficientFundsError) Message() string {
	if e.Role == AccessConsumer {
		return e.consumerMessage()
	}
	if e.Role != AccessOwner {
		return MsgInsufficientOther
	}
	if fee, missing, ok := e.FeeDue(); ok {
		// The agent's monthly fee is due with this answer: say so, and what
		// to add (rounded up to the cent) for the fee and this answer.
		return fmt.Sprintf(MsgAgentFeeDue, centsText(fee), centsText(missing))
	}
	switch e.Reason {
	case "monthly_limit_reached":
		return MsgMonthlyLimit
	case "debt_outstanding":
		return MsgDebt
	case "agent_paused":
		return MsgAgentPaused
	}
	return MsgInsufficientOwner
}

// FeeDue reports whether the owner was refused because the agent's monthly
// fee is due with this answer and the wallet cannot pay both: the fee and
// what is missing, rounded up to the cent (other channels, e.g. the e-mail
// reply, tell the owner the same).
func (e *InsufficientFundsError) FeeDue() (feeMicros, missingMicros int64, ok bool) {
	sh := e.Short
	if e.Role != AccessOwner || sh == nil || sh.FeeMicros <= 0 || e.Reason != metering.ReasonInsufficientFunds {
		return 0, 0, false
	}
	return sh.FeeMicros, roundUpToCent(sh.NeededMicros - sh.AvailableMicros), true
}

// consumerMessage is what a consumer is told: their own wallet's rules
// (limit, debt) as the owner is, and for funds what the answer needs
// (rounded up to the cent) and what the wallet has (rounded down).
func (e *InsufficientFundsError) consumerMessage() string {
	switch e.Reason {
	case metering.ReasonMonthlyLimitReached:
		return MsgMonthlyLimit
	case metering.ReasonDebtOutstanding:
		return MsgDebt
	case metering.ReasonAgentPaused, metering.ReasonAgentUnavailable:
		return MsgAgentUnavailable
	}
	if sh := e.Short; sh != nil {
		return fmt.Sprintf(MsgInsufficientConsumer, centsText(roundUpToCent(sh.NeededMicros)), centsText(max(sh.AvailableMicros, 0)))
	}
	return fmt.Sprintf(MsgInsufficientConsumerShort, centsText(roundUpToCent(e.NeededMicros)))
}

// AgentUnavailableError: the wallet refused the answer because the agent
// answers no one right now (a listed agent whose creator cannot pay its
// monthly fee; wallet reason "agent_unavailable") — 403 agent_unavailable
// "This agent is unavailable right now.", nothing charged.
type AgentUnavailableError struct{ Reason string }

func (e *AgentUnavailableError) Error() string { return "agent unavailable (" + e.Reason + ")" }

// Message is what the caller is told.
func (e *AgentUnavailableError) Message() string { return MsgAgentUnavailable }

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

// SubscriberCapError: a subscriber's answer would take what the owner pays
// for that subscriber's answers this UTC month (captured, plus open charges
// at their reservation) over the owner's cap for them (403
// agent_unavailable). Nothing was reserved or charged. The subscriber is
// told only that the agent is unavailable; the owner gets an e-mail
// (SubscriberCapReached, once a month).
type SubscriberCapError struct {
	CapMicros, SpentMicros, NeededMicros int64
}

func (e *SubscriberCapError) Error() string {
	return fmt.Sprintf("subscriber monthly cap reached (cap %d, spent %d, needed %d micro-dollars)", e.CapMicros, e.SpentMicros, e.NeededMicros)
}

// Message is what the subscriber is told.
func (e *SubscriberCapError) Message() string { return MsgAgentUnavailable }

// RateLimitedError: the caller sent too many messages (429).
type RateLimitedError struct{ RetryAfter time.Duration }

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("rate limited (retry after %s)", e.RetryAfter)
}

// validID reports whether id is a UUID (anything else cannot exist).
func validID(id string) bool {
	_, err := uuid.Parse(id)
	return err == nil && len(id) == 36
}

func hasControl(s string) bool { return strings.IndexFunc(s, unicode.IsControl) >= 0 }

// NormalizeTitle trims a title and checks it: 1–200 characters, no control
// characters. An empty title is invalid (callers decide about defaults).
func NormalizeTitle(title string) (string, error) {
	t := strings.TrimSpace(title)
	if t == "" || utf8.RuneCountInString(t) > MaxTitle || hasControl(t) {
		return "", &ValidationError{Code: "invalid_title", Message: MsgInvalidTitle}
	}
	return t, nil
}

// ValidateMessage checks a message's content (1–8,000 characters, not only
// white space; kept as sent) and clientMessageId (1–100 characters after
// trimming, no control characters).
func ValidateMessage(content, clientMessageID string) (string, error) {
	if strings.TrimSpace(content) == "" || utf8.RuneCountInString(content) > MaxContent || !utf8.ValidString(content) {
		return "", &ValidationError{Code: "invalid_content", Message: MsgInvalidContent}
	}
	id := strings.TrimSpace(clientMessageID)
	if id == "" || utf8.RuneCountInString(id) > MaxClientMessageID || hasControl(id) {
		return "", &ValidationError{Code: "invalid_client_message_id", Message: MsgInvalidClientID}
	}
	return id, nil
}

func validChannel(c string) bool {
	switch c {
	case ChannelChat, ChannelEmail, ChannelDocsComment, ChannelAPI:
		return true
	}
	return false
}
