#!/usr/bin/env bash
# The CUDA toolkit for building the data plane's GPU code on a machine without a GPU: NVIDIA's
# PyPI wheels (nvcc, cudart, cuBLAS, cuFFT, CCCL), pinned, in a venv under the user cache
# (outside the clone, ~1.4 GB installed, ~830 MB downloaded once).
#
# Usage: hack/cuda-toolkit.sh            installs when missing (idempotent), prints the CMake arguments
#        hack/cuda-toolkit.sh --root     prints the toolkit root only
# Environment: CUDA_WHEELS_VERSION (13.4.3), SPIRAL_CACHE (${XDG_CACHE_HOME:-~/.cache}/spiralbench).
# Needs python3 with venv (Debian: python3-venv) and network access to PyPI on the first run.
set -euo pipefail
VERSION=${CUDA_WHEELS_VERSION:-13.4.3}
CACHE=${SPIRAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}
PREFIX=$CACHE/cuda-$VERSION
STAMP=$PREFIX/.complete
log() { echo "cuda-toolkit: $*" >&2; }

if [[ ! -e $STAMP ]]; then
  command -v python3 >/dev/null || { log "python3 is needed"; exit 1; }
  python3 -c 'import venv, ensurepip' 2>/dev/null || {
    log "python3 venv/ensurepip missing: installing python3-venv"
    [[ $(id -u) == 0 ]] || { log "run as root or install python3-venv"; exit 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
  }
  # a half-finished install (interrupted download) is thrown away, never patched up
  rm -rf "$PREFIX"
  mkdir -p "$CACHE"
  tmp=$(mktemp -d "$CACHE/cuda-$VERSION.partial.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  log "installing cuda-toolkit $VERSION wheels into $PREFIX (once, ~830 MB)"
  python3 -m venv "$tmp/venv"
  "$tmp/venv/bin/pip" install -q --no-cache-dir --disable-pip-version-check \
    "cuda-toolkit[nvcc,cudart,cublas,cufft,cccl]==$VERSION" >&2
  mv "$tmp" "$PREFIX"
  trap - EXIT
  # a venv records its own path in its scripts: it stays valid because we never move it again
  ROOT=$("$PREFIX/venv/bin/python" -c 'import nvidia, os; print(os.path.join(nvidia.__path__[0], "cu13"))')
  # the wheels ship versioned libraries only; FindCUDAToolkit wants the unversioned names
  (cd "$ROOT/lib" && for f in lib*.so.*; do b=${f%%.so.*}.so; [[ -e $b ]] || ln -s "$f" "$b"; done)
  [[ -x $ROOT/bin/nvcc ]] || { log "no nvcc in $ROOT"; exit 1; }
  echo "$ROOT" >"$STAMP"
fi
ROOT=$(cat "$STAMP")
if [[ ${1:-} == --root ]]; then echo "$ROOT"; exit 0; fi
echo "-DSPIRAL_WITH_CUDA=ON -DCMAKE_CUDA_COMPILER=$ROOT/bin/nvcc -DCUDAToolkit_ROOT=$ROOT"
