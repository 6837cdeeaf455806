# Sourced by hack/gpu/device-run.sh, tcp-gap.sh and gaps-run.sh: setup_tools puts ip, ping, ss,
# iperf3 and jq on PATH, from the Debian packages hack/gpu/carry.sh unpacked under $DEPS when the
# machine lacks them, with only the libraries it lacks (under $TOOLS/lib), and perf when the carry
# packed it (CARRY_PERF=1: .deps/perf.tgz, compressed to keep the carry under the device tool's
# 64 MiB). Needs DEPS and TOOLS set.
setup_tools() {
  mkdir -p "$TOOLS/bin" "$TOOLS/lib"
  local tool bin lib src
  for tool in ip ping ss iperf3 jq; do
    command -v "$tool" >/dev/null && continue
    bin=
    for d in bin sbin usr/bin usr/sbin; do [[ -x $DEPS/$d/$tool ]] && bin=$DEPS/$d/$tool && break; done
    [[ -n $bin ]] || { echo "no $tool carried"; continue; }
    for _ in 1 2 3 4; do  # a carried library may need another one
      for lib in $(LD_LIBRARY_PATH=$TOOLS/lib ldd "$bin" | awk '/not found/ {print $1}'); do
        for src in "$DEPS/lib/x86_64-linux-gnu/$lib" "$DEPS/usr/lib/x86_64-linux-gnu/$lib"; do
          [[ -e $src ]] && cp -L "$src" "$TOOLS/lib/" && echo "$tool: carried $lib" && break
        done
      done
    done
    # prepends: what `ip netns exec` starts (spiral with a carried DPDK) keeps its libraries
    printf '#!/bin/sh\nLD_LIBRARY_PATH=%s${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s "$@"\n' "$TOOLS/lib" "$bin" >"$TOOLS/bin/$tool"
    chmod +x "$TOOLS/bin/$tool"
    echo "$tool -> $bin"
  done
  export PATH=$TOOLS/bin:$PATH
  local packed=$DEPS/../perf.tgz
  if [[ -f $packed ]] && ! command -v perf >/dev/null; then
    [[ -x $TOOLS/perf/bin/perf ]] || tar xzf "$packed" -C "$TOOLS"
    export PATH=$PATH:$TOOLS/perf/bin
    echo "perf -> $TOOLS/perf/bin/perf"
  fi
  ip -V
}
