package tests

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	headermutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/header_mutation/v3"
	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/agentic-app/agentic/gateway"
	"github.com/agentic-app/agentic/gateway/routes"

	// Extensions referenced by typed_config / typed_per_filter_config: they
	// register their types so the Any values resolve.
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/file/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/stream/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/health_check/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	_ "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
)

const (
	jwtFilter       = "envoy.filters.http.jwt_authn"
	rateLimitFilter = "envoy.filters.http.local_ratelimit"
)

// specPaths are the /api paths of the product spec and the service that owns each.
var specPaths = []struct{ path, owner string }{
	{"/api/user/onboarding", "identity"},
	{"/api/user/public-agent-interest", "identity"},
	{"/api/dashboard/stats", "analytics"},
	{"/api/activities", "analytics"},
	{"/api/agents", "catalog"},
	{"/api/agents/x", "catalog"},
	{"/api/agents/x/subscribers", "catalog"},
	{"/api/agents/x/subscribers/y", "catalog"},
	{"/api/agents/x/documents", "documents"},
	{"/api/agents/x/documents/y", "documents"},
	{"/api/user/balance", "wallet"},
	{"/api/user/transactions", "wallet"},
	{"/api/stripe/create-checkout-session", "wallet"},
	{"/api/stripe/webhook", "wallet"},
	{"/api/agents/x/documents/y/sync", "documents"},
	{"/api/agents/x/knowledge/search", "documents"},
	{"/api/agents/shared", "catalog"},
	{"/api/agents/x/conversations", "conversations"},
	{"/api/agents/x/chat-info", "conversations"},
	{"/api/conversations/c", "conversations"},
	{"/api/conversations/c/messages", "conversations"},
	{"/api/user/billing-settings", "wallet"},
	{"/api/user/transactions.csv", "wallet"},
	{"/api/user/agent-fees", "wallet"},
	{"/api/stripe/setup-session", "wallet"},
	{"/api/usage", "analytics"},
	{"/api/agents/x/api-keys", "conversations"},
	{"/api/agents/x/api-keys/k", "conversations"},
	{"/api/v1/chat/completions", "conversations"},
	{"/api/v1/models", "conversations"},
	{"/api/v1/models/agentic/x", "conversations"},
	{"/api/v1/responses", "conversations"},
	{"/api/v1/responses/resp_x", "conversations"},
	{"/api/v1/anything-else", "conversations"},
	// The public marketplace (issue 27) and its writes.
	{"/api/marketplace/agents", "catalog"},
	{"/api/marketplace/agents/math-tutor", "catalog"},
	{"/api/marketplace/categories", "catalog"},
	{"/api/marketplace/agents/math-tutor/reviews", "catalog"},
}

// publicMarketplace matches the marketplace's public paths (discovery and
// the reviews list); its writes need a token.
var publicMarketplace = regexp.MustCompile(`^/api/marketplace/(categories|agents(/[^/]+(/reviews)?)?)$`)

// Streamed answers have no response timeout at the edge (an idle timeout
// still cuts a stalled stream); every other route keeps the bounded timeout.
func TestStreamRoutesHaveNoResponseTimeout(t *testing.T) {
	rs := mainRoutes(t, loadEnvoy(t, allServices))
	stream := matchRoute(t, rs, "/api/conversations/c/messages")
	if stream == nil || stream.GetRoute().GetTimeout().AsDuration() != 0 || stream.GetRoute().GetIdleTimeout().AsDuration() <= 0 {
		t.Fatalf("message route: timeout %v idle %v, want 0 and a positive idle timeout",
			stream.GetRoute().GetTimeout(), stream.GetRoute().GetIdleTimeout())
	}
	other := matchRoute(t, rs, "/api/conversations/c")
	if other == nil || other.GetRoute().GetTimeout().AsDuration() <= 0 {
		t.Fatalf("conversation route: timeout %v, want a bounded one", other.GetRoute().GetTimeout())
	}
}

// envoyConfig is the rendered bootstrap of a profile plus its pieces.
type envoyConfig struct {
	bootstrap *bootstrapv3.Bootstrap
	hcms      map[string]*hcmv3.HttpConnectionManager // by listener name
}

func loadEnvoy(t *testing.T, p profile) *envoyConfig {
	t.Helper()
	o, ok := find(render(t, p), "ConfigMap", release+"-envoy")
	if !ok {
		t.Fatalf("%s: no ConfigMap %s-envoy", p.name, release)
	}
	var cm corev1.ConfigMap
	if err := decodeStrict(o.YAML, &cm); err != nil {
		t.Fatal(err)
	}
	js, err := yaml.YAMLToJSONStrict([]byte(cm.Data["envoy.yaml"]))
	if err != nil {
		t.Fatalf("%s: envoy.yaml: %v", p.name, err)
	}
	var b bootstrapv3.Bootstrap
	if err := (protojson.UnmarshalOptions{}).Unmarshal(js, &b); err != nil {
		t.Fatalf("%s: envoy.yaml is not a valid Bootstrap: %v", p.name, err)
	}
	ec := &envoyConfig{bootstrap: &b, hcms: map[string]*hcmv3.HttpConnectionManager{}}
	for _, l := range b.GetStaticResources().GetListeners() {
		for _, fc := range l.GetFilterChains() {
			for _, f := range fc.GetFilters() {
				var h hcmv3.HttpConnectionManager
				if f.GetTypedConfig().MessageIs(&h) {
					if err := f.GetTypedConfig().UnmarshalTo(&h); err != nil {
						t.Fatal(err)
					}
					ec.hcms[l.GetName()] = &h
				}
			}
		}
	}
	if ec.hcms["http"] == nil {
		t.Fatalf("%s: no HTTP connection manager on listener \"http\"", p.name)
	}
	return ec
}

type validator interface{ ValidateAll() error }

// validateTree runs the generated validation on m and on every message below
// it, unpacking each google.protobuf.Any (typed_config, typed_per_filter_config)
// into its registered type and validating that too.
func validateTree(t *testing.T, m protoreflect.Message, where string) {
	t.Helper()
	if a, ok := m.Interface().(*anypb.Any); ok {
		inner, err := a.UnmarshalNew()
		if err != nil {
			t.Errorf("%s: Any %s does not resolve: %v", where, a.GetTypeUrl(), err)
			return
		}
		validateTree(t, inner.ProtoReflect(), where+"<"+string(inner.ProtoReflect().Descriptor().FullName())+">")
		return
	}
	if v, ok := m.Interface().(validator); ok {
		if err := v.ValidateAll(); err != nil {
			t.Errorf("%s: %v", where, err)
		}
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := where + "." + string(fd.Name())
		switch {
		case fd.IsList() && fd.Message() != nil:
			for i := 0; i < v.List().Len(); i++ {
				validateTree(t, v.List().Get(i).Message(), fmt.Sprintf("%s[%d]", name, i))
			}
		case fd.IsMap() && fd.MapValue().Message() != nil:
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				validateTree(t, mv.Message(), fmt.Sprintf("%s[%s]", name, k.String()))
				return true
			})
		case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
			validateTree(t, v.Message(), name)
		}
		return true
	})
}

func TestEnvoyBootstrapValidates(t *testing.T) {
	for _, p := range profiles {
		t.Run(p.name, func(t *testing.T) {
			ec := loadEnvoy(t, p)
			if err := ec.bootstrap.ValidateAll(); err != nil {
				t.Errorf("Bootstrap.ValidateAll: %v", err)
			}
			validateTree(t, ec.bootstrap.ProtoReflect(), "bootstrap")

			adm := ec.bootstrap.GetAdmin().GetAddress().GetSocketAddress()
			if adm.GetAddress() != "127.0.0.1" {
				t.Errorf("admin listens on %q, want 127.0.0.1", adm.GetAddress())
			}
			// Every route names a defined cluster (and so does the JWKS fetch).
			clusters := map[string]bool{}
			for _, c := range ec.bootstrap.GetStaticResources().GetClusters() {
				if clusters[c.GetName()] {
					t.Errorf("cluster %q defined twice", c.GetName())
				}
				clusters[c.GetName()] = true
			}
			for lname, h := range ec.hcms {
				if len(h.GetAccessLog()) == 0 && lname == "http" {
					t.Errorf("listener %s has no access log", lname)
				}
				for _, vh := range h.GetRouteConfig().GetVirtualHosts() {
					for _, r := range vh.GetRoutes() {
						for _, c := range routeClusters(r) {
							if !clusters[c] {
								t.Errorf("listener %s route %q names undefined cluster %q", lname, r.GetName(), c)
							}
						}
					}
				}
			}
			if jwt := jwtConfig(t, ec); jwt != nil {
				for name, prov := range jwt.GetProviders() {
					if c := prov.GetRemoteJwks().GetHttpUri().GetCluster(); !clusters[c] {
						t.Errorf("jwt provider %s fetches JWKS from undefined cluster %q", name, c)
					}
				}
			}
		})
	}
}

func routeClusters(r *routev3.Route) []string {
	a := r.GetRoute()
	if a == nil {
		return nil
	}
	if c := a.GetCluster(); c != "" {
		return []string{c}
	}
	var out []string
	for _, wc := range a.GetWeightedClusters().GetClusters() {
		out = append(out, wc.GetName())
	}
	if len(out) == 0 {
		out = []string{"<none>"}
	}
	return out
}

// matchRoute returns the first route of the virtual host that Envoy would
// select for the path: exact path, prefix, or RE2 full match (safe_regex).
func matchRoute(t *testing.T, routes []*routev3.Route, path string) *routev3.Route {
	t.Helper()
	for _, r := range routes {
		m := r.GetMatch()
		if len(m.GetHeaders()) > 0 || len(m.GetQueryParameters()) > 0 {
			t.Fatalf("route %q matches on headers/query: not modelled", r.GetName())
		}
		var ok bool
		switch ps := m.GetPathSpecifier().(type) {
		case *routev3.RouteMatch_Path:
			ok = path == ps.Path
		case *routev3.RouteMatch_Prefix:
			ok = strings.HasPrefix(path, ps.Prefix)
		case *routev3.RouteMatch_SafeRegex:
			re, err := regexp.Compile(`^(?:` + ps.SafeRegex.GetRegex() + `)$`)
			if err != nil {
				t.Fatalf("route %q: regex: %v", r.GetName(), err)
			}
			ok = re.MatchString(path)
		default:
			t.Fatalf("route %q: path specifier %T not modelled", r.GetName(), ps)
		}
		if ok {
			return r
		}
	}
	return nil
}

func mainRoutes(t *testing.T, ec *envoyConfig) []*routev3.Route {
	t.Helper()
	vhs := ec.hcms["http"].GetRouteConfig().GetVirtualHosts()
	if len(vhs) != 1 {
		t.Fatalf("want one virtual host on the http listener, got %d", len(vhs))
	}
	return vhs[0].GetRoutes()
}

func jwtConfig(t *testing.T, ec *envoyConfig) *jwtv3.JwtAuthentication {
	t.Helper()
	for _, f := range ec.hcms["http"].GetHttpFilters() {
		if f.GetName() == jwtFilter {
			var j jwtv3.JwtAuthentication
			if err := f.GetTypedConfig().UnmarshalTo(&j); err != nil {
				t.Fatal(err)
			}
			return &j
		}
	}
	return nil
}

func perRoute[T proto.Message](t *testing.T, r *routev3.Route, filter string, into T) (T, bool) {
	t.Helper()
	a, ok := r.GetTypedPerFilterConfig()[filter]
	if !ok {
		return into, false
	}
	if err := a.UnmarshalTo(into); err != nil {
		t.Fatalf("route %q %s: %v", r.GetName(), filter, err)
	}
	return into, true
}

// Every /api path of the spec reaches the cluster of its owner, in Envoy and
// in the local gateway alike (with every service enabled).
func TestEveryAPIPathRoutesToItsOwner(t *testing.T) {
	table, err := routes.Parse(gateway.RoutesYAML)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []profile{allServices, allServicesLoc} {
		t.Run(p.name, func(t *testing.T) {
			rs := mainRoutes(t, loadEnvoy(t, p))
			for _, sp := range specPaths {
				r := matchRoute(t, rs, sp.path)
				if r == nil {
					t.Errorf("%s: no Envoy route", sp.path)
					continue
				}
				if got, want := r.GetRoute().GetCluster(), "svc_"+sp.owner; got != want {
					t.Errorf("%s: Envoy routes to %q (route %q), want %q", sp.path, got, r.GetName(), want)
				}
				if lr, ok := table.Lookup(sp.path); !ok || lr.Service != sp.owner {
					t.Errorf("%s: local gateway routes to %q, want %q", sp.path, lr.Service, sp.owner)
				} else if lr.Name != r.GetName() {
					t.Errorf("%s: Envoy picks route %q, the local gateway %q", sp.path, r.GetName(), lr.Name)
				}
			}
			// The SPA gets every other path; unknown /api paths never reach it.
			for _, path := range []string{"/", "/dashboard/agentic-users", "/wallet", "/assets/index.js", "/api"} {
				if r := matchRoute(t, rs, path); r == nil || r.GetRoute().GetCluster() != "web" {
					t.Errorf("%s: not routed to the web app", path)
				}
			}
			for _, path := range []string{"/api/", "/api/unknown", "/api/agents/x/y/z/w"} {
				if r := matchRoute(t, rs, path); r == nil || r.GetDirectResponse().GetStatus() != 404 {
					t.Errorf("%s: want a direct 404", path)
				}
			}
		})
	}
}

// Routes of disabled services are not rendered: their paths get the JSON 404.
func TestDisabledServicesHaveNoRoutes(t *testing.T) {
	ec := loadEnvoy(t, identityOnly)
	rs := mainRoutes(t, ec)
	for _, sp := range specPaths {
		r := matchRoute(t, rs, sp.path)
		if sp.owner == "identity" {
			if r.GetRoute().GetCluster() != "svc_identity" {
				t.Errorf("%s: not routed to identity", sp.path)
			}
			continue
		}
		if r == nil || r.GetDirectResponse().GetStatus() != 404 {
			t.Errorf("%s: %s is disabled, want the direct 404", sp.path, sp.owner)
		}
	}
	for _, c := range ec.bootstrap.GetStaticResources().GetClusters() {
		if strings.HasPrefix(c.GetName(), "svc_") && c.GetName() != "svc_identity" {
			t.Errorf("cluster %s rendered for a disabled service", c.GetName())
		}
	}
}

// Production checks Firebase ID tokens at the edge on every /api route but
// the Stripe webhook; the local profile (Auth emulator) has no jwt_authn.
func TestJWTAuthn(t *testing.T) {
	t.Run("production", func(t *testing.T) {
		ec := loadEnvoy(t, allServices)
		jwt := jwtConfig(t, ec)
		if jwt == nil {
			t.Fatal("production has no jwt_authn filter")
		}
		prov := jwt.GetProviders()["firebase"]
		if prov == nil {
			t.Fatal("no firebase provider")
		}
		if prov.GetIssuer() != "https://securetoken.google.com/agentic-prod" || len(prov.GetAudiences()) != 1 || prov.GetAudiences()[0] != "agentic-prod" {
			t.Errorf("issuer %q audiences %v", prov.GetIssuer(), prov.GetAudiences())
		}
		if u := prov.GetRemoteJwks().GetHttpUri().GetUri(); u != "https://www.googleapis.com/service_accounts/v1/jwks/securetoken@system.gserviceaccount.com" {
			t.Errorf("JWKS uri %q", u)
		}
		if len(jwt.GetRules()) > 0 {
			t.Errorf("requirements are per route; rules would override them")
		}
		// The filter order matters: CORS answers preflights before jwt_authn,
		// the client's x-agentic-uid is removed before jwt_authn sets it
		// (header_mutation), the router comes last.
		var names []string
		for _, f := range ec.hcms["http"].GetHttpFilters() {
			names = append(names, f.GetName())
		}
		if got := strings.Join(names, ","); got != "envoy.filters.http.cors,envoy.filters.http.header_mutation,envoy.filters.http.jwt_authn,envoy.filters.http.local_ratelimit,envoy.filters.http.router" {
			t.Errorf("http filters %s", got)
		}
		rs := mainRoutes(t, ec)
		for _, sp := range specPaths {
			r := matchRoute(t, rs, sp.path)
			pr, ok := perRoute(t, r, jwtFilter, &jwtv3.PerRouteConfig{})
			if !ok {
				t.Errorf("%s: route %q has no jwt_authn per-route config", sp.path, r.GetName())
				continue
			}
			// The webhook checks Stripe's signature, the agent API its API
			// key; the marketplace's discovery is open to signed-out visitors.
			if sp.path == "/api/stripe/webhook" || strings.HasPrefix(sp.path, "/api/v1/") || publicMarketplace.MatchString(sp.path) {
				if !pr.GetDisabled() {
					t.Errorf("%s: must not require a Firebase token at the edge", sp.path)
				}
				continue
			}
			if name := pr.GetRequirementName(); name == "" || jwt.GetRequirementMap()[name] == nil {
				t.Errorf("%s: route %q requires %q, not a defined requirement", sp.path, r.GetName(), name)
			}
		}
		if r := matchRoute(t, rs, "/api/unknown"); r != nil {
			if pr, ok := perRoute(t, r, jwtFilter, &jwtv3.PerRouteConfig{}); !ok || pr.GetRequirementName() == "" {
				t.Errorf("unknown /api paths must require a token too")
			}
		}
	})
	for _, p := range []profile{local, allServicesLoc} {
		t.Run(p.name, func(t *testing.T) {
			ec := loadEnvoy(t, p)
			if jwtConfig(t, ec) != nil {
				t.Error("local profile must not run jwt_authn (emulator tokens are unsigned)")
			}
			for _, r := range mainRoutes(t, ec) {
				if _, ok := r.GetTypedPerFilterConfig()[jwtFilter]; ok {
					t.Errorf("route %q has jwt_authn config without the filter", r.GetName())
				}
			}
			for _, c := range ec.bootstrap.GetStaticResources().GetClusters() {
				if c.GetName() == "firebase_jwks" {
					t.Error("firebase_jwks cluster without jwt_authn")
				}
			}
		})
	}
}

// Routes marked rateLimited (checkout creation) get a local token bucket;
// no other route does.
func TestCheckoutIsRateLimited(t *testing.T) {
	table, err := routes.Parse(gateway.RoutesYAML)
	if err != nil {
		t.Fatal(err)
	}
	limited := map[string]bool{}
	for _, r := range table.Routes {
		limited[r.Name] = r.RateLimited
	}
	if !limited["stripe-checkout"] {
		t.Fatal("the route table no longer marks stripe-checkout as rateLimited")
	}
	for _, p := range []profile{allServices, allServicesLoc} {
		for _, r := range mainRoutes(t, loadEnvoy(t, p)) {
			rl, ok := perRoute(t, r, rateLimitFilter, &ratelimitv3.LocalRateLimit{})
			if ok != limited[r.GetName()] {
				t.Errorf("%s: route %q rate limited = %v, want %v", p.name, r.GetName(), ok, limited[r.GetName()])
			}
			if ok && (rl.GetTokenBucket().GetMaxTokens() == 0 || rl.GetFilterEnforced().GetDefaultValue().GetNumerator() != 100) {
				t.Errorf("%s: route %q: rate limit not enforced: %v", p.name, r.GetName(), rl)
			}
		}
		r := matchRoute(t, mainRoutes(t, loadEnvoy(t, p)), "/api/stripe/create-checkout-session")
		if _, ok := perRoute(t, r, rateLimitFilter, &ratelimitv3.LocalRateLimit{}); !ok {
			t.Errorf("%s: checkout creation is not rate limited", p.name)
		}
	}
}

// The checkout limit is per user, not one bucket for everyone: jwt_authn
// copies the verified sub claim into x-agentic-uid (after a filter removed
// any client-sent value), the limited routes' descriptor is that header, and
// their local_ratelimit keeps one bucket per distinct value (a wildcard
// descriptor, bounded LRU) without also draining a shared bucket. Without
// jwt_authn the key is the client address. The header never goes upstream.
func TestRateLimitIsPerUser(t *testing.T) {
	for _, p := range []profile{allServices, allServicesLoc} {
		t.Run(p.name, func(t *testing.T) {
			ec := loadEnvoy(t, p)
			h := ec.hcms["http"]
			jwt := jwtConfig(t, ec)
			wantKey := "remote_address"
			if jwt != nil {
				wantKey = "user"
				var claim bool
				for _, c := range jwt.GetProviders()["firebase"].GetClaimToHeaders() {
					claim = claim || (c.GetHeaderName() == "x-agentic-uid" && c.GetClaimName() == "sub")
				}
				if !claim {
					t.Fatal("jwt_authn does not copy the sub claim into x-agentic-uid")
				}
				// A client-sent x-agentic-uid is removed before jwt_authn runs.
				removed := false
				for _, f := range h.GetHttpFilters() {
					if f.GetName() == jwtFilter {
						break
					}
					if f.GetName() == "envoy.filters.http.header_mutation" {
						var hm headermutationv3.HeaderMutation
						if err := f.GetTypedConfig().UnmarshalTo(&hm); err != nil {
							t.Fatal(err)
						}
						for _, m := range hm.GetMutations().GetRequestMutations() {
							removed = removed || m.GetRemove() == "x-agentic-uid"
						}
					}
				}
				if !removed {
					t.Error("x-agentic-uid from the client is not removed before jwt_authn (a caller could pick its own bucket)")
				}
			}
			vh := h.GetRouteConfig().GetVirtualHosts()[0]
			if !slices.Contains(vh.GetRequestHeadersToRemove(), "x-agentic-uid") {
				t.Error("x-agentic-uid is sent upstream")
			}
			r := matchRoute(t, mainRoutes(t, ec), "/api/stripe/create-checkout-session")
			rl, ok := perRoute(t, r, rateLimitFilter, &ratelimitv3.LocalRateLimit{})
			if !ok {
				t.Fatal("checkout is not rate limited")
			}
			if rl.GetAlwaysConsumeDefaultTokenBucket() == nil || rl.GetAlwaysConsumeDefaultTokenBucket().GetValue() {
				t.Error("a user's request also drains the shared bucket (always_consume_default_token_bucket must be false)")
			}
			if n := rl.GetMaxDynamicDescriptors().GetValue(); n < 1000 {
				t.Errorf("max_dynamic_descriptors %d: the default (20) would evict users constantly", n)
			}
			var wildcard bool
			for _, d := range rl.GetDescriptors() {
				if len(d.GetEntries()) == 1 && d.GetEntries()[0].GetKey() == wantKey && d.GetEntries()[0].GetValue() == "" &&
					d.GetTokenBucket().GetMaxTokens() > 0 {
					wildcard = true
				}
			}
			if !wildcard {
				t.Errorf("no wildcard descriptor %q with its own bucket: %v", wantKey, rl.GetDescriptors())
			}
			acts := r.GetRoute().GetRateLimits()
			if len(acts) != 1 || len(acts[0].GetActions()) != 1 {
				t.Fatalf("route rate_limits: %v, want one action", acts)
			}
			a := acts[0].GetActions()[0]
			if jwt != nil {
				if a.GetRequestHeaders().GetHeaderName() != "x-agentic-uid" || a.GetRequestHeaders().GetDescriptorKey() != "user" {
					t.Errorf("descriptor action %v, want request_headers x-agentic-uid -> user", a)
				}
			} else if a.GetRemoteAddress() == nil {
				t.Errorf("descriptor action %v, want remote_address", a)
			}
			// Routes without rateLimited produce no descriptors.
			if other := matchRoute(t, mainRoutes(t, ec), "/api/user/balance"); len(other.GetRoute().GetRateLimits()) != 0 {
				t.Error("the balance route has rate_limits")
			}
		})
	}
}

// The route table's security headers are set on every response by the
// header_mutation filter (so Envoy's own replies carry them too): the CSP
// with the profile's extra origins (the Auth emulator locally), nosniff,
// Referrer-Policy, Permissions-Policy, and HSTS only where values ask for it.
func TestEnvoySetsTheSecurityHeaders(t *testing.T) {
	for _, c := range []struct {
		p          profile
		hsts       bool
		extraInCSP string
	}{{defaults, false, ""}, {production, true, ""}, {local, false, "http://127.0.0.1:9099"}} {
		ec := loadEnvoy(t, c.p)
		got := map[string]string{}
		for _, f := range ec.hcms["http"].GetHttpFilters() {
			if f.GetName() != "envoy.filters.http.header_mutation" {
				continue
			}
			var hm headermutationv3.HeaderMutation
			if err := f.GetTypedConfig().UnmarshalTo(&hm); err != nil {
				t.Fatal(err)
			}
			for _, m := range hm.GetMutations().GetResponseMutations() {
				if a := m.GetAppend(); a != nil {
					got[a.GetHeader().GetKey()] = a.GetHeader().GetValue()
				}
			}
		}
		csp := got["content-security-policy"]
		if !strings.Contains(csp, "frame-ancestors 'none'") || !strings.Contains(csp, "object-src 'none'") ||
			!strings.Contains(csp, "img-src 'self' data: blob:;") || got["x-content-type-options"] != "nosniff" ||
			got["referrer-policy"] != "strict-origin-when-cross-origin" || !strings.Contains(got["permissions-policy"], "camera=()") {
			t.Errorf("%s: response headers %v", c.p.name, got)
		}
		if _, ok := got["strict-transport-security"]; ok != c.hsts {
			t.Errorf("%s: HSTS %q, want it %v", c.p.name, got["strict-transport-security"], c.hsts)
		}
		if c.extraInCSP != "" && (!regexp.MustCompile(`connect-src [^;]*`+regexp.QuoteMeta(c.extraInCSP)).MatchString(csp) ||
			!regexp.MustCompile(`frame-src [^;]*`+regexp.QuoteMeta(c.extraInCSP)).MatchString(csp)) {
			t.Errorf("%s: CSP %q lacks %s in connect-src and frame-src", c.p.name, csp, c.extraInCSP)
		}
	}
}

// The agent pages (link previews) and sitemap.xml reach the catalog before
// the SPA, with no token at the edge, as in the local gateway; /marketplace,
// an agent's chat and the SPA's files stay the web app's. Without the
// catalog they are the SPA's (nginx's index.html and static sitemap.xml).
func TestAgentPagesRouteToTheCatalog(t *testing.T) {
	table, err := routes.Parse(gateway.RoutesYAML)
	if err != nil {
		t.Fatal(err)
	}
	pagePaths := []string{"/marketplace/math-tutor", "/marketplace/math-tutor-2", "/sitemap.xml"}
	spaPaths := []string{"/marketplace", "/marketplace/", "/marketplace/math-tutor/", "/marketplace/math-tutor/chat", "/index.html", "/robots.txt", "/dashboard/marketplace"}
	for _, p := range []profile{allServices, allServicesLoc, defaults} {
		t.Run(p.name, func(t *testing.T) {
			ec := loadEnvoy(t, p)
			rs := mainRoutes(t, ec)
			for _, path := range pagePaths {
				r := matchRoute(t, rs, path)
				if r == nil || r.GetRoute().GetCluster() != "svc_catalog" {
					t.Errorf("%s: not routed to the catalog (%v)", path, r.GetName())
					continue
				}
				if lr, ok := table.Lookup(path); !ok || lr.Name != r.GetName() || !lr.Page() {
					t.Errorf("%s: Envoy picks %q, the local gateway %q", path, r.GetName(), lr.Name)
				}
				if jwtConfig(t, ec) != nil {
					if pr, ok := perRoute(t, r, jwtFilter, &jwtv3.PerRouteConfig{}); !ok || !pr.GetDisabled() {
						t.Errorf("%s: a page must not require a token at the edge", path)
					}
				}
			}
			for _, path := range spaPaths {
				if r := matchRoute(t, rs, path); r == nil || r.GetRoute().GetCluster() != "web" {
					t.Errorf("%s: not routed to the web app", path)
				}
			}
		})
	}
	rs := mainRoutes(t, loadEnvoy(t, identityOnly))
	for _, path := range pagePaths {
		if r := matchRoute(t, rs, path); r == nil || r.GetRoute().GetCluster() != "web" {
			t.Errorf("identity only: %s not routed to the web app", path)
		}
	}
}
