# ostset — build, test and demo targets. `make help` lists them.
GO        ?= go
BIN       := bin/ostset
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
PKGS      := ./...
GOLANGCI  ?= $(shell command -v golangci-lint 2>/dev/null || echo $(shell $(GO) env GOPATH)/bin/golangci-lint)
GOLANGCI_VERSION := v2.15.0

export TESTCONTAINERS_RYUK_DISABLED ?= true
export TESTCONTAINERS_HOST_OVERRIDE ?= 127.0.0.1

.PHONY: help build install demo-image test-images db-images demo demo-etcd demo-redis demo-postgres test test-unit test-kubevalidate test-oracle test-integration lint bench clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

build: ## build bin/ostset
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ostset

install: ## install ostset in $(GOBIN) (default: $(go env GOPATH)/bin), as go install ./cmd/ostset does
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/ostset

demo-image: ## build the demo image ostset/web:demo (no registry needed)
	scripts/build-images.sh demo

test-images: db-images ## build the images the integration tests use
	scripts/build-images.sh test

db-images: ## build local stand-ins for the etcd, Redis and Postgres images (debootstrap once per machine: about 5-6 min on 2 cores)
	scripts/build-db-images.sh all

demo: build demo-image ## build everything and run examples/web (3 replicas)
	$(BIN) up -f examples/web/set.yaml

demo-etcd: build ## build the local etcd image and run examples/etcd (3 members)
	scripts/build-db-images.sh etcd
	ETCD_IMAGE=ostset-test/etcd:3 $(BIN) up -f examples/etcd/set.yaml

demo-redis: build ## build the local Redis image and run examples/redis (a primary, 2 replicas)
	scripts/build-db-images.sh redis
	REDIS_IMAGE=ostset-test/redis:7 $(BIN) up -f examples/redis/set.yaml

demo-postgres: build ## build the local Postgres image and run examples/postgres (a primary, a standby)
	scripts/build-db-images.sh postgres
	POSTGRES_IMAGE=ostset-test/postgres:15 $(BIN) up -f examples/postgres/set.yaml

test: test-unit test-integration ## unit tests with -race, then integration tests on the real engine

test-unit: ## unit tests (no Docker needed)
	$(GO) test -race -count=1 $(PKGS)

test-kubevalidate: ## check Kubernetes exports with the API server's own validation (kube/kubevalidate, a module of its own that needs k8s.io/kubernetes)
	cd kube/kubevalidate && $(GO) test -count=1 ./...

ORACLE_HISTORIES ?= 2000

test-oracle: ## compare the planner with Kubernetes' own StatefulSet controller on ORACLE_HISTORIES random histories (engine/plan/oracle, a module of its own that needs k8s.io/kubernetes)
	cd engine/plan/oracle && ORACLE_HISTORIES=$(ORACLE_HISTORIES) $(GO) test -count=1 -timeout 30m ./...

test-integration: build test-images ## integration tests on the real Docker engine
	$(GO) test -race -count=1 -tags integration -timeout 35m ./docker/ ./integration/

SOAK      ?= 60m

.PHONY: soak

soak: build test-images ## the daemon keeps 10 sets under random churn for SOAK (default 60m); not part of test
	OSTSET_SOAK_DURATION=$(SOAK) $(GO) test -count=1 -v -tags integration -timeout 0 -run '^TestEfSoak$$' ./integration/

lint: $(GOLANGCI) ## gofmt, go vet, golangci-lint (installed on first use), no package over 3,500 lines
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GO) vet -tags integration $(PKGS)
	$(GOLANGCI) run --build-tags integration $(PKGS)
	scripts/package-size.sh

$(GOLANGCI):
	$(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)

bench: build demo-image ## planner benchmarks and end-to-end timings against the floor program (numbers in docs/benchmarks.md)
	CGO_ENABLED=0 $(GO) build -trimpath -o bin/floor ./bench/floor
	scripts/bench.sh
	scripts/bench-daemon.sh

clean: ## remove build output
	rm -rf bin
