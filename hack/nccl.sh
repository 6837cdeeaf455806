#!/usr/bin/env bash
# NCCL's headers and library for building the data plane's NCCL transport on a machine without a
# GPU: NVIDIA's `nvidia-nccl-cu13` wheel from PyPI, pinned to the NCCL the device machine has
# (2.28.9), unpacked under the user cache (outside the clone; the wheel is ~300 MB, fetched once).
# Only nvidia/nccl/{include,lib} are kept, with an unversioned libnccl.so for the linker.
#
# Usage: hack/nccl.sh            installs when missing (idempotent), prints the CMake arguments
#        hack/nccl.sh --root     prints the NCCL root only (include/nccl.h, lib/libnccl.so)
# Environment: NCCL_WHEEL_VERSION (2.28.9), SPIRAL_CACHE (${XDG_CACHE_HOME:-~/.cache}/spiralbench).
# Needs python3 with pip and network access to PyPI on the first run.
set -euo pipefail
VERSION=${NCCL_WHEEL_VERSION:-2.28.9}
CACHE=${SPIRAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}
PREFIX=$CACHE/nccl-$VERSION
STAMP=$PREFIX/.complete
log() { echo "nccl: $*" >&2; }

if [[ ! -e $STAMP ]]; then
  command -v python3 >/dev/null || { log "python3 is needed"; exit 1; }
  python3 -m pip --version >/dev/null 2>&1 || { log "python3 -m pip is needed (Debian: python3-pip)"; exit 1; }
  # a half-finished install (interrupted download) is thrown away, never patched up
  rm -rf "$PREFIX"
  mkdir -p "$CACHE"
  tmp=$(mktemp -d "$CACHE/nccl-$VERSION.partial.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  log "fetching the nvidia-nccl-cu13==$VERSION wheel into $PREFIX (once, ~300 MB)"
  python3 -m pip download -q --no-deps --only-binary=:all: --disable-pip-version-check --no-cache-dir \
    -d "$tmp/wheel" "nvidia-nccl-cu13==$VERSION" >&2
  wheel=$(ls "$tmp"/wheel/nvidia_nccl_cu13-*.whl)
  # the wheel is a zip; keep the headers and the library, nothing else
  python3 - "$wheel" "$tmp/unpacked" <<'EOF'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    for name in z.namelist():
        if name.startswith(("nvidia/nccl/include/", "nvidia/nccl/lib/")):
            z.extract(name, sys.argv[2])
EOF
  mkdir -p "$tmp/root"
  mv "$tmp/unpacked/nvidia/nccl/include" "$tmp/unpacked/nvidia/nccl/lib" "$tmp/root/"
  [[ -e $tmp/root/include/nccl.h ]] || { log "the wheel has no include/nccl.h"; exit 1; }
  # the wheel ships libnccl.so.2 only; the linker wants the unversioned name
  (cd "$tmp/root/lib" && [[ -e libnccl.so ]] || ln -s libnccl.so.2 libnccl.so)
  grep -q "define NCCL_VERSION_CODE" "$tmp/root/include/nccl.h" || { log "nccl.h without NCCL_VERSION_CODE"; exit 1; }
  mv "$tmp/root" "$PREFIX"
  echo "$PREFIX" >"$STAMP"
  rm -rf "$tmp"
  trap - EXIT
fi
ROOT=$(cat "$STAMP")
if [[ ${1:-} == --root ]]; then echo "$ROOT"; exit 0; fi
echo "-DSPIRAL_WITH_NCCL=ON -DNCCL_ROOT=$ROOT"
