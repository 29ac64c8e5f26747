# seedscaler — `make demo` runs the whole stack locally, `make test` runs every check.
# Tool binaries are built once from the Go module proxy into a cache outside the repo
# (hack/tools/build.sh); every target below builds what it needs on first use.

SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

GO       ?= go
VERSION  ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS  := -X main.version=$(VERSION)
# The tag the chart installs by default (its appVersion), so that the image `make image`
# writes is the one `helm install` runs without --set image.tag.
IMAGE_TAG ?= $(shell sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$$/\1/p' charts/seedscaler/Chart.yaml)
IMAGE     ?= seedscaler/seedscaler:$(IMAGE_TAG)
TOOLS    := hack/tools/build.sh

CONTROLLER_GEN = $(shell $(TOOLS) --dir controller-gen)/controller-gen
GOLANGCI_LINT  = $(shell $(TOOLS) --dir golangci-lint)/golangci-lint
HELM           = $(shell $(TOOLS) --dir helm)/helm
PROMETHEUS     = $(shell $(TOOLS) --dir prometheus)/prometheus
PROMTOOL       = $(shell $(TOOLS) --dir promtool)/promtool
ENVTEST_DIR    = $(shell $(TOOLS) --dir envtest)
GARDENER_DIR   = $(shell $(TOOLS) --dir gardener-apiserver)

# What integration tests read to find the real binaries (test/framework/testenv), and the image
# the tests on the one-node cluster install.
TEST_ENV = KUBEBUILDER_ASSETS=$(ENVTEST_DIR) SEEDSCALER_PROMETHEUS=$(PROMETHEUS) \
           SEEDSCALER_PROMTOOL=$(PROMTOOL) SEEDSCALER_HELM=$(HELM) \
           SEEDSCALER_IMAGE=$(CURDIR)/bin/seedscaler-image.tar \
           SEEDSCALER_GARDENER_APISERVER=$(GARDENER_DIR)/gardener-apiserver \
           SEEDSCALER_GARDENER_SCHEDULER=$(GARDENER_DIR)/gardener-scheduler \
           SEEDSCALER_GARDENER_CONTROLLER_MANAGER=$(GARDENER_DIR)/gardener-controller-manager

# The one-node cluster (hack/cluster): the node runs these Debian packages besides the tool
# cache's binaries, and keeps its state, data and logs in CLUSTER_DIR.
NODE_PACKAGES := containerd runc containernetworking-plugins iptables conntrack iproute2 ipset
CLUSTER_DIR   ?= /var/lib/seedscaler-cluster

# Generated files: deepcopy next to the API types; CRDs, RBAC rules, alert rules and
# dashboards in the chart's files/ (Helm reads only files inside the chart); each part's RBAC
# as a chart template (quoted: a pattern for git, which also sees a deleted one).
GENERATED := api charts/seedscaler/files alerts/seedscaler.rules.test.yaml \
             'charts/seedscaler/templates/*/rbac-generated.yaml'

# Each part's RBAC comes from the +kubebuilder:rbac markers beside its code: part=packages,...
# controller-gen writes files/rbac/<part>/role.yaml, and hack/chartrbac turns it into the
# template templates/<part>/rbac-generated.yaml.
RBAC_PARTS := scheduler=./scheduler/... \
              seed-controller=./seedmanagement/managedseed/...,./seedmanagement/seed/...,./internal/objectlock/... \
              set-controller=./seedmanagement/managedseedset/...,./internal/objectlock/... \
              exporter=./exporter/... \
              adapter=./adapter/rbac/... \
              autoscaler=./autoscaler/...,./internal/objectlock/...

.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"} /^[a-z0-9-]+:.*##/ {printf "  %-17s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: tools
tools: ## Build every tool binary into the cache (first run only: ~30 min on 2 cores).
	$(TOOLS) controller-gen helm envtest prometheus promtool golangci-lint node gardener

.PHONY: node-packages
node-packages: ## Install the Debian packages the one-node cluster runs (containerd, runc, CNI plugins).
	@missing=$$(for p in $(NODE_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" != 0 ]; then echo "the one-node cluster needs these Debian packages; install them as root:" $$missing; exit 1; fi; \
	  echo "installing" $$missing; apt-get update -qq; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; fi

.PHONY: generate
generate: ## Regenerate deepcopy functions, CRDs and the chart's RBAC from the API types and markers.
	$(TOOLS) controller-gen
	$(CONTROLLER_GEN) object:headerFile=hack/boilerplate.go.txt paths=./api/...
	@# Every CRD is a chart template switched per API group (crds.gardenerCore,
	@# crds.seedManagement, crds.autoscaling), not crds/: a garden cluster already serves
	@# Gardener's two groups, and no Gardener release serves autoscaling.seedscaler.io.
	rm -rf charts/seedscaler/files/core-crds charts/seedscaler/files/seedmanagement-crds charts/seedscaler/files/autoscaling-crds
	mkdir -p charts/seedscaler/files/core-crds charts/seedscaler/files/autoscaling-crds
	$(CONTROLLER_GEN) crd paths=./api/... output:crd:artifacts:config=charts/seedscaler/files/seedmanagement-crds
	mv charts/seedscaler/files/seedmanagement-crds/core.gardener.cloud_*.yaml charts/seedscaler/files/core-crds/
	mv charts/seedscaler/files/seedmanagement-crds/autoscaling.seedscaler.io_*.yaml charts/seedscaler/files/autoscaling-crds/
	@# Every quantity of the CRDs at most 64 characters with an exponent of at most 3 digits
	@# (resource.ParseQuantity hangs on a huge one): no marker reaches a map's values.
	$(GO) run ./hack/crdquantity charts/seedscaler/files/*-crds/*.yaml
	@for part in $(RBAC_PARTS); do \
	  name=$${part%%=*}; pkgs=$$(echo "$${part#*=}" | tr , ';'); dir=charts/seedscaler/files/rbac/$$name; \
	  rm -rf $$dir; mkdir -p $$dir; \
	  if ls $${pkgs%%/...*} >/dev/null 2>&1; then \
	    $(CONTROLLER_GEN) rbac:roleName=seedscaler-$$name paths="$$pkgs" output:rbac:artifacts:config=$$dir; \
	  fi; \
	done
	$(GO) run ./hack/chartrbac --rbac charts/seedscaler/files/rbac --templates charts/seedscaler/templates
	rm -rf charts/seedscaler/files/dashboards charts/seedscaler/files/alerts
	mkdir -p charts/seedscaler/files/dashboards charts/seedscaler/files/alerts
	cp dashboards/*.json charts/seedscaler/files/dashboards/
	cp alerts/seedscaler.rules.yaml charts/seedscaler/files/alerts/
	@if python3 -c 'import yaml' 2>/dev/null; then python3 hack/alerts/gen-tests.py; \
	  else echo "python3 with PyYAML not found: alerts/seedscaler.rules.test.yaml left as it is"; fi

.PHONY: lint
lint: ## Run golangci-lint (.golangci.yml) with the kube-api-linter and logcheck plugins.
	$(TOOLS) golangci-lint
	$(GOLANGCI_LINT) run ./...

.PHONY: verify
verify: generate lint verify-layers ## Fail when generated files are stale, or lint, gofmt or go vet complain.
	@if [ -n "$$(git status --porcelain -- $(GENERATED))" ]; then \
	  echo "generated files are stale or uncommitted; run 'make generate' and commit:"; \
	  git status --porcelain -- $(GENERATED); exit 1; fi
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then \
	  echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi
	$(GO) vet ./...
	@# bench only adds the benchmarks' harness tests to what integration builds, so one
	@# pass vets both.
	$(GO) vet -tags integration,bench ./...
	@# Tests that need a kube-apiserver or a tool binary only build with -tags integration,
	@# so that plain `go test ./...` runs without tools: the suites under test/ (not the test
	@# framework's own unit tests, nor test/layout's), and any test file that starts an
	@# environment or asks for a tool.
	@untagged=$$(git grep -l -E 'testenv\.(Start|RunTests|Tool)\(|SEEDSCALER_IMAGE' -- '*_test.go'; \
	  git ls-files 'test/*_test.go' | grep -v -e '^test/framework/' -e '^test/layout/'); \
	untagged=$$(for f in $$untagged; do head -n 1 $$f | grep -q '^//go:build.*\bintegration\b' || echo $$f; done | sort -u); \
	if [ -n "$$untagged" ]; then echo "these test files need tools but lack '//go:build integration' as their first line:"; \
	  echo "$$untagged"; exit 1; fi
	@# Docs and comments describe the product as it is, in its own words: no rounds of work,
	@# issue numbers or sections of design documents users do not have.
	@hist=$$(git grep -n -I -i -E '\b(session|sessions)\b|\bissue #?[0-9]+|DESIGN(\.md)? ?§|DESIGN\.md' \
	  -- docs README.md '*.go' | grep -v -i -E 'sessionaffinity|session ?token|tls session' || true); \
	if [ -n "$$hist" ]; then echo "docs or code speak of how work went, not of the product:"; echo "$$hist"; exit 1; fi

.PHONY: verify-layers
verify-layers: ## Fail when a package is in none of the test layers beneath `make test`.
	@all=$$($(GO) list -tags integration ./...); \
	layers=$$($(GO) list -tags integration $(INTEGRATION_PKGS) $(E2E_PKGS) $(NODE_PKGS)); \
	missing=$$(echo "$$all" | grep -vxF -e "$$layers" || true); \
	if [ -n "$$missing" ]; then echo "packages in no test layer (test-integration, test-e2e, test-node):"; echo "$$missing"; exit 1; fi

.PHONY: build
build: ## Build bin/seedscaler (the parts) and bin/seedscaler-dev (the demo, the simulator, the benchmarks).
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/seedscaler ./cmd/seedscaler
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/seedscaler-dev ./cmd/seedscaler-dev

.PHONY: image
image: ## Write the image the chart installs as bin/seedscaler-image.tar (no Docker engine needed).
	GOOS=linux GOARCH=amd64 CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o bin/seedscaler-linux-amd64 ./cmd/seedscaler
	cd hack/tools/image && $(GO) run . -binary ../../../bin/seedscaler-linux-amd64 \
	  -tag $(IMAGE) -out ../../../bin/seedscaler-image.tar

# Flags for `make demo`, e.g. `make demo DEMO_FLAGS="--duration=3m --keep"`.
DEMO_FLAGS ?=

.PHONY: demo
demo: build ## Run the whole stack locally against a simulated day of demand (~6 min).
	$(TOOLS) envtest prometheus
	$(TEST_ENV) bin/seedscaler-dev local $(DEMO_FLAGS)

.PHONY: cluster-up
cluster-up: image node-packages ## Start a one-node cluster with the image imported; prints its kubeconfig last.
	$(TOOLS) envtest prometheus node
	$(GO) run ./hack/cluster up --dir $(CLUSTER_DIR) --image bin/seedscaler-image.tar

.PHONY: cluster-down
cluster-down: ## Stop the one-node cluster and undo everything cluster-up did.
	$(GO) run ./hack/cluster down --dir $(CLUSTER_DIR)

.PHONY: demo-cluster
demo-cluster: build image node-packages ## The demo with the parts as the chart's pods on a one-node cluster (root).
	$(TOOLS) envtest prometheus node
	$(TEST_ENV) bin/seedscaler-dev local --cluster --image bin/seedscaler-image.tar $(DEMO_FLAGS)

.PHONY: test
test: verify fuzz tools image node-packages ## Everything a change must pass: verify, fuzzing, unit, integration and node tests.
	$(TEST_ENV) $(GO) test -count=1 -timeout 60m -tags integration ./...

# The layers of `make test`, each usable alone (docs/development.md): unit tests need no tool;
# integration runs every package but the end-to-end and node suites with the real binaries;
# end-to-end runs the whole stack on loopback and against a real Gardener garden; node installs
# the chart onto a real one-node cluster (root). `make test` runs them all in one `go test`, so
# that packages run side by side.
E2E_PKGS  := ./test/e2e/... ./test/garden/...
NODE_PKGS := ./test/cluster/...
INTEGRATION_PKGS = $(shell $(GO) list -tags integration ./... | grep -v -e '/test/e2e' -e '/test/garden' -e '/test/cluster')

.PHONY: test-env
test-env: ## Print the variables integration tests read, for `eval "$$(make -s test-env)"`.
	@for v in $(TEST_ENV); do echo "export $$v"; done

# How long `make fuzz` runs each fuzz target: seconds as part of `make test`, `make fuzz
# FUZZTIME=5m` for the long run.
FUZZTIME ?= 5s

.PHONY: fuzz
fuzz: ## Run every fuzz target (go test -fuzz) for FUZZTIME each, one after the other.
	FUZZTIME=$(FUZZTIME) hack/fuzz.sh

.PHONY: test-unit
test-unit: ## The unit tests alone: plain `go test ./...`, no tools needed.
	$(GO) test ./...

.PHONY: test-integration
test-integration: ## Unit and integration tests of every package but the end-to-end and node suites.
	$(TOOLS) envtest prometheus promtool helm gardener
	$(TEST_ENV) $(GO) test -count=1 -timeout 60m -tags integration $(INTEGRATION_PKGS)

.PHONY: test-e2e
test-e2e: ## The whole stack on loopback (test/e2e) and against a real Gardener garden (test/garden).
	$(TOOLS) envtest prometheus promtool helm gardener
	$(TEST_ENV) $(GO) test -count=1 -timeout 60m -tags integration $(E2E_PKGS)

.PHONY: test-node
test-node: image node-packages ## The chart's pods on a real one-node cluster, beside Gardener too (root).
	$(TOOLS) envtest prometheus promtool helm node gardener
	$(TEST_ENV) $(GO) test -count=1 -timeout 60m -tags integration $(NODE_PKGS)

.PHONY: bench
bench: tools bench-harness ## Run the benchmarks (figures go into docs/performance.md).
	$(TEST_ENV) $(GO) test -tags integration -timeout 1h -run '^$$' -bench . -benchmem ./...

.PHONY: bench-harness
bench-harness: tools ## Test the benchmarks' harnesses (the fleet run at its smallest, about 3 minutes); not part of `make test`.
	$(TEST_ENV) $(GO) test -tags integration,bench -count=1 -timeout 30m ./dev/...

# `make bench-reaction`: REACTION_STEPS up steps of demand, each followed by a down step (5
# and 5 take about 5 minutes, 20 and 20 about 12); REACTION_AUTOSCALER_ARGS go after the
# autoscaler's own flags, e.g. REACTION_AUTOSCALER_ARGS=--sync-period=5s.
REACTION_STEPS ?= 5
REACTION_AUTOSCALER_ARGS ?=

.PHONY: bench-reaction
bench-reaction: ## Measure how fast the whole loop reacts to steps of demand, stage by stage (report/<timestamp>/reaction.csv).
	$(TOOLS) envtest prometheus
	$(TEST_ENV) SEEDSCALER_REACTION_STEPS=$(REACTION_STEPS) SEEDSCALER_REACTION_AUTOSCALER_ARGS="$(REACTION_AUTOSCALER_ARGS)" \
	  $(GO) test -tags integration -count=1 -run '^$$' -bench '^BenchmarkReaction$$' -benchtime 1x -timeout 3h ./test/e2e/

# `make bench-fleet`: the whole stack on the fleet profile, FLEET_SEEDS seeds (100 tenant
# shoots each) for FLEET_DURATION of wall time. On 2 cores 1,000 seeds fill in about 55
# minutes (the kube-apiserver's write rate), and then hold for the steady figures.
# GARDENER=1 runs the fleet in a real Gardener garden: gardener-apiserver serves the shoots,
# seeds and sets, gardener-controller-manager reconciles the sets, gardener-scheduler binds.
FLEET_SEEDS ?= 1000
FLEET_DURATION ?= 80m
GARDENER ?=
# With GARDENER=1: who binds the tenants, gardener-scheduler (empty) or seedscaler.
FLEET_SCHEDULER ?=
# Simulated seconds per wall second; empty for the profile's 120. A garden on 2 cores keeps
# up with the tenants' churn only at a lower speed.
FLEET_SPEED ?=

.PHONY: bench-fleet
bench-fleet: build bench-harness ## Measure every process of the stack on a fleet of FLEET_SEEDS seeds (report/<timestamp>/fleet.csv); GARDENER=1 in a Gardener garden.
	$(TOOLS) envtest prometheus $(if $(GARDENER),gardener)
	@# The parts run as the image's build (no development packages), as deployed.
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-s -w $(LDFLAGS)" -o bin/seedscaler-parts ./cmd/seedscaler
	$(TEST_ENV) bin/seedscaler-dev local --profile fleet --fleet-seeds $(FLEET_SEEDS) --duration $(FLEET_DURATION) \
	  --parts-binary bin/seedscaler-parts $(if $(FLEET_SPEED),--speed $(FLEET_SPEED)) \
	  $(if $(GARDENER),--gardener $(if $(FLEET_SCHEDULER),--fleet-scheduler=$(FLEET_SCHEDULER)))

# A demand trace to replay instead of the built-in week: `make bench-autoscaling TRACE=file.csv`
# (columns minute,shoots).
TRACE ?=
# The built-in week (`--week`): working-day (the default), holiday-launch, or long-lived (shoots with lifetimes,
# with and without consolidation): `make bench-autoscaling WEEK=long-lived`.
WEEK ?=

.PHONY: bench-autoscaling
bench-autoscaling: build ## Measure the autoscaler's policies on a week of demand in simulated time (report/<timestamp>/).
	bin/seedscaler-dev bench-autoscaling $(if $(TRACE),--trace $(TRACE)) $(if $(WEEK),--week $(WEEK))

# The landscape `make scheduler-diff` compares the two schedulers on, and their strategy.
LANDSCAPE ?= examples/gardener/scheduler-diff.yaml
STRATEGY ?= SameRegion

.PHONY: scheduler-diff
scheduler-diff: ## Place LANDSCAPE's shoots under gardener-scheduler and seedscaler's scheduler; report/<timestamp>/scheduler-diff.csv and the agreement.
	$(TOOLS) envtest gardener
	$(TEST_ENV) $(GO) run ./hack/schedulerdiff --landscape $(LANDSCAPE) --strategy $(STRATEGY)

.PHONY: demo-gardener
demo-gardener: build ## The demo's day in a real Gardener garden: gardener-apiserver, -scheduler and -controller-manager beside the parts.
	$(TOOLS) envtest prometheus gardener
	$(TEST_ENV) bin/seedscaler-dev local --gardener $(DEMO_FLAGS)
