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

.PHONY: help probes build build-all install docs demo-image test-images db-images engine-image demo demo-etcd demo-redis demo-postgres test test-unit test-kubevalidate test-oracle test-integration lint bench clean

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

PROBE_ARCHS := amd64 arm64
PROBES    := $(foreach a,$(PROBE_ARCHS),internal/probebin/probes/ostset-probe-linux-$(a).gz)

probes: $(PROBES) ## build the probe ostset copies into replicas (cmd/ostset-probe), for linux/amd64 and linux/arm64, to embed

internal/probebin/probes/ostset-probe-linux-%.gz: $(wildcard cmd/ostset-probe/*.go health/*.go) go.mod
	CGO_ENABLED=0 GOOS=linux GOARCH=$* $(GO) build -trimpath -ldflags '-s -w' -o $(@:.gz=) ./cmd/ostset-probe
	gzip -9 -n -f $(@:.gz=)

build: probes ## build bin/ostset (with the probes it embeds)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/ostset

PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64

build-all: probes ## cross-build ostset for every platform it ships for (bin/ostset-OS-ARCH); fails on the first that breaks
	@set -e; for p in $(PLATFORMS); do os=$${p%/*}; arch=$${p#*/}; ext=; [ $$os = windows ] && ext=.exe; \
		echo "build $$os/$$arch"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/ostset-$$os-$$arch$$ext ./cmd/ostset; \
	done

# Where make install puts the docker CLI plugin, the man pages and the completions.
DOCKER_CONFIG ?= $(HOME)/.docker
DATADIR       ?= $(HOME)/.local/share

install: probes docs ## install ostset in $(GOBIN) (default: $(go env GOPATH)/bin), as go install does; docker-ostset in ~/.docker/cli-plugins; man pages and completions in ~/.local/share
	CGO_ENABLED=0 $(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/ostset
	@bindir=$$($(GO) env GOBIN); [ -n "$$bindir" ] || bindir=$$($(GO) env GOPATH)/bin; \
	  mkdir -p $(DOCKER_CONFIG)/cli-plugins && ln -sf $$bindir/ostset $(DOCKER_CONFIG)/cli-plugins/docker-ostset && \
	  echo "docker ostset: $(DOCKER_CONFIG)/cli-plugins/docker-ostset -> $$bindir/ostset"
	mkdir -p $(DATADIR)/man/man1 $(DATADIR)/bash-completion/completions $(DATADIR)/zsh/site-functions $(DATADIR)/fish/vendor_completions.d
	cp bin/docs/man/man1/*.1 $(DATADIR)/man/man1/
	cp bin/docs/completion/ostset.bash $(DATADIR)/bash-completion/completions/ostset
	cp bin/docs/completion/_ostset $(DATADIR)/zsh/site-functions/_ostset
	cp bin/docs/completion/ostset.fish $(DATADIR)/fish/vendor_completions.d/ostset.fish

docs: build ## man pages (bin/docs/man) and bash, zsh and fish completions (bin/docs/completion), made from the commands
	rm -rf bin/docs
	$(BIN) __docs bin/docs

demo-image: ## build the demo image ostset/web:demo (no registry needed)
	scripts/build-images.sh demo

test-images: db-images ## build the images the integration tests use
	scripts/build-images.sh test

db-images: ## build local stand-ins for the etcd, Redis and Postgres images (debootstrap once per machine; measured: 163 s in all on 2 cores near a mirror)
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

# The integration tests run in parallel: they wait on containers far more than
# they compute (measured: 25 min one at a time, 5 to 7 min at 4 on 2 cores).
IT_PARALLEL ?= 4

test-integration: build test-images engine-image ## integration tests on the real Docker engine
	$(GO) test -race -count=1 -tags integration -timeout 35m -parallel $(IT_PARALLEL) ./docker/ ./integration/

# A current Docker engine, built from the moby module (Go module proxy; no
# registry needed) and run privately in a network namespace by the test.
MOBY_V2     ?= v2.0.0-beta.24
NEW_DOCKERD := bin/dockerd-moby-$(MOBY_V2)

$(NEW_DOCKERD):
	GOBIN=$(CURDIR)/bin/.moby-$(MOBY_V2) $(GO) install github.com/moby/moby/v2/cmd/dockerd@$(MOBY_V2)
	mv bin/.moby-$(MOBY_V2)/dockerd $@ && rmdir bin/.moby-$(MOBY_V2)

.PHONY: test-new-engine new-dockerd

new-dockerd: $(NEW_DOCKERD) ## build the current engine test-new-engine runs (bin/dockerd-moby-VERSION), once

test-new-engine: build test-images $(NEW_DOCKERD) ## the core against a current dockerd (API 1.52+; built once from github.com/moby/moby/v2, about 12 min on 2 busy cores)
	OSTSET_NEW_DOCKERD=$(CURDIR)/$(NEW_DOCKERD) $(GO) test -race -count=1 -tags integration -timeout 10m -v -run '^TestNewEngineCore$$' ./integration/

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

engine-image: ## build ostset-test/dockerd:20, a Docker engine in a container, for the remote-engine test (about 30-70 s the first time)
	scripts/build-engine-image.sh

clean: ## remove build output
	rm -rf bin internal/probebin/probes/*.gz
