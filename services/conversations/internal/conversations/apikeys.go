package conversations

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/agentic-app/agentic/services/conversations/internal/llm"
)

// Agent API keys (docs/agent-api.md).
//
// A key is "agk_" followed by APIKeyRandomChars base62 characters drawn
// from crypto/rand (≈190 bits). Only its SHA-256 is stored: a key with that
// much entropy cannot be found from its hash by guessing, so a slow password
// hash (bcrypt, argon2) would add nothing but milliseconds of CPU to every
// request. Lookups go by hash (a unique index), so the database compares
// hashes, never keys; the hash found is compared again in constant time.
const (
	APIKeyPrefix      = "agk_"
	APIKeyRandomChars = 32
	// APIKeyVisibleChars of the random part are shown in lists (the
	// prefix), which leaves ≈154 secret bits.
	APIKeyVisibleChars = 6
	MaxAPIKeyName      = 100
	// MaxAPIKeysPerAgent is the default bound on the live keys of one agent
	// (Config.MaxAPIKeysPerAgent, MAX_API_KEYS_PER_AGENT).
	MaxAPIKeysPerAgent = 25
	// MaxKeyLimitMicros is the highest monthly limit a key can have ($1M).
	MaxKeyLimitMicros = 1_000_000 * 1_000_000
	// MaxAPIKeyCacheTTL bounds how long a replica may trust a key it looked
	// up: a revoked key stops working on every replica within it.
	MaxAPIKeyCacheTTL = time.Second
)

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Messages of the key errors.
const (
	MsgInvalidKeyName   = "name must be 1 to 100 characters without control characters."
	MsgInvalidExpiresAt = "expiresAt must be a future date-time (RFC 3339, e.g. 2026-12-31T23:59:59Z) or null."
	MsgInvalidLimit     = "monthlyLimit must be a number of dollars greater than 0 and at most 1000000, or null."
	// MsgTooManyKeys is formatted with the configured bound.
	MsgTooManyKeys    = "This agent already has the maximum number of API keys (%d). Revoke one first."
	MsgAPIKeyNotFound = "API key not found"
)

// Key errors.
var (
	// ErrAPIKeyInvalid: no such key, a malformed one, or a revoked one (401).
	ErrAPIKeyInvalid = errors.New("invalid api key")
	// ErrAPIKeyExpired: the key is past its expiry (401).
	ErrAPIKeyExpired = errors.New("expired api key")
	// ErrAPIKeyOwnerDisabled: the key's owner account is disabled or
	// deleted (401).
	ErrAPIKeyOwnerDisabled = errors.New("api key owner disabled")
	// ErrAPIKeyNotFound: key management of a key that is not the caller's
	// live key of that agent (404).
	ErrAPIKeyNotFound = errors.New("api key not found")
	// ErrTooManyKeys: the agent has the most live keys allowed (400
	// limit_reached); the service returns it as a *TooManyKeysError.
	ErrTooManyKeys = errors.New("too many api keys")
)

// TooManyKeysError: the agent already has Max live keys (400
// limit_reached). It is ErrTooManyKeys.
type TooManyKeysError struct{ Max int }

func (e *TooManyKeysError) Error() string {
	return fmt.Sprintf("too many api keys (at most %d)", e.Max)
}

// Is makes it ErrTooManyKeys.
func (e *TooManyKeysError) Is(target error) bool { return target == ErrTooManyKeys }

// Message states the bound.
func (e *TooManyKeysError) Message() string { return fmt.Sprintf(MsgTooManyKeys, e.Max) }

// KeyLimitError: the answer's worst case does not fit the key's monthly
// limit (402 key_limit_reached). Nothing was reserved.
type KeyLimitError struct {
	LimitMicros, UsedMicros, NeededMicros int64
}

func (e *KeyLimitError) Error() string {
	return fmt.Sprintf("api key monthly limit reached (limit %d, used %d, needed %d micro-dollars)", e.LimitMicros, e.UsedMicros, e.NeededMicros)
}

// Message says why the request was refused: the limit is spent, or this
// request's worst case is more than what is left of it.
func (e *KeyLimitError) Message() string {
	left := e.LimitMicros - e.UsedMicros
	if left <= 0 {
		return fmt.Sprintf("This API key's monthly limit of %s is spent (%s used this month). Raise the limit with a new key, or wait for next month.",
			dollarsText(e.LimitMicros), dollarsText(e.UsedMicros))
	}
	return fmt.Sprintf("This request may cost up to %s, more than the %s left of this API key's monthly limit of %s: lower max_tokens or raise the key's limit.",
		dollarsText(e.NeededMicros), dollarsText(left), dollarsText(e.LimitMicros))
}

// dollarsText shows micro-dollars with as many digits as a sub-cent amount
// needs ("$0.0003"), cents otherwise ("$2.00").
func dollarsText(micros int64) string {
	if micros != 0 && micros%10_000 != 0 && micros < 1_000_000 && micros > -1_000_000 {
		s := strconv.FormatFloat(float64(micros)/1e6, 'f', 6, 64)
		s = strings.TrimRight(s, "0")
		return "$" + s
	}
	return fmt.Sprintf("$%.2f", float64(micros)/1e6)
}

// APIKey is a stored key (never the key itself).
type APIKey struct {
	ID       string
	AgentID  string
	OwnerUID string
	Name     string
	// Prefix is the visible start of the key ("agk_" + 6 characters).
	Prefix    string
	Hash      []byte
	ExpiresAt *time.Time
	// MonthlyLimitMicros is the key's spend limit per UTC month (0: none).
	MonthlyLimitMicros int64
	CreatedAt          time.Time
	LastUsedAt         *time.Time
	RevokedAt          *time.Time
	// MonthSpendMicros is what the key's answers were charged this UTC
	// month (set by ListAPIKeys).
	MonthSpendMicros int64
}

// CreatedAPIKey is a new key with its secret, shown once.
type CreatedAPIKey struct {
	APIKey
	Secret string
}

// NewAPIKeyInput is what the owner asks for.
type NewAPIKeyInput struct {
	Name               string
	ExpiresAt          *time.Time
	MonthlyLimitMicros *int64
}

// KeyStore persists API keys (PostgresStore).
type KeyStore interface {
	// CreateAPIKey inserts k unless the agent already has maxLive live keys
	// (ErrTooManyKeys).
	CreateAPIKey(ctx context.Context, k APIKey, maxLive int) (APIKey, error)
	// ListAPIKeys returns the owner's live keys of the agent, newest first,
	// with what each spent in the month starting at month.
	ListAPIKeys(ctx context.Context, agentID, ownerUID string, month time.Time) ([]APIKey, error)
	// RevokeAPIKey marks the owner's live key revoked (ErrAPIKeyNotFound otherwise).
	RevokeAPIKey(ctx context.Context, agentID, ownerUID, id string, at time.Time) error
	// APIKeyByHash returns the key (live or not) with that hash (ErrAPIKeyInvalid when none).
	APIKeyByHash(ctx context.Context, hash []byte) (APIKey, error)
}

// APILimiter limits agent API requests per key and per owner. When it
// refuses, retryAfter says when the next request is allowed.
type APILimiter interface {
	AllowAPI(ctx context.Context, keyID, ownerUID string) (ok bool, retryAfter time.Duration)
}

// HashAPIKey is the stored form of a key.
func HashAPIKey(key string) []byte {
	sum := sha256.Sum256([]byte(key))
	return sum[:]
}

// GenerateAPIKey returns a new random key.
func GenerateAPIKey() (string, error) {
	out := make([]byte, 0, len(APIKeyPrefix)+APIKeyRandomChars)
	out = append(out, APIKeyPrefix...)
	buf := make([]byte, 64)
	for len(out) < cap(out) {
		if _, err := rand.Read(buf); err != nil {
			return "", fmt.Errorf("api key: %w", err)
		}
		for _, b := range buf {
			// Rejection sampling: 248 = 4 × 62, so every character is
			// equally likely (a plain b % 62 would favour the first eight).
			if b < 248 && len(out) < cap(out) {
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out), nil
}

// wellFormedAPIKey reports whether s can be a key at all, so that garbage
// (a Firebase token, a typo) is refused without a database look-up.
func wellFormedAPIKey(s string) bool {
	rest, ok := strings.CutPrefix(s, APIKeyPrefix)
	if !ok || len(rest) != APIKeyRandomChars {
		return false
	}
	for i := 0; i < len(rest); i++ {
		if strings.IndexByte(base62, rest[i]) < 0 {
			return false
		}
	}
	return true
}

// LooksLikeAPIKey reports whether a bearer token is meant as an agent API
// key (transport: a clearer 401 for a Firebase token sent instead).
func LooksLikeAPIKey(s string) bool { return strings.HasPrefix(s, APIKeyPrefix) }

// DollarsToMicros converts a dollar amount to micro-dollars, rounding to
// the nearest; ok is false for NaN, infinities and amounts beyond int64.
func DollarsToMicros(d float64) (int64, bool) {
	if math.IsNaN(d) || math.IsInf(d, 0) || math.Abs(d) > 9e12 {
		return 0, false
	}
	return int64(math.Round(d * 1e6)), true
}

// MonthStart is the first instant of t's UTC calendar month (key spend and
// limits are per UTC month, like the wallet's).
func MonthStart(t time.Time) time.Time {
	t = t.UTC()
	return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
}

// owner returns the agent when uid owns it; anything else (unknown agent,
// a subscriber, a stranger) is ErrAgentNotFound, as for other resources.
func (s *Service) owner(ctx context.Context, uid, agentID string) (Access, error) {
	a, err := s.authorize(ctx, uid, agentID)
	if err != nil {
		return Access{}, err
	}
	if a.Role != AccessOwner {
		return Access{}, ErrAgentNotFound
	}
	return a, nil
}

func (s *Service) keys() (KeyStore, error) {
	if s.keyStore == nil {
		return nil, errors.New("api keys are not configured")
	}
	return s.keyStore, nil
}

// CreateAPIKey makes a key for the owner's agent. The secret is returned
// here only; it is not stored.
func (s *Service) CreateAPIKey(ctx context.Context, uid, agentID string, in NewAPIKeyInput) (CreatedAPIKey, error) {
	ks, err := s.keys()
	if err != nil {
		return CreatedAPIKey{}, err
	}
	if _, err := s.owner(ctx, uid, agentID); err != nil {
		return CreatedAPIKey{}, err
	}
	now := s.now()
	name := strings.TrimSpace(in.Name)
	if name == "" || utf8.RuneCountInString(name) > MaxAPIKeyName || hasControl(name) || !utf8.ValidString(name) {
		return CreatedAPIKey{}, &ValidationError{Code: "invalid_name", Message: MsgInvalidKeyName}
	}
	k := APIKey{ID: newID(), AgentID: strings.ToLower(agentID), OwnerUID: uid, Name: name, CreatedAt: now}
	if in.ExpiresAt != nil {
		exp := in.ExpiresAt.UTC().Truncate(time.Microsecond)
		if !exp.After(now) || exp.Year() > 9999 {
			return CreatedAPIKey{}, &ValidationError{Code: "invalid_expires_at", Message: MsgInvalidExpiresAt}
		}
		k.ExpiresAt = &exp
	}
	if in.MonthlyLimitMicros != nil {
		if *in.MonthlyLimitMicros <= 0 || *in.MonthlyLimitMicros > MaxKeyLimitMicros {
			return CreatedAPIKey{}, &ValidationError{Code: "invalid_monthly_limit", Message: MsgInvalidLimit}
		}
		k.MonthlyLimitMicros = *in.MonthlyLimitMicros
	}
	secret, err := GenerateAPIKey()
	if err != nil {
		return CreatedAPIKey{}, err
	}
	k.Prefix = secret[:len(APIKeyPrefix)+APIKeyVisibleChars]
	k.Hash = HashAPIKey(secret)
	stored, err := ks.CreateAPIKey(ctx, k, s.cfg.MaxAPIKeysPerAgent)
	if errors.Is(err, ErrTooManyKeys) {
		return CreatedAPIKey{}, &TooManyKeysError{Max: s.cfg.MaxAPIKeysPerAgent}
	}
	if err != nil {
		return CreatedAPIKey{}, err
	}
	return CreatedAPIKey{APIKey: stored, Secret: secret}, nil
}

// ListAPIKeys returns the owner's live keys of the agent with this month's spend.
func (s *Service) ListAPIKeys(ctx context.Context, uid, agentID string) ([]APIKey, error) {
	ks, err := s.keys()
	if err != nil {
		return nil, err
	}
	if _, err := s.owner(ctx, uid, agentID); err != nil {
		return nil, err
	}
	return ks.ListAPIKeys(ctx, strings.ToLower(agentID), uid, MonthStart(s.now()))
}

// RevokeAPIKey revokes one of the owner's keys at once: this replica
// forgets it now, the others within MaxAPIKeyCacheTTL, and no new answer can
// be charged to it from the moment the revocation is committed (the key row
// is read again when the answer's charge is recorded).
func (s *Service) RevokeAPIKey(ctx context.Context, uid, agentID, keyID string) error {
	ks, err := s.keys()
	if err != nil {
		return err
	}
	if _, err := s.owner(ctx, uid, agentID); err != nil {
		return err
	}
	if !validID(keyID) {
		return ErrAPIKeyNotFound
	}
	if err := ks.RevokeAPIKey(ctx, strings.ToLower(agentID), uid, strings.ToLower(keyID), s.now()); err != nil {
		return err
	}
	s.keyCache.forget(strings.ToLower(keyID))
	return nil
}

// AuthenticateAPIKey returns the live key for a bearer token:
// ErrAPIKeyInvalid for anything that is not a live key (malformed, unknown,
// revoked), ErrAPIKeyExpired past its expiry. Look-ups are cached for at
// most MaxAPIKeyCacheTTL.
func (s *Service) AuthenticateAPIKey(ctx context.Context, raw string) (APIKey, error) {
	ks, err := s.keys()
	if err != nil {
		return APIKey{}, err
	}
	if !wellFormedAPIKey(raw) {
		return APIKey{}, ErrAPIKeyInvalid
	}
	hash := HashAPIKey(raw)
	k, ok := s.keyCache.get(hash)
	if !ok {
		if k, err = ks.APIKeyByHash(ctx, hash); err != nil {
			return APIKey{}, err
		}
		s.keyCache.put(hash, k)
	}
	// The store found the row by this hash; compare again in constant time
	// so that no path decides on a variable-time comparison of secrets.
	if subtle.ConstantTimeCompare(k.Hash, hash) != 1 {
		return APIKey{}, ErrAPIKeyInvalid
	}
	if k.RevokedAt != nil {
		return APIKey{}, ErrAPIKeyInvalid
	}
	if k.ExpiresAt != nil && !s.cfg.Now().Before(*k.ExpiresAt) {
		return APIKey{}, ErrAPIKeyExpired
	}
	// A disabled owner's keys stop with the account (within the accounts'
	// cache time, 5 s). A lookup that fails is not a refusal: the wallet
	// and the key's own limits still bound what the key can spend.
	if s.accounts != nil {
		disabled, err := s.accounts.AccountDisabled(ctx, k.OwnerUID)
		if err != nil {
			s.log.WarnContext(ctx, "api key owner's account state unknown", "owner_uid", k.OwnerUID, "error", err)
		} else if disabled {
			return APIKey{}, ErrAPIKeyOwnerDisabled
		}
	}
	return k, nil
}

// APIModel is an agent a key may use, as GET /api/v1/models lists it.
type APIModel struct {
	ID      string // "agentic/<agent id>"
	AgentID string
	Name    string
	Created time.Time
}

// ModelID is the model name of an agent in the agent API.
func ModelID(agentID string) string { return "agentic/" + strings.ToLower(agentID) }

// AgentOfModel returns the agent id a model name stands for: the agent's
// id, or "agentic/<id>" (case-insensitive); "" when it names no agent.
func AgentOfModel(model string) string {
	m := strings.TrimSpace(model)
	if len(m) > len("agentic/") && strings.EqualFold(m[:len("agentic/")], "agentic/") {
		m = m[len("agentic/"):]
	}
	if !validID(m) {
		return ""
	}
	return strings.ToLower(m)
}

// APIModels lists the agents key may use: its own agent, while its owner
// still owns it.
func (s *Service) APIModels(ctx context.Context, key APIKey) ([]APIModel, error) {
	a, err := s.owner(ctx, key.OwnerUID, key.AgentID)
	if errors.Is(err, ErrAgentNotFound) {
		return []APIModel{}, nil
	}
	if err != nil {
		return nil, err
	}
	return []APIModel{{ID: ModelID(key.AgentID), AgentID: key.AgentID, Name: a.Agent.Name, Created: key.CreatedAt}}, nil
}

// APIAnswerRequest is one agent API request (POST /api/v1/chat/completions).
type APIAnswerRequest struct {
	Key APIKey
	// Content is the question (the last user message); History the
	// messages before it (user and assistant, oldest first); System the
	// caller's system messages, joined.
	Content         string
	History         []Message
	System          string
	MaxOutputTokens int
	// IdempotencyKey (optional, the Idempotency-Key header) makes a retry
	// return the first answer instead of a second, charged one.
	IdempotencyKey string
	Received       time.Time
	// Format asks for structured output (response_format / text.format).
	Format *llm.ResponseFormat
	// Fingerprint identifies the request (route and body) for its
	// Idempotency-Key: the same key with another fingerprint is
	// ErrIdempotencyMismatch.
	Fingerprint []byte
}

// AnswerAPI answers an agent API request through Answer, the one metering
// path: the key's agent and owner must still match (else ErrAgentNotFound),
// the owner pays, the answer is recorded in the key's own conversation
// (channel api, not listed in the chat) with the caller's history and
// system text instead of the stored ones, and the key's rate and monthly
// limits apply.
func (s *Service) AnswerAPI(ctx context.Context, r APIAnswerRequest, sink Sink) (Turn, error) {
	key := r.Key
	clientID := "api:" + newID()
	if k := strings.TrimSpace(r.IdempotencyKey); k != "" {
		clientID = idempotencyToClientID("idem:" + k)
	}
	if _, err := ValidateMessage(r.Content, clientID); err != nil {
		return Turn{}, err
	}
	if _, err := s.owner(ctx, key.OwnerUID, key.AgentID); err != nil {
		return Turn{}, err
	}
	if len(r.Fingerprint) > 0 {
		if err := s.ClaimIdempotencyKey(ctx, key, r.IdempotencyKey, r.Fingerprint); err != nil {
			return Turn{}, err
		}
	}
	now := s.now()
	conv, err := s.store.ThreadConversation(ctx, Conversation{
		ID: newID(), AgentID: key.AgentID, UserUID: key.OwnerUID, Title: cleanTitle("API · " + key.Name),
		Channel: ChannelAPI, CreatedAt: now, UpdatedAt: now,
	}, "key:"+key.ID)
	if err != nil {
		return Turn{}, err
	}
	history := r.History
	if history == nil {
		history = []Message{}
	}
	return s.Answer(ctx, AnswerRequest{
		UID: key.OwnerUID, ConversationID: conv.ID, Content: r.Content, ClientMessageID: clientID,
		Channel: ChannelAPI, Received: r.Received, SuppliedHistory: true, History: history,
		System: withFormatRule(r.System, r.Format), MaxOutputTokens: r.MaxOutputTokens, APIKey: &key, Format: r.Format,
	}, sink)
}

// withFormatRule adds to the caller's system text what a structured answer
// must look like: models answer in JSON reliably only when told so (OpenAI
// refuses json_object unless the messages mention JSON).
func withFormatRule(system string, f *llm.ResponseFormat) string {
	if f == nil {
		return system
	}
	rule := "Answer with one JSON object only, no other text."
	if f.Type == llm.FormatJSONSchema {
		rule = "Answer with one JSON object only, no other text, matching the JSON schema " + strconv.Quote(f.Name) + " of the response format."
	}
	if strings.TrimSpace(system) == "" {
		return rule
	}
	return system + "\n\n" + rule
}
