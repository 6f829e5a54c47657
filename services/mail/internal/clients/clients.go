// Package clients implements the inbox's ports with the other services'
// gRPC APIs: the catalog (FindAgentByEmail, CheckAccess) and identity
// (FindUsersByEmail) as inbox.Directory, identity (GetUser) as notify.Users,
// and the conversations service (Answer) as inbox.Answerer.
package clients

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	catalogv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/catalog/v1"
	conversationsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/conversations/v1"
	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/mail/internal/compose"
	"github.com/agentic-app/agentic/services/mail/internal/inbox"
	"github.com/agentic-app/agentic/services/mail/internal/notify"
)

// Directory is inbox.Directory over the catalog and identity.
type Directory struct {
	catalog  catalogv1.CatalogServiceClient
	identity identityv1.IdentityServiceClient
	timeout  time.Duration
}

// NewDirectory returns a Directory; timeout bounds each call (default 5s).
func NewDirectory(catalog, identity grpc.ClientConnInterface, timeout time.Duration) *Directory {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &Directory{catalog: catalogv1.NewCatalogServiceClient(catalog),
		identity: identityv1.NewIdentityServiceClient(identity), timeout: timeout}
}

// AgentByEmail implements inbox.Directory.
func (d *Directory) AgentByEmail(ctx context.Context, address string) (inbox.Agent, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	resp, err := d.catalog.FindAgentByEmail(ctx, &catalogv1.FindAgentByEmailRequest{Email: address})
	switch status.Code(err) {
	case codes.OK:
	case codes.NotFound, codes.InvalidArgument:
		return inbox.Agent{}, inbox.ErrUnknownRecipient
	default:
		return inbox.Agent{}, &inbox.UnavailableError{What: "catalog", Err: err}
	}
	a := resp.GetAgent()
	return inbox.Agent{ID: a.GetId(), Email: a.GetEmail(), Name: a.GetName(), OwnerUID: a.GetOwnerUid(), Status: a.GetStatus()}, nil
}

// UsersByEmail implements inbox.Directory.
func (d *Directory) UsersByEmail(ctx context.Context, address string) ([]string, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	resp, err := d.identity.FindUsersByEmail(ctx, &identityv1.FindUsersByEmailRequest{Emails: []string{address}})
	if err != nil {
		return nil, &inbox.UnavailableError{What: "identity", Err: err}
	}
	var uids []string
	for _, u := range resp.GetUsers() {
		// Only exact (case-insensitive) matches: never trust a looser search.
		if u.GetUid() != "" && strings.EqualFold(strings.TrimSpace(u.GetEmail()), address) {
			uids = append(uids, u.GetUid())
		}
	}
	return uids, nil
}

// CanUse implements inbox.Directory.
func (d *Directory) CanUse(ctx context.Context, agentID, uid string) (bool, error) {
	ctx, cancel := context.WithTimeout(ctx, d.timeout)
	defer cancel()
	resp, err := d.catalog.CheckAccess(ctx, &catalogv1.CheckAccessRequest{AgentId: agentID, Uid: uid})
	if err != nil {
		return false, &inbox.UnavailableError{What: "catalog", Err: err}
	}
	return resp.GetAllowed(), nil
}

// Conversations is inbox.Answerer over ConversationsService.Answer.
type Conversations struct {
	client conversationsv1.ConversationsServiceClient
}

// NewConversations returns the Answerer on conn.
func NewConversations(conn grpc.ClientConnInterface) *Conversations {
	return &Conversations{client: conversationsv1.NewConversationsServiceClient(conn)}
}

// ChannelEmail is the conversation channel of e-mail.
const ChannelEmail = "email"

// Answer implements inbox.Answerer, mapping the service's documented errors:
// FAILED_PRECONDITION "insufficient_funds" → ErrInsufficientFunds,
// FAILED_PRECONDITION "agent_unavailable" → ErrAgentUnavailable,
// UNAVAILABLE "model_unavailable" → ErrModelUnavailable, NOT_FOUND →
// ErrNoAccess, INVALID_ARGUMENT and other FAILED_PRECONDITIONs →
// ErrRejected. Everything else (UNAVAILABLE, RESOURCE_EXHAUSTED, deadline,
// internal) is returned as a temporary error.
func (c *Conversations) Answer(ctx context.Context, req inbox.AnswerRequest) (inbox.Answer, error) {
	resp, err := c.client.Answer(ctx, &conversationsv1.AnswerRequest{
		AgentId: req.AgentID, UserUid: req.UserUID, Channel: ChannelEmail, ThreadKey: req.ThreadKey,
		Title: req.Title, Content: req.Content, IdempotencyKey: req.IdempotencyKey,
	})
	if err != nil {
		st := status.Convert(err)
		msg := strings.TrimSpace(st.Message())
		switch {
		case st.Code() == codes.FailedPrecondition && msg == "insufficient_funds":
			if fee := agentFeeDue(st); fee != nil {
				return inbox.Answer{}, fmt.Errorf("%w: %v", fee, err)
			}
			return inbox.Answer{}, fmt.Errorf("%w: %v", inbox.ErrInsufficientFunds, err)
		case st.Code() == codes.FailedPrecondition && msg == "agent_unavailable":
			return inbox.Answer{}, fmt.Errorf("%w: %v", inbox.ErrAgentUnavailable, err)
		case st.Code() == codes.Unavailable && msg == "model_unavailable":
			return inbox.Answer{}, fmt.Errorf("%w: %v", inbox.ErrModelUnavailable, err)
		case st.Code() == codes.NotFound:
			return inbox.Answer{}, fmt.Errorf("%w: %v", inbox.ErrNoAccess, err)
		case st.Code() == codes.InvalidArgument || st.Code() == codes.FailedPrecondition:
			return inbox.Answer{}, fmt.Errorf("%w: %v", inbox.ErrRejected, err)
		}
		return inbox.Answer{}, fmt.Errorf("conversations Answer: %w", err)
	}
	a := inbox.Answer{ConversationID: resp.GetConversationId(), MessageID: resp.GetMessageId(),
		Markdown: resp.GetContent(), TotalMicros: resp.GetTotalMicros(), Replayed: resp.GetReplayed()}
	for _, ct := range resp.GetCitations() {
		a.Citations = append(a.Citations, compose.Citation{Name: ct.GetDocumentName(), URL: ct.GetUrl()})
	}
	return a, nil
}

// agentFeeDue reads the ErrorInfo (reason "agent_fee_due") an
// insufficient_funds refusal carries when the agent's monthly fee is due
// with the answer: the fee and what is missing. nil without it.
func agentFeeDue(st *status.Status) *inbox.AgentFeeDueError {
	for _, d := range st.Details() {
		info, ok := d.(*errdetails.ErrorInfo)
		if !ok || info.GetReason() != "agent_fee_due" {
			continue
		}
		fee, err1 := strconv.ParseInt(info.GetMetadata()["fee_micros"], 10, 64)
		missing, err2 := strconv.ParseInt(info.GetMetadata()["missing_micros"], 10, 64)
		if err1 != nil || err2 != nil || fee <= 0 || missing < 0 {
			return nil
		}
		return &inbox.AgentFeeDueError{FeeMicros: fee, MissingMicros: missing}
	}
	return nil
}

// Users is notify.Users over identity GetUser.
type Users struct {
	identity identityv1.IdentityServiceClient
	timeout  time.Duration
}

// NewUsers returns a Users on the identity connection; timeout bounds each
// call (default 5s).
func NewUsers(identity grpc.ClientConnInterface, timeout time.Duration) *Users {
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	return &Users{identity: identityv1.NewIdentityServiceClient(identity), timeout: timeout}
}

// User implements notify.Users: NOT_FOUND (or an invalid uid) is
// notify.ErrUnknownUser, anything else a temporary error.
func (u *Users) User(ctx context.Context, uid string) (notify.User, error) {
	ctx, cancel := context.WithTimeout(ctx, u.timeout)
	defer cancel()
	resp, err := u.identity.GetUser(ctx, &identityv1.GetUserRequest{Uid: uid})
	switch status.Code(err) {
	case codes.OK:
	case codes.NotFound, codes.InvalidArgument:
		return notify.User{}, fmt.Errorf("%w: %s", notify.ErrUnknownUser, uid)
	default:
		return notify.User{}, &inbox.UnavailableError{What: "identity", Err: err}
	}
	usr := resp.GetUser()
	name := strings.TrimSpace(usr.GetDisplayName())
	if name == "" {
		name = strings.TrimSpace(usr.GetName())
	}
	return notify.User{Email: usr.GetEmail(), Name: name}, nil
}
