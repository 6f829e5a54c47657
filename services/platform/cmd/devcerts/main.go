// Command devcerts makes the development CA and the certificates of the
// internal gRPC mutual TLS (one per service, plus "devtools" for the bench
// programs and the end-to-end suite) in a git-ignored directory. Tilt runs it
// before the services (resource grpc-certs); it is idempotent and only
// (re)issues what is missing or about to expire.
//
//	go run ./services/platform/cmd/devcerts -dir .data/certs
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/agentic-app/agentic/services/platform/devcerts"
)

// Names: the services and the development-only client identity.
const defaultNames = "identity,catalog,documents,wallet,analytics,conversations,mail,devtools"

func main() {
	dir := flag.String("dir", ".data/certs", "directory for ca.crt/ca.key and <name>.crt/<name>.key")
	names := flag.String("names", defaultNames, "comma-separated identities (spiffe://agentic/<name>)")
	hosts := flag.String("hosts", "host.docker.internal", "extra comma-separated DNS names / IP addresses in every certificate")
	flag.Parse()

	var list, extra []string
	for _, n := range strings.Split(*names, ",") {
		if n = strings.TrimSpace(n); n != "" {
			list = append(list, n)
		}
	}
	for _, h := range strings.Split(*hosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			extra = append(extra, h)
		}
	}
	issued, err := devcerts.Ensure(*dir, list, extra...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "devcerts:", err)
		os.Exit(1)
	}
	if len(issued) == 0 {
		fmt.Printf("devcerts: %s: all %d certificates current\n", *dir, len(list))
		return
	}
	fmt.Printf("devcerts: %s: issued %s\n", *dir, strings.Join(issued, ", "))
}
