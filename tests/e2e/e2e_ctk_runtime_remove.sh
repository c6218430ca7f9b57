#!/usr/bin/env bash
# nvidia-ctk runtime configure --remove (nvct extension, spec/packaging.md §4.7) with the built
# binary on files in a temp dir: configure, then --remove, for docker (a daemon.json in the
# writer's layout comes back byte for byte), containerd in drop-in mode (the drop-in goes, the
# imports line stays, and the installed containerd still loads the file), containerd in place,
# CRI-O's drop-in and the oci-hook file. Missing files are no-ops that create nothing, a second
# run changes nothing, and a runtime named nvidia whose path is another program's is kept.
# Nothing here needs root: no daemon is started.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/containerd.sh"

require_cmd jq python3
ctk="$(nvct_bin nvidia-ctk)"
# Configure needs the programs it names: docker's bare nvidia-container-runtime on PATH, and
# the built hook for oci-hook mode (--remove needs neither).
export PATH="$NVCT_BUILD_DIR/bin:$PATH"
hook="$(nvct_bin nvidia-container-runtime-hook)"
cri='io.containerd.grpc.v1.cri'
dir="$E2E_TMP"
# Stand-ins for the runtimes exist while configure runs and are deleted before every --remove:
# the package's cleanup may run after the binaries are gone.
bindir="$dir/bin"

# run_ctk <log> <args...>: runs nvidia-ctk with stderr in <log>; a failure ends the script.
run_ctk() {
  local log="$1"
  shift
  "$ctk" "$@" 2>"$log" || { cat "$log" >&2; e2e_die "nvidia-ctk $* failed"; }
}
# configure_three <args...>: configure nvidia, nvidia-cdi and nvidia-legacy as the installer does.
configure_three() {
  local exe
  mkdir -p "$bindir"
  for exe in nvidia-container-runtime{,.cdi,.legacy}; do
    printf '#!/bin/sh\n' >"$bindir/$exe"
    chmod 0755 "$bindir/$exe"
  done
  run_ctk "$dir/configure.log" runtime configure "$@" --nvidia-runtime-name nvidia \
    --nvidia-runtime-path "$bindir/nvidia-container-runtime"
  run_ctk "$dir/configure.log" runtime configure "$@" --nvidia-runtime-name nvidia-cdi \
    --nvidia-runtime-path "$bindir/nvidia-container-runtime.cdi"
  run_ctk "$dir/configure.log" runtime configure "$@" --nvidia-runtime-name nvidia-legacy \
    --nvidia-runtime-path "$bindir/nvidia-container-runtime.legacy"
  rm -rf "$bindir"
}
identity() { stat -c '%i %y' "$1"; }

check_contains "--help describes --remove" "--remove" "$("$ctk" runtime configure --help 2>&1)"

# --- docker ---
d="$dir/docker"
mkdir -p "$d"
# {"log-driver":"local"} in the layout the writer gives every daemon.json (Go MarshalIndent).
printf '{\n    "log-driver": "local"\n}' >"$d/daemon.json"
chmod 0640 "$d/daemon.json"
cp "$d/daemon.json" "$d/seed.json"
configure_three --runtime=docker --config "$d/daemon.json"
check_eq "docker: configure added three runtimes" 3 "$(jq '.runtimes | length' "$d/daemon.json")"
run_ctk "$d/remove.log" runtime configure --remove --runtime=docker --config "$d/daemon.json"
check "docker: the seed comes back byte for byte" same_file "$d/daemon.json" "$d/seed.json"
check_eq "docker: mode kept" 640 "$(stat -c %a "$d/daemon.json")"
check_contains "docker: what was removed is logged" \
  "Removed runtimes nvidia, nvidia-cdi, nvidia-legacy from $d/daemon.json" "$(cat "$d/remove.log")"
check_contains "docker: restart hint" "systemctl restart docker" "$(cat "$d/remove.log")"

before="$(identity "$d/daemon.json")"
run_ctk "$d/again.log" runtime configure --remove --runtime=docker --config "$d/daemon.json"
check_eq "docker: a second run does not rewrite the file" "$before" "$(identity "$d/daemon.json")"
check_contains "docker: second run says nothing to remove" "Nothing to remove from" \
  "$(cat "$d/again.log")"
if grep -q "restart" "$d/again.log"; then failed "docker: no restart hint without a change"; else
  pass "docker: no restart hint without a change"; fi

# A compact daemon.json comes back equal as JSON (configure rewrites it in the writer's layout).
printf '{"log-driver":"local","storage-driver":"overlay2"}' >"$d/compact.json"
cp "$d/compact.json" "$d/compact.seed"
run_ctk "$dir/configure.log" runtime configure --runtime=docker --config "$d/compact.json" \
  --set-as-default
run_ctk "$d/remove.log" runtime configure --remove --runtime=docker --config "$d/compact.json"
check_eq "docker: compact seed equal as JSON, default-runtime now runc" \
  "$(jq -S '. + {"default-runtime": "runc"}' "$d/compact.seed")" "$(jq -S . "$d/compact.json")"

# A runtime named nvidia that is another program's stays, with a warning naming it.
printf '{"runtimes":{"nvidia":{"path":"/opt/other/runtime"},"nvidia-cdi":{"path":"%s"}}}' \
  "$bindir/nvidia-container-runtime.cdi" >"$d/foreign.json"
run_ctk "$d/foreign.log" runtime configure --remove --runtime=docker --config "$d/foreign.json"
check_eq "docker: foreign nvidia entry kept" /opt/other/runtime \
  "$(jq -r '.runtimes.nvidia.path' "$d/foreign.json")"
check_eq "docker: our nvidia-cdi entry removed" null "$(jq -r '.runtimes["nvidia-cdi"]' "$d/foreign.json")"
# (logrus format: the quotes around the path are escaped in msg="...")
check_contains "docker: warning names the foreign entry" \
  "Keeping runtime nvidia in $d/foreign.json: its executable \\\"/opt/other/runtime\\\"" \
  "$(cat "$d/foreign.log")"

# --dry-run prints the result and writes nothing.
configure_three --runtime=docker --config "$d/daemon.json"
cp "$d/daemon.json" "$d/configured.json"
out="$("$ctk" runtime configure --remove --runtime=docker --config "$d/daemon.json" --dry-run \
  2>/dev/null)"
check_eq "docker: dry run prints the resulting file" "$(cat "$d/seed.json")" "$out"
check "docker: dry run wrote nothing" same_file "$d/daemon.json" "$d/configured.json"

# A missing daemon.json is a no-op that creates nothing.
run_ctk "$d/missing.log" runtime configure --remove --runtime=docker --config "$d/none/daemon.json"
check "docker: missing file: nothing created" test ! -e "$d/none"
check_contains "docker: missing file logged" "Nothing to remove: $d/none/daemon.json does not exist" \
  "$(cat "$d/missing.log")"

# --- containerd, drop-in mode ---
c="$dir/containerd"
mkdir -p "$c"
write_main() {
  cat >"$c/config.toml" <<'TOML'
version = 2
oom_score = -999

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.example/pause:3.9"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"
TOML
}
write_main
configure_three --runtime=containerd --config "$c/config.toml" \
  --drop-in-config "$c/conf.d/99-nvidia.toml" --cdi.enabled
check "containerd: drop-in written" test -s "$c/conf.d/99-nvidia.toml"
cp "$c/config.toml" "$c/config.configured"
run_ctk "$c/remove.log" runtime configure --remove --runtime=containerd --config "$c/config.toml" \
  --drop-in-config "$c/conf.d/99-nvidia.toml"
check "containerd: drop-in deleted" test ! -e "$c/conf.d/99-nvidia.toml"
check_eq "containerd: nothing left in conf.d (no lock file either)" "" "$(ls -A "$c/conf.d")"
check "containerd: main file untouched" same_file "$c/config.toml" "$c/config.configured"
check_eq "containerd: imports line kept" "[\"$c/conf.d/*.toml\"]" \
  "$(toml_get "$c/config.toml" imports | tr -d ' ')"
check_contains "containerd: restart hint" "systemctl restart containerd" "$(cat "$c/remove.log")"
if command -v containerd >/dev/null 2>&1; then
  containerd_dump "$c/config.toml" "$c/dump.toml"
  pass "containerd: config dump of the cleaned-up file succeeds"
  check_eq "containerd: dump has no nvidia runtime" null \
    "$(toml_get "$c/dump.toml" plugins "$cri" containerd runtimes nvidia)"
  check_eq "containerd: dump keeps sandbox_image" '"registry.example/pause:3.9"' \
    "$(toml_get "$c/dump.toml" plugins "$cri" sandbox_image)"
else
  echo "# containerd not installed: config dump not checked"
fi
run_ctk "$c/again.log" runtime configure --remove --runtime=containerd --config "$c/config.toml" \
  --drop-in-config "$c/conf.d/99-nvidia.toml"
check "containerd: second run leaves the main file" same_file "$c/config.toml" "$c/config.configured"
check_contains "containerd: second run: drop-in missing is a no-op" \
  "Nothing to remove: $c/conf.d/99-nvidia.toml does not exist" "$(cat "$c/again.log")"

# --- containerd, in place, as the default runtime, next to a foreign nvidia-legacy ---
write_main
configure_three --runtime=containerd --config "$c/config.toml" --drop-in-config "" \
  --set-as-default --cdi.enabled
python3 - "$c/config.toml" "$bindir/nvidia-container-runtime.legacy" <<'PY'
import sys
path, ours = sys.argv[1], sys.argv[2]
text = open(path).read()
new = text.replace(f'BinaryName = "{ours}"', 'BinaryName = "/opt/other/runtime"')
assert new != text, "nvidia-legacy BinaryName not found"
open(path, "w").write(new)
PY
run_ctk "$c/inplace.log" runtime configure --remove --runtime=containerd --config "$c/config.toml" \
  --drop-in-config ""
t="$c/config.toml"
check_eq "in place: nvidia removed" null "$(toml_get "$t" plugins "$cri" containerd runtimes nvidia)"
check_eq "in place: nvidia-cdi removed" null \
  "$(toml_get "$t" plugins "$cri" containerd runtimes nvidia-cdi)"
check_eq "in place: foreign nvidia-legacy kept" '"/opt/other/runtime"' \
  "$(toml_get "$t" plugins "$cri" containerd runtimes nvidia-legacy options BinaryName)"
check_contains "in place: warning names the foreign entry" "Keeping runtime nvidia-legacy" \
  "$(cat "$c/inplace.log")"
check_eq "in place: default nvidia-legacy is foreign, so it stays" '"nvidia-legacy"' \
  "$(toml_get "$t" plugins "$cri" containerd default_runtime_name)"
check_eq "in place: enable_cdi kept" true "$(toml_get "$t" plugins "$cri" enable_cdi)"
check_eq "in place: runc kept" '"io.containerd.runc.v2"' \
  "$(toml_get "$t" plugins "$cri" containerd runtimes runc runtime_type)"
check_eq "in place: sandbox_image kept" '"registry.example/pause:3.9"' \
  "$(toml_get "$t" plugins "$cri" sandbox_image)"

write_main
run_ctk "$dir/configure.log" runtime configure --runtime=containerd --config "$c/config.toml" \
  --drop-in-config "" --set-as-default --nvidia-runtime-path "$(shim_bin)"
run_ctk "$c/inplace2.log" runtime configure --remove --runtime=containerd --config "$c/config.toml" \
  --drop-in-config ""
check_eq "in place: a default naming our runtime becomes runc" '"runc"' \
  "$(toml_get "$t" plugins "$cri" containerd default_runtime_name)"
if command -v containerd >/dev/null 2>&1; then
  containerd_dump "$c/config.toml" "$c/dump2.toml"
  check_eq "in place: containerd's default runtime is runc" '"runc"' \
    "$(toml_get "$c/dump2.toml" plugins "$cri" containerd default_runtime_name)"
fi

# --- CRI-O drop-in ---
o="$dir/crio"
mkdir -p "$o"
printf '# CRI-O\n[crio.runtime]\ndefault_runtime = "crun"\n' >"$o/crio.conf"
cp "$o/crio.conf" "$o/crio.seed"
configure_three --runtime=crio --config "$o/crio.conf" --drop-in-config "$o/crio.conf.d/99-nvidia.toml"
check "crio: drop-in written" test -s "$o/crio.conf.d/99-nvidia.toml"
run_ctk "$o/remove.log" runtime configure --remove --runtime=crio --config "$o/crio.conf" \
  --drop-in-config "$o/crio.conf.d/99-nvidia.toml"
check "crio: drop-in deleted" test ! -e "$o/crio.conf.d/99-nvidia.toml"
check "crio: main file byte-identical" same_file "$o/crio.conf" "$o/crio.seed"
check_contains "crio: restart hint" "systemctl restart crio" "$(cat "$o/remove.log")"
run_ctk "$o/missing.log" runtime configure --remove --runtime=crio --config "$o/crio.conf" \
  --drop-in-config "$o/none.d/99-nvidia.toml"
check "crio: missing drop-in: nothing created" test ! -e "$o/none.d"

# --- oci-hook ---
h="$dir/hooks.d"
run_ctk "$dir/configure.log" runtime configure --runtime=crio --config-mode=oci-hook \
  --oci-hook-path "$h/oci-nvidia-hook.json" --nvidia-runtime-hook-path "$hook"
check "oci-hook: hook file written" test -s "$h/oci-nvidia-hook.json"
run_ctk "$dir/hook.log" runtime configure --remove --runtime=crio --config-mode=oci-hook \
  --oci-hook-path "$h/oci-nvidia-hook.json"
check "oci-hook: our hook file deleted" test ! -e "$h/oci-nvidia-hook.json"
mkdir -p "$dir/other"
printf '#!/bin/sh\n' >"$dir/other/hook"
chmod 0755 "$dir/other/hook"
run_ctk "$dir/configure.log" runtime configure --runtime=crio --config-mode=oci-hook \
  --oci-hook-path "$h/other.json" --nvidia-runtime-hook-path "$dir/other/hook"
cp "$h/other.json" "$h/other.seed"
run_ctk "$dir/hook2.log" runtime configure --remove --runtime=crio --config-mode=oci-hook \
  --oci-hook-path "$h/other.json"
check "oci-hook: another program's hook file kept" same_file "$h/other.json" "$h/other.seed"
check_contains "oci-hook: warning names it" \
  "Keeping $h/other.json: its hook \\\"$dir/other/hook\\\" is not the NVIDIA Container Runtime hook" \
  "$(cat "$dir/hook2.log")"
run_ctk "$dir/hook3.log" runtime configure --remove --runtime=crio --config-mode=oci-hook \
  --oci-hook-path "$h/oci-nvidia-hook.json"
check_contains "oci-hook: a missing file is a no-op" "Nothing to remove" "$(cat "$dir/hook3.log")"

e2e_finish
