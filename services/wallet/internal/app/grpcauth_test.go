package app

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	walletv1 "github.com/agentic-app/agentic/proto/gen/go/agentic/wallet/v1"
	"github.com/agentic-app/agentic/services/platform/devcerts"
	"github.com/agentic-app/agentic/services/platform/server"
)

// The wallet with mutual TLS and its production policy: conversations may
// move money for answers, no service may Credit, and a call without a
// client certificate never reaches a method.
func TestGRPCMutualTLSAndPolicy(t *testing.T) {
	dir := t.TempDir()
	if _, err := devcerts.Ensure(dir, []string{"wallet", "conversations", "mail", DevToolsCaller}); err != nil {
		t.Fatal(err)
	}
	own := devcerts.Paths(dir, "wallet")
	app := start(t, redisURL(), func(c *Config) {
		c.GRPCTLS = server.GRPCTLS{CAFile: own.CA, CertFile: own.Cert, KeyFile: own.Key} // production: Development false
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := func(name string) walletv1.WalletServiceClient {
		f := devcerts.Paths(dir, name)
		sec, err := server.NewGRPCSecurity(server.GRPCTLS{CAFile: f.CA, CertFile: f.Cert, KeyFile: f.Key}, name, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := server.DialGRPC(app.grpc, sec)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { conn.Close() })
		return walletv1.NewWalletServiceClient(conn)
	}
	uid := uniq("tls")

	// No credentials at all: refused, nothing credited.
	plain, err := grpc.NewClient(app.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := walletv1.NewWalletServiceClient(plain).Credit(ctx, &walletv1.CreditRequest{
		Uid: uid, AmountMicros: 1_000_000, IdempotencyKey: "plain-1"}); err == nil {
		t.Fatal("Credit without credentials succeeded")
	}

	// mail, conversations and (outside development) devtools may not Credit.
	for _, name := range []string{"mail", "conversations", DevToolsCaller} {
		_, err := client(name).Credit(ctx, &walletv1.CreditRequest{Uid: uid, AmountMicros: 1_000_000, IdempotencyKey: "credit-" + name})
		if status.Code(err) != codes.PermissionDenied {
			t.Fatalf("Credit as %s: %v, want PermissionDenied", name, err)
		}
	}
	// mail may not Reserve either.
	if _, err := client("mail").Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 1, IdempotencyKey: "r-mail", TtlSeconds: 60}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("Reserve as mail: %v, want PermissionDenied", err)
	}

	// conversations may Reserve: the call reaches the wallet, which refuses
	// it for the (empty) balance, not for the caller.
	_, err = client("conversations").Reserve(ctx, &walletv1.ReserveRequest{Uid: uid, AmountMicros: 1, IdempotencyKey: "r-conv", TtlSeconds: 60})
	if status.Code(err) != codes.FailedPrecondition {
		t.Fatalf("Reserve as conversations: %v, want FailedPrecondition (insufficient funds)", err)
	}
	if b := balance(t, app, uid); b != 0 {
		t.Fatalf("balance %v after refused credits", b)
	}
}

func TestGRPCPolicyDevelopmentAdmitsDevTools(t *testing.T) {
	prod, dev := GRPCPolicy(false), GRPCPolicy(true)
	credit := walletv1.WalletService_Credit_FullMethodName
	if prod.Allows(credit, DevToolsCaller) || prod.Allows(credit, "conversations") || prod.Allows(credit, "wallet") {
		t.Fatalf("production Credit callers: %v", prod[credit])
	}
	if !dev.Allows(credit, DevToolsCaller) || dev.Allows(credit, "mail") {
		t.Fatalf("development Credit callers: %v", dev[credit])
	}
	for _, m := range []string{walletv1.WalletService_Reserve_FullMethodName, walletv1.WalletService_Capture_FullMethodName,
		walletv1.WalletService_Release_FullMethodName, walletv1.WalletService_Charge_FullMethodName} {
		if !prod.Allows(m, "conversations") || prod.Allows(m, "mail") || prod.Allows(m, "documents") {
			t.Fatalf("%s callers: %v", m, prod[m])
		}
	}
	// Every WalletService method is listed (a new one must be added on purpose).
	for _, m := range walletv1.WalletService_ServiceDesc.Methods {
		if _, ok := prod["/"+walletv1.WalletService_ServiceDesc.ServiceName+"/"+m.MethodName]; !ok {
			t.Errorf("policy does not list %s", m.MethodName)
		}
	}
}
