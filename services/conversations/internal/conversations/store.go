package conversations

import (
	"context"
	"time"
)

// Charge states (see the charges table in migrations/00001_conversations.sql).
const (
	ChargeReserving = "reserving"
	ChargeHeld      = "held"
	ChargeCapturing = "capturing"
	ChargeCaptured  = "captured"
	ChargeReleased  = "released"
	ChargeUnbilled  = "unbilled"
)

// Charge is the metering record of one answer (keyed by the assistant
// message id): written before the wallet is asked to reserve, advanced after
// every wallet call, so a crash is finished with the same key and amounts.
type Charge struct {
	MessageID      string
	ConversationID string
	AgentID        string
	UserUID        string
	PayerUID       string
	Channel        string
	// Key is the reserve's idempotency key: "msg:" + MessageID.
	Key string
	// APIKeyID is the agent API key the answer is charged to ("" for
	// other channels); APIKeyLimitMicros its monthly limit (0: none), which
	// BeginTurn enforces.
	APIKeyID          string
	APIKeyLimitMicros int64
	// SubscriberCap is set for a subscriber's answer (the owner pays) when
	// the owner caps what that subscriber's answers cost them per month;
	// BeginTurn enforces it. Not stored.
	SubscriberCap *SubscriberCap
	// GreetingMicros is the greeting cost a consumer's turn asks to carry,
	// included in ReserveMicros: BeginTurn keeps it only when no other
	// charge of the conversation carries it and is open or paid, else takes
	// it out of both (Turn.GreetingMicros says which). Stored.
	GreetingMicros int64
	ReserveMicros  int64
	ReserveMeta    map[string]string
	HoldID         string
	State          string
	// Set from capturing on.
	CaptureMicros int64
	Description   string
	CaptureMeta   map[string]string
	// Event is the InteractionRecorded payload (protobuf JSON) emitted once
	// the answer is paid; its transfer id is filled in then.
	Event      []byte
	Outcome    string
	TransferID string
	Attempts   int
	LastError  string
	LeaseUntil time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// SubscriberCap is the owner's monthly cap on one subscriber's answers
// (Access.SubscriberCapMicros) and what its first refusal of a month
// reports to the owner (SubscriberCapReached).
type SubscriberCap struct {
	CapMicros int64
	OwnerUID  string
	AgentName string
}

// LibraryEntry is an agent of a user's Library (Store.Library): its id,
// the latest activity of the user's conversations with it, and its most
// recent conversations.
type LibraryEntry struct {
	AgentID        string
	LastActivityAt time.Time
	Conversations  []Conversation
}

// Opened is what Store.OpenTurn reads.
type Opened struct {
	Conversation Conversation
	// Turn is the existing turn of the clientMessageId, when Replay.
	Turn   Turn
	Replay bool
	// History holds alternating user/assistant messages, oldest first.
	History []Message
}

// Turn is a user message and its answer.
type Turn struct {
	User      Message
	Assistant Message
	// Replayed: the turn already existed (same clientMessageId); nothing was
	// generated or charged by this call.
	Replayed bool
	// Model and Simulated describe the model (for a stream's start event).
	Model     string
	Simulated bool
	// FinishReason is the provider's ("stop", "length"; "" for a replay).
	FinishReason string
	// GreetingMicros is, for a turn BeginTurn created, the greeting cost its
	// charge carries (Charge.GreetingMicros, or 0 when another charge of the
	// conversation carries it).
	GreetingMicros int64
}

// TurnAction is what UpdateCharge does to the charge's turn.
type TurnAction int

const (
	// KeepTurn leaves the messages alone.
	KeepTurn TurnAction = iota
	// DropTurn deletes the turn (user message and pending answer): the
	// message was refused or nothing was generated, so a retry with the
	// same clientMessageId starts afresh.
	DropTurn
	// FailTurn marks a pending answer failed (kept, with no content): the
	// answering process died mid-way.
	FailTurn
	// StopTurn marks a pending answer stopped (kept, with no content and
	// nothing charged): Stop was pressed before the model was called, so
	// the question stays in the conversation.
	StopTurn
)

// ChargeUpdate is a change to a charge. Zero fields are left unchanged.
type ChargeUpdate struct {
	State      string
	HoldID     string
	LastError  string
	LeaseUntil time.Time
	// CountAttempt increments attempts.
	CountAttempt bool
}

// Capture is what BeginCapture records: the finished answer and exactly
// what to capture for it.
type Capture struct {
	Assistant     Message // content, citations, usage, status
	CaptureMicros int64
	Description   string
	Metadata      map[string]string
	Event         []byte
	LeaseUntil    time.Time
}

// Store persists conversations, messages and charges.
type Store interface {
	CreateConversation(ctx context.Context, c Conversation) (Conversation, error)
	// ListConversations: the user's live conversations with the agent,
	// newest activity (last message, else creation) first.
	ListConversations(ctx context.Context, uid, agentID string) ([]Conversation, error)
	// Library: the user's live consumer conversations (AccessRole
	// AccessConsumer, not the agent API's) grouped by agent: at most
	// maxAgents agents, latest activity first, each with at most maxPerAgent
	// conversations, newest activity (last message, else creation) first.
	Library(ctx context.Context, uid string, maxAgents, maxPerAgent int) ([]LibraryEntry, error)
	// GetConversation: the user's live conversation; ErrConversationNotFound otherwise.
	GetConversation(ctx context.Context, uid, id string) (Conversation, error)
	// ThreadConversation returns the live conversation of (agent, user,
	// channel, threadKey), inserting c (with that thread key) if there is none.
	ThreadConversation(ctx context.Context, c Conversation, threadKey string) (Conversation, error)
	RenameConversation(ctx context.Context, uid, id, title string, at time.Time) (Conversation, error)
	DeleteConversation(ctx context.Context, uid, id string, at time.Time) error
	// Messages returns the conversation's shown messages (all but pending
	// answers), oldest first.
	Messages(ctx context.Context, conversationID string) ([]Message, error)
	// OpenTurn reads what answering a message starts from: the user's live
	// conversation (ErrConversationNotFound otherwise), the turn of
	// clientMessageID if there is one (Replay), and the last turns (at most
	// maxTurns; none for 0) whose answer is complete or partial.
	OpenTurn(ctx context.Context, uid, conversationID, clientMessageID string, maxTurns int) (Opened, error)
	// BeginTurn inserts the user message, the pending answer and the charge
	// (state reserving) in one transaction, under a lock on the
	// conversation. When the clientMessageId exists already it inserts
	// nothing and returns the existing turn with created = false.
	// ErrConversationNotFound when the conversation was deleted meanwhile.
	// A charge with an APIKeyID is refused when the key is revoked
	// (ErrAPIKeyInvalid) or expired (ErrAPIKeyExpired), or, for a key with a
	// monthly limit, when the key's spend this month plus its open charges
	// plus this reservation exceed it (*KeyLimitError; checked under a lock
	// on the key, so concurrent turns cannot together exceed it).
	// A charge with GreetingMicros keeps them only when no other charge of
	// the conversation carries the greeting and is reserving, held,
	// capturing or captured (decided under the conversation's lock), else
	// its reservation is lowered by them (Turn.GreetingMicros).
	// A charge with a SubscriberCap is refused (*SubscriberCapError) when
	// what the subscriber's answers cost the payer this UTC month (the
	// captured spend plus the open charges' reservations) plus this
	// reservation exceeds the cap, checked under a lock on (agent,
	// subscriber); the first refusal of a month records a notice and
	// enqueues SubscriberCapReached, committed although the turn is not.
	BeginTurn(ctx context.Context, user, assistant Message, c Charge) (t Turn, created bool, err error)
	// UpdateCharge applies u to the charge when its state is one of from
	// (false when it is not), and act to its turn, in one transaction.
	UpdateCharge(ctx context.Context, messageID string, from []string, u ChargeUpdate, act TurnAction) (bool, error)
	// BeginCapture moves a held charge to capturing and stores the answer,
	// in one transaction (false when the charge is no longer held).
	BeginCapture(ctx context.Context, messageID string, c Capture) (bool, error)
	// FinishCharge closes a capturing charge with the wallet's outcome
	// ("captured", "charged" or "unbilled") and, when the answer was paid,
	// records the transfer on the message, adds the amount to the key's
	// spend (an API answer) or the subscriber's (an answer another user
	// paid for) and enqueues the InteractionRecorded event, in one
	// transaction (false when the charge
	// was no longer capturing: someone else finished it).
	FinishCharge(ctx context.Context, messageID, outcome, transferID string, at time.Time) (bool, error)
	// ClaimCharges takes up to limit open charges whose lease ended before
	// now, extending their lease to until (so one reconciler works on each)
	// and counting an attempt.
	ClaimCharges(ctx context.Context, now, until time.Time, limit int) ([]Charge, error)
	// GetCharge returns a charge (tests, diagnostics).
	GetCharge(ctx context.Context, messageID string) (Charge, error)
}
