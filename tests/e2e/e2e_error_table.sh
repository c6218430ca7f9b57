#!/usr/bin/env bash
# The error table (issue 16): each failure a user can cause, run for real on the MIG mock driver
# (GPU 0: H100 with MIG devices 0:0 and 0:1, GPU 1: A100) through the built binaries and runc,
# with the message it must give, its exit status and where it appears:
#   stderr       the command's own stderr
#   engine       what runc prints when a prestart hook fails (`error running hook #0: ...
#                stderr: <line>`, the text `docker run` shows), i.e. the shim's stderr, since the
#                shim execs runc; the hook's error is one line there (after its mode line
#                `Using requested mode 'legacy'`, hook.md §5). hook_direct rows: the hook's stderr
#   runtime-log  the "error" (what containerd shows) and "warning" messages of the shim's
#                `--log <file> --log-format json` file; every line of that file must be JSON
#   hook-log     the hook's log file (nvidia-container-cli.debug): the line with the UTC time, the
#                container id and the bundle
# A row passes when the exit status is the one listed and its place holds the message (the exact
# text, or its distinguishing part where it names temp paths). The table is printed at the end.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"
require_cmd runc jq setpriv unshare mount

gpu_setup mig
gpu_hook_variant # normal: the hook logs to $GPU_HOOK_LOG (nvidia-container-cli.debug)
CTK="$(nvct_bin nvidia-ctk)"
CLI="$(nvct_bin nvidia-container-cli)"
CDI_HOOK="$(nvct_bin nvidia-cdi-hook)"
SPEC_DIR="$E2E_TMP/cdi"
U0=GPU-11111111-2222-3333-4444-555555555550
U1=GPU-11111111-2222-3333-4444-555555555551
M0=MIG-11111111-2222-3333-4444-000000000000
M1=MIG-11111111-2222-3333-4444-000000000001
VALID="valid devices: 0 ($U0), 1 ($U1), 0:0 ($M0), 0:1 ($M1), or all"

"$CTK" cdi generate --driver-root "$GPU_ROOT" --nvidia-cdi-hook-path "$CDI_HOOK" \
  --output "$SPEC_DIR/nvidia.yaml" >/dev/null 2>"$E2E_TMP/generate.err" ||
  e2e_die "cdi generate failed: $(cat "$E2E_TMP/generate.err")"
KNOWN="known CDI devices: nvidia.com/gpu=0, nvidia.com/gpu=0:0, nvidia.com/gpu=0:1, nvidia.com/gpu=1, nvidia.com/gpu=all"

# config_with <name> <mode> [top-level toml lines...]: the mock's config in <mode>.
config_with() {
  local file="$E2E_TMP/config-$1.toml" mode="$2"
  shift 2
  {
    [ $# -eq 0 ] || printf '%s\n' "$@"
    sed "s/^mode = .*/mode = \"$mode\"/" "$GPU_CONFIG"
    printf '\n[nvidia-container-runtime.modes.cdi]\nspec-dirs = ["%s"]\n' "$SPEC_DIR"
    printf '\n[nvidia-ctk]\npath = "%s"\n' "$CTK"
  } >"$file"
  echo "$file"
}
LEGACY="$(config_with legacy legacy)"
JIT="$(config_with jit jit-cdi)"
CDI="$(config_with cdi cdi)"

# The bundle every shim row copies: the report image of gpu.sh, its rootfs shared by absolute path.
TEMPLATE="$E2E_TMP/template"
gpu_bundle "$TEMPLATE"

# --- runners: each leaves OUT_RC, $E2E_TMP/row.{out,err,log,hook} ---------------------------------
ROW_ID=""
reset_outputs() { : >"$E2E_TMP/row.out" && : >"$E2E_TMP/row.err" && : >"$E2E_TMP/row.log" && : >"$E2E_TMP/row.hook"; }

# cmd <command...>
cmd() {
  OUT_RC=0
  "$@" </dev/null >"$E2E_TMP/row.out" 2>"$E2E_TMP/row.err" || OUT_RC=$?
}

# The container id of a row: runc's default cgroup path is the id, so it is unique per process.
cid() { echo "et$$-$ROW_ID"; }

# shim <config> [NAME=VALUE...]: `nvidia-container-runtime run` of the template with that env.
shim() {
  local config="$1" b="$E2E_TMP/b-$ROW_ID" start
  shift
  mkdir -p "$b"
  jq --arg r "$TEMPLATE/rootfs" '.root.path = $r' "$TEMPLATE/config.json" >"$b/config.json"
  local kv
  for kv in "$@"; do
    case "$kv" in
      MOUNT=*) gpu_add_mount "$b" "{\"destination\":\"${kv#MOUNT=}\",\"type\":\"bind\",\"source\":\"/dev/null\",\"options\":[\"bind\",\"ro\"]}" ;;
      *) bundle_set_env "$b" "$kv" ;;
    esac
  done
  start="$(stat -c %s "$GPU_HOOK_LOG")"
  OUT_RC=0
  NVIDIA_CTK_CONFIG_FILE_PATH="$config" timeout 120 "$GPU_SHIM" --root "$GPU_STATE" \
    --log "$E2E_TMP/row.json" --log-format json run --bundle "$b" "$(cid)" \
    </dev/null >"$E2E_TMP/row.out" 2>"$E2E_TMP/row.err" || OUT_RC=$?
  runc --root "$GPU_STATE" delete --force "$(cid)" >/dev/null 2>&1 || true
  tail -c "+$((start + 1))" "$GPU_HOOK_LOG" >"$E2E_TMP/row.hook"
  if [ -s "$E2E_TMP/row.json" ]; then
    jq -e . "$E2E_TMP/row.json" >/dev/null 2>&1 || failed "$ROW_ID: --log holds a line that is not JSON"
    jq -r 'select(.level == "error" or .level == "warning") | .msg' "$E2E_TMP/row.json" >"$E2E_TMP/row.log"
  fi
  rm -f "$E2E_TMP/row.json"
}

# hook_direct <config> <bundle env...>: the hook's prestart straight from a state on stdin, with the
# bundle as its cwd (as runc runs it), for the rows runc would refuse before the hook ran.
hook_direct() {
  local config="$1" b="$E2E_TMP/b-$ROW_ID" state
  shift
  mkdir -p "$b"
  jq --arg r "$TEMPLATE/rootfs" '.root.path = $r' "$TEMPLATE/config.json" >"$b/config.json"
  [ $# -gt 0 ] && bundle_set_env "$b" "$@"
  state="{\"ociVersion\":\"1.0.2\",\"id\":\"$ROW_ID\",\"status\":\"creating\",\"pid\":$$,\"bundle\":\"$b\"}"
  OUT_RC=0
  (cd "$b" && printf '%s' "$state" | "$GPU_REAL_HOOK" -config "$config" prestart) \
    >"$E2E_TMP/row.out" 2>"$E2E_TMP/row.err" || OUT_RC=$?
}

# --- the table ----------------------------------------------------------------------------------
TABLE=()
# row <id> <where> <exit> <message> <runner> [args...]
row() {
  local id="$1" where="$2" want_rc="$3" want="$4" got file
  shift 4
  ROW_ID="$id"
  reset_outputs
  "$@"
  case "$where" in
    stderr | engine) file="$E2E_TMP/row.err" ;;
    runtime-log) file="$E2E_TMP/row.log" ;;
    hook-log) file="$E2E_TMP/row.hook" ;;
    *) e2e_die "row $id: unknown place '$where'" ;;
  esac
  got="$(grep -F -- "$want" "$file" | head -1 || true)"
  [ -n "$got" ] || got="$(tail -1 "$file")"
  check_eq "$id: exit status" "$want_rc" "$OUT_RC"
  check_contains "$id: $where" "$want" "$(cat "$file")"
  local what="$*"
  what="${what//$GPU_REAL_HOOK/nvidia-container-runtime-hook}"
  what="${what//$GPU_SHIM/nvidia-container-runtime}"
  what="${what//$CLI/nvidia-container-cli}"
  what="${what//$CTK/nvidia-ctk}"
  what="${what//$CDI_HOOK/nvidia-cdi-hook}"
  TABLE+=("| $id | ${what//|/\\|} | $where | $OUT_RC | ${got//|/\\|} |")
}

# Files some rows need.
mkdir -p "$E2E_TMP/bad" "$E2E_TMP/nodriver" "$E2E_TMP/engine"
printf '[nvidia-container-runtime\nmode = "legacy"\n' >"$E2E_TMP/bad/syntax.toml"
mkdir -p "$E2E_TMP/bad/dir.toml"
BADMODE="$(config_with badmode bogus)"
BADLEVEL="$(config_with badlevel legacy)"
sed -i 's/^log-level = .*//; s/^\[nvidia-container-runtime\]$/&\nlog-level = "loud"/' "$BADLEVEL"
TYPO="$(config_with typo legacy)"
sed -i 's/^\[nvidia-container-runtime\]$/&\nmdoe = "cdi"/' "$TYPO"
NORUNTIME="$(config_with noruntime legacy)"
sed -i "s|^runtimes = .*|runtimes = [\"$E2E_TMP/absent/runc\"]|" "$NORUNTIME"
NOHOOK="$(config_with nohook legacy)"
sed -i "s|^path = \"$GPU_HOOK\"|path = \"$E2E_TMP/absent/nvidia-container-runtime-hook\"|" "$NOHOOK"
NOCDIHOOK="$(config_with nocdihook jit-cdi)"
sed -i "s|^path = \"$CTK\"|path = \"$E2E_TMP/absent/nvidia-ctk\"|" "$NOCDIHOOK"
BADCAPS="$(config_with badcaps legacy)"
sed -i 's/^\[nvidia-container-cli\]$/supported-driver-capabilities = "compute,bogus"\n&/' "$BADCAPS"
NOSPECS="$(config_with nospecs cdi)"
sed -i "s|^spec-dirs = .*|spec-dirs = [\"$E2E_TMP/absent-cdi\"]|" "$NOSPECS"
# A stale spec: written for a driver that is no longer installed (its files have another version).
STALE_DIR="$E2E_TMP/stale-cdi"
mkdir -p "$STALE_DIR"
sed 's|550\.54\.14|535.0.1|g' "$SPEC_DIR/nvidia.yaml" >"$STALE_DIR/nvidia.yaml"
STALE="$(config_with stale cdi)"
sed -i "s|^spec-dirs = .*|spec-dirs = [\"$STALE_DIR\"]|" "$STALE"
echo '{}' >"$E2E_TMP/engine/daemon.json"
MISMATCH_ROOT="$E2E_TMP/mismatch-root"
{ cat "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/one-gpu.conf"; echo "nvml_version = 535.0.1"; } \
  >"$E2E_TMP/mismatch.conf"
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$E2E_TMP/mismatch.conf" --out "$MISMATCH_ROOT" >"$E2E_TMP/mismatch.log" 2>&1 ||
  e2e_die "make-driver-root.sh (mismatch) failed: $(tail -5 "$E2E_TMP/mismatch.log")"
NODRIVER="$(config_with nodriver legacy)"
sed -i "s|^root = \"$GPU_ROOT\"|root = \"$E2E_TMP/nodriver\"|" "$NODRIVER"
# configure needs a process in its own mount namespace (the container at prestart).
unshare -m --propagation private sleep 600 &
CONTAINER_PID=$!
e2e_on_exit "kill -9 $CONTAINER_PID; wait $CONTAINER_PID"

# --- device selection: index, UUID and MIG id in every mode --------------------------------------
row legacy-index engine 1 "nvidia-container-cli: device error: 7: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=7
row legacy-index-hook-log hook-log 1 ": error: prestart of container et$$-legacy-index-hook-log (bundle $E2E_TMP/b-legacy-index-hook-log) failed: nvidia-container-cli: device error: 7: unknown device" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=7
# The same line in runc's error and in the hook log, there with the time, pid, id and bundle.
engine_line="$(grep -F "nvidia-container-cli: device error: 7: unknown device" "$E2E_TMP/row.err" | sed 's/^.*stderr: //' || true)"
check_eq "legacy-index: runc's error carries the hook's line as one line" \
  "nvidia-container-cli: device error: 7: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" \
  "$engine_line"
check_contains "legacy-index: runc says which hook failed" "error running hook" "$(cat "$E2E_TMP/row.err")"
log_line="$(grep -F ": error: prestart of container et$$-legacy-index-hook-log " "$E2E_TMP/row.hook" || true)"
check_eq "legacy-index: the hook log has one failure line" 1 "$(printf '%s' "$log_line" | grep -c . || true)"
check "legacy-index: the hook log line has the UTC time and pid" \
  grep -qE '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z nvidia-container-runtime-hook\[[0-9]+\]: error: ' <<<"$log_line"
check_eq "legacy-index: the hook log line names the container and bundle and ends with runc's line" \
  "prestart of container et$$-legacy-index-hook-log (bundle $E2E_TMP/b-legacy-index-hook-log) failed: $engine_line" \
  "${log_line#*]: error: }"
row legacy-uuid engine 1 "nvidia-container-cli: device error: GPU-nope: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=0,GPU-nope
row legacy-mig engine 1 "nvidia-container-cli: device error: 0:5: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=0:5
row legacy-mig-uuid engine 1 "nvidia-container-cli: device error: MIG-nope: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=MIG-nope
row legacy-volume-mount engine 1 "nvidia-container-cli: device error: 9: unknown device (from the volume mounts under /var/run/nvidia-container-devices); $VALID" \
  shim "$(config_with volumes legacy 'accept-nvidia-visible-devices-as-volume-mounts = true')" NVIDIA_VISIBLE_DEVICES=/var/run/nvidia-container-devices MOUNT=/var/run/nvidia-container-devices/9
row jit-index runtime-log 1 "failed to get device handle from index: ERROR_INVALID_ARGUMENT; $VALID" \
  shim "$JIT" NVIDIA_VISIBLE_DEVICES=7
row jit-uuid runtime-log 1 "GPU-nope: unknown device; $VALID" \
  shim "$JIT" NVIDIA_VISIBLE_DEVICES=GPU-nope
row jit-mig runtime-log 1 "0:5: unknown device; $VALID" \
  shim "$JIT" NVIDIA_VISIBLE_DEVICES=0:5
row jit-index-stderr stderr 1 "failed to construct the JIT CDI spec (devices from NVIDIA_VISIBLE_DEVICES): failed to create device CDI specs: failed to get device handle from index: ERROR_INVALID_ARGUMENT; $VALID" \
  shim "$JIT" NVIDIA_VISIBLE_DEVICES=7
row cdi-index runtime-log 1 "failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=7 (from NVIDIA_VISIBLE_DEVICES); $KNOWN" \
  shim "$CDI" NVIDIA_VISIBLE_DEVICES=7
row cdi-uuid runtime-log 1 "unresolvable CDI devices nvidia.com/gpu=$U0 (from NVIDIA_VISIBLE_DEVICES); $KNOWN" \
  shim "$CDI" NVIDIA_VISIBLE_DEVICES=$U0
row cdi-mig runtime-log 1 "unresolvable CDI devices nvidia.com/gpu=0:5 (from NVIDIA_VISIBLE_DEVICES); $KNOWN" \
  shim "$CDI" NVIDIA_VISIBLE_DEVICES=0:5
row cdi-no-spec runtime-log 1 "unresolvable CDI devices nvidia.com/gpu=0 (from NVIDIA_VISIBLE_DEVICES); no CDI spec in $E2E_TMP/absent-cdi defines a device: generate one with \`nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml\`" \
  shim "$NOSPECS" NVIDIA_VISIBLE_DEVICES=0
row cdi-stale-spec runtime-log 1 "CDI spec $STALE_DIR/nvidia.yaml is stale: $GPU_ROOT/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.0.1 (mounted at /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.535.0.1 for nvidia.com/gpu=1) does not exist; the driver changed after the spec was generated: regenerate it with \`nvidia-ctk cdi generate --output=$STALE_DIR/nvidia.yaml\`" \
  shim "$STALE" NVIDIA_VISIBLE_DEVICES=1
row cli-configure-index stderr 1 "nvidia-container-cli: device error: 7: unknown device (from --device); $VALID" \
  cmd "$CLI" --root "$GPU_ROOT" configure --no-cgroups --pid "$CONTAINER_PID" --device=7 "$TEMPLATE/rootfs"
row cli-list-uuid stderr 1 "nvidia-container-cli: device error: GPU-nope: unknown device (from --device); $VALID" \
  cmd "$CLI" --root "$GPU_ROOT" list --device=GPU-nope
row cli-list-mig stderr 1 "nvidia-container-cli: device error: 1:0: unknown device (from --device); $VALID" \
  cmd "$CLI" --root "$GPU_ROOT" list --device=1:0
row cdi-generate-index stderr 1 "failed to get device handle from index: ERROR_INVALID_ARGUMENT; $VALID" \
  cmd "$CTK" cdi generate --driver-root "$GPU_ROOT" --device-id 99

# --- capabilities and requirements ---------------------------------------------------------------
row capability-unknown engine 1 "nvidia-container-runtime-hook: unsupported capabilities found in 'compute,bogus' (allowed 'compat32,compute,display,graphics,ngx,utility,video'): NVIDIA_DRIVER_CAPABILITIES names 'bogus'; use the allowed ones or all" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=compute,bogus
row capability-config engine 1 "nvidia-container-runtime-hook: load config: invalid supported-driver-capabilities 'compute,bogus': unknown capability 'bogus' (allowed 'compat32,compute,display,graphics,ngx,utility,video')" \
  shim "$BADCAPS" NVIDIA_VISIBLE_DEVICES=0
row require-malformed engine 1 "nvidia-container-cli: requirement error: invalid expression" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=0 'NVIDIA_REQUIRE_CUDA=cuda==12.4'
row require-malformed-other engine 1 "nvidia-container-cli: requirement error: invalid expression" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=0 'NVIDIA_REQUIRE_ARCH=arch>>9'
row require-unsatisfied engine 1 "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=99.0, please update your driver to a newer version, or use an earlier cuda container" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=0 'NVIDIA_REQUIRE_CUDA=cuda>=99.0'
row require-hook-log hook-log 1 "requirement error: unsatisfied condition: cuda>=99.0" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=0 'NVIDIA_REQUIRE_CUDA=cuda>=99.0'
row cuda-version-invalid engine 1 "nvidia-container-runtime-hook: invalid CUDA_VERSION '9.foo': not a version; an image that sets CUDA_VERSION without NVIDIA_REQUIRE_CUDA needs it as MAJOR[.MINOR[.PATCH]], e.g. 12.4.1" \
  shim "$LEGACY" CUDA_VERSION=9.foo
row cli-require-malformed stderr 1 "nvidia-container-cli: requirement error: invalid expression" \
  cmd "$CLI" --root "$GPU_ROOT" configure --no-cgroups --pid "$CONTAINER_PID" --device=0 '--require=brand>tesla' "$TEMPLATE/rootfs"
row imex-invalid engine 1 "nvidia-container-runtime-hook: unsupported IMEX channel value: nope (NVIDIA_IMEX_CHANNELS and the imex volume mounts take channel numbers below 1048576, or all)" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=nope
row mig-config-unprivileged engine 1 "nvidia-container-runtime-hook: cannot set MIG_CONFIG_DEVICES in non privileged container: NVIDIA_MIG_CONFIG_DEVICES=all needs a privileged container (docker run --privileged); unset it otherwise" \
  shim "$LEGACY" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_MIG_CONFIG_DEVICES=all
row cli-mig-monitor stderr 1 "nvidia-container-cli: mig-monitor error: 0: only 'all' devices are currently supported" \
  cmd "$CLI" --root "$GPU_ROOT" list --device=0 --mig-monitor=0
row cli-imex-range stderr 1 "nvidia-container-cli: error parsing IMEX info: unsupported IMEX channel value: 1048576" \
  cmd "$CLI" --root "$GPU_ROOT" list --imex-channel=1048576

# --- config.toml ----------------------------------------------------------------------------------
row config-syntax-shim stderr 1 "nvidia-container-runtime: load config: $E2E_TMP/bad/syntax.toml: parse TOML: line 1, column 26: Error while parsing table header: expected ']', saw '\\n'; fix the file there (nvidia-ctk config default prints a complete, valid one)" \
  shim "$E2E_TMP/bad/syntax.toml" NVIDIA_VISIBLE_DEVICES=0
row config-syntax-log runtime-log 1 "load config: $E2E_TMP/bad/syntax.toml: parse TOML: line 1, column 26" \
  shim "$E2E_TMP/bad/syntax.toml" NVIDIA_VISIBLE_DEVICES=0
row config-syntax-hook stderr 1 "nvidia-container-runtime-hook: load config: $E2E_TMP/bad/syntax.toml: parse TOML: line 1, column 26" \
  hook_direct "$E2E_TMP/bad/syntax.toml" NVIDIA_VISIBLE_DEVICES=0
row config-syntax-ctk stderr 1 "$E2E_TMP/bad/syntax.toml: parse TOML: line 1, column 26" \
  cmd "$CTK" --config "$E2E_TMP/bad/syntax.toml" cdi generate --driver-root "$GPU_ROOT"
row config-unreadable stderr 1 "the config must be a readable TOML file: point NVIDIA_CTK_CONFIG_FILE_PATH (or --config) at one, or write one with: nvidia-ctk config default --output <file>" \
  shim "$E2E_TMP/bad/dir.toml" NVIDIA_VISIBLE_DEVICES=0
row config-missing-hook stderr 1 "nvidia-container-runtime-hook: load config: open $E2E_TMP/bad/absent.toml: No such file or directory; create it with: nvidia-ctk config default --output $E2E_TMP/bad/absent.toml" \
  hook_direct "$E2E_TMP/bad/absent.toml" NVIDIA_VISIBLE_DEVICES=0
# The shim, as the reference, goes on with the defaults (driver root /) when the file is missing;
# it warns that the file it was told to read is not there, and the driver error names the root.
row config-missing-shim stderr 1 "failed to initialize the driver at /: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory; is the NVIDIA driver installed (nvidia-smi)? The driver root is nvidia-container-cli.root in $E2E_TMP/bad/absent.toml (unset: /); nvidia-ctk doctor checks the host" \
  shim "$E2E_TMP/bad/absent.toml" NVIDIA_VISIBLE_DEVICES=0
row config-missing-shim-log runtime-log 1 "Config file $E2E_TMP/bad/absent.toml (NVIDIA_CTK_CONFIG_FILE_PATH) does not exist; using the built-in defaults. Create it with: nvidia-ctk config default --output $E2E_TMP/bad/absent.toml" \
  shim "$E2E_TMP/bad/absent.toml" NVIDIA_VISIBLE_DEVICES=0
row config-unknown-key runtime-log 0 "$TYPO: unknown key \"nvidia-container-runtime.mdoe\" is ignored; did you mean \"nvidia-container-runtime.mode\"?" \
  shim "$TYPO" NVIDIA_VISIBLE_DEVICES=void
row config-mode-enum stderr 1 'invalid mode "bogus" (expected auto, legacy, cdi, jit-cdi or' \
  shim "$BADMODE" NVIDIA_VISIBLE_DEVICES=0
row config-log-level-enum runtime-log 0 "$BADLEVEL: nvidia-container-runtime.log-level: invalid value \"loud\" (valid values: panic, fatal, error, warn, warning, info, debug, trace); using \"info\"" \
  shim "$BADLEVEL" NVIDIA_VISIBLE_DEVICES=void
row ctk-set-enum stderr 1 "invalid --set option nvidia-container-runtime.mode=bogus: nvidia-container-runtime.mode: invalid value" \
  cmd "$CTK" config --config-file "$E2E_TMP/config-legacy.toml" --set nvidia-container-runtime.mode=bogus --in-place

# --- binaries the stack needs --------------------------------------------------------------------
row runtime-missing stderr 1 "no runtime binary found from candidate list: [$E2E_TMP/absent/runc]" \
  shim "$NORUNTIME" NVIDIA_VISIBLE_DEVICES=0
row hook-missing stderr 1 "nvidia-container-runtime-hook.path in $NOHOOK is set to $E2E_TMP/absent/nvidia-container-runtime-hook, which is not an executable file; install the hook there or change nvidia-container-runtime-hook.path in $NOHOOK" \
  shim "$NOHOOK" NVIDIA_VISIBLE_DEVICES=0
row cdi-hook-missing stderr 1 "is set to $E2E_TMP/absent/nvidia-ctk, which is not an executable file; install it there or change nvidia-ctk.path" \
  shim "$NOCDIHOOK" NVIDIA_VISIBLE_DEVICES=0
row hook-direct-mode engine 1 "invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus flag) is not supported" \
  hook_direct "$CDI" NVIDIA_VISIBLE_DEVICES=0

# --- the driver ----------------------------------------------------------------------------------
row no-driver stderr 1 "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory" \
  cmd "$CLI" --root "$E2E_TMP/nodriver" list
row no-driver-hook engine 1 "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory" \
  shim "$NODRIVER" NVIDIA_VISIBLE_DEVICES=0
# NVML that cannot start (libnvidia-ml of another version than the kernel module): procfs still
# describes the GPUs, so nvct goes on where the reference fails (deviations.md); the warning is in
# the --debug log only.
row nvml-init-failure stderr 0 "nvidia-container-cli] nvml error: driver/library version mismatch; using /proc/driver/nvidia instead of NVML (the driver's libraries and the loaded kernel module are different versions, usually a driver upgrade without a reboot: reboot, or reload the nvidia kernel modules; nvidia-ctk doctor shows both versions)" \
  cmd "$CLI" --root "$MISMATCH_ROOT" --debug=/dev/stderr list --device=0
row no-driver-generate stderr 1 "failed to initialize the driver at $E2E_TMP/nodriver: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory" \
  cmd "$CTK" cdi generate --driver-root "$E2E_TMP/nodriver"

# --- the hook's input ----------------------------------------------------------------------------
row hook-no-command stderr 2 "Usage of nvidia-container-runtime-hook:" cmd "$GPU_REAL_HOOK"
row hook-bad-state stderr 1 "nvidia-container-runtime-hook: read OCI state from stdin: parse OCI state: parse error at line 2, column 1" \
  cmd sh -c "echo '{' | '$GPU_REAL_HOOK' -config '$LEGACY' prestart"
row hook-no-config-json stderr 1 "$E2E_TMP/absent/config.json" \
  cmd sh -c "echo '{\"ociVersion\":\"1.0.2\",\"id\":\"x\",\"status\":\"creating\",\"pid\":1,\"bundle\":\"$E2E_TMP/absent\"}' | '$GPU_REAL_HOOK' -config '$LEGACY' prestart"
row cli-rootfs-host stderr 1 "nvidia-container-cli: container error: rootfs / must be an absolute path other than /" \
  cmd "$CLI" --root "$GPU_ROOT" configure --no-cgroups --pid "$CONTAINER_PID" --device=0 /

# --- engine configs and privileges ---------------------------------------------------------------
row engine-config-readonly stderr 1 "unable to configure docker: open lock file $E2E_TMP/engine/.daemon.json.lock: Read-only file system: $E2E_TMP/engine is on a read-only file system: make it writable, or write the config elsewhere with --config and point the engine at that file" \
  cmd unshare -m --propagation private sh -c "mount --bind -o ro '$E2E_TMP/engine' '$E2E_TMP/engine' && exec '$CTK' runtime configure --runtime=docker --nvidia-runtime-path='$GPU_SHIM' --config='$E2E_TMP/engine/daemon.json'"
row engine-config-nonroot stderr 1 "unable to configure docker: inspect $E2E_TMP/engine/daemon.json: Permission denied: nvidia-ctk must be run as root to edit $E2E_TMP/engine/daemon.json" \
  cmd setpriv --reuid=65534 --regid=65534 --clear-groups "$CTK" runtime configure --runtime=docker --nvidia-runtime-path="$GPU_SHIM" --config="$E2E_TMP/engine/daemon.json"
row engine-unknown stderr 1 "unrecognized runtime 'bogus' (--runtime takes docker, containerd or crio)" \
  cmd "$CTK" runtime configure --runtime=bogus --config="$E2E_TMP/engine/daemon.json"
row cli-nonroot stderr 1 "nvidia-container-cli: container error: open /proc/$CONTAINER_PID/ns/mnt: Permission denied (configuring a container needs root: run it as root, as the hook is)" \
  cmd setpriv --reuid=65534 --regid=65534 --clear-groups "$CLI" --root "$GPU_ROOT" configure --no-cgroups --pid "$CONTAINER_PID" --device=0 "$TEMPLATE/rootfs"
row cdi-generate-strategy stderr 1 "invalid device name strategy: bogus (expected index, uuid or type-index)" \
  cmd "$CTK" cdi generate --driver-root "$GPU_ROOT" --device-name-strategy=bogus
# As the reference: an unknown hook is a warning, so that an older nvidia-cdi-hook does not fail
# containers whose spec a newer nvidia-ctk wrote.
row cdi-hook-unknown stderr 0 'level=warning msg="Unsupported CDI hook: bogus"' cmd "$CDI_HOOK" bogus

echo
echo "| row | command | where | exit | message |"
echo "|---|---|---|---|---|"
printf '%s\n' "${TABLE[@]}" | sed "s|$E2E_TMP|\$TMP|g"
echo "# ${#TABLE[@]} rows"
[ "${#TABLE[@]}" -ge 40 ] || failed "the table has ${#TABLE[@]} rows, want at least 40"
e2e_finish
