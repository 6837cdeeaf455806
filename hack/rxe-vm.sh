#!/usr/bin/env bash
# Real RDMA for hosts whose kernel has none: a QEMU (TCG) guest booting Debian's own kernel,
# which has Soft-RoCE (rdma_rxe), with this host's / shared read-only as its root. Inside, two rxe
# devices sit on the two ends of a veth pair (hack/rxe-vm/guest.sh), and the host's binaries
# (spiral-dataplane, perftest, iproute2) run against real ibverbs.
#
# Usage:
#   hack/rxe-vm.sh prepare       install the host packages, fetch and unpack Debian's kernel,
#                                build the initramfs; cached, a no-op when done
#   hack/rxe-vm.sh run CMD...    prepare, boot, run each CMD (one shell command, from the
#                                repository root) in order, power off; prints each command's
#                                output and exit code; exits 0 when every CMD exited 0, else 1
#   hack/rxe-vm.sh status        the cached kernel, and whether this host can run the VM
#   hack/rxe-vm.sh clean         removes the cache
#
# Inside the guest each CMD sees RXE_VM=1, RXE_A=rxe0 NETDEV_A=veth0 IP_A=10.99.0.1 and
# RXE_B=rxe1 NETDEV_B=veth1 IP_B=10.99.0.2, and its own TMPDIR. Everything stays inside the
# guest (QEMU has no network device).
#
# Environment (defaults): RXE_VM_SMP=2 (vCPUs), RXE_VM_MEM_MB=2048, RXE_VM_MTU=9000,
#   RXE_VM_TIMEOUT=900 (seconds for the whole boot), RXE_VM_CMD_TIMEOUT=300 (per command),
#   RXE_VM_KERNEL (a Debian kernel ABI such as 6.1.0-56-amd64; default: the newest cached one,
#   else the one linux-image-amd64 depends on), RXE_VM_CACHE (default
#   ${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench), RXE_VM_KEEP=1 keeps the run's work folder.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
CACHE=${RXE_VM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}
SMP=${RXE_VM_SMP:-2}
MEM=${RXE_VM_MEM_MB:-2048}
MTU=${RXE_VM_MTU:-9000}
VM_TIMEOUT=${RXE_VM_TIMEOUT:-900}
CMD_TIMEOUT=${RXE_VM_CMD_TIMEOUT:-300}
HOST_PACKAGES=(qemu-system-x86 busybox-static cpio kmod iproute2 ibverbs-providers ibverbs-utils perftest)
# Soft-RoCE, the verbs device files, 9p for the root and veth; rxe needs crc32 from the crypto API
# ("rdma link add" fails with a bare "No such file or directory" without it).
MODULES=(crc32_generic crc32-pclmul virtio_pci 9pnet_virtio 9p veth ib_uverbs rdma_rxe)

log() { echo "rxe-vm: $*" >&2; }
die() { log "$*"; exit 1; }

install_packages() {
  local missing=() p
  for p in "${HOST_PACKAGES[@]}"; do
    [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  [[ $(id -u) == 0 ]] || die "missing ${missing[*]}; install them (as root) first"
  log "installing ${missing[*]}"
  local out
  out=$(mktemp)
  # a concurrent apt run can clean the archive cache under us: one retry fixes that
  if ! { apt-get update -qq >>"$out" 2>&1 &&
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$out" 2>&1 ||
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >>"$out" 2>&1; }; }; then
    tail -n 20 "$out" >&2
    rm -f "$out"
    die "apt-get failed"
  fi
  rm -f "$out"
}

# The kernel ABI to use: asked for, else the newest one already cached, else Debian's current.
kernel_version() {
  if [[ -n ${RXE_VM_KERNEL:-} ]]; then
    echo "$RXE_VM_KERNEL"
    return
  fi
  local cached
  cached=$(find "$CACHE" -maxdepth 1 -name 'rxe-vm-*' -type d 2>/dev/null | sort -V | tail -n 1)
  if [[ -n $cached && -f $cached/complete ]]; then
    basename "$cached" | sed 's/^rxe-vm-//'
    return
  fi
  local pkg
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  if [[ -z $pkg ]]; then
    apt-get update -qq >/dev/null 2>&1 || true
    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
  fi
  [[ -n $pkg ]] || die "cannot tell which kernel linux-image-amd64 depends on (apt-cache depends)"
  echo "${pkg#linux-image-}"
}

# The stamp names what the initramfs was built from: a changed init or module list rebuilds it.
stamp_text() { echo "modules: ${MODULES[*]}"; sha256sum <"$HERE/rxe-vm/init"; }

prepare() {
  install_packages
  KVER=$(kernel_version)
  VMDIR=$CACHE/rxe-vm-$KVER
  if [[ -f $VMDIR/complete && $(cat "$VMDIR/complete") == "$(stamp_text)" ]]; then
    return 0
  fi
  mkdir -p "$CACHE"
  exec 9>"$CACHE/rxe-vm.lock"
  flock 9  # one builder at a time; the others find it done
  if [[ -f $VMDIR/complete && $(cat "$VMDIR/complete") == "$(stamp_text)" ]]; then
    return 0
  fi
  local started build
  started=$(date +%s)
  build=$(mktemp -d "$CACHE/rxe-vm-build.XXXXXX")
  mkdir -p "$VMDIR"
  log "preparing Debian kernel $KVER in $VMDIR"
  if [[ ! -f $VMDIR/vmlinuz || ! -d $VMDIR/modules ]]; then
    # (apt warns that _apt cannot read the folder and downloads as root: harmless)
    (cd "$build" && apt-get download -q "linux-image-$KVER" 2>&1 | { grep -v "unsandboxed as root" >&2 || true; }) ||
      die "apt-get download linux-image-$KVER failed (is the package still on the mirror? set RXE_VM_KERNEL)"
    dpkg-deb -x "$build"/linux-image-"$KVER"_*.deb "$build/kpkg"
    depmod -b "$build/kpkg" "$KVER"
    # keep only the kernel and the modules the VM loads
    rm -rf "$VMDIR/modules"
    mkdir -p "$VMDIR/modules"
    local m line n=0
    for m in "${MODULES[@]}"; do
      while read -r line; do
        [[ $line == insmod* ]] || continue
        line=${line#insmod }
        line=${line%% *}
        if ! grep -qxF "$(basename "$line")" "$VMDIR/modules/order" 2>/dev/null; then
          cp "$line" "$VMDIR/modules/"
          basename "$line" >>"$VMDIR/modules/order"
          n=$((n + 1))
        fi
      done < <(modprobe -d "$build/kpkg" -S "$KVER" --show-depends "$m")
    done
    ((n > 0)) || die "no modules found for ${MODULES[*]} in linux-image-$KVER"
    cp "$build/kpkg/boot/vmlinuz-$KVER" "$VMDIR/vmlinuz"
  fi
  # initramfs: busybox, the modules in load order, init
  local rd=$build/initramfs
  mkdir -p "$rd"/{bin,proc,sys,dev,host,tmp,mods}
  cp /bin/busybox "$rd/bin/busybox"
  ln -s busybox "$rd/bin/sh"
  cp "$VMDIR"/modules/*.ko "$rd/mods/"
  cp "$VMDIR/modules/order" "$rd/mods/order"
  install -m 0755 "$HERE/rxe-vm/init" "$rd/init"
  (cd "$rd" && find . | cpio -o -H newc --quiet | gzip -1 >"$VMDIR/initrd.gz.new")
  mv "$VMDIR/initrd.gz.new" "$VMDIR/initrd.gz"
  stamp_text >"$VMDIR/complete"
  rm -rf "$build"
  log "prepared in $(($(date +%s) - started)) s: $(du -sh "$VMDIR" | cut -f1), modules: $(tr '\n' ' ' <"$VMDIR/modules/order")"
}

run() {
  (($# > 0)) || die "run: give at least one command"
  prepare
  [[ $ROOT != *" "* ]] || die "the repository path must not contain spaces: $ROOT"
  local work i=1 cmd
  work=$(mktemp -d "${TMPDIR:-/tmp}/rxe-vm-run.XXXXXX")
  # shellcheck disable=SC2064
  trap "[[ \${RXE_VM_KEEP:-0} == 1 ]] && echo 'rxe-vm: kept $work' >&2 || rm -rf '$work'" EXIT
  for cmd in "$@"; do
    printf '%s\n' "$cmd" >"$work/cmd.$i"
    i=$((i + 1))
  done
  printf 'REPO=%q\nMTU=%q\nCMD_TIMEOUT=%q\n' "$ROOT" "$MTU" "$CMD_TIMEOUT" >"$work/env"
  local started rc=0
  started=$(date +%s)
  log "booting Debian $KVER under QEMU (TCG, $SMP vCPU, $MEM MiB) for $# command(s)"
  # -nic none: the guest has no network device; its only links are the veth pair it makes.
  # The guest's progress lines stream to stderr as they come; the whole console is kept.
  timeout -k 10 "$VM_TIMEOUT" qemu-system-x86_64 -accel tcg -cpu max -smp "$SMP" -m "$MEM" \
    -nographic -no-reboot -nic none \
    -kernel "$VMDIR/vmlinuz" -initrd "$VMDIR/initrd.gz" \
    -append "console=ttyS0 panic=-1 quiet loglevel=3 mitigations=off spiral.guest=$ROOT/hack/rxe-vm/guest.sh spiral.repo=$ROOT" \
    -virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
    -virtfs "local,path=$ROOT,mount_tag=repo,security_model=none,readonly=on,multidevs=remap" \
    -virtfs "local,path=$work,mount_tag=work,security_model=none,multidevs=remap" \
    </dev/null 2>&1 | tee "$work/console.log" | { grep --line-buffered -a -o $'rxe-vm[^\r]*' >&2 || true; }
  rc=${PIPESTATUS[0]}
  local booted=$(($(date +%s) - started))
  if [[ ! -f $work/done ]]; then
    tail -n 30 "$work/console.log" >&2
    ((rc == 124)) && die "the VM ran past RXE_VM_TIMEOUT=${VM_TIMEOUT}s"
    die "the guest did not finish its command list (QEMU exit $rc); console above"
  fi
  [[ $(cat "$work/setup.rc") == 0 ]] || die "Soft-RoCE set-up failed in the guest: $(cat "$work/setup.log")"
  local failed=0 n=$# got
  for ((i = 1; i <= n; i++)); do
    got=$(cat "$work/rc.$i" 2>/dev/null || echo missing)
    echo "=== [$i] $(cat "$work/cmd.$i") -> exit $got"
    cat "$work/out.$i" 2>/dev/null || true
    [[ $got == 0 ]] || failed=$((failed + 1))
  done
  echo "rxe-vm: $((n - failed)) of $n command(s) passed, VM run ${booted} s"
  ((failed == 0))
}

status() {
  local d
  for d in "$CACHE"/rxe-vm-*/; do
    [[ -f $d/complete ]] && echo "cached: $d ($(du -sh "$d" | cut -f1))"
  done
  command -v qemu-system-x86_64 >/dev/null && echo "qemu: $(qemu-system-x86_64 --version | head -n 1)" || echo "qemu: not installed"
  local devices=(/sys/class/infiniband/*)
  if [[ -e ${devices[0]} ]]; then
    echo "this host has RDMA devices: ${devices[*]##*/}"
  else
    echo "this host has no RDMA devices: the tests need the VM"
  fi
}

case ${1:-} in
  prepare) prepare ;;
  run) shift; run "$@" ;;
  status) status ;;
  clean) rm -rf "$CACHE"/rxe-vm-* "$CACHE/rxe-vm.lock" ;;
  *) sed -n '2,28p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
