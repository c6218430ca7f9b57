# shellcheck shell=bash
# Shared helpers of the mock-driver tests. Sourced; expects NVCT_BUILD_DIR (set by CTest).
set -euo pipefail

MOCK_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILDER="$MOCK_DIR/make-driver-root.sh"
TOPOLOGIES="$MOCK_DIR/topologies"
: "${NVCT_BUILD_DIR:?NVCT_BUILD_DIR must point at the CMake build directory}"
ARTIFACTS="$NVCT_BUILD_DIR/tests/mock-driver"
export LIB64=usr/lib/x86_64-linux-gnu
export LIB32=usr/lib/i386-linux-gnu  # used by the sourcing tests

failures=0
checks=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { checks=$((checks + 1)); }
# expect_eq <what> <expected> <actual>
expect_eq() {
  if [[ "$2" == "$3" ]]; then pass; else
    fail "$1"; diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") >&2 || true
  fi
}
expect() { local what="$1"; shift; if "$@"; then pass; else fail "$what"; fi; }
finish() {
  if ((failures)); then echo "$failures of $((checks + failures)) checks failed" >&2; exit 1; fi
  ((checks > 0)) || { echo "FAIL: no checks ran" >&2; exit 1; }
  echo "ok: $checks checks"
}

[[ -x "$ARTIFACTS/bin/nvidia-smi" && -e "$ARTIFACTS/lib64/libnvidia-ml.so" ]] || {
  echo "FAIL: mock driver not built: cmake --build $NVCT_BUILD_DIR --target mock_driver" >&2
  exit 1
}

WORK="$(mktemp -d /tmp/nvct-mock-test.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

# build_root <topology name or file> <out dir>
build_root() {
  local topo="$1"
  [[ -f "$topo" ]] || topo="$TOPOLOGIES/$1.conf"
  "$BUILDER" --topology "$topo" --out "$2" --build-dir "$NVCT_BUILD_DIR"
}

# smi <root> <args...>: the mock nvidia-smi with the root's library directory on the path.
smi() {
  local root="$1"; shift
  LD_LIBRARY_PATH="$root/$LIB64" "$ARTIFACTS/bin/nvidia-smi" "$@"
}

# The libraries.list rows: stem soname-suffix file-suffix group m32 needed.
list_rows() { grep '^lib' "$MOCK_DIR/libraries.list"; }
