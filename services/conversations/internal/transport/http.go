// Package transport exposes the conversations endpoints over HTTP: JSON
// routes, and the message route as JSON or as a Server-Sent Events stream
// (docs/conversations-api.md).
package transport

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	httptransport "github.com/go-kit/kit/transport/http"

	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/endpoints"
	"github.com/agentic-app/agentic/services/platform/auth"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Public routes (net/http patterns).
const (
	PathAgentConversations = "/api/agents/{agentId}/conversations"
	PathChatInfo           = "/api/agents/{agentId}/chat-info"
	PathConversation       = "/api/conversations/{id}"
	PathMessages           = "/api/conversations/{id}/messages"
	PathLibrary            = "/api/library"
)

// RegisterHTTP adds the conversation routes to mux, each behind the
// platform auth middleware (verifier).
func RegisterHTTP(mux *http.ServeMux, set endpoints.Set, verifier auth.Verifier, logger *slog.Logger) {
	if logger == nil {
		logger = slog.Default()
	}
	errEnc := encodeHTTPError(logger)
	opts := server.KitOptions(errEnc)
	protect := auth.Middleware(verifier, logger)
	// Sensitive routes (money, sharing, keys, deletion) also check that the
	// token was not revoked and its user not disabled (docs/identity.md).
	fresh := auth.RequireFresh(verifier, logger)
	route := func(method, path string, e func(context.Context, any) (any, error), dec httptransport.DecodeRequestFunc, enc httptransport.EncodeResponseFunc) {
		server.Route(mux, method, path, protect(httptransport.NewServer(e, dec, enc, opts...)))
	}
	// Writes and spending also check revocation (issue 30 item 1): a disabled
	// or signed-out-everywhere account stops within RevocationTTL (5 s).
	sensitive := func(method, path string, e func(context.Context, any) (any, error), dec httptransport.DecodeRequestFunc, enc httptransport.EncodeResponseFunc) {
		server.Route(mux, method, path, fresh(httptransport.NewServer(e, dec, enc, opts...)))
	}
	sensitive(http.MethodPost, PathAgentConversations, set.CreateConversation, decodeCreate, encodeJSON(http.StatusCreated))
	route(http.MethodGet, PathAgentConversations, set.ListConversations, decodeList, encodeJSON(http.StatusOK))
	route(http.MethodGet, PathChatInfo, set.ChatInfo, decodeChatInfo, encodeJSON(http.StatusOK))
	route(http.MethodGet, PathLibrary, set.Library, decodeLibrary, encodeJSON(http.StatusOK))
	route(http.MethodGet, PathConversation, set.GetConversation, decodeGet, encodeJSON(http.StatusOK))
	sensitive(http.MethodPatch, PathConversation, set.RenameConversation, decodeRename, encodeJSON(http.StatusOK))
	server.Route(mux, http.MethodDelete, PathConversation, fresh(httptransport.NewServer(set.DeleteConversation, decodeDelete, encodeJSON(http.StatusNoContent), opts...)))
	// The message route streams while the endpoint runs, which go-kit's
	// decode → endpoint → encode server cannot do: its own handler.
	server.Route(mux, http.MethodPost, PathMessages, fresh(&messageHandler{send: set.SendMessage, errEnc: errEnc, log: logger}))
}

// ConversationJSON is a conversation as the API shows it.
type ConversationJSON struct {
	ID            string     `json:"id"`
	AgentID       string     `json:"agentId"`
	Title         string     `json:"title"`
	Channel       string     `json:"channel"`
	CreatedAt     time.Time  `json:"createdAt"`
	UpdatedAt     time.Time  `json:"updatedAt"`
	LastMessageAt *time.Time `json:"lastMessageAt"`
}

// UsageJSON is an answer's usage.
type UsageJSON struct {
	Model        string `json:"model"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	CostMicros   int64  `json:"costMicros"`
	FeeMicros    int64  `json:"feeMicros"`
	// MarkupMicros and GreetingMicros: a consumer's answer's parts for the
	// creator (0 for the owner and subscribers); totalMicros includes them.
	MarkupMicros   int64 `json:"markupMicros"`
	GreetingMicros int64 `json:"greetingMicros"`
	TotalMicros    int64 `json:"totalMicros"`
}

// MessageJSON is a message as the API shows it.
type MessageJSON struct {
	ID              string                   `json:"id"`
	Role            string                   `json:"role"`
	Content         string                   `json:"content"`
	Citations       []conversations.Citation `json:"citations"`
	Usage           *UsageJSON               `json:"usage"`
	Status          string                   `json:"status"`
	ClientMessageID *string                  `json:"clientMessageId"`
	CreatedAt       time.Time                `json:"createdAt"`
}

// ConversationWithMessagesJSON is a conversation with its messages.
type ConversationWithMessagesJSON struct {
	ConversationJSON
	Messages []MessageJSON `json:"messages"`
}

// TurnJSON is the JSON answer of POST .../messages.
type TurnJSON struct {
	UserMessage      MessageJSON `json:"userMessage"`
	AssistantMessage MessageJSON `json:"assistantMessage"`
}

// ChatInfoJSON is GET /api/agents/{agentId}/chat-info.
type ChatInfoJSON struct {
	Model     string `json:"model"`
	Simulated bool   `json:"simulated"`
	Role      string `json:"role"`
	// FollowUpSearch: "model" (the model rewrites a follow-up into a
	// standalone query) or "rule" (its previous message's words are added).
	FollowUpSearch string `json:"followUpSearch"`
}

// LibraryJSON is GET /api/library: the agents the caller talked to from the
// marketplace, most recent first.
type LibraryJSON struct {
	Agents []LibraryAgentJSON `json:"agents"`
}

// LibraryAgentJSON is an agent of the Library. Listed is false once the
// agent is no longer in the marketplace (its conversations stay readable);
// name, icon and slug are "" when the catalog no longer knows it.
type LibraryAgentJSON struct {
	AgentID        string                    `json:"agentId"`
	Name           string                    `json:"name"`
	IconName       string                    `json:"iconName"`
	IconColor      string                    `json:"iconColor"`
	Slug           string                    `json:"slug"`
	Listed         bool                      `json:"listed"`
	LastActivityAt time.Time                 `json:"lastActivityAt"`
	Conversations  []LibraryConversationJSON `json:"conversations"`
}

// LibraryConversationJSON is a conversation of a Library agent.
type LibraryConversationJSON struct {
	ID        string    `json:"id"`
	Title     string    `json:"title"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// LibraryToJSON converts the Library.
func LibraryToJSON(as []conversations.LibraryAgent) LibraryJSON {
	out := LibraryJSON{Agents: make([]LibraryAgentJSON, len(as))}
	for i, a := range as {
		cs := make([]LibraryConversationJSON, len(a.Conversations))
		for j, c := range a.Conversations {
			cs[j] = LibraryConversationJSON{ID: c.ID, Title: c.Title, UpdatedAt: c.UpdatedAt.UTC()}
		}
		out.Agents[i] = LibraryAgentJSON{AgentID: a.Agent.ID, Name: a.Agent.Name, IconName: a.Agent.IconName,
			IconColor: a.Agent.IconColor, Slug: a.Agent.Slug, Listed: a.Agent.Listed,
			LastActivityAt: a.LastActivityAt.UTC(), Conversations: cs}
	}
	return out
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// ConversationToJSON converts a domain conversation.
func ConversationToJSON(c conversations.Conversation) ConversationJSON {
	return ConversationJSON{ID: c.ID, AgentID: c.AgentID, Title: c.Title, Channel: c.Channel,
		CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(), LastMessageAt: utcPtr(c.LastMessageAt)}
}

func usageToJSON(u *conversations.Usage) *UsageJSON {
	if u == nil {
		return nil
	}
	return &UsageJSON{Model: u.Model, InputTokens: u.InputTokens, OutputTokens: u.OutputTokens,
		CostMicros: u.CostMicros, FeeMicros: u.FeeMicros, MarkupMicros: u.MarkupMicros, GreetingMicros: u.GreetingMicros,
		TotalMicros: u.TotalMicros}
}

// MessageToJSON converts a domain message.
func MessageToJSON(m conversations.Message) MessageJSON {
	cs := m.Citations
	if cs == nil {
		cs = []conversations.Citation{}
	}
	for i := range cs {
		if cs[i].Labels == nil {
			cs[i].Labels = []string{}
		}
		if cs[i].Markers == nil {
			cs[i].Markers = []int{}
		}
		if cs[i].Passages == nil {
			cs[i].Passages = []conversations.CitedPassage{}
		}
	}
	var cid *string
	if m.ClientMessageID != "" {
		id := m.ClientMessageID
		cid = &id
	}
	out := MessageJSON{ID: m.ID, Role: m.Role, Content: m.Content, Citations: cs, Status: m.Status,
		ClientMessageID: cid, CreatedAt: m.CreatedAt.UTC()}
	if m.Role == conversations.RoleAssistant {
		out.Usage = usageToJSON(m.Usage)
	}
	return out
}

func decodeCreate(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b struct {
		Title *string `json:"title"`
	}
	if err := server.DecodeJSON(nil, r, &b, server.AllowEmpty()); err != nil {
		return nil, err
	}
	return endpoints.CreateConversationRequest{Claims: c, AgentID: r.PathValue("agentId"), Title: b.Title}, nil
}

func decodeList(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.ListConversationsRequest{Claims: c, AgentID: r.PathValue("agentId")}, nil
}

func decodeChatInfo(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.ChatInfoRequest{Claims: c, AgentID: r.PathValue("agentId")}, nil
}

func decodeLibrary(ctx context.Context, _ *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.LibraryRequest{Claims: c}, nil
}

func decodeGet(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.GetConversationRequest{Claims: c, ID: r.PathValue("id")}, nil
}

func decodeRename(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	var b struct {
		Title *string `json:"title"`
	}
	if err := server.DecodeJSON(nil, r, &b); err != nil {
		return nil, err
	}
	title := ""
	if b.Title != nil {
		title = *b.Title
	}
	return endpoints.RenameConversationRequest{Claims: c, ID: r.PathValue("id"), Title: title}, nil
}

func decodeDelete(ctx context.Context, r *http.Request) (any, error) {
	c, err := server.ClaimsFrom(ctx)
	if err != nil {
		return nil, err
	}
	return endpoints.DeleteConversationRequest{Claims: c, ID: r.PathValue("id")}, nil
}

func encodeJSON(status int) httptransport.EncodeResponseFunc {
	return func(_ context.Context, w http.ResponseWriter, resp any) error {
		switch r := resp.(type) {
		case endpoints.ConversationResponse:
			server.WriteJSON(w, status, ConversationToJSON(r.Conversation))
		case endpoints.ConversationsResponse:
			out := make([]ConversationJSON, len(r.Conversations))
			for i, c := range r.Conversations {
				out[i] = ConversationToJSON(c)
			}
			server.WriteJSON(w, status, out)
		case endpoints.ConversationWithMessagesResponse:
			msgs := make([]MessageJSON, len(r.Conversation.Messages))
			for i, m := range r.Conversation.Messages {
				msgs[i] = MessageToJSON(m)
			}
			server.WriteJSON(w, status, ConversationWithMessagesJSON{
				ConversationJSON: ConversationToJSON(r.Conversation.Conversation), Messages: msgs})
		case endpoints.LibraryResponse:
			server.WriteJSON(w, status, LibraryToJSON(r.Agents))
		case endpoints.ChatInfoResponse:
			server.WriteJSON(w, status, ChatInfoJSON{Model: r.Info.Model, Simulated: r.Info.Simulated, Role: r.Info.Role, FollowUpSearch: r.Info.FollowUps})
		case endpoints.DeletedResponse:
			w.WriteHeader(http.StatusNoContent)
		default:
			return errors.New("unexpected response type")
		}
		return nil
	}
}

// Errors specific to the conversations service.
var (
	ErrConversationNotFound = &server.Error{Status: http.StatusNotFound, Code: "not_found", Message: conversations.MsgConversationNotFound}
	ErrAgentNotFound        = &server.Error{Status: http.StatusNotFound, Code: "not_found", Message: conversations.MsgAgentNotFound}
	ErrInProgress           = &server.Error{Status: http.StatusConflict, Code: "in_progress", Message: conversations.MsgInProgress}
	ErrModelUnavailable     = &server.Error{Status: http.StatusBadGateway, Code: "model_unavailable", Message: conversations.MsgModelUnavailable}
	ErrCatalogDown          = &server.Error{Status: http.StatusServiceUnavailable, Code: "catalog_unavailable", Message: conversations.MsgCatalogDown}
	ErrWalletDown           = &server.Error{Status: http.StatusServiceUnavailable, Code: "wallet_unavailable", Message: conversations.MsgWalletDown}
	ErrKnowledgeDown        = &server.Error{Status: http.StatusServiceUnavailable, Code: "knowledge_unavailable", Message: conversations.MsgKnowledgeDown}
	ErrTooLong              = &server.Error{Status: http.StatusBadRequest, Code: "prompt_too_long", Message: conversations.MsgTooLong}
	ErrInterrupted          = &server.Error{Status: http.StatusBadGateway, Code: "answer_interrupted", Message: conversations.MsgInterrupted}
	ErrAPIKeyNotFound       = &server.Error{Status: http.StatusNotFound, Code: "not_found", Message: conversations.MsgAPIKeyNotFound}
	ErrAgentUnavailable     = &server.Error{Status: http.StatusForbidden, Code: server.CodeAgentUnavailable, Message: conversations.MsgAgentUnavailable}
)

// httpError maps a service error to its API error, or nil for an
// unexpected error (500, logged). It also returns a Retry-After value.
func httpError(err error) (*server.Error, time.Duration) {
	var (
		se *server.Error
		ve *conversations.ValidationError
		rl *conversations.RateLimitedError
		in *conversations.InsufficientFundsError
		sc *conversations.SubscriberCapError
		au *conversations.AgentUnavailableError
		tk *conversations.TooManyKeysError
	)
	switch {
	case errors.As(err, &se):
		return se, 0
	case errors.As(err, &ve):
		return server.BadRequest(ve.Code, ve.Message), 0
	case errors.As(err, &rl):
		return &server.Error{Status: http.StatusTooManyRequests, Code: "rate_limited", Message: conversations.MsgRateLimited}, rl.RetryAfter
	case errors.As(err, &in):
		return &server.Error{Status: http.StatusPaymentRequired, Code: "insufficient_funds", Message: in.Message()}, 0
	case errors.As(err, &sc), errors.As(err, &au):
		return ErrAgentUnavailable, 0
	case errors.Is(err, conversations.ErrConversationNotFound):
		return ErrConversationNotFound, 0
	case errors.Is(err, conversations.ErrAgentNotFound):
		return ErrAgentNotFound, 0
	case errors.Is(err, conversations.ErrInProgress):
		return ErrInProgress, time.Second
	case errors.Is(err, conversations.ErrModelUnavailable):
		return ErrModelUnavailable, 0
	case errors.Is(err, conversations.ErrCatalogUnavailable):
		return ErrCatalogDown, time.Second
	case errors.Is(err, conversations.ErrWalletUnavailable):
		return ErrWalletDown, time.Second
	case errors.Is(err, conversations.ErrKnowledgeUnavailable):
		return ErrKnowledgeDown, time.Second
	case errors.Is(err, conversations.ErrTooLong):
		return ErrTooLong, 0
	case errors.Is(err, conversations.ErrAPIKeyNotFound):
		return ErrAPIKeyNotFound, 0
	case errors.As(err, &tk):
		return &server.Error{Status: http.StatusBadRequest, Code: server.CodeLimitReached, Message: tk.Message()}, 0
	}
	return nil, 0
}

func retryAfter(d time.Duration) string {
	s := int64((d + time.Second - 1) / time.Second)
	if s < 1 {
		s = 1
	}
	return strconv.FormatInt(s, 10)
}

func encodeHTTPError(logger *slog.Logger) httptransport.ErrorEncoder {
	return func(ctx context.Context, err error, w http.ResponseWriter) {
		e, retry := httpError(err)
		switch {
		case e == nil:
			server.WriteFailure(ctx, logger, w, err)
			return
		case e.Status >= 500:
			logger.WarnContext(ctx, "request failed", "error", err)
		}
		if retry > 0 {
			w.Header().Set("Retry-After", retryAfter(retry))
		}
		server.WriteError(w, e)
	}
}
