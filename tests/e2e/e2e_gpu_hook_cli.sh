#!/usr/bin/env bash
# nvidia-container-runtime-hook as a program (spec/hook.md §1-§4): flags, commands, exit codes,
# one-line errors, the config path taken only from -config, and prestart's early exits, without a
# container runtime. The full GPU path is in e2e_gpu_runc.sh / e2e_gpu_docker.sh.
source "$(dirname "$0")/lib/common.sh"

hook="$(nvct_bin nvidia-container-runtime-hook)"

# run_hook <stdin> <args...>: sets RC, OUT, ERR.
run_hook() {
  local input="$1"
  shift
  RC=0
  # From a file, not a pipe: a hook that exits without reading stdin (poststart) must not turn
  # the writer's SIGPIPE into the status under pipefail.
  printf '%s' "$input" >"$E2E_TMP/stdin"
  "$hook" "$@" <"$E2E_TMP/stdin" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || RC=$?
  OUT="$(cat "$E2E_TMP/out")"
  ERR="$(cat "$E2E_TMP/err")"
}

# --- CLI ---------------------------------------------------------------------------------------
run_hook "" -version
check_eq "-version exits 0" 0 "$RC"
check_eq "-version banner" "NVIDIA Container Runtime Hook version" "$(echo "$OUT" | head -n1 | cut -d' ' -f1-5)"
check "-version second line is the commit" bash -c "echo '$OUT' | sed -n 2p | grep -q '^commit: '"
run_hook ""
check_eq "no command exits 2" 2 "$RC"
check_contains "no command prints the usage" "Usage of nvidia-container-runtime-hook" "$ERR"
run_hook "" create
check_eq "unknown command exits 2" 2 "$RC"
check_contains "unknown command is named" 'unknown command "create"' "$ERR"
run_hook "" -bogus prestart
check_eq "unknown flag exits 2" 2 "$RC"
check_contains "unknown flag is named" "flag provided but not defined: -bogus" "$ERR"
for cmd in poststart poststop; do
  run_hook '{"ociVersion":"1.0.2","id":"x","status":"stopped","bundle":"/nonexistent"}' "$cmd"
  check_eq "$cmd is a no-op exiting 0" "0|" "$RC|$ERR"
done

# --- config ------------------------------------------------------------------------------------
run_hook "" -config "$E2E_TMP/missing.toml" prestart
check_eq "a missing -config file fails" 1 "$RC"
check_eq "the failure is one line on stderr" 1 "$(echo "$ERR" | wc -l)"
check_contains "the failure names the step" "nvidia-container-runtime-hook: load config" "$ERR"
printf 'supported-driver-capabilities = "compute,utility,not-compute"\n' >"$E2E_TMP/bad.toml"
run_hook "" -config "$E2E_TMP/bad.toml" prestart
check_eq "unsupported supported-driver-capabilities fail the hook" 1 "$RC"

# A bundle that requests no GPU.
bundle="$E2E_TMP/bundle"
mkdir -p "$bundle/rootfs"
printf '{"ociVersion":"1.0.2","process":{"args":["sh"],"env":["NVIDIA_VISIBLE_DEVICES=void"],"cwd":"/"},"root":{"path":"rootfs"}}' \
  >"$bundle/config.json"
state="{\"ociVersion\":\"1.0.2\",\"id\":\"c\",\"status\":\"creating\",\"pid\":$$,\"bundle\":\"$bundle\"}"
printf '[nvidia-container-runtime]\nmode = "legacy"\n' >"$E2E_TMP/good.toml"
run_hook "$state" -config "$E2E_TMP/good.toml" prestart
check_eq "prestart on a container without GPU exits 0 silently" "0||" "$RC|$OUT|$ERR"

# The environment never selects the config (security.md §5.2): a bad config offered through
# NVIDIA_CTK_CONFIG_FILE_PATH or XDG_CONFIG_HOME is ignored.
mkdir -p "$E2E_TMP/xdg/nvidia-container-runtime"
cp "$E2E_TMP/bad.toml" "$E2E_TMP/xdg/nvidia-container-runtime/config.toml"
RC=0
printf '%s' "$state" | env NVIDIA_CTK_CONFIG_FILE_PATH="$E2E_TMP/bad.toml" XDG_CONFIG_HOME="$E2E_TMP/xdg" \
  "$hook" -config "$E2E_TMP/good.toml" prestart >/dev/null 2>&1 || RC=$?
check_eq "config env variables are ignored when -config is given" 0 "$RC"
RC=0
printf '%s' "$state" | env NVIDIA_CTK_CONFIG_FILE_PATH="$E2E_TMP/bad.toml" XDG_CONFIG_HOME="$E2E_TMP/xdg" \
  "$hook" prestart >"$E2E_TMP/out" 2>&1 || RC=$?
if [ -e /etc/nvidia-container-runtime/config.toml ]; then
  # The host's own file decides the outcome; it must just not be the offered one.
  check "config env variables are ignored without -config (host file used)" \
    bash -c "! grep -q not-compute '$E2E_TMP/out'"
else
  check_eq "config env variables are ignored without -config (defaults used)" "0|" "$RC|$(cat "$E2E_TMP/out")"
fi

# --- state validation --------------------------------------------------------------------------
run_hook '{"ociVersion":"1.0.2","id":"c","status":"creating","pid":0,"bundle":"/x"}' -config "$E2E_TMP/good.toml" prestart
check_eq "pid 0 is refused" "1|nvidia-container-runtime-hook: read OCI state from stdin: invalid pid 0 (must be > 0)" "$RC|$ERR"
run_hook '{"ociVersion":"1.0.2","id":"c","status":"creating","pid":5,"bundle":"relative"}' -config "$E2E_TMP/good.toml" prestart
check_eq "a relative bundle is refused" 1 "$RC"
head -c 2000000 /dev/zero | tr '\0' ' ' >"$E2E_TMP/huge"
RC=0
"$hook" -config "$E2E_TMP/good.toml" prestart <"$E2E_TMP/huge" >/dev/null 2>"$E2E_TMP/err" || RC=$?
check_eq "a state over the 1 MiB cap is refused" 1 "$RC"
check_eq "  ... with one line" 1 "$(wc -l <"$E2E_TMP/err")"
run_hook "not json" -config "$E2E_TMP/good.toml" prestart
check_eq "malformed state fails with one line" "1|1" "$RC|$(echo "$ERR" | wc -l)"

# --- mode assertion ----------------------------------------------------------------------------
printf '{"ociVersion":"1.0.2","process":{"args":["sh"],"env":["NVIDIA_VISIBLE_DEVICES=0"],"cwd":"/"},"root":{"path":"rootfs"}}' \
  >"$bundle/config.json"
printf '[nvidia-container-runtime]\nmode = "cdi"\n' >"$E2E_TMP/cdi.toml"
run_hook "$state" -config "$E2E_TMP/cdi.toml" prestart
check_eq "cdi mode: the hook refuses" 1 "$RC"
check_eq "cdi mode: the mode line, then the reference's message" \
  "Using requested mode 'cdi'
invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not supported. Please use the NVIDIA Container Runtime (e.g. specify the --runtime=nvidia flag) instead." \
  "$ERR"
printf '[nvidia-container-runtime]\nmode = "cdi"\n[nvidia-container-runtime-hook]\nskip-mode-detection = true\n[nvidia-container-cli]\nroot = "%s"\n' \
  "$E2E_TMP/no-driver" >"$E2E_TMP/skip.toml"
run_hook "$state" -config "$E2E_TMP/skip.toml" prestart
check "skip-mode-detection: no mode message" bash -c "! grep -q \"mode '\" '$E2E_TMP/err'"
check_contains "skip-mode-detection: the hook went on to the mount library" "nvidia-container-cli: " "$ERR"

e2e_finish
