# Sourced by the scripts that pack Debian binaries for a machine that installs nothing (the GPU
# machine of the device tool, Ubuntu 24.04): its glibc and libstdc++ are newer than bookworm's,
# so those stay the target's and every other shared library comes along.
#   carry_libs DEST FILE...   copies the libraries FILE... need (ldd), except glibc/libstdc++, into DEST
carry_libs() {
  local dest=$1; shift
  mkdir -p "$dest"
  ldd "$@" 2>/dev/null | awk '$3 ~ /^\// { print $3 }' | sort -u |
    grep -vE '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so' |
    while read -r lib; do cp -L "$lib" "$dest/"; done
}

# The DPDK plugins a run over virtual devices loads (-d DIR): vdev bus, ring mempool, memif,
# af_packet, af_xdp, ring.
CARRY_DPDK_PMDS=(librte_bus_vdev librte_mempool_ring librte_net_memif librte_net_af_packet librte_net_af_xdp librte_net_ring)
CARRY_DPDK_PMD_DIR=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0

# carry_binaries DEST BINARY...: each binary (a path, or a command looked up in PATH) to DEST/real,
# its libraries to DEST/lib (carry_libs), and a wrapper of the same name to DEST/bin that runs it
# against those libraries only.
carry_binaries() {
  local dest=$1 tool path
  shift
  mkdir -p "$dest"/{bin,real,lib}
  for tool in "$@"; do
    path=$(command -v "$tool") || { echo "carry: $tool not found" >&2; return 1; }
    cp -L "$path" "$dest/real/"
  done
  carry_libs "$dest/lib" "$dest"/real/*
  for tool in "$dest"/real/*; do
    cat >"$dest/bin/$(basename "$tool")" <<'WRAP'
#!/bin/sh
# carried Debian binary: its libraries from this folder, nothing installed
C=$(cd "$(dirname "$0")/.." && pwd)
LD_LIBRARY_PATH="$C/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$C/real/$(basename "$0")" "$@"
WRAP
    chmod +x "$dest/bin/$(basename "$tool")"
  done
}
