#!/usr/bin/env bash
# Prints build/stack.env, the file a user sources after `make demo` (hack/stack.sh up writes it):
#
#   hack/stack-env.sh KUBECONFIG S3_ENDPOINT K8S_BIN ROOT
#
# The bucket's endpoint and keys go out under two sets of names: S3_* (the scripts' and
# test/e2e's, kept for them) and the ones sbctl and other S3 clients read (SBCTL_S3_ENDPOINT,
# AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY), so sbctl reaches the bucket with nothing more set.
# S3_ACCESS_KEY, S3_SECRET_KEY, S3_BUCKET, S3_HOST, S3_PORT: as hack/stack.sh has them.
set -euo pipefail
(($# == 4)) || { echo "usage: $0 KUBECONFIG S3_ENDPOINT K8S_BIN ROOT" >&2; exit 2; }
kubeconfig=$1 endpoint=$2 k8s_bin=$3 root=$4
key=${S3_ACCESS_KEY:-spiralbench-test} secret=${S3_SECRET_KEY:-spiralbench-test-secret}
cat <<ENV
export KUBECONFIG=$kubeconfig
export S3_ENDPOINT=$endpoint SBCTL_S3_ENDPOINT=$endpoint
export S3_ACCESS_KEY=$key S3_SECRET_KEY=$secret
export AWS_ACCESS_KEY_ID=$key AWS_SECRET_ACCESS_KEY=$secret
export S3_BUCKET=${S3_BUCKET:-spiralbench-results} S3_HOST=${S3_HOST:-10.244.0.1} S3_PORT=${S3_PORT:-7070}
export SPIRALBENCH_NAMESPACE=${SPIRALBENCH_NAMESPACE:-spiralbench-system} SPIRALBENCH_RELEASE=${SPIRALBENCH_RELEASE:-spiralbench}
# the cluster's own kubectl, and sbctl with its kubectl plugin (make sbctl)
export PATH=$k8s_bin:$root/bin:\$PATH
ENV
