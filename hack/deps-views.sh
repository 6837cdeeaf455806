#!/usr/bin/env bash
# Installs the Debian packages the report and dashboard tests drive: Debian's chromium (the HTML
# report is opened headless, screenshotted and its DOM read), prometheus (it scrapes the manager
# and evaluates every dashboard query and alert rule), tmux (the live view is read with
# capture-pane) and python3-matplotlib (pkg/report runs DAQIRI's plot_mq_payload_sweep.py on
# the DAQIRI layout). Idempotent: a no-op in well under a second when all are present.
set -euo pipefail
PACKAGES=(chromium prometheus tmux fonts-dejavu-core python3-matplotlib)

source "$(dirname "$0")/lib/apt.sh"
apt_ensure deps-views "${PACKAGES[@]}"
# Debian's prometheus package starts a daemon on :9090; the tests run their own on a free port.
systemctl disable --now prometheus >/dev/null 2>&1 || true
