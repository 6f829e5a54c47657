package clients

import (
	"context"
	"fmt"

	"google.golang.org/grpc"

	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Documents counts agents' documents in the documents service.
type Documents struct {
	conn   *grpc.ClientConn
	client documentsv1.KnowledgeServiceClient
}

// NewDocuments returns a client for addr (host:port, mutual TLS with sec; plaintext
// when sec is nil). It connects lazily: an unreachable documents service
// only fails the calls.
func NewDocuments(addr string, sec *server.GRPCSecurity) (*Documents, error) {
	conn, err := server.DialGRPC(addr, sec)
	if err != nil {
		return nil, fmt.Errorf("documents client %s: %w", addr, err)
	}
	return &Documents{conn: conn, client: documentsv1.NewKnowledgeServiceClient(conn)}, nil
}

// CountDocuments implements agents.Documents. Any failure of the call is
// returned as an error (the caller bounds it with its context).
func (c *Documents) CountDocuments(ctx context.Context, agentID string) (agents.DocumentCounts, error) {
	resp, err := c.client.CountDocuments(ctx, &documentsv1.CountDocumentsRequest{AgentId: agentID})
	if err != nil {
		return agents.DocumentCounts{}, fmt.Errorf("documents CountDocuments: %w", err)
	}
	return agents.DocumentCounts{Total: resp.GetTotal(), Ready: resp.GetReady()}, nil
}

// Close closes the connection.
func (c *Documents) Close() error { return c.conn.Close() }
