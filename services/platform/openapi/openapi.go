// Package openapi holds the OpenAPI 3.1 document of every /api/* route
// (openapi.json, embedded), serves it (GET /api/openapi.json, answered by
// the identity service through the gateway) and checks it against a
// service's HTTP mux: each service's transport tests call Check with the
// mux its RegisterHTTP functions fill, so a route without documentation, or
// documentation without a route, fails that service's tests.
package openapi

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"

	"github.com/agentic-app/agentic/services/platform/server"
)

// Path is where the document is served.
const Path = "/api/openapi.json"

// Document is openapi.json.
//
//go:embed openapi.json
var Document []byte

// Handler serves Document as application/json (no authentication).
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(Document)
	})
}

// Operation is one documented method and path.
type Operation struct {
	Method  string // GET, POST, ...
	Path    string // as written in the document, e.g. /api/agents/{agentId}
	Service string // x-service
	// Quotas are the operation's x-quotas: the limits a caller can reach
	// on it (docs/reliability.md, "Rate limits and quotas").
	Quotas []Quota
}

// Quota is one documented limit of an operation (x-quotas).
type Quota struct {
	// Kind is "rate" (429 rate_limited with Retry-After) or "count" (400
	// limit_reached: a number of things that may exist).
	Kind string `json:"kind"`
	// Env is the variable that configures it; Default its value when unset
	// ("60/1m" for a rate, "100" for a count).
	Env     string `json:"env"`
	Default string `json:"default"`
	// Per is what is counted against: "user", "agent", "key", "owner",
	// "subscriber" (one invitation) or "ip" (the client's address, for
	// routes without a token).
	Per string `json:"per"`
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// Operations parses Document.
func Operations() ([]Operation, error) {
	var doc struct {
		OpenAPI string                                `json:"openapi"`
		Paths   map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(Document, &doc); err != nil {
		return nil, fmt.Errorf("openapi.json: %w", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		return nil, fmt.Errorf("openapi.json: openapi is %q, want 3.1.x", doc.OpenAPI)
	}
	var ops []Operation
	for path, item := range doc.Paths {
		for _, m := range methods {
			raw, ok := item[m]
			if !ok {
				continue
			}
			var o struct {
				Service string  `json:"x-service"`
				Quotas  []Quota `json:"x-quotas"`
			}
			if err := json.Unmarshal(raw, &o); err != nil {
				return nil, fmt.Errorf("openapi.json: %s %s: %w", m, path, err)
			}
			ops = append(ops, Operation{Method: strings.ToUpper(m), Path: path, Service: o.Service, Quotas: o.Quotas})
		}
	}
	sort.Slice(ops, func(i, j int) bool {
		if ops[i].Path != ops[j].Path {
			return ops[i].Path < ops[j].Path
		}
		return ops[i].Method < ops[j].Method
	})
	return ops, nil
}

var param = regexp.MustCompile(`\{[^}/]*\}`)

// Shape replaces every {name} of a path template with {}: the document and
// the services may name parameters differently (/api/agents/{agentId} in
// the document, /api/agents/{id} in a mux).
func Shape(path string) string { return param.ReplaceAllString(path, "{}") }

// Check compares the operations documented for service (x-service) with
// the routes registered on mux (server.Route / server.Handle) and returns
// the problems, none when they agree:
//   - a registered /api/* route that is not documented with its method;
//   - a documented operation that mux does not route to a handler for that
//     method (asked with mux.Handler for a concrete path, so a route
//     registered any way counts).
func Check(service string, mux *http.ServeMux) []string {
	ops, err := Operations()
	if err != nil {
		return []string{err.Error()}
	}
	var problems []string
	documented := map[string]bool{}
	for _, o := range ops {
		documented[o.Method+" "+Shape(o.Path)] = true
		if o.Service == "" {
			problems = append(problems, fmt.Sprintf("%s %s: no x-service", o.Method, o.Path))
		}
		if o.Service != service {
			continue
		}
		concrete := param.ReplaceAllString(o.Path, "x1")
		_, pattern := mux.Handler(httptest.NewRequest(o.Method, concrete, nil))
		method, p, ok := strings.Cut(pattern, " ")
		if !ok || method != o.Method || Shape(p) != Shape(o.Path) {
			problems = append(problems, fmt.Sprintf("%s %s is documented for %s but its mux routes it to %q", o.Method, o.Path, service, pattern))
		}
	}
	for _, r := range server.Routes(mux) {
		method, p, _ := strings.Cut(r, " ")
		if !strings.HasPrefix(p, "/api/") {
			continue
		}
		if !documented[method+" "+Shape(p)] {
			problems = append(problems, fmt.Sprintf("%s is registered by %s but not documented in services/platform/openapi/openapi.json", r, service))
		}
	}
	return problems
}

// CheckRates compares the rate quotas documented for service (x-quotas of
// kind "rate") with the ones it applies: rates maps each applied rule's
// route ("POST /api/conversations/{id}/messages", as its mux pattern) to
// the variable that configures it. It returns the problems, none when the
// document and the service agree; a service's quota test calls it so that
// a limit nobody documented, or documentation of a limit that is gone,
// fails that service's tests.
func CheckRates(service string, rates map[string]string) []string {
	ops, err := Operations()
	if err != nil {
		return []string{err.Error()}
	}
	applied := map[string]string{}
	for route, env := range rates {
		method, p, _ := strings.Cut(route, " ")
		applied[method+" "+Shape(p)] = env
	}
	var problems []string
	seen := map[string]bool{}
	for _, o := range ops {
		if o.Service != service {
			continue
		}
		key := o.Method + " " + Shape(o.Path)
		for _, q := range o.Quotas {
			if q.Kind != "rate" {
				continue
			}
			seen[key+" "+q.Env] = true
			if env, ok := applied[key]; !ok || env != q.Env {
				problems = append(problems, fmt.Sprintf("%s %s documents the rate %s but %s applies %q there", o.Method, o.Path, q.Env, service, env))
			}
		}
	}
	for route, env := range rates {
		method, p, _ := strings.Cut(route, " ")
		if !seen[method+" "+Shape(p)+" "+env] {
			problems = append(problems, fmt.Sprintf("%s applies %s on %s, which services/platform/openapi/openapi.json does not list in x-quotas", service, env, route))
		}
	}
	sort.Strings(problems)
	return problems
}
