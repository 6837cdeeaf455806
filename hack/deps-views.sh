#!/usr/bin/env bash
# Installs the Debian packages the report and dashboard tests drive: Debian's chromium (the HTML
# report is opened headless, screenshotted and its DOM read), prometheus (it scrapes the manager
# and evaluates every dashboard query and alert rule) and tmux (the live view is read with
# capture-pane). Idempotent: a no-op in well under a second when all are present.
set -euo pipefail
PACKAGES=(chromium prometheus tmux fonts-dejavu-core)

missing=()
for p in "${PACKAGES[@]}"; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
done
((${#missing[@]} == 0)) && exit 0

if [[ $(id -u) != 0 ]]; then
  echo "deps-views: missing ${missing[*]}; run as root (or install them) first" >&2
  exit 1
fi
echo "deps-views: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp); trap 'rm -f "$log"' EXIT
install() { apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >>"$log" 2>&1; }
# a concurrent apt run can clean the archive cache under us: one retry fixes that
if ! { apt-get update -qq >>"$log" 2>&1 && { install || install; }; }; then
  tail -n 20 "$log" >&2
  echo "deps-views: apt-get failed" >&2
  exit 1
fi
# Debian's prometheus package starts a daemon on :9090; the tests run their own on a free port.
systemctl disable --now prometheus >/dev/null 2>&1 || true
