package clients

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	"github.com/agentic-app/agentic/services/conversations/internal/conversations"
	"github.com/agentic-app/agentic/services/conversations/internal/prompt"
)

// DefaultKnowledgeTimeout bounds one knowledge call.
const DefaultKnowledgeTimeout = 3 * time.Second

// Knowledge is conversations.Knowledge over the documents service's
// KnowledgeService.
type Knowledge struct {
	client  documentsv1.KnowledgeServiceClient
	timeout time.Duration
}

var _ conversations.Knowledge = (*Knowledge)(nil)

// NewKnowledge returns a client over conn (which the caller closes).
func NewKnowledge(conn grpc.ClientConnInterface, timeout time.Duration) *Knowledge {
	if timeout <= 0 {
		timeout = DefaultKnowledgeTimeout
	}
	return &Knowledge{client: documentsv1.NewKnowledgeServiceClient(conn), timeout: timeout}
}

func knowledgeError(op string, err error) error {
	if status.Code(err) == codes.Unimplemented {
		return fmt.Errorf("knowledge %s: %w: %v", op, conversations.ErrKnowledgeNotServed, err)
	}
	return fmt.Errorf("knowledge %s: %w", op, err)
}

func passages(ps []*documentsv1.Passage) []prompt.Passage {
	out := make([]prompt.Passage, 0, len(ps))
	for _, p := range ps {
		out = append(out, prompt.Passage{
			DocumentID: p.GetDocumentId(), DocumentName: p.GetDocumentName(), URL: p.GetUrl(),
			Labels: p.GetLabels(), Text: p.GetText(), Score: p.GetScore(),
		})
	}
	return out
}

func clamp32(n int) int32 {
	if n > 1<<31-1 {
		return 1<<31 - 1
	}
	if n < 0 {
		return 0
	}
	return int32(n)
}

// Search implements conversations.Knowledge.
func (k *Knowledge) Search(ctx context.Context, q conversations.SearchQuery) ([]prompt.Passage, error) {
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	resp, err := k.client.Search(ctx, &documentsv1.SearchRequest{
		AgentId: q.AgentID, Query: q.Query, Limit: clamp32(q.Limit), TokenBudget: clamp32(q.TokenBudget),
		DocumentIds: q.DocumentIDs, Labels: q.Labels, EarlierMessages: q.Earlier, RelevantOnly: q.RelevantOnly,
	})
	if err != nil {
		return nil, knowledgeError("Search", err)
	}
	return passages(resp.GetPassages()), nil
}

// GetPassages implements conversations.Knowledge.
func (k *Knowledge) GetPassages(ctx context.Context, agentID string, documentIDs []string, tokenBudget int) ([]prompt.Passage, error) {
	ctx, cancel := context.WithTimeout(ctx, k.timeout)
	defer cancel()
	resp, err := k.client.GetPassages(ctx, &documentsv1.GetPassagesRequest{
		AgentId: agentID, DocumentIds: documentIDs, TokenBudget: clamp32(tokenBudget),
	})
	if err != nil {
		return nil, knowledgeError("GetPassages", err)
	}
	return passages(resp.GetPassages()), nil
}
