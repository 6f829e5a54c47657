package transport

import (
	"context"
	"errors"

	grpctransport "github.com/go-kit/kit/transport/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	"github.com/agentic-app/agentic/services/documents/internal/endpoints"
	"github.com/agentic-app/agentic/services/documents/internal/knowledge"
)

type knowledgeServer struct {
	documentsv1.UnimplementedKnowledgeServiceServer
	search         grpctransport.Handler
	getPassages    grpctransport.Handler
	countDocuments grpctransport.Handler
}

// NewKnowledgeServer implements documentsv1.KnowledgeServiceServer on top of
// the endpoints.
func NewKnowledgeServer(set endpoints.Set) documentsv1.KnowledgeServiceServer {
	encode := func(_ context.Context, resp any) (any, error) {
		return passagesToProto(resp.(endpoints.PassagesResponse).Passages), nil
	}
	return &knowledgeServer{
		search: grpctransport.NewServer(set.Search,
			func(_ context.Context, req any) (any, error) {
				r := req.(*documentsv1.SearchRequest)
				return endpoints.SearchRequest{Query: knowledge.Query{
					AgentID: r.GetAgentId(), Text: r.GetQuery(), Limit: int(r.GetLimit()), TokenBudget: int(r.GetTokenBudget()),
					DocumentIDs: r.GetDocumentIds(), Labels: r.GetLabels(), Earlier: r.GetEarlierMessages(),
					RelevantOnly: r.GetRelevantOnly(),
				}}, nil
			}, encode),
		getPassages: grpctransport.NewServer(set.GetPassages,
			func(_ context.Context, req any) (any, error) {
				r := req.(*documentsv1.GetPassagesRequest)
				return endpoints.GetPassagesRequest{AgentID: r.GetAgentId(), DocumentIDs: r.GetDocumentIds(),
					TokenBudget: int(r.GetTokenBudget())}, nil
			}, encode),
		countDocuments: grpctransport.NewServer(set.CountDocuments,
			func(_ context.Context, req any) (any, error) {
				return endpoints.CountDocumentsRequest{AgentID: req.(*documentsv1.CountDocumentsRequest).GetAgentId()}, nil
			},
			func(_ context.Context, resp any) (any, error) {
				c := resp.(endpoints.CountsResponse).Counts
				return &documentsv1.CountDocumentsResponse{Total: c.Total, Ready: c.Ready}, nil
			}),
	}
}

func passagesToProto(ps []knowledge.Passage) []*documentsv1.Passage {
	out := make([]*documentsv1.Passage, len(ps))
	for i, p := range ps {
		out[i] = &documentsv1.Passage{
			DocumentId: p.DocumentID, DocumentName: p.DocumentName, Labels: p.Labels, Text: p.Text, Score: p.Score,
			Start: int32(p.Start), End: int32(p.End), Url: p.URL, TokenCount: int32(p.Tokens), ChunkId: p.ChunkID,
			HeadingPath: p.HeadingPath, Relevance: p.Relevance,
		}
	}
	return out
}

func (s *knowledgeServer) Search(ctx context.Context, req *documentsv1.SearchRequest) (*documentsv1.SearchResponse, error) {
	if req.GetAgentId() == "" {
		return nil, status.Error(codes.InvalidArgument, "agent_id is required")
	}
	if req.GetLimit() < 0 || req.GetTokenBudget() < 0 {
		return nil, status.Error(codes.InvalidArgument, "limit and token_budget must not be negative")
	}
	_, resp, err := s.search.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return &documentsv1.SearchResponse{Passages: resp.([]*documentsv1.Passage)}, nil
}

func (s *knowledgeServer) GetPassages(ctx context.Context, req *documentsv1.GetPassagesRequest) (*documentsv1.GetPassagesResponse, error) {
	if req.GetAgentId() == "" {
		return nil, status.Error(codes.InvalidArgument, "agent_id is required")
	}
	if req.GetTokenBudget() < 0 {
		return nil, status.Error(codes.InvalidArgument, "token_budget must not be negative")
	}
	_, resp, err := s.getPassages.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return &documentsv1.GetPassagesResponse{Passages: resp.([]*documentsv1.Passage)}, nil
}

// CountDocuments counts the agent's linked documents and the readable ones
// (INVALID_ARGUMENT for an empty agent_id; an unknown agent has none).
func (s *knowledgeServer) CountDocuments(ctx context.Context, req *documentsv1.CountDocumentsRequest) (*documentsv1.CountDocumentsResponse, error) {
	if req.GetAgentId() == "" {
		return nil, status.Error(codes.InvalidArgument, "agent_id is required")
	}
	_, resp, err := s.countDocuments.ServeGRPC(ctx, req)
	if err != nil {
		return nil, grpcError(err)
	}
	return resp.(*documentsv1.CountDocumentsResponse), nil
}

func grpcError(err error) error {
	switch {
	case errors.Is(err, knowledge.ErrNoAgent):
		return status.Error(codes.InvalidArgument, "agent_id is required")
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "canceled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "deadline exceeded")
	default:
		return status.Error(codes.Internal, "internal server error")
	}
}
