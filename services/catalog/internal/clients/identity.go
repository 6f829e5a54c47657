// Package clients holds the catalog's clients of other services' gRPC APIs
// (one file per service, as in every service: package clients).
package clients

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/grpc"

	identityv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/identity/v1"
	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/platform/server"
)

// Identity looks users up in the identity service: agents.Directory with
// IdentityService.FindUsersByEmail.
type Identity struct {
	conn   *grpc.ClientConn
	client identityv1.IdentityServiceClient
}

// NewIdentity returns a client for addr (host:port, mutual TLS with sec; plaintext
// when sec is nil). It connects lazily: an unreachable identity service only
// fails the calls.
func NewIdentity(addr string, sec *server.GRPCSecurity) (*Identity, error) {
	conn, err := server.DialGRPC(addr, sec)
	if err != nil {
		return nil, fmt.Errorf("identity client %s: %w", addr, err)
	}
	return &Identity{conn: conn, client: identityv1.NewIdentityServiceClient(conn)}, nil
}

// FindByEmail implements agents.Directory.
func (c *Identity) FindByEmail(ctx context.Context, email string) (*agents.User, error) {
	resp, err := c.client.FindUsersByEmail(ctx, &identityv1.FindUsersByEmailRequest{Emails: []string{email}})
	if err != nil {
		return nil, err
	}
	for _, u := range resp.GetUsers() {
		if strings.EqualFold(u.GetEmail(), email) && u.GetUid() != "" {
			user := agents.UserFromProfile(u.GetUid(), u.GetEmail(), u.GetDisplayName(), u.GetUsername())
			return &user, nil
		}
	}
	return nil, nil
}

// Close closes the connection.
func (c *Identity) Close() error { return c.conn.Close() }
