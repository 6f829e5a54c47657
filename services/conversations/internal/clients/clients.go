// Package clients holds the conversations service's gRPC clients of the
// other services, each implementing a port of the domain:
//
//   - Catalog: CatalogService.CheckAccess as conversations.AccessChecker,
//     positive answers cached, kept in step with AccessChangesSince (Run);
//   - Wallet: WalletService Reserve/Capture/Release/Charge as metering.Wallet,
//     gRPC codes mapped to the meter's errors;
//   - Knowledge: KnowledgeService Search/GetPassages as conversations.Knowledge.
//
// Connections are plaintext inside the cluster, lazy (an unreachable peer
// only fails the calls) and traced (otelgrpc).
package clients
