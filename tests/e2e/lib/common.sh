# shellcheck shell=bash
# Shared helpers for the e2e scripts: locating built binaries, a per-test temp dir removed on
# exit, cleanup stacks, assertions and the shim config. Source it; it sets `set -euo pipefail`.
# Every failure message names what was expected, so a failing CTest log is self-explanatory.
set -euo pipefail

NVCT_SOURCE_DIR="${NVCT_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}"
NVCT_BUILD_DIR="${NVCT_BUILD_DIR:-$NVCT_SOURCE_DIR/build/ci}"

E2E_NAME="$(basename "${0%.sh}")"
E2E_FAILURES=0
E2E_PASSES=0
E2E_CLEANUPS=()

# Runs registered cleanups in reverse order, then removes the temp dir.
e2e_cleanup() {
  local i
  for ((i = ${#E2E_CLEANUPS[@]} - 1; i >= 0; i--)); do
    eval "${E2E_CLEANUPS[$i]}" >/dev/null 2>&1 || true
  done
  if [ -n "${E2E_TMP:-}" ] && [ -d "$E2E_TMP" ]; then rm -rf "$E2E_TMP"; fi
}
e2e_on_exit() { E2E_CLEANUPS+=("$1"); }
trap e2e_cleanup EXIT
trap 'exit 130' INT TERM

E2E_TMP="$(mktemp -d "/tmp/nvct-${E2E_NAME}.XXXXXX")"

e2e_die() {
  echo "FATAL [$E2E_NAME]: $*" >&2
  exit 1
}
pass() {
  E2E_PASSES=$((E2E_PASSES + 1))
  echo "ok   - $*"
}
failed() {
  E2E_FAILURES=$((E2E_FAILURES + 1))
  echo "FAIL - $*" >&2
}
# check "description" command...: passes when the command succeeds.
check() {
  local what="$1"
  shift
  if "$@" >/dev/null; then pass "$what"; else failed "$what"; fi
}
check_eq() {
  local what="$1" want="$2" got="$3"
  if [ "$want" = "$got" ]; then
    pass "$what"
  else
    failed "$what: want [$want] got [$got]"
  fi
}
check_contains() {
  local what="$1" needle="$2" haystack="$3"
  if [[ "$haystack" == *"$needle"* ]]; then
    pass "$what"
  else
    failed "$what: [$needle] not found in [$haystack]"
  fi
}
same_file() { cmp -s "$1" "$2"; }
# Ends the script: non-zero when any check failed or nothing was checked.
e2e_finish() {
  echo "# $E2E_NAME: $E2E_PASSES passed, $E2E_FAILURES failed"
  [ "$E2E_PASSES" -gt 0 ] || e2e_die "no checks ran"
  [ "$E2E_FAILURES" -eq 0 ]
}

# Fails (never skips) when a tool the test needs is absent.
require_cmd() {
  local c
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 ||
      e2e_die "required command '$c' not found (scripts/install-deps.sh installs it)"
  done
}
require_root() { [ "$(id -u)" -eq 0 ] || e2e_die "must run as root (runc/dockerd need it)"; }

# A built binary of this tree; fails with the build command to run when it is missing.
nvct_bin() {
  local name="$1" path
  for path in "$NVCT_BUILD_DIR/bin/$name" "$NVCT_BUILD_DIR/tests/$name/nvct-$name"; do
    if [ -x "$path" ]; then
      echo "$path"
      return 0
    fi
  done
  e2e_die "built binary '$name' not found under $NVCT_BUILD_DIR (cmake --build $NVCT_BUILD_DIR --target $name)"
}
shim_bin() { nvct_bin nvidia-container-runtime; }
fake_runtime_bin() { nvct_bin fake-runtime; }

# Writes a shim config.toml: write_shim_config <file> <runtimes-toml-array> <hook-path> [mode] [debug-log]
write_shim_config() {
  local file="$1" runtimes="$2" hook="$3" mode="${4:-legacy}" debug="${5:-/dev/null}"
  cat >"$file" <<TOML
[nvidia-container-runtime]
debug = "$debug"
log-level = "debug"
mode = "$mode"
runtimes = $runtimes

[nvidia-container-runtime-hook]
path = "$hook"
TOML
}

# Installs a stand-in prestart hook named nvidia-container-runtime-hook in <dir>. When runc runs
# it, it records its argv, environment and the OCI state from stdin in <dir>/hook-called.
# (The hook's env is the minimal one the shim sets, so the output path is baked in.)
make_record_hook() {
  local dir="$1"
  mkdir -p "$dir"
  cat >"$dir/nvidia-container-runtime-hook" <<SH
#!/bin/sh
{
  echo "argv0=\$0"
  echo "args=\$*"
  echo "env=\$(env | sort | tr '\n' ' ')"
  printf 'state='
  cat
  echo
} > "$dir/hook-called"
SH
  chmod 0755 "$dir/nvidia-container-runtime-hook"
  echo "$dir/nvidia-container-runtime-hook"
}
