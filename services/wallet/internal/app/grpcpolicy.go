package app

import (
	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/platform/server"
)

// DevToolsCaller is the development-only client identity of the bench
// programs and the end-to-end suite (tilt: .data/certs/devtools.crt).
const DevToolsCaller = "devtools"

// GRPCPolicy lists who may call each WalletService method (docs/reliability.md,
// "Internal gRPC: mutual TLS and per-method authorization"). Money moves
// only for conversations, which reserves, captures, releases and (for late
// usage) charges the cost of answers. No service may Credit: money enters
// only through the wallet's own paths (Stripe webhooks, reconciliation,
// refunds), never over gRPC. Identity reads a balance (GetBalance) before
// deleting an account, refused while the wallet holds money. In development the devtools identity may call
// everything, to fund bench and end-to-end users.
func GRPCPolicy(development bool) server.GRPCPolicy {
	p := server.GRPCPolicy{
		walletv1.WalletService_Reserve_FullMethodName:    {"conversations"},
		walletv1.WalletService_Capture_FullMethodName:    {"conversations"},
		walletv1.WalletService_Release_FullMethodName:    {"conversations"},
		walletv1.WalletService_Charge_FullMethodName:     {"conversations"},
		walletv1.WalletService_GetBalance_FullMethodName: {"identity"},
		walletv1.WalletService_Credit_FullMethodName:     {},
	}
	if development {
		for m := range p {
			p[m] = append(p[m], DevToolsCaller)
		}
	}
	return p
}
