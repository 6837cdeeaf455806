#!/usr/bin/env bash
# Installs the Debian packages the local cluster, the image builder and the S3 server need,
# and only when one is missing, so a warm machine skips apt entirely (no `apt-get update`).
set -euo pipefail
pkgs=(containerd runc containernetworking-plugins iptables nftables openssl ca-certificates curl debootstrap)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
((${#missing[@]})) || exit 0
echo "installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get -q update >/dev/null
apt-get -o DPkg::Lock::Timeout=900 install -y -q --no-install-recommends "${missing[@]}" >/dev/null
