# Sourced by the hack/deps-*.sh scripts: installs the Debian packages that are missing, as root,
# quietly, showing apt's log only when it fails. A no-op in well under a second when all are present.
#   apt_ensure NAME PACKAGE...     (NAME prefixes the messages)
apt_ensure() {
  local name=$1; shift
  local missing=() p
  for p in "$@"; do
    # ${Status} is "install ok installed" for an installed package
    [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null) == "install ok installed" ]] || missing+=("$p")
  done
  ((${#missing[@]} == 0)) && return 0
  if [[ $(id -u) != 0 ]]; then
    echo "$name: missing ${missing[*]}; run as root (or install them) first" >&2
    return 1
  fi
  echo "$name: installing ${missing[*]}"
  local log; log=$(mktemp)
  _apt_install() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "$@" >>"$log" 2>&1; }
  # a concurrent apt run can clean the archive cache under us: one retry fixes that
  if ! { apt-get update -qq >>"$log" 2>&1 && { _apt_install "${missing[@]}" || _apt_install "${missing[@]}"; }; }; then
    tail -n 20 "$log" >&2
    rm -f "$log"
    echo "$name: apt-get failed" >&2
    return 1
  fi
  rm -f "$log"
}
