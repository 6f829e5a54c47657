package conversations

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The agent API's stored state beyond keys: which request each
// Idempotency-Key was first used for, and the Responses API's stored
// responses (docs/agent-api.md).

var (
	// ErrIdempotencyMismatch: an Idempotency-Key reused with another request
	// (422 idempotency_key_mismatch); nothing was answered or charged.
	ErrIdempotencyMismatch = errors.New("idempotency key reused with another request")
	// ErrResponseNotFound: no stored response with that id for the key's agent (404).
	ErrResponseNotFound = errors.New("response not found")
	// ErrPreviousResponseNotFound: previous_response_id names no stored
	// response of the key's agent (404, param previous_response_id).
	ErrPreviousResponseNotFound = errors.New("previous response not found")
)

// APIResponseRequest is one Responses API request: an agent API answer
// that may continue a stored response.
type APIResponseRequest struct {
	APIAnswerRequest
	// PreviousResponseID continues the conversation of that stored response
	// (its chain's inputs and outputs come before History).
	PreviousResponseID string
}

// RespondAPI answers a Responses API request through AnswerAPI (the one
// metering path), after the conversation of PreviousResponseID.
func (s *Service) RespondAPI(ctx context.Context, r APIResponseRequest, sink Sink) (Turn, error) {
	if r.PreviousResponseID != "" {
		prior, err := s.ResponseHistory(ctx, r.Key, r.PreviousResponseID)
		if errors.Is(err, ErrResponseNotFound) {
			return Turn{}, ErrPreviousResponseNotFound
		}
		if err != nil {
			return Turn{}, err
		}
		r.History = append(prior, r.History...)
	}
	return s.AnswerAPI(ctx, r.APIAnswerRequest, sink)
}

// MaxResponseChain bounds how many stored responses previous_response_id
// follows back: the prompt keeps only what fits the context window anyway.
const MaxResponseChain = 100

// StoredResponse is one stored Responses API response.
type StoredResponse struct {
	ID         string
	AgentID    string
	KeyID      string
	PreviousID string
	// Input is what the caller sent (user and assistant messages, the last
	// being the question); Output the answer's text.
	Input  []Message
	Output string
	// Body is the response object as it was returned.
	Body      json.RawMessage
	CreatedAt time.Time
}

// APIRecords persists the agent API's idempotency keys and stored
// responses (PostgresStore).
type APIRecords interface {
	// ClaimIdempotencyKey records fingerprint for the key's idempotencyKey,
	// or reports whether the one recorded first is the same.
	ClaimIdempotencyKey(ctx context.Context, keyID, idempotencyKey string, fingerprint []byte) (same bool, err error)
	SaveAPIResponse(ctx context.Context, r StoredResponse) error
	// APIResponse returns the agent's stored response (ErrResponseNotFound).
	APIResponse(ctx context.Context, agentID, id string) (StoredResponse, error)
}

func (s *Service) records() (APIRecords, error) {
	r, ok := s.keyStore.(APIRecords)
	if !ok {
		return nil, errors.New("no store for agent API records")
	}
	return r, nil
}

// ClaimIdempotencyKey makes an Idempotency-Key stand for one request of
// the key: the first use records the request's fingerprint; a later use
// with another fingerprint is ErrIdempotencyMismatch. An empty key claims
// nothing.
func (s *Service) ClaimIdempotencyKey(ctx context.Context, key APIKey, idempotencyKey string, fingerprint []byte) error {
	idempotencyKey = strings.TrimSpace(idempotencyKey)
	if idempotencyKey == "" {
		return nil
	}
	if len(idempotencyKey) > 255 {
		return &ValidationError{Code: "invalid_idempotency_key", Message: "The Idempotency-Key header must be at most 255 characters."}
	}
	r, err := s.records()
	if err != nil {
		return err
	}
	same, err := r.ClaimIdempotencyKey(ctx, key.ID, idempotencyKey, fingerprint)
	if err != nil {
		return err
	}
	if !same {
		return ErrIdempotencyMismatch
	}
	return nil
}

// SaveAPIResponse stores a Responses API response of key's agent.
func (s *Service) SaveAPIResponse(ctx context.Context, key APIKey, r StoredResponse) error {
	rec, err := s.records()
	if err != nil {
		return err
	}
	r.AgentID, r.KeyID = key.AgentID, key.ID
	if r.CreatedAt.IsZero() {
		r.CreatedAt = s.now()
	}
	return rec.SaveAPIResponse(ctx, r)
}

// APIResponse returns a stored response of the key's agent, while its
// owner still owns it.
func (s *Service) APIResponse(ctx context.Context, key APIKey, id string) (StoredResponse, error) {
	if _, err := s.owner(ctx, key.OwnerUID, key.AgentID); err != nil {
		if errors.Is(err, ErrAgentNotFound) {
			return StoredResponse{}, ErrResponseNotFound
		}
		return StoredResponse{}, err
	}
	rec, err := s.records()
	if err != nil {
		return StoredResponse{}, err
	}
	return rec.APIResponse(ctx, key.AgentID, id)
}

// ResponseHistory is the conversation a response continues from: the
// input and output of previousID and of the responses before it (oldest
// first, at most MaxResponseChain of them), all of key's agent.
func (s *Service) ResponseHistory(ctx context.Context, key APIKey, previousID string) ([]Message, error) {
	var chain []StoredResponse
	for id := previousID; id != "" && len(chain) < MaxResponseChain; {
		r, err := s.APIResponse(ctx, key, id)
		if err != nil {
			return nil, err
		}
		chain = append(chain, r)
		id = r.PreviousID
	}
	var out []Message
	for i := len(chain) - 1; i >= 0; i-- {
		out = append(out, chain[i].Input...)
		if chain[i].Output != "" {
			out = append(out, Message{Role: RoleAssistant, Content: chain[i].Output})
		}
	}
	return out, nil
}

// ClaimIdempotencyKey implements APIRecords.
func (s *PostgresStore) ClaimIdempotencyKey(ctx context.Context, keyID, idempotencyKey string, fingerprint []byte) (bool, error) {
	var first []byte
	err := s.pool.QueryRow(ctx, `
		WITH ins AS (
			INSERT INTO api_idempotency (key_id, idempotency_key, fingerprint) VALUES ($1, $2, $3)
			ON CONFLICT (key_id, idempotency_key) DO NOTHING
			RETURNING fingerprint)
		SELECT fingerprint FROM ins
		UNION ALL
		SELECT fingerprint FROM api_idempotency WHERE key_id = $1 AND idempotency_key = $2
		LIMIT 1`, keyID, idempotencyKey, fingerprint).Scan(&first)
	if err != nil {
		return false, err
	}
	return bytes.Equal(first, fingerprint), nil
}

type storedMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// SaveAPIResponse implements APIRecords.
func (s *PostgresStore) SaveAPIResponse(ctx context.Context, r StoredResponse) error {
	in := make([]storedMessage, len(r.Input))
	for i, m := range r.Input {
		in[i] = storedMessage{Role: m.Role, Content: m.Content}
	}
	input, err := json.Marshal(in)
	if err != nil {
		return err
	}
	var prev *string
	if r.PreviousID != "" {
		prev = &r.PreviousID
	}
	_, err = s.pool.Exec(ctx, `
		INSERT INTO api_responses (id, agent_id, key_id, previous_response_id, input, output, body, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (id) DO NOTHING`,
		r.ID, r.AgentID, r.KeyID, prev, input, r.Output, []byte(r.Body), r.CreatedAt)
	return err
}

// APIResponse implements APIRecords.
func (s *PostgresStore) APIResponse(ctx context.Context, agentID, id string) (StoredResponse, error) {
	var (
		r     StoredResponse
		prev  *string
		input []byte
		body  []byte
	)
	err := s.pool.QueryRow(ctx, `
		SELECT id, agent_id::text, key_id::text, previous_response_id, input, output, body, created_at
		FROM api_responses WHERE agent_id = $1 AND id = $2`, agentID, id).
		Scan(&r.ID, &r.AgentID, &r.KeyID, &prev, &input, &r.Output, &body, &r.CreatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return StoredResponse{}, ErrResponseNotFound
	}
	if err != nil {
		return StoredResponse{}, err
	}
	if prev != nil {
		r.PreviousID = *prev
	}
	var in []storedMessage
	if err := json.Unmarshal(input, &in); err != nil {
		return StoredResponse{}, err
	}
	for _, m := range in {
		r.Input = append(r.Input, Message{Role: m.Role, Content: m.Content})
	}
	r.Body = body
	return r, nil
}
