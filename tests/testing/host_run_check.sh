#!/usr/bin/env bash
# The host_run fixture: no test may leave driver-facts cache files of its own mock driver roots
# in the host's /run/nvidia-container-toolkit (docs/driver-facts-cache.md). Every test runs with
# NVCT_DRIVER_FACTS_CACHE_DIR pointing into the build tree, the shim hands it on to the hook, and
# the engines the tests start hand it on to the shim; a path that loses it writes the default
# directory, and this check names the driver root that did.
#
#   host_run_check.sh before <marker>   records the start of the run (the marker's mtime)
#   host_run_check.sh after <marker>    fails if a cache file there was written since, for a
#                                       driver root other than a real node's (/ and
#                                       /run/nvidia/driver: a real driver's containers may run
#                                       beside the tests)
# NVCT_HOST_RUN_DIR replaces /run/nvidia-container-toolkit (the self-check below uses it).
set -euo pipefail
dir="${NVCT_HOST_RUN_DIR:-/run/nvidia-container-toolkit}"
mode="${1:?before|after}"
marker="${2:?marker file}"

offenders() {
  local f root
  [ -d "$dir" ] || return 0
  for f in "$dir"/driver-facts-*.json "$dir"/.driver-facts-*; do
    [ -e "$f" ] || continue
    [ "$f" -nt "$marker" ] || continue
    root="$(grep -o '"root":"[^"]*"' "$f" 2>/dev/null | head -1 | cut -d'"' -f4)" || true
    case "$root" in
      / | /run/nvidia/driver) ;;
      *) echo "$f (driver root ${root:-unknown})" ;;
    esac
  done
}

case "$mode" in
  before)
    mkdir -p "$(dirname "$marker")"
    : >"$marker"
    # The check checks itself: a file written after the marker for a test root must be caught.
    self="$(mktemp -d)"
    trap 'rm -rf "$self"' EXIT
    sleep 0.01
    printf '{"key":{"root":"/tmp/nvct-e2e.x/driver-root"}}' >"$self/driver-facts-0.json"
    printf '{"key":{"root":"/"}}' >"$self/driver-facts-1.json"
    got="$(NVCT_HOST_RUN_DIR="$self" bash "$0" list "$marker")"
    [ "$got" = "$self/driver-facts-0.json (driver root /tmp/nvct-e2e.x/driver-root)" ] || {
      echo "host_run_check: the self-check did not catch a test root's file (got: '$got')" >&2
      exit 1
    }
    echo "host_run: marker $marker; $dir $( [ -d "$dir" ] && echo exists || echo is absent)"
    ;;
  list) offenders ;;
  after)
    [ -e "$marker" ] || { echo "host_run_check: no marker $marker (the before step did not run)" >&2; exit 1; }
    bad="$(offenders)"
    if [ -n "$bad" ]; then
      echo "host_run_check: tests wrote driver-facts cache files into the host's $dir:" >&2
      echo "$bad" >&2
      echo "a test path lost NVCT_DRIVER_FACTS_CACHE_DIR (cmake/NvctModule.cmake sets it)" >&2
      exit 1
    fi
    echo "host_run: nothing written to $dir by the tests"
    ;;
  *) echo "usage: host_run_check.sh before|after <marker>" >&2; exit 2 ;;
esac
