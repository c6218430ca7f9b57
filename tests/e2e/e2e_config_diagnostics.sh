#!/usr/bin/env bash
# How every binary that reads config.toml reports on it (issue 16): an unknown key is a warning
# naming the file, the key and the nearest valid key; the file in use is logged at debug level;
# errors about a setting name the file; `nvidia-ctk config --set` refuses a value outside an enum
# key's set and writes nothing. Runs the built shim (in front of nvct-fake-runtime), nvidia-ctk and
# the hook; no container runtime, no GPU.
source "$(dirname "$0")/lib/common.sh"
require_cmd jq

SHIM="$(shim_bin)"
FAKE="$(fake_runtime_bin)"
CTK="$(nvct_bin nvidia-ctk)"
HOOK_BIN="$(nvct_bin nvidia-container-runtime-hook)"
REC="$E2E_TMP/rec"
mkdir -p "$REC"
CFG="$E2E_TMP/config.toml"

# --- the shim -----------------------------------------------------------------------------------
# A config with a typo: "mdoe" for "mode", and "root" outside its table.
cat >"$CFG" <<TOML
root = "/run/nvidia/driver"
[nvidia-container-runtime]
debug = "$E2E_TMP/shim.log"
log-level = "debug"
mdoe = "legacy"
runtimes = ["$FAKE"]
TOML
rc=0
err="$(NVIDIA_CTK_CONFIG_FILE_PATH="$CFG" FAKE_RUNTIME_DIR="$REC" "$SHIM" --log "$E2E_TMP/runc.json" \
  --log-format json state c1 2>&1 >/dev/null)" || rc=$?
check_eq "shim: an unknown key does not stop the runtime" 0 "$rc"
check_eq "shim: nothing on stderr for a pass-through command" "" "$err"
check "shim: warning with the file, the key and the nearest key in the debug log" grep -qF \
  "level=warning msg=\"$CFG: unknown key \\\"nvidia-container-runtime.mdoe\\\" is ignored; did you mean \\\"nvidia-container-runtime.mode\\\"?\"" \
  "$E2E_TMP/shim.log"
check "shim: the key outside its table is named with its table" grep -qF \
  "unknown key \\\"root\\\" is ignored; did you mean \\\"nvidia-container-cli.root\\\"?" \
  "$E2E_TMP/shim.log"
check_eq "shim: the warning reaches runc's --log (JSON) too" 2 \
  "$(jq -r 'select(.level=="warning") | .msg' "$E2E_TMP/runc.json" | grep -c 'unknown key')"
check "shim: log-level debug shows which file was used" grep -qF \
  "level=debug msg=\"Using config file $CFG\"" "$E2E_TMP/shim.log"

# At the default log-level the debug line stays out; the warning does not.
sed -i 's/log-level = "debug"/log-level = "info"/' "$CFG"
: >"$E2E_TMP/shim.log"
NVIDIA_CTK_CONFIG_FILE_PATH="$CFG" FAKE_RUNTIME_DIR="$REC" "$SHIM" state c1 >/dev/null
check "shim: at log-level info no debug line" bash -c "! grep -q level=debug '$E2E_TMP/shim.log'"
check "shim: at log-level info the warning is still there" grep -q "unknown key" "$E2E_TMP/shim.log"

# XDG_CONFIG_HOME is the shim's fallback when NVIDIA_CTK_CONFIG_FILE_PATH is unset (config.md §1).
mkdir -p "$E2E_TMP/xdg/nvidia-container-runtime"
printf '[nvidia-container-runtime]\ndebug = "%s"\nlog-level = "debug"\nruntimes = ["%s"]\n' \
  "$E2E_TMP/xdg.log" "$FAKE" >"$E2E_TMP/xdg/nvidia-container-runtime/config.toml"
(unset NVIDIA_CTK_CONFIG_FILE_PATH && XDG_CONFIG_HOME="$E2E_TMP/xdg" FAKE_RUNTIME_DIR="$REC" \
  "$SHIM" state c1 >/dev/null)
check "shim: XDG_CONFIG_HOME's file is used and named" grep -qF \
  "Using config file $E2E_TMP/xdg/nvidia-container-runtime/config.toml" "$E2E_TMP/xdg.log"

# A wrong type is an error that starts with the file.
printf '[nvidia-container-runtime]\nruntimes = "%s"\n' "$FAKE" >"$CFG"
rc=0
err="$(NVIDIA_CTK_CONFIG_FILE_PATH="$CFG" "$SHIM" state c1 2>&1 >/dev/null)" || rc=$?
check_eq "shim: a wrongly typed setting fails" 1 "$rc"
check_eq "shim: the error names the file and the key" \
  "nvidia-container-runtime: load config: $CFG: nvidia-container-runtime.runtimes: expected an array of strings" \
  "$err"

# An invalid mode fails create with the file and the key that set it.
printf '[nvidia-container-runtime]\nmode = "legcy"\nruntimes = ["%s"]\n' "$FAKE" >"$CFG"
B="$E2E_TMP/bundle"
mkdir -p "$B/rootfs"
printf '{"ociVersion":"1.0.2","process":{"args":["sh"],"env":["NVIDIA_VISIBLE_DEVICES=all"],"cwd":"/"},"root":{"path":"rootfs"}}\n' >"$B/config.json"
rc=0
err="$(NVIDIA_CTK_CONFIG_FILE_PATH="$CFG" FAKE_RUNTIME_DIR="$REC" "$SHIM" create --bundle "$B" c2 2>&1 >/dev/null)" || rc=$?
check_eq "shim: an invalid mode fails create" 1 "$rc"
check_contains "shim: the mode error names the key and the file" \
  "nvidia-container-runtime.mode in $CFG: invalid mode \"legcy\"" "$err"

# --- nvidia-ctk ---------------------------------------------------------------------------------
printf '[nvidia-container-runtime]\nmdoe = "legacy"\n' >"$CFG"
rc=0
err="$(NVIDIA_CTK_CONFIG_FILE_PATH="$CFG" "$CTK" --debug config 2>&1 >/dev/null)" || rc=$?
check_eq "nvidia-ctk config: an unknown key is not an error" 0 "$rc"
check_contains "nvidia-ctk config: the warning names the file, the key and the nearest key" \
  "level=warning msg=\"$CFG: unknown key \\\"nvidia-container-runtime.mdoe\\\" is ignored; did you mean \\\"nvidia-container-runtime.mode\\\"?\"" \
  "$err"
check_contains "nvidia-ctk config: --debug names the file in use" \
  "level=debug msg=\"Using config file $CFG\"" "$err"

# The global --config picks the file of `config` too, and of `cdi generate`'s config read.
printf 'disable-require = false\n' >"$E2E_TMP/global.toml"
"$CTK" --config "$E2E_TMP/global.toml" config --set disable-require --in-place 2>/dev/null
check "nvidia-ctk --config: config edits that file" grep -q "^disable-require = true" "$E2E_TMP/global.toml"

# An enum value outside its set: an error naming key, value and valid values; nothing written.
cp "$CFG" "$E2E_TMP/before.toml"
rc=0
err="$("$CTK" config -c "$CFG" --set nvidia-container-runtime.mode=legcy --in-place 2>&1)" || rc=$?
check_eq "nvidia-ctk config --set mode=legcy fails" 1 "$rc"
check_contains "nvidia-ctk config --set: the error names key, value and valid values" \
  "nvidia-container-runtime.mode: invalid value \\\"legcy\\\" (valid values: auto, legacy, cdi, jit-cdi, csv); did you mean \\\"legacy\\\"?" \
  "$err"
check "nvidia-ctk config --set: the file is untouched" same_file "$CFG" "$E2E_TMP/before.toml"
rc=0
err="$("$CTK" config -c "$CFG" --set nvidia-container-runtime.log-level=loud -o "$E2E_TMP/out.toml" 2>&1)" || rc=$?
check_eq "nvidia-ctk config --set log-level=loud fails" 1 "$rc"
check "nvidia-ctk config --set: no output file" test ! -e "$E2E_TMP/out.toml"
rc=0
err="$("$CTK" config -c "$CFG" --set nvidia-container-runtime.mdoe=cdi 2>&1)" || rc=$?
check_eq "nvidia-ctk config --set with an unknown key fails" 1 "$rc"
check_contains "nvidia-ctk config --set: the unknown key gets the nearest key" \
  "unknown config key \\\"nvidia-container-runtime.mdoe\\\"; did you mean \\\"nvidia-container-runtime.mode\\\"?" \
  "$err"

# --- the hook -----------------------------------------------------------------------------------
# The hook reads only -config (or the default path), never the environment (security.md §5.2).
printf 'disable-require = "yes"\n' >"$E2E_TMP/hook.toml"
rc=0
err="$("$HOOK_BIN" -config "$E2E_TMP/hook.toml" prestart </dev/null 2>&1)" || rc=$?
check_eq "hook: a wrongly typed setting fails" 1 "$rc"
check_contains "hook: the error names the file and the key" \
  "$E2E_TMP/hook.toml: disable-require: expected a boolean" "$err"
# Its log (-debug: stderr) is set up from the config, yet gets what the loader said.
printf '[nvidia-container-runtime]\nmdoe = "legacy"\n' >"$E2E_TMP/hook-typo.toml"
err="$("$HOOK_BIN" -config "$E2E_TMP/hook-typo.toml" -debug prestart </dev/null 2>&1)" || true
check_contains "hook: an unknown key is reported in its log" \
  "unknown key \"nvidia-container-runtime.mdoe\" is ignored; did you mean \"nvidia-container-runtime.mode\"?" "$err"
check_contains "hook: its log names the config file it read" "Using config file $E2E_TMP/hook-typo.toml" "$err"

e2e_finish
