#!/usr/bin/env bash
# Makes the folder a GPU machine needs for hack/gpu/device-run.sh when it can install nothing
# (the workplace's device tool): the data plane's sources and scripts from this checkout, plus
# Debian bookworm packages unpacked with dpkg -x under .deps/root:
#   build:  nlohmann-json3-dev, libcli11-dev, libgtest-dev (header-only or static, relocatable CMake configs),
#           libbsd-dev (DPDK's rte_string_fns.h includes bsd/string.h)
#   wire:   iproute2 (ip) and iputils-ping with their libraries; device-run.sh puts on
#           LD_LIBRARY_PATH only the ones the GPU machine lacks
#   bench:  iperf3 and jq with their libraries (hack/bench/sockets-vs-iperf3.sh, forward-vs-testpmd.sh);
#           hack/gpu/carried-tools.sh puts them on PATH as it does ip and ping
#   dpdk:   this host's DPDK 22.11 (libdpdk-dev) under .deps/dpdk: headers, the shared libraries
#           and what they need (not glibc/libstdc++), the vdev plugins and a relocatable
#           libdpdk.pc, so the device build has the raw transport (hack/gpu/dpdk-env.sh); and
#           this host's dpdk-testpmd (package dpdk, installed here when missing) in .deps/dpdk/bin
#           with the libraries it needs beyond those, which dpdk_env then offers as TESTPMD
# Usage: hack/gpu/carry.sh DEST     (e.g. .carry/gpu of the checkout the device tool sends)
# The .deb files are cached under ${SPIRAL_CACHE:-~/.cache/spiralbench}/gpu-carry-debs.
set -euo pipefail
DEST=${1:?usage: hack/gpu/carry.sh DEST}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${SPIRAL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}/gpu-carry-debs
PACKAGES=(nlohmann-json3-dev libcli11-dev libgtest-dev libbsd-dev iproute2 iputils-ping libbpf1 libelf1 libmnl0 libbsd0 libcap2
          libmd0 zlib1g libidn2-0 libunistring2 libxtables12 libtirpc3 iperf3 libiperf0 libsctp1 jq libjq1 libonig5)

mkdir -p "$CACHE"
missing=()
for p in "${PACKAGES[@]}"; do compgen -G "$CACHE/${p}_*.deb" >/dev/null || missing+=("$p"); done
if ((${#missing[@]})); then
  (cd "$CACHE" && apt-get download "${missing[@]}" >/dev/null)
fi

rm -rf "$DEST"
mkdir -p "$DEST/.deps/root"
# tracked files only (what a clone has), from this checkout's working tree
(cd "$ROOT" && git ls-files -z dataplane hack/netns-wire.sh hack/gpu hack/cuda-toolkit.sh hack/lib hack/bench/lib.sh \
  hack/bench/forward-vs-testpmd.sh hack/bench/sockets-vs-iperf3.sh hack/ceilings/measure.sh | xargs -0 tar -cf -) |
  tar -C "$DEST" -xf -
for deb in "$CACHE"/*.deb; do dpkg -x "$deb" "$DEST/.deps/root"; done
# DPDK: a sysroot the device's CMake finds through PKG_CONFIG_PATH (hack/gpu/dpdk-env.sh)
source "$ROOT/hack/lib/carry.sh"
D=$DEST/.deps/dpdk
mkdir -p "$D/include/x86_64-linux-gnu" "$D/lib/pkgconfig" "$D/pmds"
cp -r /usr/include/dpdk "$D/include/"
cp -r /usr/include/x86_64-linux-gnu/dpdk "$D/include/x86_64-linux-gnu/"
libs=$(sed -n 's/^Libs: //p' /usr/lib/x86_64-linux-gnu/pkgconfig/libdpdk-libs.pc | sed 's/-L${libdir}//')
core=()  # the libraries libdpdk links (the drivers are plugins: only the vdev ones come, in pmds/)
for l in $libs; do [[ $l == -lrte_* ]] && core+=("/usr/lib/x86_64-linux-gnu/lib${l#-l}.so"); done
for lib in "${core[@]}"; do
  real=$(readlink -f "$lib")
  cp "$real" "$D/lib/"
  soname=$(objdump -p "$real" | awk '/SONAME/ { print $2 }')
  ln -sf "$(basename "$real")" "$D/lib/$soname"
  ln -sf "$soname" "$D/lib/$(basename "$lib")"
done
for p in "${CARRY_DPDK_PMDS[@]}"; do cp "$(readlink -f "$CARRY_DPDK_PMD_DIR/$p.so")" "$D/pmds/$p.so"; done
carry_libs "$D/lib" "${core[@]}" "$D"/pmds/*.so
# dpdk-testpmd: it links more of DPDK than libdpdk (NIC drivers, bonding, pdump ...), which
# carry_libs adds to the same lib folder. It links the vdev bus itself, so it loads the plugins
# from pmds-testpmd, the same files less that one (loaded twice, a bus registers twice).
source "$ROOT/hack/lib/apt.sh"
apt_ensure carry dpdk
mkdir -p "$D/bin" "$D/pmds-testpmd"
cp "$(readlink -f /usr/bin/dpdk-testpmd)" "$D/bin/dpdk-testpmd"
carry_libs "$D/lib" "$D/bin/dpdk-testpmd"
for p in "${CARRY_DPDK_PMDS[@]}"; do [[ $p == librte_bus_vdev ]] || ln -s "../pmds/$p.so" "$D/pmds-testpmd/$p.so"; done
cat >"$D/lib/pkgconfig/libdpdk.pc" <<PC
prefix=\${pcfiledir}/../..
includedir=\${prefix}/include/dpdk
libdir=\${prefix}/lib

Name: DPDK
Description: DPDK $(pkg-config --modversion libdpdk) carried from $(hostname) (hack/gpu/carry.sh)
Version: $(pkg-config --modversion libdpdk)
Libs: -L\${libdir} -Wl,-rpath-link,\${libdir} $libs
Cflags: -I\${includedir}/../x86_64-linux-gnu/dpdk -I\${includedir} -include rte_config.h -march=corei7
PC
# CARRY_PERF=1: this host's perf (linux-perf) too, for raw-bench.sh's profile part and the
# PERF_DIR of the CPU-side comparisons; packed (.deps/perf.tgz: 28 MB of perf and its libraries
# would take the carry past the device tool's 64 MiB), unpacked by carried-tools.sh's setup_tools
rm -rf "$DEST/.deps/perf" "$DEST/.deps/perf.tgz"
if [[ ${CARRY_PERF:-0} == 1 ]]; then
  perf_dir=$(mktemp -d)
  mkdir -p "$perf_dir/perf/bin"
  cp "$(readlink -f "$(command -v perf)")" "$perf_dir/perf/perf.real"
  carry_libs "$perf_dir/perf/lib" "$perf_dir/perf/perf.real"
  printf '#!/bin/sh\nC=$(cd "$(dirname "$0")/.." && pwd)\nLD_LIBRARY_PATH="$C/lib" exec "$C/perf.real" "$@"\n' >"$perf_dir/perf/bin/perf"
  chmod +x "$perf_dir/perf/bin/perf"
  tar czf "$DEST/.deps/perf.tgz" -C "$perf_dir" perf
  rm -rf "$perf_dir"
fi
echo "$(git -C "$ROOT" rev-parse --short HEAD)$(git -C "$ROOT" diff --quiet HEAD || echo +dirty)" >"$DEST/.carry-commit"
rm -rf "$DEST/.deps/root/usr/share/doc" "$DEST/.deps/root/usr/share/man" "$DEST/.deps/root/usr/share/locale"
echo "carry: $(du -sh "$DEST" | cut -f1) in $DEST ($(cat "$DEST/.carry-commit"))"
