package comments

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
)

// DefaultTimeout bounds one identity or catalog call.
const DefaultTimeout = 5 * time.Second

// GRPCDirectory is Directory over identity (FindUsersByEmail) and the
// catalog (CheckAccess).
type GRPCDirectory struct {
	identity identityv1.IdentityServiceClient
	catalog  catalogv1.CatalogServiceClient
	timeout  time.Duration
}

// NewDirectory returns a Directory; timeout bounds each call (default 5s).
func NewDirectory(identity, catalog grpc.ClientConnInterface, timeout time.Duration) *GRPCDirectory {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return &GRPCDirectory{identity: identityv1.NewIdentityServiceClient(identity),
		catalog: catalogv1.NewCatalogServiceClient(catalog), timeout: timeout}
}

// UsersByEmail implements Directory: the uids whose e-mail address is
// exactly address (case-insensitive).
func (d *GRPCDirectory) UsersByEmail(ctx context.Context, address string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	resp, err := d.identity.FindUsersByEmail(ctx, &identityv1.FindUsersByEmailRequest{Emails: []string{address}})
	if err != nil {
		return nil, fmt.Errorf("identity FindUsersByEmail: %w", err)
	}
	var uids []string
	for _, u := range resp.GetUsers() {
		if u.GetUid() != "" && strings.EqualFold(strings.TrimSpace(u.GetEmail()), address) {
			uids = append(uids, u.GetUid())
		}
	}
	return uids, nil
}

// CanUse implements Directory: the catalog's CheckAccess (the owner or an
// active subscriber).
func (d *GRPCDirectory) CanUse(ctx context.Context, agentID, uid string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	resp, err := d.catalog.CheckAccess(ctx, &catalogv1.CheckAccessRequest{AgentId: agentID, Uid: uid})
	if err != nil {
		return false, fmt.Errorf("catalog CheckAccess: %w", err)
	}
	return resp.GetAllowed(), nil
}

// GRPCAnswerer is Answerer over ConversationsService.Answer.
type GRPCAnswerer struct {
	client conversationsv1.ConversationsServiceClient
}

// NewAnswerer returns the Answerer on conn.
func NewAnswerer(conn grpc.ClientConnInterface) *GRPCAnswerer {
	return &GRPCAnswerer{client: conversationsv1.NewConversationsServiceClient(conn)}
}

// Answer implements Answerer, mapping the service's documented errors:
// FAILED_PRECONDITION "insufficient_funds" → ErrInsufficientFunds,
// FAILED_PRECONDITION "agent_unavailable" → ErrAgentUnavailable,
// UNAVAILABLE "model_unavailable" → ErrModelUnavailable, NOT_FOUND →
// ErrNoAccess, INVALID_ARGUMENT and other FAILED_PRECONDITIONs →
// ErrRejected. Anything else is a temporary error.
func (a *GRPCAnswerer) Answer(ctx context.Context, req AnswerRequest) (Answer, error) {
	resp, err := a.client.Answer(ctx, &conversationsv1.AnswerRequest{
		AgentId: req.AgentID, UserUid: req.UserUID, Channel: Channel, ThreadKey: req.ThreadKey,
		Title: req.Title, Content: req.Content, IdempotencyKey: req.IdempotencyKey,
	})
	if err != nil {
		return Answer{}, mapAnswerError(err)
	}
	out := Answer{ConversationID: resp.GetConversationId(), Content: resp.GetContent(), Replayed: resp.GetReplayed()}
	for _, c := range resp.GetCitations() {
		out.Citations = append(out.Citations, Citation{Name: c.GetDocumentName(), URL: c.GetUrl()})
	}
	return out, nil
}

func mapAnswerError(err error) error {
	st := status.Convert(err)
	msg := strings.TrimSpace(st.Message())
	switch {
	case st.Code() == codes.FailedPrecondition && msg == "insufficient_funds":
		return fmt.Errorf("%w: %v", ErrInsufficientFunds, err)
	case st.Code() == codes.FailedPrecondition && msg == "agent_unavailable":
		return fmt.Errorf("%w: %v", ErrAgentUnavailable, err)
	case st.Code() == codes.Unavailable && msg == "model_unavailable":
		return fmt.Errorf("%w: %v", ErrModelUnavailable, err)
	case st.Code() == codes.NotFound:
		return fmt.Errorf("%w: %v", ErrNoAccess, err)
	case st.Code() == codes.InvalidArgument || st.Code() == codes.FailedPrecondition:
		return fmt.Errorf("%w: %v", ErrRejected, err)
	}
	return fmt.Errorf("conversations Answer: %w", err)
}

// Errors of Answerer.Answer.
var (
	ErrInsufficientFunds = errors.New("insufficient funds")
	ErrAgentUnavailable  = errors.New("agent unavailable to the asker (subscriber cap)")
	ErrModelUnavailable  = errors.New("model unavailable")
	ErrNoAccess          = errors.New("no access")
	ErrRejected          = errors.New("rejected")
)
