package conversations

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"log/slog"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
	"github.com/agentic-app/agentic/services/conversations/internal/metering"
	"github.com/agentic-app/agentic/services/conversations/internal/pricing"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
)

// Agent is what the service needs of an agent (from the catalog).
type Agent struct {
	ID           string
	OwnerUID     string
	Name         string
	IconName     string
	IconColor    string
	Instructions string
	// Marketplace fields (issue 27/28): what a consumer pays on top of cost
	// + fee (MarkupPercent of the cost per answer; GreetingCostCents with
	// the conversation's first charged answer), the agent's first message
	// (Greeting, free, added when a conversation is created), the history
	// budget of the prompt (MemoryTokens; 0: the context window's), and
	// whether non-owners see their citations' links (ShowSources).
	MarkupPercent     int
	GreetingCostCents int
	Greeting          string
	MemoryTokens      int
	ShowSources       bool
	Slug              string
	// Listed: public, published and active, and the marketplace enabled.
	Listed bool
}

// Access is the catalog's answer to "may uid talk to this agent, who pays?".
type Access struct {
	Allowed  bool
	Role     string // AccessOwner, AccessSubscriber or AccessConsumer
	PayerUID string
	Agent    Agent
	// SubscriberCapMicros is, for a subscriber, the most the owner pays for
	// their answers per UTC calendar month (0: no cap). BeginTurn enforces it.
	SubscriberCapMicros int64
}

// AccessChecker asks the catalog (CheckAccess). An error means the catalog
// could not answer.
type AccessChecker interface {
	CheckAccess(ctx context.Context, agentID, uid string) (Access, error)
}

// AgentLookup reads an agent from the catalog whoever may use it (GetAgent):
// ErrAgentNotFound when the catalog does not know it (any other error: it
// could not answer). The Library names its agents with it.
type AgentLookup interface {
	GetAgent(ctx context.Context, agentID string) (Agent, error)
}

// SearchQuery is a KnowledgeService.Search request.
type SearchQuery struct {
	AgentID     string
	Query       string
	Limit       int
	TokenBudget int
	DocumentIDs []string
	Labels      []string
	// Earlier: the caller's earlier messages, oldest first (a follow-up is
	// searched with the words of what it follows up).
	Earlier []string
	// RelevantOnly: leave out passages below the documents service's
	// relevance threshold.
	RelevantOnly bool
}

// Knowledge is the documents service's KnowledgeService. An error means it
// could not answer.
type Knowledge interface {
	Search(ctx context.Context, q SearchQuery) ([]prompt.Passage, error)
	GetPassages(ctx context.Context, agentID string, documentIDs []string, tokenBudget int) ([]prompt.Passage, error)
}

// DocumentRef is a document of an agent by name (for @Document references).
type DocumentRef struct {
	ID     string
	Name   string
	Labels []string
}

// Directory lists an agent's documents by name, so that the instructions'
// @Document references can be resolved to document ids (KnowledgeService
// takes ids; names are what the owner writes).
type Directory interface {
	AgentDocuments(ctx context.Context, agentID string) ([]DocumentRef, error)
}

// RateLimiter limits messages per user. When it refuses, retryAfter says
// when the next message is allowed.
type RateLimiter interface {
	Allow(ctx context.Context, uid string) (ok bool, retryAfter time.Duration)
}

// Config configures the Service.
type Config struct {
	// Model is the model answers are asked of (LLM_MODEL); Simulated marks
	// the LLM simulator, which the UI names as such.
	Model     string
	Simulated bool
	Prices    pricing.Table
	// ContextWindow is the model's context size in tokens; MaxOutputTokens
	// bounds each answer (and is what the worst case reserves for).
	ContextWindow   int
	MaxOutputTokens int
	// RetrievalLimit is the number of passages searched for the message;
	// RetrievalTokenBudget and ReferenceTokenBudget bound the retrieved and
	// the referenced (@Document, #label) passages in tokens.
	RetrievalLimit       int
	RetrievalTokenBudget int
	ReferenceTokenBudget int
	// FollowUps is how a message with history is searched for
	// (FOLLOW_UP_SEARCH): FollowUpsModel or FollowUpsRule ("": the rule
	// with the simulator, the model otherwise). RewriteTimeout bounds the
	// model's rewrite (then the rule is used).
	FollowUps      string
	RewriteTimeout time.Duration
	// HistoryTurns is the most turns loaded as history (the prompt keeps
	// what fits the context window).
	HistoryTurns int
	// AnswerTimeout bounds the model call of one answer.
	AnswerTimeout time.Duration
	// LeaseMargin is how long after AnswerTimeout an abandoned charge is
	// taken over by the reconciler.
	LeaseMargin time.Duration
	// KnowledgeTimeout bounds the knowledge look-ups of one answer.
	KnowledgeTimeout time.Duration
	// WalletTimeout bounds the wallet and database work after the model
	// (done even when the client went away).
	WalletTimeout time.Duration
	// RetryDelay is the wait before the reconciler retries a charge the
	// wallet could not settle.
	RetryDelay time.Duration
	// APIKeyCacheTTL is how long a looked-up API key is trusted without
	// reading it again (at most MaxAPIKeyCacheTTL; 0 → that; negative: no
	// cache). It bounds how long a revoked key keeps working on another replica.
	APIKeyCacheTTL time.Duration
	// MaxAPIKeysPerAgent bounds the live API keys of one agent (0: the
	// default MaxAPIKeysPerAgent).
	MaxAPIKeysPerAgent int

	Logger     *slog.Logger
	Registerer prometheus.Registerer
	Now        func() time.Time
}

func (c *Config) defaults() {
	if c.Model == "" {
		c.Model = pricing.SimModel
	}
	if c.Prices == nil {
		c.Prices = pricing.Default
	}
	if c.ContextWindow <= 0 {
		c.ContextWindow = 16384
	}
	if c.MaxOutputTokens <= 0 {
		c.MaxOutputTokens = 1024
	}
	if c.RetrievalLimit <= 0 {
		c.RetrievalLimit = 8
	}
	if c.RetrievalTokenBudget <= 0 {
		c.RetrievalTokenBudget = 3000
	}
	if c.ReferenceTokenBudget <= 0 {
		c.ReferenceTokenBudget = 4000
	}
	if c.HistoryTurns <= 0 {
		c.HistoryTurns = 50
	}
	if c.FollowUps == "" {
		c.FollowUps = FollowUpsModel
		if c.Simulated {
			c.FollowUps = FollowUpsRule
		}
	}
	if c.RewriteTimeout <= 0 {
		c.RewriteTimeout = 5 * time.Second
	}
	if c.AnswerTimeout <= 0 {
		c.AnswerTimeout = 3 * time.Minute
	}
	if c.LeaseMargin <= 0 {
		c.LeaseMargin = time.Minute
	}
	if c.KnowledgeTimeout <= 0 {
		c.KnowledgeTimeout = 5 * time.Second
	}
	if c.WalletTimeout <= 0 {
		c.WalletTimeout = 15 * time.Second
	}
	if c.RetryDelay <= 0 {
		c.RetryDelay = 10 * time.Second
	}
	if c.APIKeyCacheTTL == 0 || c.APIKeyCacheTTL > MaxAPIKeyCacheTTL {
		c.APIKeyCacheTTL = MaxAPIKeyCacheTTL
	}
	if c.MaxAPIKeysPerAgent <= 0 {
		c.MaxAPIKeysPerAgent = MaxAPIKeysPerAgent
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Now == nil {
		c.Now = time.Now
	}
}

// Deps are the Service's collaborators.
type Deps struct {
	Store  Store
	Access AccessChecker
	// Agents names the Library's agents (nil: the Library answers
	// ErrCatalogUnavailable).
	Agents    AgentLookup
	Knowledge Knowledge
	// Directory may be nil: @Document references then stay unresolved.
	Directory Directory
	Limiter   RateLimiter
	Meter     *metering.Meter
	Provider  llm.Provider
	// Keys stores the agent API's keys (nil: the agent API is off).
	Keys KeyStore
	// APILimiter limits agent API requests per key and per owner; it
	// replaces Limiter for them (nil: not limited).
	APILimiter APILimiter
	// Revocations feeds the API key cache's revocation watcher (nil: the
	// store, if it is a KeyRevocationFeed). Give it its own database
	// connection so that its polls never queue behind answers: the cache
	// trusts keys beyond a second only while the polls keep up.
	Revocations KeyRevocationFeed
	// Accounts tells whether a key's owner account is disabled (nil: not
	// checked); it answers within its own cache time (5 s).
	Accounts OwnerAccounts
}

// OwnerAccounts reports whether a user's account is disabled (or deleted):
// an agent API key acts for its owner without a token of theirs, so the
// owner's account state is asked for (auth.CachingVerifier).
type OwnerAccounts interface {
	AccountDisabled(ctx context.Context, uid string) (bool, error)
}

// Service is the conversations API. uid is always the verified caller.
type Service struct {
	store      Store
	access     AccessChecker
	agents     AgentLookup
	knowledge  Knowledge
	directory  Directory
	limiter    RateLimiter
	meter      *metering.Meter
	provider   llm.Provider
	keyStore   KeyStore
	apiLimiter APILimiter
	keyCache   *keyCache
	convAgents *convAgents
	// greeted holds the conversations (uid, id) whose greeting cost this
	// replica saw paid (captured: final), so their consumers' next turns
	// need not be recorded before their Reserve to learn it.
	greeted     *convAgents
	revocations KeyRevocationFeed
	accounts    OwnerAccounts
	cfg         Config
	log         *slog.Logger
	m           metrics
}

// NewService returns the Service.
func NewService(d Deps, cfg Config) *Service {
	cfg.defaults()
	return &Service{
		store: d.Store, access: d.Access, agents: d.Agents, knowledge: d.Knowledge, directory: d.Directory, limiter: d.Limiter,
		meter: d.Meter, provider: d.Provider, keyStore: d.Keys, apiLimiter: d.APILimiter, revocations: d.Revocations,
		accounts: d.Accounts,
		keyCache: newKeyCache(cfg.APIKeyCacheTTL, cfg.Now, cfg.Registerer), convAgents: newConvAgents(), greeted: newConvAgents(), cfg: cfg, log: cfg.Logger, m: newMetrics(cfg.Registerer),
	}
}

func newID() string { return uuid.Must(uuid.NewV7()).String() }

// now is the service time at PostgreSQL's precision (microseconds), so a
// value returned at once equals the same value read back later (a replayed
// answer is byte-for-byte the first one).
func (s *Service) now() time.Time { return s.cfg.Now().UTC().Truncate(time.Microsecond) }

// authorize returns the caller's access to agentID: an invalid id, an
// unknown agent and an agent the caller may not use are all ErrAgentNotFound.
func (s *Service) authorize(ctx context.Context, uid, agentID string) (Access, error) {
	if uid == "" || !validID(agentID) {
		return Access{}, ErrAgentNotFound
	}
	a, err := s.access.CheckAccess(ctx, strings.ToLower(agentID), uid)
	if err != nil {
		return Access{}, errors.Join(ErrCatalogUnavailable, err)
	}
	if !a.Allowed {
		return Access{}, ErrAgentNotFound
	}
	return a, nil
}

// conversation returns the caller's conversation (ErrConversationNotFound
// for an invalid id, another user's or a deleted one).
func (s *Service) conversation(ctx context.Context, uid, id string) (Conversation, error) {
	if uid == "" || !validID(id) {
		return Conversation{}, ErrConversationNotFound
	}
	return s.store.GetConversation(ctx, uid, strings.ToLower(id))
}

// openTurn checks the conversation id as conversation does, then reads
// with Store.OpenTurn.
func (s *Service) openTurn(ctx context.Context, uid, id, clientMessageID string, historyTurns int) (Opened, error) {
	if uid == "" || !validID(id) {
		return Opened{}, ErrConversationNotFound
	}
	return s.store.OpenTurn(ctx, uid, strings.ToLower(id), clientMessageID, historyTurns)
}

// CreateConversation starts a conversation with an agent the caller may use.
// An absent or blank title is DefaultTitle.
//
// The agent's greeting, when it has one, is the conversation's first
// message: an assistant message, free (no usage, nothing charged), for
// every role. It is kept on the conversation as it was at creation.
func (s *Service) CreateConversation(ctx context.Context, uid, agentID string, title *string) (Conversation, error) {
	access, err := s.authorize(ctx, uid, agentID)
	if err != nil {
		return Conversation{}, err
	}
	t := DefaultTitle
	if title != nil && strings.TrimSpace(*title) != "" {
		if t, err = NormalizeTitle(*title); err != nil {
			return Conversation{}, err
		}
	}
	now := s.now()
	conv := Conversation{
		ID: newID(), AgentID: strings.ToLower(agentID), UserUID: uid, Title: t, Channel: ChannelChat,
		CreatedAt: now, UpdatedAt: now, AccessRole: access.Role,
	}
	if g := strings.TrimSpace(access.Agent.Greeting); g != "" {
		conv.Greeting, conv.GreetingMessageID = g, newID()
	}
	c, err := s.store.CreateConversation(ctx, conv)
	if err == nil {
		s.convAgents.put(uid, c.ID, c.AgentID, "")
	}
	return c, err
}

// ListConversations returns the caller's conversations with an agent they
// may use, newest activity first.
func (s *Service) ListConversations(ctx context.Context, uid, agentID string) ([]Conversation, error) {
	if _, err := s.authorize(ctx, uid, agentID); err != nil {
		return nil, err
	}
	return s.store.ListConversations(ctx, uid, strings.ToLower(agentID))
}

// GetConversation returns the caller's conversation with its messages.
// Reading one's own past conversations needs no current access to the agent.
func (s *Service) GetConversation(ctx context.Context, uid, id string) (ConversationWithMessages, error) {
	c, err := s.conversation(ctx, uid, id)
	if err != nil {
		return ConversationWithMessages{}, err
	}
	msgs, err := s.store.Messages(ctx, c.ID)
	if err != nil {
		return ConversationWithMessages{}, err
	}
	if g := GreetingMessage(c); g != nil {
		msgs = append([]Message{*g}, msgs...)
	}
	return ConversationWithMessages{Conversation: c, Messages: msgs}, nil
}

// GreetingMessage is the conversation's greeting as its first message (an
// assistant message, complete, without usage: free), or nil when it has
// none. It is not part of the model's history (Store.OpenTurn reads
// answered turns only; a kept history starts with a user message).
func GreetingMessage(c Conversation) *Message {
	if c.Greeting == "" || c.GreetingMessageID == "" {
		return nil
	}
	return &Message{ID: c.GreetingMessageID, ConversationID: c.ID, Role: RoleAssistant, Content: c.Greeting,
		Citations: []Citation{}, Status: StatusComplete, CreatedAt: c.CreatedAt, UpdatedAt: c.CreatedAt}
}

// RenameConversation changes the title (400 invalid_title when blank or too long).
func (s *Service) RenameConversation(ctx context.Context, uid, id, title string) (Conversation, error) {
	if uid == "" || !validID(id) {
		return Conversation{}, ErrConversationNotFound
	}
	t, err := NormalizeTitle(title)
	if err != nil {
		// 404 before 400: a foreign conversation is not revealed by validation.
		if _, nf := s.conversation(ctx, uid, id); nf != nil {
			return Conversation{}, nf
		}
		return Conversation{}, err
	}
	return s.store.RenameConversation(ctx, uid, strings.ToLower(id), t, s.now())
}

// DeleteConversation hides the conversation for good.
func (s *Service) DeleteConversation(ctx context.Context, uid, id string) error {
	if uid == "" || !validID(id) {
		return ErrConversationNotFound
	}
	return s.store.DeleteConversation(ctx, uid, strings.ToLower(id), s.now())
}

// ChatInfo is what the chat UI shows about the model.
type ChatInfo struct {
	Model     string
	Simulated bool
	Role      string
	// FollowUps: how a follow-up is searched for (FollowUpsModel or
	// FollowUpsRule), so the UI can say which.
	FollowUps string
}

// ChatInfo returns the model the agent answers with and the caller's role.
func (s *Service) ChatInfo(ctx context.Context, uid, agentID string) (ChatInfo, error) {
	a, err := s.authorize(ctx, uid, agentID)
	if err != nil {
		return ChatInfo{}, err
	}
	return ChatInfo{Model: s.cfg.Model, Simulated: s.cfg.Simulated, Role: a.Role, FollowUps: s.cfg.FollowUps}, nil
}

// ThreadRequest is a message of a channel other than the browser chat
// (e-mail, Docs comment, API): the conversation is found by its thread.
type ThreadRequest struct {
	AgentID   string
	UID       string
	Channel   string
	ThreadKey string
	// Title of a new conversation (e-mail: the subject); cleaned and cut to
	// MaxTitle, DefaultTitle when empty.
	Title   string
	Content string
	// IdempotencyKey makes a repeated call return the first answer (for
	// e-mail the inbound Message-ID; any length).
	IdempotencyKey string
}

// ThreadAnswer is the outcome of AnswerThread.
type ThreadAnswer struct {
	ConversationID string
	Turn           Turn
}

// AnswerThread answers a message of another channel through the same path
// as the chat (Answer): the conversation of (agent, user, channel, thread)
// is created on first use. The idempotency key becomes the turn's
// clientMessageId (hashed when longer than MaxClientMessageID).
func (s *Service) AnswerThread(ctx context.Context, r ThreadRequest) (ThreadAnswer, error) {
	if r.Channel == ChannelChat || !validChannel(r.Channel) {
		return ThreadAnswer{}, &ValidationError{Code: "invalid_channel", Message: "channel must be email, docs_comment or api"}
	}
	if strings.TrimSpace(r.ThreadKey) == "" || strings.TrimSpace(r.IdempotencyKey) == "" || r.UID == "" {
		return ThreadAnswer{}, &ValidationError{Code: "invalid_argument", Message: "user_uid, thread_key and idempotency_key are required"}
	}
	clientID := idempotencyToClientID(r.IdempotencyKey)
	if _, err := ValidateMessage(r.Content, clientID); err != nil {
		return ThreadAnswer{}, err
	}
	access, err := s.authorize(ctx, r.UID, r.AgentID)
	if err != nil {
		return ThreadAnswer{}, err
	}
	now := s.now()
	conv, err := s.store.ThreadConversation(ctx, Conversation{
		ID: newID(), AgentID: strings.ToLower(r.AgentID), UserUID: r.UID, Title: cleanTitle(r.Title), Channel: r.Channel,
		CreatedAt: now, UpdatedAt: now, AccessRole: access.Role,
	}, r.ThreadKey)
	if err != nil {
		return ThreadAnswer{}, err
	}
	t, err := s.Answer(ctx, AnswerRequest{UID: r.UID, ConversationID: conv.ID, Content: r.Content,
		ClientMessageID: clientID, Channel: r.Channel}, Discard{})
	return ThreadAnswer{ConversationID: conv.ID, Turn: t}, err
}

// idempotencyToClientID keeps a short, printable key as it is and hashes
// anything else (e-mail Message-IDs can be long).
func idempotencyToClientID(key string) string {
	k := strings.TrimSpace(key)
	if utf8.RuneCountInString(k) <= MaxClientMessageID && !hasControl(k) {
		return k
	}
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// cleanTitle makes a title of any text (an e-mail subject): control
// characters become spaces, white space is collapsed, at most MaxTitle
// characters are kept.
func cleanTitle(s string) string {
	s = strings.Join(strings.FieldsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }), " ")
	if r := []rune(s); len(r) > MaxTitle {
		s = strings.TrimSpace(string(r[:MaxTitle]))
	}
	if s == "" {
		return DefaultTitle
	}
	return s
}
