#!/usr/bin/env bash
# Builds real Kubernetes binaries (kube-apiserver, kubectl, etcd; with `cluster` also the
# controller-manager, scheduler and kubelet) from the Go module proxy into a versioned cache
# outside the clone, so every fresh clone on this machine reuses them.
#
#   hack/k8s-assets.sh [envtest|cluster]   -> prints the asset directory on the last line
#
# Why a wrapper module: `go install k8s.io/kubernetes/cmd/...` is refused because kubernetes'
# go.mod replaces its staging modules with local paths; we replace them with the published tags.
set -euo pipefail
K8S_VERSION=${K8S_VERSION:-1.35.4}
ETCD_VERSION=${ETCD_VERSION:-3.6.5}
CACHE=${SPIRALBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}
BIN="$CACHE/k8s-$K8S_VERSION"
WORK="$CACHE/work"
export CGO_ENABLED=0 GOFLAGS=-buildvcs=false GOTOOLCHAIN=local
mkdir -p "$BIN" "$WORK"
# a build is a phase: one line here, the module downloads and compiler output in build/logs/
source "$(dirname "$0")/lib/phase.sh"

case "${1:-envtest}" in
  envtest) cmds=(kube-apiserver kubectl) ;;
  cluster) cmds=(kube-apiserver kubectl kube-controller-manager kube-scheduler kubelet) ;;
  *) echo "usage: $0 [envtest|cluster]" >&2; exit 2 ;;
esac

is_current() { # binary already reports the wanted version
  local flag=--version
  [[ $1 == kubectl ]] && flag="version --client"
  local out
  # Capture first: grep -q closing the pipe early would fail the pipeline under pipefail.
  [[ -x "$BIN/$1" ]] && out=$("$BIN/$1" $flag 2>/dev/null) && grep -q "v$K8S_VERSION\b" <<<"$out"
}

todo=()
for c in "${cmds[@]}"; do is_current "$c" || todo+=("$c"); done
build_k8s() {
  mod="$WORK/k8s-$K8S_VERSION"; mkdir -p "$mod"
  if [[ ! -f "$mod/go.sum" ]]; then
    kmod=$(go mod download -json "k8s.io/kubernetes@v$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
    {
      printf 'module k8sbuild\n\ngo %s\n\nrequire k8s.io/kubernetes v%s\n\nreplace (\n' \
        "$(go env GOVERSION | sed 's/^go\([0-9]*\.[0-9]*\).*/\1/')" "$K8S_VERSION"
      grep -E '=> \./staging/src/' "$kmod" | awk -v v="v0.${K8S_VERSION#*.}" '{print "\t" $1 " => " $1 " " v}'
      printf ')\n'
    } >"$mod/go.mod"
    {
      printf '//go:build tools\n\npackage tools\n\nimport (\n'
      for c in kube-apiserver kube-controller-manager kube-scheduler kubelet kubectl; do
        printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$c"
      done
      printf ')\n'
    } >"$mod/tools.go"
    (cd "$mod" && go mod tidy)
  fi
  minor=${K8S_VERSION#*.}; minor=${minor%%.*}
  ld=""
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    # Stamped versions: Helm refuses charts with a kubeVersion range against v0.0.0-master.
    ld+=" -X $p.gitVersion=v$K8S_VERSION -X $p.gitMajor=1 -X $p.gitMinor=$minor -X $p.gitTreeState=clean"
  done
  pkgs=(); for c in "${todo[@]}"; do pkgs+=("k8s.io/kubernetes/cmd/$c"); done
  (cd "$mod" && go build -trimpath -ldflags "-s -w$ld" -o "$BIN/" "${pkgs[@]}")
}
# if, not ||: after || bash would turn errexit off inside the build
if ((${#todo[@]})); then phase_run "build ${todo[*]} v$K8S_VERSION into $BIN" once build_k8s; fi

etcd_version=$([[ -x "$BIN/etcd" ]] && "$BIN/etcd" --version 2>/dev/null || true)
build_etcd() {
  mod="$WORK/etcd-$ETCD_VERSION"; mkdir -p "$mod"
  printf 'package main\n\nimport (\n\t"os"\n\n\t"go.etcd.io/etcd/server/v3/etcdmain"\n)\n\nfunc main() { etcdmain.Main(os.Args) }\n' >"$mod/main.go"
  if [[ ! -f "$mod/go.sum" ]]; then
    (cd "$mod" && { [[ -f go.mod ]] || go mod init etcdbuild >/dev/null 2>&1; } &&
      go get "go.etcd.io/etcd/server/v3@v$ETCD_VERSION" && go mod tidy)
  fi
  (cd "$mod" && go build -trimpath -ldflags "-s -w" -o "$BIN/etcd" .)
}
if ! grep -q "etcd Version: $ETCD_VERSION$" <<<"$etcd_version"; then
  phase_run "build etcd $ETCD_VERSION into $BIN" once build_etcd
fi
echo "$BIN"
