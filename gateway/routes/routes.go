// Package routes parses and validates the gateway route table and matches
// request paths against it.
package routes

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Service is an upstream that owns some /api paths (and maybe pages: see
// Route.Page).
type Service struct {
	// LocalHTTP is the service's HTTP address in the local (Tilt) stack.
	LocalHTTP string `yaml:"localHTTP"`
	HTTPPort  int    `yaml:"httpPort"`
	GRPCPort  int    `yaml:"grpcPort"`
}

// Match selects request paths. Exactly one field is set.
type Match struct {
	Path   string `yaml:"path"`
	Prefix string `yaml:"prefix"`
	// Regex must match the whole path (RE2 syntax, as Envoy's safe_regex).
	Regex string `yaml:"regex"`
}

// Route sends matching requests to a service.
type Route struct {
	Name    string `yaml:"name"`
	Match   Match  `yaml:"match"`
	Service string `yaml:"service"`
	// Auth defaults to true; false where the service checks another
	// credential or the route is public (routes.yaml), and on every page.
	Auth *bool `yaml:"auth"`
	// RateLimited marks routes that get an edge rate limit in Envoy.
	RateLimited bool `yaml:"rateLimited"`
	// Stream marks routes whose responses are long-lived streams (SSE):
	// no response timeout at the edge, and every write is flushed.
	Stream bool `yaml:"stream"`

	re *regexp.Regexp
}

// Page reports whether the route serves a page outside /api/ (the catalog's
// agent pages and sitemap.xml, answered in place of the SPA's shell): no
// token, and the gateway routes it before the SPA's files.
func (r Route) Page() bool {
	return !strings.HasPrefix(r.Match.Path+r.Match.Prefix+r.Match.Regex, "/api/")
}

// RequiresAuth reports whether the route needs a Firebase ID token.
func (r Route) RequiresAuth() bool { return r.Auth == nil || *r.Auth }

// Matches reports whether the request path is selected by the route.
func (r Route) Matches(path string) bool {
	switch {
	case r.Match.Path != "":
		return path == r.Match.Path
	case r.Match.Prefix != "":
		return strings.HasPrefix(path, r.Match.Prefix)
	default:
		return r.re.MatchString(path)
	}
}

// Table is the whole route table.
type Table struct {
	Services map[string]Service `yaml:"services"`
	Routes   []Route            `yaml:"routes"`
	// SecurityHeaders are set on every response of the gateway (the SPA's
	// files and every /api answer), by the local gateway and by Envoy.
	SecurityHeaders SecurityHeaders `yaml:"securityHeaders"`
}

// SecurityHeaders are the browser security headers of every response.
type SecurityHeaders struct {
	// ContentSecurityPolicy lists the origins the SPA needs in production;
	// an environment adds its own (the Auth emulator locally) to connect-src
	// and frame-src with CSP.
	ContentSecurityPolicy string `yaml:"contentSecurityPolicy"`
	ReferrerPolicy        string `yaml:"referrerPolicy"`
	PermissionsPolicy     string `yaml:"permissionsPolicy"`
}

// CSP is the Content-Security-Policy with extra origins allowed in
// connect-src and frame-src (the directives an environment's own services
// — an Auth emulator, a custom auth domain — need).
func (h SecurityHeaders) CSP(extraOrigins ...string) string {
	if len(extraOrigins) == 0 {
		return h.ContentSecurityPolicy
	}
	directives := strings.Split(h.ContentSecurityPolicy, ";")
	for i, d := range directives {
		d = strings.TrimSpace(d)
		name, _, _ := strings.Cut(d, " ")
		if name == "connect-src" || name == "frame-src" {
			d += " " + strings.Join(extraOrigins, " ")
		}
		directives[i] = d
	}
	return strings.Join(directives, "; ")
}

// Headers lists the headers with their values (CSP with extraOrigins).
func (h SecurityHeaders) Headers(extraOrigins ...string) map[string]string {
	return map[string]string{
		"Content-Security-Policy": h.CSP(extraOrigins...),
		"X-Content-Type-Options":  "nosniff",
		"Referrer-Policy":         h.ReferrerPolicy,
		"Permissions-Policy":      h.PermissionsPolicy,
	}
}

// Parse decodes the YAML strictly (unknown keys are errors) and validates it.
func Parse(data []byte) (*Table, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var t Table
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("route table: %w", err)
	}
	if err := t.validate(); err != nil {
		return nil, fmt.Errorf("route table: %w", err)
	}
	return &t, nil
}

func (t *Table) validate() error {
	if len(t.Services) == 0 || len(t.Routes) == 0 {
		return errors.New("needs at least one service and one route")
	}
	if h := t.SecurityHeaders; h.ContentSecurityPolicy == "" || h.ReferrerPolicy == "" || h.PermissionsPolicy == "" {
		return errors.New("securityHeaders: contentSecurityPolicy, referrerPolicy and permissionsPolicy are required")
	}
	for name, s := range t.Services {
		if s.LocalHTTP == "" || s.HTTPPort == 0 || s.GRPCPort == 0 {
			return fmt.Errorf("service %q: localHTTP, httpPort and grpcPort are required", name)
		}
	}
	seen := map[string]bool{}
	for i := range t.Routes {
		r := &t.Routes[i]
		if r.Name == "" {
			return fmt.Errorf("route %d has no name", i)
		}
		if seen[r.Name] {
			return fmt.Errorf("route %q is defined twice", r.Name)
		}
		seen[r.Name] = true
		if _, ok := t.Services[r.Service]; !ok {
			return fmt.Errorf("route %q names unknown service %q", r.Name, r.Service)
		}
		kinds := 0
		for _, v := range []string{r.Match.Path, r.Match.Prefix, r.Match.Regex} {
			if v != "" {
				kinds++
			}
		}
		if kinds != 1 {
			return fmt.Errorf("route %q needs exactly one of path, prefix or regex", r.Name)
		}
		for _, v := range []string{r.Match.Path, r.Match.Prefix, r.Match.Regex} {
			if v == "" || strings.HasPrefix(v, "/api/") {
				continue
			}
			// A page outside /api (the catalog's agent pages and sitemap):
			// a browser or a crawler opens it without a token, and an exact
			// path or a regex keeps it from taking the SPA's other paths.
			if !strings.HasPrefix(v, "/") || r.Match.Prefix != "" || r.RequiresAuth() || r.Stream || r.RateLimited {
				return fmt.Errorf("route %q: a route outside /api/ must be a page: a path or regex from /, auth: false, no stream or rateLimited", r.Name)
			}
		}
		if r.Match.Regex != "" {
			re, err := regexp.Compile("^(?:" + r.Match.Regex + ")$")
			if err != nil {
				return fmt.Errorf("route %q: %w", r.Name, err)
			}
			r.re = re
		}
	}
	return nil
}

// Lookup returns the first route that matches the path.
func (t *Table) Lookup(path string) (Route, bool) {
	for _, r := range t.Routes {
		if r.Matches(path) {
			return r, true
		}
	}
	return Route{}, false
}
