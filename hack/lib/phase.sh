# shellcheck shell=bash
# Sourced by the long scripts (hack/demo.sh, hack/stack.sh, hack/e2e.sh) and the one-time builds
# they call. Each phase prints a line saying what it does, whether a later run repeats it and how
# far along the run is (phase k of n), then how long it took. Its details (go: downloading,
# compiler and apt output) go to a log file; when it fails, the phase, its exit status and the
# log's tail are printed and the status is returned.
#
#   phase_init NAME TOTAL       a run of TOTAL phases logging to build/logs/NAME.log (PHASE_LOG_DIR);
#                               a script it starts joins it: one count, one log
#   phase_run TITLE WHEN CMD... the next phase: CMD (errexit on) with its output in the log. WHEN:
#                               once (cached: a warm machine skips the work), every, or a text
#   phase_begin TITLE WHEN      a phase whose output stays on the terminal ...
#   phase_end RC                ... ends with CMD's status RC; returns it
#   phase_summary               the time of each phase, and the total
#   phase_exit RC               for an EXIT trap: a phase left open failed (set -e ended the
#                               script in it); then the summary. Returns RC
#
# Call phase_run as a plain command (not after if, || or &&): there bash turns errexit off
# inside CMD. Lines go to stderr, so stdout stays the scripts' result (a path, an endpoint).
# Inside a phase (PHASE_NESTED) a script's phases only print their line, into the parent's log.

_phase_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)

# _phase_fmt SECONDS: "42 s", "7 min 12 s", "1 h 3 min"
_phase_fmt() {
  local s=$1
  if ((s < 60)); then echo "$s s"
  elif ((s < 3600)); then echo "$((s / 60)) min $((s % 60)) s"
  else echo "$((s / 3600)) h $((s % 3600 / 60)) min"; fi
}

# Bold and red only for a person at a terminal; CI logs get plain text.
_phase_say() { # STYLE TEXT
  if [[ -t 2 && -z ${NO_COLOR:-} ]]; then printf '\033[%sm%s\033[0m\n' "$1" "$2" >&2
  else printf '%s\n' "$2" >&2; fi
}

phase_init() { # NAME TOTAL
  local dir=${PHASE_LOG_DIR:-$_phase_root/build/logs}
  [[ -n ${PHASE_STATE:-} && -d $PHASE_STATE ]] && return 0 # started by a run: join it
  mkdir -p "$dir"
  # the count and times live beside the log: a script this run starts reads and adds to them
  export PHASE_LOG="$dir/$1.log" PHASE_STATE="$dir/.$1.phases" PHASE_TOTAL=$2
  rm -rf "$PHASE_STATE" && mkdir -p "$PHASE_STATE"
  : >"$PHASE_LOG"
  echo 0 >"$PHASE_STATE/count"
  _phase_say 1 "$1: ${2:+$2 phases; }details in $PHASE_LOG"
}

phase_begin() { # TITLE WHEN
  local when=$2
  case $when in
    once) when="one-time: cached under ${SPIRALBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/spiralbench}" ;;
    every) when="every run" ;;
  esac
  _phase_title=$1 _phase_t0=$SECONDS _phase_open=1
  if [[ -n ${PHASE_NESTED:-} ]]; then _phase_say 0 "  -> $1 ($when)"; return 0; fi
  [[ -n ${PHASE_STATE:-} ]] || phase_init "$(basename "$0" .sh)" ""
  _phase_k=$(($(cat "$PHASE_STATE/count") + 1))
  echo "$_phase_k" >"$PHASE_STATE/count"
  _phase_n="[$_phase_k${PHASE_TOTAL:+/$PHASE_TOTAL}]"
  _phase_from=$(($(wc -l <"$PHASE_LOG") + 3)) # this phase's own lines, after its header
  printf '\n==== %s %s (%s) %s\n' "$_phase_n" "$1" "$when" "$(date -u +%FT%TZ)" >>"$PHASE_LOG"
  _phase_say 1 "==> $_phase_n $1 ($when)"
}

phase_end() { # RC
  local rc=$1 took=$((SECONDS - _phase_t0))
  _phase_open=
  [[ -n ${PHASE_NESTED:-} ]] && return "$rc"
  printf '%s\t%s\n' "$took" "$_phase_title" >>"$PHASE_STATE/times"
  if ((rc == 0)); then
    _phase_say 0 "    $_phase_n done in $(_phase_fmt "$took")"
    return 0
  fi
  _phase_say 31 "!!! $_phase_n FAILED (exit $rc) after $(_phase_fmt "$took"): $_phase_title"
  # a phase whose output stayed on the terminal has none in the log
  if (($(wc -l <"$PHASE_LOG") >= _phase_from)); then
    _phase_say 0 "--- the phase's last ${PHASE_TAIL_LINES:-40} lines of output:"
    tail -n "+$_phase_from" "$PHASE_LOG" | tail -n "${PHASE_TAIL_LINES:-40}" >&2
  fi
  _phase_say 31 "--- $_phase_title failed; the whole log: $PHASE_LOG"
  return "$rc"
}

phase_run() { # TITLE WHEN CMD...
  local rc errexit=0
  phase_begin "$1" "$2"
  shift 2
  [[ $- == *e* ]] && errexit=1
  set +e
  if [[ -n ${PHASE_NESTED:-} ]]; then (set -e; "$@"); rc=$?
  else (set -e; export PHASE_NESTED=1; "$@") >>"$PHASE_LOG" 2>&1 </dev/null; rc=$?; fi
  ((errexit)) && set -e
  phase_end "$rc"
}

phase_summary() {
  [[ -n ${PHASE_STATE:-} && -f $PHASE_STATE/times && -z ${PHASE_NESTED:-} ]] || return 0
  echo "== time per phase:"
  awk -F'\t' '{ printf "  %6d s  %s\n", $1, $2; s += $1 } END { printf "  %6d s  total\n", s }' "$PHASE_STATE/times"
  echo "(details: $PHASE_LOG)"
}

phase_exit() { # RC
  [[ -n ${_phase_open:-} && $1 != 0 ]] && { phase_end "$1" || true; }
  phase_summary >&2
  return "$1"
}
