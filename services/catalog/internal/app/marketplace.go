package app

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"

	"github.com/agentic-app/agentic/services/catalog/internal/agents"
	"github.com/agentic-app/agentic/services/catalog/internal/transport"
	"github.com/agentic-app/agentic/services/platform/ratelimit"
)

// DefaultMarketplaceRate caps the public marketplace routes per client
// address (RATE_LIMIT_MARKETPLACE; issue 27): two requests a second on
// average, far above a person browsing (a page of the list, a profile, the
// categories), it stops one address scraping the catalog.
const DefaultMarketplaceRate = "120/1m"

// MarketplaceClass names the marketplace quota in Redis keys and metrics.
const MarketplaceClass = "marketplace"

// MaxTrustedProxyHops bounds TRUSTED_PROXY_HOPS.
const MaxTrustedProxyHops = 5

// marketplaceRule is the per-address quota of the public marketplace
// routes. It fails open like the other hot reads: while Redis is
// unreachable the lists are served (and the failure counted).
func marketplaceRule(rate string) (ratelimit.Rule, error) {
	return ratelimit.RuleOf("RATE_LIMIT_MARKETPLACE", rate, DefaultMarketplaceRate, MarketplaceClass, ratelimit.FailOpen)
}

func checkMarketplaceConfig(c Config) error {
	if _, err := marketplaceRule(c.MarketplaceRate); err != nil {
		return err
	}
	if c.TrustedProxyHops < 0 || c.TrustedProxyHops > MaxTrustedProxyHops {
		return fmt.Errorf("TRUSTED_PROXY_HOPS: %d, want 0 to %d", c.TrustedProxyHops, MaxTrustedProxyHops)
	}
	if c.EstimateInputPrice < 0 || c.EstimateOutputPrice < 0 {
		return fmt.Errorf("MARKETPLACE_ESTIMATE_INPUT_PRICE / _OUTPUT_PRICE must not be negative")
	}
	return nil
}

// answerEstimate is the typical answer's estimate of the configuration (0:
// the default model's prices).
func answerEstimate(c Config) agents.AnswerEstimate {
	in, out := c.EstimateInputPrice, c.EstimateOutputPrice
	if in == 0 && out == 0 {
		in, out = agents.DefaultEstimateInputPrice, agents.DefaultEstimateOutputPrice
	}
	return agents.NewAnswerEstimate(in, out)
}

// marketplaceRates maps the routes marketplaceGate guards to the variable
// of their rate (openapi.CheckRates).
func marketplaceRates() map[string]string {
	out := map[string]string{}
	for _, p := range []string{transport.PathMarketplaceAgents, transport.PathMarketplaceAgent, transport.PathMarketplaceCategories, transport.PathReviews} {
		out[http.MethodGet+" "+p] = "RATE_LIMIT_MARKETPLACE"
	}
	return out
}

// marketplaceGate counts each public marketplace request against its client
// address ("ip:<addr>", ClientAddress); over the limit it answers 429
// rate_limited with Retry-After, and serves the request while Redis is
// unreachable (fail open).
func marketplaceGate(l *ratelimit.Limiter, rule ratelimit.Rule, hops int) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if rule.Disabled() {
			return next
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !l.Check(w, r, rule, "ip:"+ClientAddress(r, hops)) {
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// ClientAddress is the address a request came from, as the gateway saw it.
// What is trusted: the gateway in front of the service sets
// X-Forwarded-For — the local gateway replaces it with the client's address
// (httputil.ProxyRequest.SetXForwarded drops what the client sent), Envoy
// (use_remote_address) appends the address of its own peer — so its last
// entry is the gateway's peer; hops more entries from the right are skipped
// for the proxies in front of Envoy that append theirs (an Ingress
// controller: TRUSTED_PROXY_HOPS=1, the chart sets it from
// envoy.xffNumTrustedHops). Entries further left were sent by the client and
// are never used. Without the header (a direct call) it is the connection's
// peer (RemoteAddr). An IPv6 address counts as its /64, the block one
// subscriber usually holds, so that rotating addresses within it does not
// multiply the quota.
func ClientAddress(r *http.Request, hops int) string {
	var list []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				list = append(list, p)
			}
		}
	}
	if len(list) > 0 {
		i := max(len(list)-1-hops, 0)
		if a, ok := parseAddr(list[i]); ok {
			return a
		}
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if a, ok := parseAddr(host); ok {
		return a
	}
	return host
}

// parseAddr normalises an address ("1.2.3.4", "[::1]:80", "1.2.3.4:5")
// to its text form, an IPv6 one to its /64 prefix.
func parseAddr(s string) (string, bool) {
	if ap, err := netip.ParseAddrPort(s); err == nil {
		s = ap.Addr().String()
	}
	a, err := netip.ParseAddr(strings.Trim(s, "[]"))
	if err != nil {
		return "", false
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.String(), true
	}
	return a.String(), true
}
