#!/usr/bin/env bash
# Prints the directory of a Debian bookworm rootfs (debootstrap minbase plus the given packages),
# built once and cached outside the clone; the cache key is the sorted package list.
#
#   hack/debian-rootfs.sh [PACKAGE...]      e.g. hack/debian-rootfs.sh iproute2 libstdc++6
#
# The mirror is the one apt already uses on this machine.
set -euo pipefail
CACHE=${SPIRALBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}
SUITE=${DEBIAN_SUITE:-bookworm}
pkgs=$(printf '%s\n' "$@" | sort -u | paste -sd, -)
key=$(printf '%s' "$pkgs" | sha256sum | cut -c1-12)
dir="$CACHE/rootfs-$SUITE-$key"
if [[ -f "$dir.complete" ]]; then echo "$dir"; exit 0; fi

mirror() { # first apt source that serves $SUITE (deb822 .sources or one-line .list)
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [[ -f $f ]] && awk -v s="$SUITE" '/^URIs:/ {u=$2} /^Suites:/ {for (i=2;i<=NF;i++) if ($i==s) print u}' "$f"
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f $f ]] && awk -v s="$SUITE" '$1=="deb" && $3==s {print $2}' "$f"
  done
  true
}
url=$(mirror | head -n1)
[[ -n $url ]] || { echo "no apt source for $SUITE in /etc/apt" >&2; exit 1; }
command -v debootstrap >/dev/null || "$(dirname "$0")/cluster-deps.sh"

tmp="$dir.tmp.$$"
cleanup() { # debootstrap mounts proc/sys in the target; never rm -rf through a mount
  awk -v r="$tmp" 'index($2, r "/") == 1 {print $2}' /proc/self/mounts | sort -r | xargs -r umount -l
  rm -rf --one-file-system "$tmp"
}
trap cleanup EXIT
mkdir -p "$CACHE"
echo "debootstrap $SUITE minbase +[$pkgs] into $dir" >&2
t0=$SECONDS
if ! debootstrap --variant=minbase ${pkgs:+--include="$pkgs"} "$SUITE" "$tmp" "$url" >"$tmp.log" 2>&1; then
  tail -n 20 "$tmp.log" >&2; rm -f "$tmp.log"; exit 1
fi
rm -f "$tmp.log"
# Package downloads and indexes are not part of an image.
rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/* "$tmp"/var/log/*.log
rm -rf "$dir" && mv "$tmp" "$dir" && touch "$dir.complete"
echo "rootfs ready in $((SECONDS - t0))s: $(du -sh "$dir" | cut -f1)" >&2
echo "$dir"
