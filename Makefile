# SpiralBench — operator (Go) and data plane (C++). `make help` lists the targets.
SHELL := /usr/bin/env bash -o pipefail
.SHELLFLAGS := -ec
.DEFAULT_GOAL := help

# Tool versions, pinned in one place.
K8S_VERSION            ?= 1.35.4
ETCD_VERSION           ?= 3.6.5
CONTROLLER_GEN_VERSION ?= v0.20.1
KUSTOMIZE_VERSION      ?= v5.8.2
STATICCHECK_VERSION    ?= v0.8.2

export GOTOOLCHAIN := local
export K8S_VERSION ETCD_VERSION
LOCALBIN       ?= $(CURDIR)/bin
CONTROLLER_GEN ?= $(LOCALBIN)/controller-gen-$(CONTROLLER_GEN_VERSION)
KUSTOMIZE      ?= $(LOCALBIN)/kustomize-$(KUSTOMIZE_VERSION)
STATICCHECK    ?= $(LOCALBIN)/staticcheck-$(STATICCHECK_VERSION)
GO_TEST_FLAGS  ?= -count=1

##@ General
.PHONY: help
help: ## Show the targets.
	@awk 'BEGIN {FS = ":.*##"} /^[a-zA-Z_0-9-]+:.*?##/ { printf "  %-18s %s\n", $$1, $$2 } /^##@/ { printf "\n%s\n", substr($$0, 5) }' $(MAKEFILE_LIST)

##@ Main commands
.PHONY: demo
demo: ## Build everything, bring up a local cluster + S3 + the operator (Helm), run the TCP sweep sample, print its results and the time per phase.
	hack/demo.sh

##@ Development
.PHONY: manifests
manifests: $(CONTROLLER_GEN) ## Generate the CRD and RBAC manifests under config/.
	$(CONTROLLER_GEN) rbac:roleName=spiralbench-manager crd paths="./..." output:crd:artifacts:config=config/crd/bases output:rbac:artifacts:config=config/rbac

.PHONY: generate
generate: $(CONTROLLER_GEN) ## Generate the kinds' admission rules, DeepCopy methods and the data plane's limits header (api/limits/limits.json).
	go run ./hack/gen-admission api/v1alpha1/zz_generated_admission.go
	$(CONTROLLER_GEN) object:headerFile="hack/boilerplate.go.txt" paths="./..."
	go run ./hack/gen-limits > dataplane/generated/spiral/limits.hpp

.PHONY: api-docs
api-docs: manifests ## Render docs/api-reference.md from the CRD and docs/security.md's permission tables from config/rbac.
	go run ./hack/apidocs config/crd/bases/spiralbench.io_spiralbenches.yaml config/crd/bases/spiralbench.io_spiralbenchfleets.yaml config/crd/bases/spiralbench.io_spiralbenchnoderesults.yaml config/crd/bases/spiralbench.io_spiralbenchattemptresults.yaml > docs/api-reference.md
	go run ./hack/rbacdocs -w docs/security.md

.PHONY: fmt
fmt: ## go fmt.
	go fmt ./...

.PHONY: vet
vet: ## go vet.
	go vet ./...

.PHONY: lint
lint: $(STATICCHECK) vet ## go vet and staticcheck.
	$(STATICCHECK) ./...

.PHONY: verify
verify: $(CONTROLLER_GEN) $(KUSTOMIZE) lint ## Fail when generated files are stale, kustomize cannot build, or gofmt/vet/staticcheck complain.
	CONTROLLER_GEN=$(CONTROLLER_GEN) hack/verify-generated.sh
	$(KUSTOMIZE) build config/default >/dev/null
	$(KUSTOMIZE) build config/samples >/dev/null
	go run ./hack/apidocs config/crd/bases/spiralbench.io_spiralbenches.yaml config/crd/bases/spiralbench.io_spiralbenchfleets.yaml config/crd/bases/spiralbench.io_spiralbenchnoderesults.yaml config/crd/bases/spiralbench.io_spiralbenchattemptresults.yaml | diff -q - docs/api-reference.md >/dev/null || { echo "docs/api-reference.md is stale: run make api-docs"; exit 1; }
	go run ./hack/rbacdocs docs/security.md
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { gofmt -l $$(git ls-files '*.go'); echo "gofmt: run make fmt"; exit 1; }
	@! git grep -nE '[Ii]ssues? [0-9]+' -- ':!dataplane/tests/data' || { echo "tracker issue numbers above: say what the thing is instead"; exit 1; }
	python3 hack/dataplane-layers.py >/dev/null || { python3 hack/dataplane-layers.py; echo "data plane layering: see hack/dataplane-layers.py"; exit 1; }

.PHONY: envtest
envtest: ## Build (or reuse) kube-apiserver and etcd for the integration tests.
	@hack/k8s-assets.sh envtest >/dev/null

.PHONY: test
test: verify test-go test-dataplane test-e2e ## Everything CI runs: verify, Go unit + envtest tests, data plane tests, e2e on a local cluster.

.PHONY: deps-views
deps-views: ## Install chromium, prometheus, tmux and matplotlib for the report, dashboard, live-view and DAQIRI plot tests.
	hack/deps-views.sh

.PHONY: fleet-scale-assets
fleet-scale-assets: ## Build (or reuse) kube-scheduler (hack/k8s-assets.sh cluster) and KWOK for test/fleetscale.
	@hack/k8s-assets.sh cluster >/dev/null && hack/kwok.sh >/dev/null

.PHONY: test-go
test-go: envtest fleet-scale-assets deps-views ## Go unit tests and integration tests against a real kube-apiserver + etcd, then a short fuzz run.
	hack/s3-server.sh build # pkg/bucket uploads to the project's own S3 server (versitygw)
	KUBEBUILDER_ASSETS="$$(hack/k8s-assets.sh envtest | tail -n1)" go test $(GO_TEST_FLAGS) $$(go list ./... | grep -v /test/e2e)
	$(MAKE) fuzz-short

# Go fuzz targets over what pods write (termination messages) and the rules judging it:
# package and function. hack/bench/fuzz.sh runs them long.
FUZZ_TARGETS := pkg/summary:FuzzParseAndMerge pkg/acceptance:FuzzJudge pkg/acceptance:FuzzCompareBaseline
FUZZ_TIME    ?= 5s

.PHONY: fuzz-short fuzz-targets
fuzz-short: ## Each Go fuzz target for FUZZ_TIME (5s); a crasher lands in testdata/fuzz and fails the run.
	@FUZZ_TIME=$(FUZZ_TIME) hack/fuzz-short.sh $(FUZZ_TARGETS)

fuzz-targets:
	@for t in $(FUZZ_TARGETS); do echo "$${t%%:*} $${t##*:}"; done

.PHONY: test-e2e
test-e2e: dataplane helm ## End to end on a real local cluster with the operator installed by Helm and a real S3 server.
	hack/e2e.sh

##@ Build
.PHONY: build
build: generate ## Build the manager binary.
	go build -o $(LOCALBIN)/manager ./cmd/manager

.PHONY: sbctl
sbctl: ## Build bin/sbctl, also as the kubectl plugin bin/kubectl-spiralbench with its completion helper.
	go build -o $(LOCALBIN)/sbctl ./cmd/sbctl
	ln -sf sbctl $(LOCALBIN)/kubectl-spiralbench
	install -m 0755 cmd/sbctl/kubectl_complete-spiralbench $(LOCALBIN)/kubectl_complete-spiralbench

.PHONY: run
run: manifests generate ## Run the manager against the current kubeconfig.
	go run ./cmd/manager

# Data plane targets (dataplane, test-dataplane) and the local cluster, S3 server, images and
# chart (cluster-up, s3-up, images, chart-verify, ...) live in their own fragments.
-include mk/dataplane.mk
-include mk/cluster.mk

##@ Tools
$(LOCALBIN):
	mkdir -p $@

$(CONTROLLER_GEN): | $(LOCALBIN)
	hack/go-install-tool.sh $@ sigs.k8s.io/controller-tools/cmd/controller-gen $(CONTROLLER_GEN_VERSION)
$(KUSTOMIZE): | $(LOCALBIN)
	hack/go-install-tool.sh $@ sigs.k8s.io/kustomize/kustomize/v5 $(KUSTOMIZE_VERSION)
$(STATICCHECK): | $(LOCALBIN)
	hack/go-install-tool.sh $@ honnef.co/go/tools/cmd/staticcheck $(STATICCHECK_VERSION)
