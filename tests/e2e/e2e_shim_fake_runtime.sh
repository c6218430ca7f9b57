#!/usr/bin/env bash
# The real nvidia-container-runtime binary in front of nvct-fake-runtime, which records how it
# was executed: pass-through, exit codes and signals, exec-not-fork, lookup failures, spec
# handling (malformed, no GPU, GPU, idempotence), logging (--log JSON, stdout purity), fds.
source "$(dirname "$0")/lib/common.sh"
require_cmd jq cmp timeout

SHIM="$(shim_bin)"
FAKE="$(fake_runtime_bin)"
REC="$E2E_TMP/rec"
HOOKDIR="$E2E_TMP/hookbin"
HOOK="$(make_record_hook "$HOOKDIR")"
CFG="$E2E_TMP/config.toml"
export NVIDIA_CTK_CONFIG_FILE_PATH="$CFG"
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK"
mkdir -p "$REC"

# A bundle whose spec requests GPUs (or not, with "none" as the 2nd arg).
new_bundle() {
  local b="$E2E_TMP/$1" env="${2:-NVIDIA_VISIBLE_DEVICES=all}"
  mkdir -p "$b/rootfs"
  printf '{"ociVersion":"1.0.2","process":{"args":["sh"],"env":["PATH=/bin","%s"],"cwd":"/"},\n  "root":{"path":"rootfs"},"x-unknown":{"n":18446744073709551615}}\n' \
    "$env" >"$b/config.json"
  echo "$b"
}
reset_rec() { rm -f "$REC"/*; }
rec() { jq -c "$1" "$REC/last.json"; }
hooks_in() { jq '[.hooks.prestart // [] | .[] | select(.path|test("nvidia-container-runtime-hook$"))] | length' "$1"; }

# --- pass-through byte for byte -------------------------------------------------------------
for cmd in "state ctr1" "features" "--help" "frobnicate --weird=1 x" "kill --all ctr1 KILL" "delete --force create"; do
  reset_rec
  # shellcheck disable=SC2086
  direct_out="$(cd "$E2E_TMP" && FAKE_RUNTIME_STDOUT=$'{"a":1}\n\tbytes \x01' FAKE_RUNTIME_EXIT=0 "$FAKE" $cmd; echo "rc=$?")"
  reset_rec
  # shellcheck disable=SC2086
  shim_out="$(cd "$E2E_TMP" && FAKE_RUNTIME_DIR="$REC" FAKE_RUNTIME_STDOUT=$'{"a":1}\n\tbytes \x01' "$SHIM" $cmd 2>"$E2E_TMP/stderr"; echo "rc=$?")"
  check_eq "pass-through stdout+rc identical: $cmd" "$direct_out" "$shim_out"
  check_eq "pass-through argv verbatim: $cmd" "$(printf '%s\n' "$FAKE" $cmd | jq -R . | jq -sc .)" "$(rec .argv)"
  check_eq "pass-through stderr empty: $cmd" "" "$(cat "$E2E_TMP/stderr")"
done

# --- exit code and signals ------------------------------------------------------------------
set +e
FAKE_RUNTIME_EXIT=3 "$SHIM" state x >/dev/null 2>&1
rc=$?
set -e
check_eq "fake runtime exits 3 -> shim exits 3" 3 "$rc"

set +e
FAKE_RUNTIME_SIGNAL=6 "$SHIM" state x >/dev/null 2>&1
rc=$?
set -e
check_eq "fake runtime dies of SIGABRT -> the caller sees the shim pid die of it (128+6)" 134 "$rc"

reset_rec
FAKE_RUNTIME_DIR="$REC" FAKE_RUNTIME_SLEEP=30 "$SHIM" start x &
shim_pid=$!
for _ in $(seq 100); do [ -s "$REC/last.json" ] && break; sleep 0.05; done
check_eq "exec, not fork: the runtime has the shim's pid" "$shim_pid" "$(rec .pid)"
check_eq "exec, not fork: same parent" "$$" "$(rec .ppid)"
kill -TERM "$shim_pid"
set +e
wait "$shim_pid"
rc=$?
set -e
check_eq "SIGTERM sent to the shim pid kills the runtime (128+15)" 143 "$rc"

# --- fds, env and cwd untouched -------------------------------------------------------------
B="$(new_bundle fdb)"
reset_rec
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK" legacy "$E2E_TMP/debug.log"
(cd "$B" && exec 7</dev/null && MY_VAR=kept FAKE_RUNTIME_DIR="$REC" "$SHIM" --log "$E2E_TMP/fd.log.json" \
  --log-format json create --pid-file rel.pid c1 >/dev/null)
via_shim_fds="$(rec '.fds|sort')"
check "environment passes through" jq -e '.env | index("MY_VAR=kept")' "$REC/last.json"
check_eq "cwd (the bundle) unchanged and relative --pid-file kept" "$B rel.pid" \
  "$(jq -r '.cwd + " " + .argv[-2]' "$REC/last.json")"
check_eq "no --bundle: config.json of the cwd gets one hook" 1 "$(hooks_in "$B/config.json")"
(cd "$B" && exec 7</dev/null && FAKE_RUNTIME_DIR="$REC" "$FAKE" state c1 >/dev/null)
check_eq "fds seen by the runtime: exactly those of a direct call (no shim fd leaks)" \
  "$(rec '.fds|sort')" "$via_shim_fds"
check "inherited fd 7 reaches the runtime" jq -e '.fds | index(7)' "$REC/last.json"
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK"

# --- lookup failures ------------------------------------------------------------------------
lookup_case() {
  local what="$1" runtimes="$2" want="$3"
  write_shim_config "$CFG" "$runtimes" "$HOOK"
  set +e
  err="$(timeout 10 "$SHIM" state x 2>&1 >/dev/null)"
  rc=$?
  set -e
  check_eq "$what: exit 1" 1 "$rc"
  check_contains "$what: clear message" "$want" "$err"
}
lookup_case "missing runtime" '["/nonexistent/runc"]' \
  "no runtime binary found from candidate list: [/nonexistent/runc]"
printf '#!/bin/sh\nexit 0\n' >"$E2E_TMP/noexec-runc"
chmod 0644 "$E2E_TMP/noexec-runc"
lookup_case "non-executable runtime" "[\"$E2E_TMP/noexec-runc\"]" "not executable"
ln -sf "$SHIM" "$E2E_TMP/self-runc"
lookup_case "runtime symlinked to the shim" "[\"$E2E_TMP/self-runc\"]" "is this shim itself"
lookup_case "empty candidate list" '[]' "at least one runtime candidate must be specified"
B="$(new_bundle noruntime)"
cp "$B/config.json" "$E2E_TMP/noruntime.orig"
write_shim_config "$CFG" '["/nonexistent/runc"]' "$HOOK"
set +e
"$SHIM" create --bundle "$B" c0 >/dev/null 2>&1
rc=$?
set -e
check_eq "GPU create with no runtime: exit 1" 1 "$rc"
check "GPU create with no runtime: config.json untouched (lookup happens first)" \
  same_file "$B/config.json" "$E2E_TMP/noruntime.orig"
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK"

# --- spec handling --------------------------------------------------------------------------
B="$(new_bundle malformed)"
printf '{"ociVersion":"1.0.2","process":{"env":["NVIDIA_VISIBLE_DEVICES=all"]' >"$B/config.json"
cp "$B/config.json" "$E2E_TMP/malformed.orig"
reset_rec
set +e
err="$(FAKE_RUNTIME_DIR="$REC" "$SHIM" --log "$E2E_TMP/m.json" --log-format json create --bundle "$B" c2 2>&1 >"$E2E_TMP/stdout")"
rc=$?
set -e
check_eq "malformed config.json: exit 1" 1 "$rc"
check "malformed config.json: file untouched" same_file "$B/config.json" "$E2E_TMP/malformed.orig"
check "malformed config.json: runtime never executed" test ! -e "$REC/last.json"
check_contains "malformed config.json: message names the file" "config.json" "$err"
check "malformed config.json: --log has valid JSON lines only" jq -e . "$E2E_TMP/m.json"
check_eq "malformed config.json: --log ends with the error" error \
  "$(tail -n1 "$E2E_TMP/m.json" | jq -r .level)"
check_eq "stdout empty on failure" "" "$(cat "$E2E_TMP/stdout")"

for env in NVIDIA_VISIBLE_DEVICES=void NVIDIA_VISIBLE_DEVICES= NO_GPU=1; do
  B="$(new_bundle "nogpu-${env%%=*}-${#env}" "$env")"
  cp "$B/config.json" "$E2E_TMP/nogpu.orig"
  reset_rec
  FAKE_RUNTIME_DIR="$REC" "$SHIM" create --bundle "$B" c3 >/dev/null
  check "no GPU ($env): config.json byte-identical" same_file "$B/config.json" "$E2E_TMP/nogpu.orig"
  check "no GPU ($env): runtime saw the identical bytes" same_file "$REC/config.json" "$E2E_TMP/nogpu.orig"
done

B="$(new_bundle gpu)"
reset_rec
# Without NVCT_DRIVER_FACTS_CACHE_DIR in the shim's environment (CTest sets it for every test) the
# hook's env is PATH alone; with it, that one variable follows (checked below).
out="$(env -u NVCT_DRIVER_FACTS_CACHE_DIR FAKE_RUNTIME_DIR="$REC" "$SHIM" --debug --log "$E2E_TMP/ok.json" --log-format json create --bundle "$B" c4)"
check_eq "GPU create: stdout empty even with --debug" "" "$out"
check_eq "GPU create: exactly one prestart hook" 1 "$(hooks_in "$B/config.json")"
check "GPU create: the runtime saw the modified spec" same_file "$REC/config.json" "$B/config.json"
check_eq "GPU create: hook has absolute path, args[0], env, timeout" \
  "[\"$HOOK\",[\"nvidia-container-runtime-hook\",\"-config\",\"$CFG\",\"prestart\"],1,60]" \
  "$(jq -c '.hooks.prestart[0] | [.path, .args, (.env|length), .timeout]' "$B/config.json")"
check_eq "GPU create: the hook's env is PATH alone" \
  '["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"]' \
  "$(jq -c '.hooks.prestart[0].env' "$B/config.json")"
check_eq "GPU create: unknown fields and uint64 survive" '18446744073709551615' \
  "$(grep -o '"n":[0-9]*' "$B/config.json" | cut -d: -f2)"
check "GPU create: every --log line is valid JSON with level/msg/time" \
  jq -e 'select((.level|type)=="string" and (.msg|type)=="string" and (.time|type)=="string") | true' "$E2E_TMP/ok.json"
check "GPU create: --debug gives debug lines" grep -q '"level":"debug"' "$E2E_TMP/ok.json"
FAKE_RUNTIME_DIR="$REC" "$SHIM" create --bundle "$B" c4 >/dev/null
check_eq "shim twice on the same bundle: still one hook" 1 "$(hooks_in "$B/config.json")"

# The driver-facts cache directory of the shim's environment (the engine's) reaches the hook,
# which runc starts with the hook's env only; nothing else of the shim's environment does.
B="$(new_bundle factsdir)"
NVCT_DRIVER_FACTS_CACHE_DIR=/var/tmp/nvct-facts LD_PRELOAD= NVIDIA_CTK_CONFIG_FILE_PATH="$CFG" \
  FAKE_RUNTIME_DIR="$REC" "$SHIM" create --bundle "$B" c6 >/dev/null
check_eq "GPU create: the hook's env carries NVCT_DRIVER_FACTS_CACHE_DIR, nothing else" \
  '["PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin","NVCT_DRIVER_FACTS_CACHE_DIR=/var/tmp/nvct-facts"]' \
  "$(jq -c '.hooks.prestart[0].env' "$B/config.json")"

B="$(new_bundle runsub)"
FAKE_RUNTIME_DIR="$REC" "$SHIM" --root "$E2E_TMP/root" run -b "$B" c5 >/dev/null
check_eq "'run' also modifies the spec" 1 "$(hooks_in "$B/config.json")"

# A container or bundle literally named "create" must not trigger modification.
B="$(new_bundle argv)"
cp "$B/config.json" "$E2E_TMP/argv.orig"
for cmd in "delete create" "state create" "kill create 9" "--log create state x" "--root create delete x"; do
  # shellcheck disable=SC2086
  (cd "$B" && "$SHIM" $cmd >/dev/null)
  check "argv '$cmd' in a GPU bundle: config.json untouched" same_file "$B/config.json" "$E2E_TMP/argv.orig"
done
(cd "$B" && "$SHIM" create --bundle=create-not-here x >/dev/null 2>&1) || true
check "create with --bundle=<other>: cwd bundle untouched" same_file "$B/config.json" "$E2E_TMP/argv.orig"

reset_rec
set +e
err="$(cd "$E2E_TMP" && FAKE_RUNTIME_DIR="$REC" "$SHIM" create --bundle 2>&1 >/dev/null)"
rc=$?
set -e
check_eq "create --bundle without a value: exit 1" 1 "$rc"
check_contains "create --bundle without a value: message" "bundle option requires an argument" "$err"
check "create --bundle without a value: runtime never executed" test ! -e "$REC/last.json"

# --- mode errors and logging hazards --------------------------------------------------------
B="$(new_bundle badmode)"
cp "$B/config.json" "$E2E_TMP/badmode.orig"
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK" bogus
set +e
err="$("$SHIM" --log "$E2E_TMP/bad.json" --log-format json create --bundle "$B" c6 2>&1 >/dev/null)"
rc=$?
set -e
check_eq "mode bogus: create exits 1" 1 "$rc"
check_contains "mode bogus: message" 'invalid mode "bogus"' "$err"
check_contains "mode bogus: --log error line" 'invalid mode \"bogus\"' "$(jq -c 'select(.level=="error")' "$E2E_TMP/bad.json")"
check "mode bogus: config.json untouched" same_file "$B/config.json" "$E2E_TMP/badmode.orig"
check "mode bogus: non-create commands still pass through" "$SHIM" delete c6
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK" csv
# No CSV mount specs on this host: csv mode adds nothing and the runtime is still exec'd.
check "mode csv: create passes through with nothing to mount" "$SHIM" create --bundle "$B" c6

echo keep >"$E2E_TMP/victim"
ln -sf "$E2E_TMP/victim" "$E2E_TMP/planted.log"
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK" legacy "$E2E_TMP/planted.log"
B="$(new_bundle hostile)"
set +e
"$SHIM" create --bundle "$B" c7 >/dev/null 2>&1
rc=$?
set -e
check_eq "debug log is a planted symlink: create still succeeds" 0 "$rc"
check_eq "debug log is a planted symlink: target untouched" keep "$(cat "$E2E_TMP/victim")"
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK" legacy "/nonexistent-dir/x.log"
check "debug log dir missing: create still succeeds" "$SHIM" create --bundle "$B" c7

# --- create storm: 200 parallel GPU creates sharing one debug log and one --log file -----------
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK" legacy "$E2E_TMP/storm-debug.log"
storm_pids=()
for i in $(seq 200); do
  B="$(new_bundle "storm/$i")"
  "$SHIM" --log "$E2E_TMP/storm.json" --log-format json create --bundle "$B" "s$i" >/dev/null 2>&1 &
  storm_pids+=($!)
done
storm_failures=0
for pid in "${storm_pids[@]}"; do wait "$pid" || storm_failures=$((storm_failures + 1)); done
check_eq "create storm: all 200 parallel creates succeed" 0 "$storm_failures"
check_eq "create storm: every bundle has exactly one hook" 200 \
  "$(for i in $(seq 200); do hooks_in "$E2E_TMP/storm/$i/config.json"; done | grep -c '^1$')"
check "create storm: every shared --log line is intact JSON" jq -e . "$E2E_TMP/storm.json"
check_eq "create storm: one 'added prestart hook' line per create in the shared --log" 200 \
  "$(grep -c 'added prestart hook' "$E2E_TMP/storm.json")"
check_eq "create storm: every shared debug log line is whole" 0 \
  "$(grep -cv '^time="[^"]*" level=[a-z]* msg=".*"$' "$E2E_TMP/storm-debug.log" || true)"
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK"

# --- log level from the config ----------------------------------------------------------------
printf '[nvidia-container-runtime]\ndebug = "%s"\nlog-level = "chatty"\nruntimes = ["%s"]\n' \
  "$E2E_TMP/level.log" "$FAKE" >"$CFG"
check "invalid log-level: the command still runs" "$SHIM" state x
check "invalid log-level: a warning naming the file and the valid levels, and info is used" grep -qF \
  "level=warning msg=\"$CFG: nvidia-container-runtime.log-level: invalid value \\\"chatty\\\" (valid values: panic, fatal, error, warn, warning, info, debug, trace); using \\\"info\\\"\"" \
  "$E2E_TMP/level.log"
check "invalid log-level: no debug lines at info level" bash -c "! grep -q level=debug '$E2E_TMP/level.log'"
printf '[nvidia-container-runtime]\ndebug = "%s"\nlog-level = "error"\nruntimes = ["%s"]\n' \
  "$E2E_TMP/level2.log" "$FAKE" >"$CFG"
"$SHIM" --debug state x >/dev/null
check "runc --debug forces debug over log-level = error" grep -q level=debug "$E2E_TMP/level2.log"
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK"

# --- version --------------------------------------------------------------------------------
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK" legacy "$E2E_TMP/version-debug.log"
reset_rec
out="$(FAKE_RUNTIME_DIR="$REC" FAKE_RUNTIME_STDOUT=$'fake version 1\n' "$SHIM" --version)"
check_eq "--version: banner then the runtime's version" \
  "NVIDIA Container Runtime version" "$(echo "$out" | head -n1 | cut -d' ' -f1-4)"
check_eq "--version: commit and spec lines, blank line, then runtime output" \
  "commit:|spec:||fake" "$(echo "$out" | sed -n '2,5p' | cut -d' ' -f1 | paste -sd'|')"
check_eq "--version: runtime got --version" '["--version"]' "$(rec '.argv[1:]')"
check "--version: no log file opened" test ! -e "$E2E_TMP/version-debug.log"
out="$(FAKE_RUNTIME_DIR="$REC" "$SHIM" -version)"
check_contains "-version (single dash) also prints the banner" "NVIDIA Container Runtime version" "$out"

e2e_finish
