# Local cluster, images, S3 server, Helm chart and the end-to-end smoke test. Included by the
# root Makefile (-include mk/cluster.mk); also usable alone: make -f Makefile -f mk/cluster.mk TARGET
# See docs/local-cluster.md.
HELM_VERSION ?= v3.22.0
LOCALBIN     ?= $(CURDIR)/bin
HELM         ?= $(LOCALBIN)/helm-$(HELM_VERSION)
CHART        ?= charts/spiralbench
export HELM

##@ Local cluster
.PHONY: cluster-up cluster-down cluster-status s3-up s3-down s3-smoke images helm chart-sync chart-verify e2e-smoke

cluster-up: ## Start the single-node cluster (root); prints the kubeconfig path.
	hack/local-cluster.sh up

cluster-down: ## Stop the cluster and put the host back as it was.
	hack/local-cluster.sh down

cluster-status: ## What of the cluster runs, and what it left on the host.
	hack/local-cluster.sh status

s3-up: ## Start the versitygw S3 server on 127.0.0.1 (S3_PORT, default 7070).
	hack/s3-server.sh up

s3-down: ## Stop the S3 server and delete its data.
	hack/s3-server.sh down

s3-smoke: ## Write, stop (unreachable), restart, read back, down: the S3 server's fault-test path.
	hack/s3-smoke.sh

images: ## Build bin/manager and the image tarballs (build/images/); import them when the cluster runs.
	hack/build-images.sh all
	@if hack/local-cluster.sh running; then hack/local-cluster.sh load build/images/*.tar; \
	else echo "cluster not running: tarballs left in build/images/"; fi

helm: $(HELM) ## Build Helm (HELM_VERSION, v3.22.0) into bin/.

# The version ldflag matters: an unstamped helm calls itself v3.0.0-unreleased... and refuses
# charts whose kubeVersion range it then misjudges.
$(HELM):
	hack/go-install-tool.sh $@ helm.sh/helm/v3/cmd/helm $(HELM_VERSION) \
	  "-s -w -X helm.sh/helm/v3/internal/version.version=$(HELM_VERSION)"

chart-sync: ## Copy the generated CRDs and RBAC rules from config/ into the chart.
	hack/chart-sync.sh

chart-verify: $(HELM) ## Fail when the chart's CRD/RBAC copies are stale; helm lint and template checks.
	hack/chart-sync.sh --check
	hack/chart-test.sh

e2e-smoke: $(HELM) ## Cluster up, images, helm install, a SpiralBench Accepted, uninstall, cluster down.
	hack/e2e-smoke.sh
