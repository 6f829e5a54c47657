// Package endpoints adapts the conversations Service to go-kit endpoints
// and wraps them with logging, instrumenting and tracing middleware.
package endpoints

import (
	"context"
	"errors"
	"log/slog"

	"github.com/go-kit/kit/endpoint"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/endpointmw"
)

// Set holds one endpoint per service method.
type Set struct {
	CreateConversation endpoint.Endpoint
	ListConversations  endpoint.Endpoint
	GetConversation    endpoint.Endpoint
	RenameConversation endpoint.Endpoint
	DeleteConversation endpoint.Endpoint
	SendMessage        endpoint.Endpoint
	ChatInfo           endpoint.Endpoint
	// Library serves GET /api/library (the caller's marketplace agents).
	Library endpoint.Endpoint
	// AnswerThread serves gRPC ConversationsService.Answer (e-mail, Docs comments).
	AnswerThread endpoint.Endpoint

	// The agent API: key management (Firebase-authenticated owner) and the
	// OpenAI-compatible routes (authenticated by the key).
	CreateAPIKey       endpoint.Endpoint
	ListAPIKeys        endpoint.Endpoint
	RevokeAPIKey       endpoint.Endpoint
	AuthenticateAPIKey endpoint.Endpoint
	ChatCompletion     endpoint.Endpoint
	ListModels         endpoint.Endpoint
	// The Responses API: answer (and continue) a response, store it, read it.
	Respond      endpoint.Endpoint
	SaveResponse endpoint.Endpoint
	GetResponse  endpoint.Endpoint
}

// Requests and responses. Claims are the verified caller.
type (
	CreateConversationRequest struct {
		Claims  auth.Claims
		AgentID string
		Title   *string
	}
	ListConversationsRequest struct {
		Claims  auth.Claims
		AgentID string
	}
	GetConversationRequest struct {
		Claims auth.Claims
		ID     string
	}
	RenameConversationRequest struct {
		Claims auth.Claims
		ID     string
		Title  string
	}
	DeleteConversationRequest struct {
		Claims auth.Claims
		ID     string
	}
	SendMessageRequest struct {
		Claims  auth.Claims
		Request conversations.AnswerRequest
		// Sink receives the streamed answer (nil: not streamed).
		Sink conversations.Sink
	}
	ChatInfoRequest struct {
		Claims  auth.Claims
		AgentID string
	}
	LibraryRequest struct {
		Claims auth.Claims
	}
	LibraryResponse struct{ Agents []conversations.LibraryAgent }

	ConversationResponse             struct{ Conversation conversations.Conversation }
	ConversationsResponse            struct{ Conversations []conversations.Conversation }
	ConversationWithMessagesResponse struct {
		Conversation conversations.ConversationWithMessages
	}
	DeletedResponse struct{}
	// MessageResponse is an answered (or replayed) turn. Interrupted is set
	// when the answer stopped after partial output: it was kept and charged
	// for what was generated, so the call itself succeeded.
	MessageResponse struct {
		Turn        conversations.Turn
		Interrupted error
	}
	ChatInfoResponse struct{ Info conversations.ChatInfo }

	AnswerThreadRequest struct {
		Request conversations.ThreadRequest
	}

	CreateAPIKeyRequest struct {
		Claims  auth.Claims
		AgentID string
		Input   conversations.NewAPIKeyInput
	}
	ListAPIKeysRequest struct {
		Claims  auth.Claims
		AgentID string
	}
	RevokeAPIKeyRequest struct {
		Claims  auth.Claims
		AgentID string
		KeyID   string
	}
	// AuthenticateAPIKeyRequest carries the bearer token; it is never
	// logged (the endpoint middleware logs no request fields).
	AuthenticateAPIKeyRequest struct{ Token string }
	ChatCompletionRequest     struct {
		Request conversations.APIAnswerRequest
		// Sink receives the streamed answer (nil: not streamed).
		Sink conversations.Sink
	}
	ListModelsRequest struct{ Key conversations.APIKey }
	RespondRequest    struct {
		Request conversations.APIResponseRequest
		// Sink receives the streamed answer (nil: not streamed).
		Sink conversations.Sink
	}
	SaveResponseRequest struct {
		Key      conversations.APIKey
		Response conversations.StoredResponse
	}
	GetResponseRequest struct {
		Key conversations.APIKey
		ID  string
	}
	StoredResponseResponse struct{ Response conversations.StoredResponse }

	CreatedAPIKeyResponse struct{ Key conversations.CreatedAPIKey }
	APIKeysResponse       struct{ Keys []conversations.APIKey }
	APIKeyResponse        struct{ Key conversations.APIKey }
	ModelsResponse        struct{ Models []conversations.APIModel }
	// AnswerThreadResponse is an answered (or replayed) turn of a thread;
	// a partial answer (kept and charged) is a success with status partial.
	AnswerThreadResponse struct {
		Answer conversations.ThreadAnswer
	}
)

// New builds the endpoint set with middleware applied (tracing outermost,
// then instrumenting, then logging).
func New(svc *conversations.Service, logger *slog.Logger, reg prometheus.Registerer) Set {
	if logger == nil {
		logger = slog.Default()
	}
	wrap := endpointmw.Chain("conversations", logger, reg, Outcome)
	return Set{
		CreateConversation: wrap("CreateConversation", func(ctx context.Context, req any) (any, error) {
			r := req.(CreateConversationRequest)
			c, err := svc.CreateConversation(ctx, r.Claims.UID, r.AgentID, r.Title)
			if err != nil {
				return nil, err
			}
			return ConversationResponse{Conversation: c}, nil
		}),
		ListConversations: wrap("ListConversations", func(ctx context.Context, req any) (any, error) {
			r := req.(ListConversationsRequest)
			cs, err := svc.ListConversations(ctx, r.Claims.UID, r.AgentID)
			if err != nil {
				return nil, err
			}
			return ConversationsResponse{Conversations: cs}, nil
		}),
		GetConversation: wrap("GetConversation", func(ctx context.Context, req any) (any, error) {
			r := req.(GetConversationRequest)
			c, err := svc.GetConversation(ctx, r.Claims.UID, r.ID)
			if err != nil {
				return nil, err
			}
			return ConversationWithMessagesResponse{Conversation: c}, nil
		}),
		RenameConversation: wrap("RenameConversation", func(ctx context.Context, req any) (any, error) {
			r := req.(RenameConversationRequest)
			c, err := svc.RenameConversation(ctx, r.Claims.UID, r.ID, r.Title)
			if err != nil {
				return nil, err
			}
			return ConversationResponse{Conversation: c}, nil
		}),
		DeleteConversation: wrap("DeleteConversation", func(ctx context.Context, req any) (any, error) {
			r := req.(DeleteConversationRequest)
			if err := svc.DeleteConversation(ctx, r.Claims.UID, r.ID); err != nil {
				return nil, err
			}
			return DeletedResponse{}, nil
		}),
		SendMessage: wrap("SendMessage", func(ctx context.Context, req any) (any, error) {
			r := req.(SendMessageRequest)
			ar := r.Request
			ar.UID = r.Claims.UID
			t, err := svc.Answer(ctx, ar, r.Sink)
			if err != nil && errors.Is(err, conversations.ErrInterrupted) {
				return MessageResponse{Turn: t, Interrupted: err}, nil
			}
			if err != nil {
				return nil, err
			}
			return MessageResponse{Turn: t}, nil
		}),
		AnswerThread: wrap("AnswerThread", func(ctx context.Context, req any) (any, error) {
			r := req.(AnswerThreadRequest)
			a, err := svc.AnswerThread(ctx, r.Request)
			if err != nil && !errors.Is(err, conversations.ErrInterrupted) {
				return nil, err
			}
			return AnswerThreadResponse{Answer: a}, nil
		}),
		CreateAPIKey: wrap("CreateAPIKey", func(ctx context.Context, req any) (any, error) {
			r := req.(CreateAPIKeyRequest)
			k, err := svc.CreateAPIKey(ctx, r.Claims.UID, r.AgentID, r.Input)
			if err != nil {
				return nil, err
			}
			return CreatedAPIKeyResponse{Key: k}, nil
		}),
		ListAPIKeys: wrap("ListAPIKeys", func(ctx context.Context, req any) (any, error) {
			r := req.(ListAPIKeysRequest)
			ks, err := svc.ListAPIKeys(ctx, r.Claims.UID, r.AgentID)
			if err != nil {
				return nil, err
			}
			return APIKeysResponse{Keys: ks}, nil
		}),
		RevokeAPIKey: wrap("RevokeAPIKey", func(ctx context.Context, req any) (any, error) {
			r := req.(RevokeAPIKeyRequest)
			if err := svc.RevokeAPIKey(ctx, r.Claims.UID, r.AgentID, r.KeyID); err != nil {
				return nil, err
			}
			return DeletedResponse{}, nil
		}),
		AuthenticateAPIKey: wrap("AuthenticateAPIKey", func(ctx context.Context, req any) (any, error) {
			k, err := svc.AuthenticateAPIKey(ctx, req.(AuthenticateAPIKeyRequest).Token)
			if err != nil {
				return nil, err
			}
			return APIKeyResponse{Key: k}, nil
		}),
		ChatCompletion: wrap("ChatCompletion", func(ctx context.Context, req any) (any, error) {
			r := req.(ChatCompletionRequest)
			t, err := svc.AnswerAPI(ctx, r.Request, r.Sink)
			if err != nil && errors.Is(err, conversations.ErrInterrupted) {
				return MessageResponse{Turn: t, Interrupted: err}, nil
			}
			if err != nil {
				return nil, err
			}
			return MessageResponse{Turn: t}, nil
		}),
		Respond: wrap("Respond", func(ctx context.Context, req any) (any, error) {
			r := req.(RespondRequest)
			t, err := svc.RespondAPI(ctx, r.Request, r.Sink)
			if err != nil && errors.Is(err, conversations.ErrInterrupted) {
				return MessageResponse{Turn: t, Interrupted: err}, nil
			}
			if err != nil {
				return nil, err
			}
			return MessageResponse{Turn: t}, nil
		}),
		SaveResponse: wrap("SaveResponse", func(ctx context.Context, req any) (any, error) {
			r := req.(SaveResponseRequest)
			if err := svc.SaveAPIResponse(ctx, r.Key, r.Response); err != nil {
				return nil, err
			}
			return DeletedResponse{}, nil
		}),
		GetResponse: wrap("GetResponse", func(ctx context.Context, req any) (any, error) {
			r := req.(GetResponseRequest)
			sr, err := svc.APIResponse(ctx, r.Key, r.ID)
			if err != nil {
				return nil, err
			}
			return StoredResponseResponse{Response: sr}, nil
		}),
		ListModels: wrap("ListModels", func(ctx context.Context, req any) (any, error) {
			ms, err := svc.APIModels(ctx, req.(ListModelsRequest).Key)
			if err != nil {
				return nil, err
			}
			return ModelsResponse{Models: ms}, nil
		}),
		Library: wrap("Library", func(ctx context.Context, req any) (any, error) {
			as, err := svc.Library(ctx, req.(LibraryRequest).Claims.UID)
			if err != nil {
				return nil, err
			}
			return LibraryResponse{Agents: as}, nil
		}),
		ChatInfo: wrap("ChatInfo", func(ctx context.Context, req any) (any, error) {
			r := req.(ChatInfoRequest)
			info, err := svc.ChatInfo(ctx, r.Claims.UID, r.AgentID)
			if err != nil {
				return nil, err
			}
			return ChatInfoResponse{Info: info}, nil
		}),
	}
}

// Outcome classifies an endpoint result: "success", "client_error" (the
// caller's fault or state: validation, not found, in progress, rate
// limited, insufficient funds, a subscriber's cap, a count quota), "unavailable" (the catalog, wallet,
// knowledge or model could not answer; logged at warn), "canceled" or "error".
func Outcome(err error) string { return outcome(err) }

var outcome = endpointmw.Default(func(err error) string {
	var (
		ve *conversations.ValidationError
		rl *conversations.RateLimitedError
		in *conversations.InsufficientFundsError
		kl *conversations.KeyLimitError
		sc *conversations.SubscriberCapError
		au *conversations.AgentUnavailableError
	)
	switch {
	case errors.As(err, &ve), errors.As(err, &rl), errors.As(err, &in), errors.As(err, &kl), errors.As(err, &sc), errors.As(err, &au),
		errors.Is(err, conversations.ErrAPIKeyInvalid), errors.Is(err, conversations.ErrAPIKeyExpired),
		errors.Is(err, conversations.ErrAPIKeyOwnerDisabled),
		errors.Is(err, conversations.ErrAPIKeyNotFound), errors.Is(err, conversations.ErrTooManyKeys),
		errors.Is(err, conversations.ErrConversationNotFound), errors.Is(err, conversations.ErrAgentNotFound),
		errors.Is(err, conversations.ErrInProgress), errors.Is(err, conversations.ErrTooLong),
		errors.Is(err, conversations.ErrIdempotencyMismatch), errors.Is(err, conversations.ErrResponseNotFound),
		errors.Is(err, conversations.ErrPreviousResponseNotFound):
		return endpointmw.OutcomeClientError
	case errors.Is(err, conversations.ErrCatalogUnavailable), errors.Is(err, conversations.ErrWalletUnavailable),
		errors.Is(err, conversations.ErrKnowledgeUnavailable), errors.Is(err, conversations.ErrModelUnavailable):
		return endpointmw.OutcomeUnavailable
	}
	return ""
})
