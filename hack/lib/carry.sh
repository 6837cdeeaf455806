# shellcheck shell=bash
# Sourced by the hack/bench/*-carry.sh scripts: carries Debian binaries to a machine that installs
# nothing (the 16-core GPU machine of the device tool). Each binary goes to DEST/real, the shared
# libraries they use to DEST/lib (except glibc and libstdc++: the target's own are newer), and a
# wrapper of the same name to DEST/bin that runs it against those libraries only.
#   carry_binaries DEST BINARY...     (paths; command names are looked up in PATH)
#   CARRY_WRAPPER_ENV='NAME=$C/... '  (optional: more variables the wrappers set, $C is the carry folder)
carry_binaries() {
  local dest=$1 tool path
  shift
  mkdir -p "$dest"/{bin,real,lib}
  for tool in "$@"; do
    path=$(command -v "$tool") || { echo "carry: $tool not found" >&2; return 1; }
    cp -L "$path" "$dest/real/"
  done
  for tool in "$dest"/real/*; do ldd "$tool"; done | awk '$3 ~ /^\// { print $3 }' | sort -u |
    grep -vE '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s|ld-linux-x86-64)\.so' |
    while read -r lib; do cp -L "$lib" "$dest/lib/"; done
  for tool in "$dest"/real/*; do
    cat >"$dest/bin/$(basename "$tool")" <<WRAP
#!/bin/sh
# carried Debian binary: its libraries from this folder, nothing installed
C=\$(cd "\$(dirname "\$0")/.." && pwd)
LD_LIBRARY_PATH="\$C/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}" ${CARRY_WRAPPER_ENV:-}exec "\$C/real/\$(basename "\$0")" "\$@"
WRAP
    chmod +x "$dest/bin/$(basename "$tool")"
  done
}
