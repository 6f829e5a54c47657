{{/*
The Envoy bootstrap, rendered from the route table (files/routes.yaml).

Listener :8080 (the Service's target) routes, in this order:
  1. every route of the table whose service is enabled (same order, same
     match: path -> exact path, prefix -> prefix, regex -> safe_regex/RE2),
     the pages outside /api included (the catalog's agent pages and
     sitemap.xml; with the catalog disabled they fall to the SPA);
  2. any other /api/ path -> JSON 404 (never the SPA);
  3. everything else -> the web Deployment (index.html fallback in nginx).
Auth is per route: jwt_authn PerRouteConfig names the "firebase" requirement
on every /api route except those with `auth: false` (the Stripe webhook),
which disable the filter; routes with `rateLimited: true` get local token
buckets keyed per user: jwt_authn copies the verified token's `sub` claim
into x-agentic-uid (a client-sent x-agentic-uid is removed first, and the
header is removed again before the request goes upstream), and the route's
local_ratelimit keeps one bucket per distinct value (a wildcard descriptor,
at most rateLimit.maxUsers per route and pod). Without jwtAuthn the key is
the client address. Listener :8081 (not in the Service) serves /ready for the kubelet and
/stats/prometheus from the admin interface, which listens on 127.0.0.1 only.
*/}}
{{- define "agentic.envoy.bootstrap" -}}
{{- $root := . -}}
{{- $table := include "agentic.routeTable" . | fromJson -}}
{{- $envoy := .Values.envoy -}}
{{- $jwt := $envoy.jwtAuthn.enabled -}}
{{- $ns := .Release.Namespace -}}
{{- $domain := .Values.clusterDomain -}}
{{- $jwksHost := (urlParse $envoy.jwtAuthn.jwksUri).hostname -}}
{{- $enabled := list -}}
{{- range $name := keys .Values.services | sortAlpha -}}
{{- if include "agentic.enabled" (dict "root" $root "name" $name) -}}
{{- $enabled = append $enabled $name -}}
{{- end -}}
{{- end -}}
node:
  id: agentic-envoy
  cluster: agentic-envoy
admin:
  address:
    socket_address: { address: 127.0.0.1, port_value: 9901 }
static_resources:
  listeners:
    - name: http
      address:
        socket_address: { address: 0.0.0.0, port_value: 8080 }
      filter_chains:
        - filters:
            - name: envoy.filters.network.http_connection_manager
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                stat_prefix: ingress_http
                codec_type: AUTO
                use_remote_address: true
                xff_num_trusted_hops: {{ int $envoy.xffNumTrustedHops }}
                normalize_path: true
                merge_slashes: true
                path_with_escaped_slashes_action: UNESCAPE_AND_REDIRECT
                common_http_protocol_options:
                  idle_timeout: 300s
                  headers_with_underscores_action: REJECT_REQUEST
                access_log:
                  - name: envoy.access_loggers.stdout
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.access_loggers.stream.v3.StdoutAccessLog
                      log_format:
                        json_format:
                          time: "%START_TIME%"
                          method: "%REQ(:METHOD)%"
                          path: "%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%"
                          protocol: "%PROTOCOL%"
                          status: "%RESPONSE_CODE%"
                          flags: "%RESPONSE_FLAGS%"
                          details: "%RESPONSE_CODE_DETAILS%"
                          route: "%ROUTE_NAME%"
                          upstream_cluster: "%UPSTREAM_CLUSTER%"
                          upstream_host: "%UPSTREAM_HOST%"
                          bytes_received: "%BYTES_RECEIVED%"
                          bytes_sent: "%BYTES_SENT%"
                          duration_ms: "%DURATION%"
                          request_id: "%REQ(X-REQUEST-ID)%"
                          traceparent: "%REQ(TRACEPARENT)%"
                          user_agent: "%REQ(USER-AGENT)%"
                          client: "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%"
                # Envoy's own replies in the API's error shape (docs/conventions.md).
                local_reply_config:
                  mappers:
                    - filter:
                        and_filter:
                          filters:
                            - status_code_filter:
                                comparison: { op: EQ, value: { default_value: 401, runtime_key: local_reply.unauthenticated } }
                            - header_filter:
                                header: { name: authorization, present_match: true, invert_match: true }
                      body_format_override:
                        json_format:
                          error: unauthenticated
                          message: Authentication token not available. User must be logged in.
                    - filter:
                        status_code_filter:
                          comparison: { op: EQ, value: { default_value: 401, runtime_key: local_reply.invalid_token } }
                      body_format_override:
                        json_format:
                          error: invalid_token
                          message: Invalid or expired authentication token.
                    - filter:
                        status_code_filter:
                          comparison: { op: EQ, value: { default_value: 429, runtime_key: local_reply.rate_limited } }
                      body_format_override:
                        json_format:
                          error: rate_limited
                          message: Too many requests. Please try again later.
                http_filters:
                  - name: envoy.filters.http.cors
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.cors.v3.Cors
                  # Only jwt_authn sets the rate-limit key: drop any value the client sent.
                  - name: envoy.filters.http.header_mutation
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.header_mutation.v3.HeaderMutation
                      mutations:
                        request_mutations:
                          - remove: x-agentic-uid
                        # The route table's security headers (files/routes.yaml) on every
                        # response, Envoy's own replies included; the CSP with this
                        # deployment's extra origins in connect-src and frame-src.
                        response_mutations:
                          {{- $sec := $table.securityHeaders }}
                          {{- $csp := $sec.contentSecurityPolicy }}
                          {{- with $envoy.securityHeaders.extraOrigins }}
                          {{- $extra := join " " . }}
                          {{- $csp = regexReplaceAll "connect-src([^;]*)" $csp (printf "connect-src${1} %s" $extra) }}
                          {{- $csp = regexReplaceAll "frame-src([^;]*)" $csp (printf "frame-src${1} %s" $extra) }}
                          {{- end }}
                          {{- $headers := dict "content-security-policy" $csp "x-content-type-options" "nosniff" "referrer-policy" $sec.referrerPolicy "permissions-policy" $sec.permissionsPolicy }}
                          {{- if gt (int $envoy.securityHeaders.hstsMaxAge) 0 }}
                          {{- $_ := set $headers "strict-transport-security" (printf "max-age=%d; includeSubDomains" (int $envoy.securityHeaders.hstsMaxAge)) }}
                          {{- end }}
                          {{- range $k := keys $headers | sortAlpha }}
                          - append:
                              header: { key: {{ $k }}, value: {{ index $headers $k | toJson }} }
                              append_action: OVERWRITE_IF_EXISTS_OR_ADD
                          {{- end }}
                  {{- if $jwt }}
                  - name: envoy.filters.http.jwt_authn
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication
                      providers:
                        firebase:
                          issuer: {{ printf "https://securetoken.google.com/%s" (required "firebase.projectId is required" .Values.firebase.projectId) | toJson }}
                          audiences: [{{ .Values.firebase.projectId | toJson }}]
                          # Keep the Authorization header: the services verify the token again.
                          forward: true
                          # The verified uid keys the per-user local rate limit.
                          claim_to_headers:
                            - { header_name: x-agentic-uid, claim_name: sub }
                          from_headers:
                            - { name: Authorization, value_prefix: "Bearer " }
                          remote_jwks:
                            http_uri:
                              uri: {{ $envoy.jwtAuthn.jwksUri | toJson }}
                              cluster: firebase_jwks
                              timeout: 5s
                            cache_duration: {{ $envoy.jwtAuthn.jwksCacheDuration }}
                            async_fetch: { fast_listener: false }
                            retry_policy:
                              num_retries: 3
                      requirement_map:
                        firebase:
                          provider_name: firebase
                      # Preflight requests carry no token; the CORS filter answers them.
                      bypass_cors_preflight: true
                  {{- end }}
                  - name: envoy.filters.http.local_ratelimit
                    typed_config:
                      # No bucket here: only routes with a per-route config are limited.
                      "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
                      stat_prefix: http_local_rate_limiter
                  - name: envoy.filters.http.router
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
                route_config:
                  name: agentic
                  virtual_hosts:
                    - name: agentic
                      domains: ["*"]
                      # The rate-limit key is Envoy's own: never sent upstream.
                      request_headers_to_remove: [x-agentic-uid]
                      typed_per_filter_config:
                        envoy.filters.http.cors:
                          "@type": type.googleapis.com/envoy.extensions.filters.http.cors.v3.CorsPolicy
                          allow_origin_string_match:
                            {{- range $envoy.cors.allowOrigins }}
                            - exact: {{ . | toJson }}
                            {{- else }} []
                            {{- end }}
                          allow_methods: {{ $envoy.cors.allowMethods | toJson }}
                          allow_headers: {{ $envoy.cors.allowHeaders | toJson }}
                          max_age: {{ $envoy.cors.maxAge | toString | toJson }}
                      routes:
                        {{- range $r := $table.routes }}
                        {{- if has $r.service $enabled }}
                        - name: {{ $r.name | toJson }}
                          match:
                            {{- if $r.match.path }}
                            path: {{ $r.match.path | toJson }}
                            {{- else if $r.match.prefix }}
                            prefix: {{ $r.match.prefix | toJson }}
                            {{- else if $r.match.regex }}
                            safe_regex:
                              regex: {{ $r.match.regex | toJson }}
                            {{- else }}
                            {{- fail (printf "route %q has no match" $r.name) }}
                            {{- end }}
                          route:
                            cluster: {{ printf "svc_%s" $r.service }}
                            {{- if $r.stream }}
                            # A streamed answer lasts as long as the model writes: no
                            # response timeout, but an idle stream is still cut.
                            timeout: 0s
                            idle_timeout: {{ $envoy.streamIdleTimeout | default "120s" }}
                            {{- else }}
                            timeout: {{ $envoy.routeTimeout }}
                            {{- end }}
                            {{- if $r.rateLimited }}
                            # The descriptor the route's local_ratelimit buckets on: the user.
                            rate_limits:
                              - actions:
                                  {{- if $jwt }}
                                  - request_headers: { header_name: x-agentic-uid, descriptor_key: user }
                                  {{- else }}
                                  - remote_address: {}
                                  {{- end }}
                            {{- end }}
                          {{- $auth := or (not (hasKey $r "auth")) $r.auth }}
                          {{- if or $jwt $r.rateLimited }}
                          typed_per_filter_config:
                            {{- if $jwt }}
                            envoy.filters.http.jwt_authn:
                              "@type": type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig
                              {{- if $auth }}
                              requirement_name: firebase
                              {{- else }}
                              disabled: true
                              {{- end }}
                            {{- end }}
                            {{- if $r.rateLimited }}
                            envoy.filters.http.local_ratelimit:
                              "@type": type.googleapis.com/envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit
                              stat_prefix: {{ printf "route_%s" ($r.name | replace "-" "_") }}
                              # Shared bucket, only for requests without a user key.
                              token_bucket:
                                max_tokens: {{ int $envoy.rateLimit.maxTokens }}
                                tokens_per_fill: {{ int $envoy.rateLimit.tokensPerFill }}
                                fill_interval: {{ $envoy.rateLimit.fillInterval }}
                              # A user's request takes a token from their bucket only.
                              always_consume_default_token_bucket: false
                              # One bucket per distinct user (the entry has no value: wildcard).
                              descriptors:
                                - entries:
                                    - key: {{ ternary "user" "remote_address" $jwt }}
                                  token_bucket:
                                    max_tokens: {{ int $envoy.rateLimit.perUser.maxTokens }}
                                    tokens_per_fill: {{ int $envoy.rateLimit.perUser.tokensPerFill }}
                                    fill_interval: {{ $envoy.rateLimit.perUser.fillInterval }}
                              max_dynamic_descriptors: {{ int $envoy.rateLimit.maxUsers }}
                              enable_x_ratelimit_headers: DRAFT_VERSION_03
                              filter_enabled:
                                runtime_key: {{ printf "ratelimit.%s.enabled" $r.name }}
                                default_value: { numerator: 100, denominator: HUNDRED }
                              filter_enforced:
                                runtime_key: {{ printf "ratelimit.%s.enforced" $r.name }}
                                default_value: { numerator: 100, denominator: HUNDRED }
                              response_headers_to_add:
                                - append_action: OVERWRITE_IF_EXISTS_OR_ADD
                                  header: { key: x-local-rate-limit, value: "true" }
                            {{- end }}
                          {{- end }}
                        {{- end }}
                        {{- end }}
                        # /api paths of services that are not deployed: JSON 404, never the SPA.
                        - name: api-not-found
                          match: { prefix: /api/ }
                          direct_response:
                            status: 404
                            body:
                              inline_string: '{"error":"not_found","message":"Not found."}'
                          response_headers_to_add:
                            - append_action: OVERWRITE_IF_EXISTS_OR_ADD
                              header: { key: content-type, value: application/json }
                          {{- if $jwt }}
                          typed_per_filter_config:
                            envoy.filters.http.jwt_authn:
                              "@type": type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig
                              requirement_name: firebase
                          {{- end }}
                        # Everything else is the SPA (nginx falls back to index.html).
                        - name: web
                          match: { prefix: / }
                          route:
                            cluster: web
                            timeout: 15s
                          {{- if $jwt }}
                          typed_per_filter_config:
                            envoy.filters.http.jwt_authn:
                              "@type": type.googleapis.com/envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig
                              disabled: true
                          {{- end }}
    - name: health
      address:
        socket_address: { address: 0.0.0.0, port_value: 8081 }
      filter_chains:
        - filters:
            - name: envoy.filters.network.http_connection_manager
              typed_config:
                "@type": type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager
                stat_prefix: health
                codec_type: AUTO
                http_filters:
                  # 200 until Envoy starts draining (then 503), for the kubelet.
                  - name: envoy.filters.http.health_check
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.health_check.v3.HealthCheck
                      pass_through_mode: false
                      headers:
                        - name: ":path"
                          string_match: { exact: /ready }
                  - name: envoy.filters.http.router
                    typed_config:
                      "@type": type.googleapis.com/envoy.extensions.filters.http.router.v3.Router
                route_config:
                  name: health
                  virtual_hosts:
                    - name: health
                      domains: ["*"]
                      routes:
                        # Read-only metrics from the admin interface (which stays on 127.0.0.1).
                        - name: metrics
                          match: { path: /stats/prometheus }
                          route: { cluster: envoy_admin }
                        - name: not-found
                          match: { prefix: / }
                          direct_response: { status: 404 }
  clusters:
    {{- range $name := $enabled }}
    {{- $svc := include "agentic.service" (dict "root" $root "name" $name) | fromJson }}
    - name: {{ printf "svc_%s" $name }}
      type: STRICT_DNS
      connect_timeout: 2s
      dns_lookup_family: V4_PREFERRED
      lb_policy: ROUND_ROBIN
      load_assignment:
        cluster_name: {{ printf "svc_%s" $name }}
        endpoints:
          - lb_endpoints:
              - endpoint:
                  address:
                    socket_address:
                      address: {{ printf "%s.%s.svc.%s" (include "agentic.name" (dict "root" $root "name" $name)) $ns $domain }}
                      port_value: {{ int $svc.httpPort }}
    {{- end }}
    - name: web
      type: STRICT_DNS
      connect_timeout: 2s
      dns_lookup_family: V4_PREFERRED
      lb_policy: ROUND_ROBIN
      load_assignment:
        cluster_name: web
        endpoints:
          - lb_endpoints:
              - endpoint:
                  address:
                    socket_address:
                      address: {{ printf "%s.%s.svc.%s" (include "agentic.name" (dict "root" $root "name" "web")) $ns $domain }}
                      port_value: 8080
    - name: envoy_admin
      type: STATIC
      connect_timeout: 1s
      load_assignment:
        cluster_name: envoy_admin
        endpoints:
          - lb_endpoints:
              - endpoint:
                  address:
                    socket_address: { address: 127.0.0.1, port_value: 9901 }
    {{- if $jwt }}
    - name: firebase_jwks
      type: LOGICAL_DNS
      connect_timeout: 5s
      dns_lookup_family: V4_PREFERRED
      load_assignment:
        cluster_name: firebase_jwks
        endpoints:
          - lb_endpoints:
              - endpoint:
                  address:
                    socket_address: { address: {{ $jwksHost }}, port_value: 443 }
      transport_socket:
        name: envoy.transport_sockets.tls
        typed_config:
          "@type": type.googleapis.com/envoy.extensions.transport_sockets.tls.v3.UpstreamTlsContext
          sni: {{ $jwksHost }}
          common_tls_context:
            validation_context:
              trusted_ca: { filename: /etc/ssl/certs/ca-certificates.crt }
              match_typed_subject_alt_names:
                - san_type: DNS
                  matcher: { exact: {{ $jwksHost }} }
    {{- end }}
{{- end -}}
