# Sourced by hack/gpu/device-run.sh on a GPU machine without DPDK: points the build at the DPDK
# that hack/gpu/carry.sh packed under .deps/dpdk (Debian bookworm's 22.11) and the runs at its
# libraries and plugins. Only the libraries this machine lacks go on LD_LIBRARY_PATH (its own
# glibc, libstdc++, OpenSSL, zlib ... stay in charge), through a folder of links.
#   dpdk_env CARRIED_DPDK_DIR LINK_DIR   sets PKG_CONFIG_PATH, LD_LIBRARY_PATH, SPIRAL_EAL_ARGS, and
#                                        TESTPMD / TESTPMD_EAL_ARGS for the carried dpdk-testpmd when
#                                        the machine has none; returns 1 (nothing set) when the
#                                        folder is absent
dpdk_env() {
  local carried=$1 links=$2 lib soname have
  [[ -f $carried/lib/pkgconfig/libdpdk.pc ]] || return 1
  mkdir -p "$links"
  have=$(ldconfig -p)  # the machine's libraries, read once
  for lib in "$carried"/lib/*.so.*; do
    soname=$(basename "$lib")
    [[ $soname == librte_* ]] || ! grep -q "^[[:space:]]*$soname " <<<"$have" || continue
    ln -sf "$lib" "$links/$soname"
  done
  export PKG_CONFIG_PATH=$carried/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
  export LD_LIBRARY_PATH=$links${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # the plugins (vdev bus, memif, af_packet, ...) from the carried folder, not the EAL's built-in path
  export SPIRAL_EAL_ARGS="-d $carried/pmds${SPIRAL_EAL_ARGS:+ $SPIRAL_EAL_ARGS}"
  # testpmd links the vdev bus: its plugin folder leaves that one out (hack/gpu/carry.sh)
  if [[ -x $carried/bin/dpdk-testpmd ]] && ! command -v "${TESTPMD:-dpdk-testpmd}" >/dev/null; then
    export TESTPMD=$carried/bin/dpdk-testpmd
    export TESTPMD_EAL_ARGS="-d $carried/pmds-testpmd${TESTPMD_EAL_ARGS:+ $TESTPMD_EAL_ARGS}"
  fi
}
