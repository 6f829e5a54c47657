// Package clients holds the conversations service's gRPC clients of the
// other services, each implementing a port of the domain:
//
//   - Catalog: CatalogService.CheckAccess as conversations.AccessChecker,
//     positive answers cached briefly;
//   - Wallet: WalletService Reserve/Capture/Release/Charge as metering.Wallet,
//     gRPC codes mapped to the meter's errors;
//   - Knowledge: KnowledgeService Search/GetPassages as conversations.Knowledge.
//
// Connections are plaintext inside the cluster, lazy (an unreachable peer
// only fails the calls) and traced (otelgrpc).
package clients

import (
	"fmt"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Dial returns a lazy client connection to addr (host:port).
func Dial(addr string) (*grpc.ClientConn, error) {
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithStatsHandler(otelgrpc.NewClientHandler()))
	if err != nil {
		return nil, fmt.Errorf("grpc client %s: %w", addr, err)
	}
	return conn, nil
}
