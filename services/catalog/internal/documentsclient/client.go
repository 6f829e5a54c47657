// Package documentsclient is the catalog's client of the documents
// service's gRPC API: it implements agents.Documents with
// KnowledgeService.CountDocuments (publishing needs a readable document;
// the marketplace profile shows how many there are).
package documentsclient

import (
	"context"
	"fmt"

	"google.golang.org/grpc"

	documentsv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/documents/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Client counts agents' documents in the documents service.
type Client struct {
	conn   *grpc.ClientConn
	client documentsv1.KnowledgeServiceClient
}

// New returns a client for addr (host:port, mutual TLS with sec; plaintext
// when sec is nil). It connects lazily: an unreachable documents service
// only fails the calls.
func New(addr string, sec *server.GRPCSecurity) (*Client, error) {
	conn, err := server.DialGRPC(addr, sec)
	if err != nil {
		return nil, fmt.Errorf("documents client %s: %w", addr, err)
	}
	return &Client{conn: conn, client: documentsv1.NewKnowledgeServiceClient(conn)}, nil
}

// CountDocuments implements agents.Documents. Any failure of the call is
// returned as an error (the caller bounds it with its context).
func (c *Client) CountDocuments(ctx context.Context, agentID string) (agents.DocumentCounts, error) {
	resp, err := c.client.CountDocuments(ctx, &documentsv1.CountDocumentsRequest{AgentId: agentID})
	if err != nil {
		return agents.DocumentCounts{}, fmt.Errorf("documents CountDocuments: %w", err)
	}
	return agents.DocumentCounts{Total: resp.GetTotal(), Ready: resp.GetReady()}, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }
