#!/usr/bin/env bash
# nvidia-ctk runtime configure --runtime=containerd against the installed containerd (1.6 on
# Debian 12): `containerd config dump` of the edited main file shows the nvidia runtime with its
# BinaryName and the main file's other settings (drop-in mode and in-place mode), and a version-3
# file is refused on containerd 1.x instead of being written where 1.x silently ignores it.
# Finally a private containerd started with a generated config runs a GPU container on the mock
# driver through `ctr run --runtime io.containerd.runc.v2 --runc-binary <shim>`, and through
# `ctr run --gpus 0` (containerd's own hook calling our nvidia-container-cli).
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/containerd.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"

require_cmd containerd python3
ctk="$(nvct_bin nvidia-ctk)"
cri='io.containerd.grpc.v1.cri'
dir="$E2E_TMP"
# The runtime path written must be an executable file (a stand-in: containerd only records it).
runtime_path="$dir/nvct/bin/nvidia-container-runtime"
mkdir -p "$dir/nvct/bin"
printf '#!/bin/sh\n' >"$runtime_path"
chmod 0755 "$runtime_path"

write_main() {
  cat >"$dir/config.toml" <<'TOML'
version = 2
oom_score = -999

[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "registry.example/pause:3.9"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
  runtime_type = "io.containerd.runc.v2"

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true

[plugins."io.containerd.gc.v1.scheduler"]
  pause_threshold = 0.05
TOML
}

# --- drop-in mode (the default since v1.18) ---
write_main
"$ctk" runtime configure --runtime=containerd --config "$dir/config.toml" \
  --drop-in-config "$dir/conf.d/99-nvidia.toml" --nvidia-runtime-path "$runtime_path" \
  2>"$dir/ctk.log" || { cat "$dir/ctk.log" >&2; e2e_die "runtime configure (drop-in) failed"; }
check "drop-in written" test -s "$dir/conf.d/99-nvidia.toml"
check_eq "main file imports the drop-in dir" "[\"$dir/conf.d/*.toml\"]" \
  "$(toml_get "$dir/config.toml" imports | tr -d ' ')"
check_contains "restart advice logged" "It is recommended that containerd daemon be restarted." \
  "$(cat "$dir/ctk.log")"

containerd_dump "$dir/config.toml" "$dir/dump.toml"
d="$dir/dump.toml"
check_eq "dump: nvidia BinaryName" "\"$runtime_path\"" \
  "$(toml_get "$d" plugins "$cri" containerd runtimes nvidia options BinaryName)"
check_eq "dump: nvidia runtime_type" '"io.containerd.runc.v2"' \
  "$(toml_get "$d" plugins "$cri" containerd runtimes nvidia runtime_type)"
check_eq "dump: nvidia inherits SystemdCgroup from runc" true \
  "$(toml_get "$d" plugins "$cri" containerd runtimes nvidia options SystemdCgroup)"
check_eq "dump: runc kept" '"io.containerd.runc.v2"' \
  "$(toml_get "$d" plugins "$cri" containerd runtimes runc runtime_type)"
check_eq "dump: main file's sandbox_image kept" '"registry.example/pause:3.9"' \
  "$(toml_get "$d" plugins "$cri" sandbox_image)"
check_eq "dump: main file's other plugin kept" 0.05 \
  "$(toml_get "$d" plugins io.containerd.gc.v1.scheduler pause_threshold)"
check_eq "dump: top-level oom_score kept" -999 "$(toml_get "$d" oom_score)"
check_eq "dump: default runtime untouched" '"runc"' \
  "$(toml_get "$d" plugins "$cri" containerd default_runtime_name)"

# Why the drop-in carries the whole CRI table: a drop-in with only the runtime makes 1.x drop
# the main file's CRI settings (spec/ctk.md §6.2). This control shows the hazard is real here.
mkdir -p "$dir/control/conf.d"
sed "s|$dir/conf.d|$dir/control/conf.d|" "$dir/config.toml" >"$dir/control/config.toml"
cat >"$dir/control/conf.d/99-nvidia.toml" <<TOML
version = 2
[plugins."$cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
TOML
containerd_dump "$dir/control/config.toml" "$dir/control/dump.toml"
if [ "$(containerd_major)" = 1 ]; then
  check_eq "control: a runtime-only drop-in loses sandbox_image on containerd 1.x" \
    '"registry.k8s.io/pause:3.6"' "$(toml_get "$dir/control/dump.toml" plugins "$cri" sandbox_image)"
fi

# A second run regenerates the same drop-in and leaves the main file byte for byte.
cp "$dir/config.toml" "$dir/config.before"
cp "$dir/conf.d/99-nvidia.toml" "$dir/dropin.before"
"$ctk" runtime configure --runtime=containerd --config "$dir/config.toml" \
  --drop-in-config "$dir/conf.d/99-nvidia.toml" --nvidia-runtime-path "$runtime_path" 2>/dev/null
check "rerun: main file unchanged" same_file "$dir/config.toml" "$dir/config.before"
check "rerun: drop-in identical" same_file "$dir/conf.d/99-nvidia.toml" "$dir/dropin.before"

# --- in place, as the default runtime ---
write_main
"$ctk" runtime configure --runtime=containerd --config "$dir/config.toml" --drop-in-config "" \
  --nvidia-runtime-path "$runtime_path" --set-as-default 2>/dev/null ||
  e2e_die "runtime configure (in place) failed"
containerd_dump "$dir/config.toml" "$dir/dump2.toml"
check_eq "in place: default_runtime_name" '"nvidia"' \
  "$(toml_get "$dir/dump2.toml" plugins "$cri" containerd default_runtime_name)"
check_eq "in place: BinaryName" "\"$runtime_path\"" \
  "$(toml_get "$dir/dump2.toml" plugins "$cri" containerd runtimes nvidia options BinaryName)"
check_eq "in place: sandbox_image kept" '"registry.example/pause:3.9"' \
  "$(toml_get "$dir/dump2.toml" plugins "$cri" sandbox_image)"

# --- dry run writes nothing ---
write_main
cp "$dir/config.toml" "$dir/config.before"
rm -rf "$dir/dry.d"
out="$("$ctk" runtime configure --runtime=containerd --config "$dir/config.toml" \
  --drop-in-config "$dir/dry.d/99-nvidia.toml" --dry-run 2>/dev/null)"
check_contains "dry run prints the drop-in" "Drop-in config:" "$out"
check "dry run: main file unchanged" same_file "$dir/config.toml" "$dir/config.before"
check "dry run: no drop-in dir" test ! -e "$dir/dry.d"

# --- version 1 is edited in place and still read by containerd ---
cat >"$dir/v1.toml" <<'TOML'
[plugins.cri]
  sandbox_image = "registry.example/pause:3.9"
TOML
"$ctk" runtime configure --runtime=containerd --config "$dir/v1.toml" \
  --drop-in-config "$dir/v1.d/99-nvidia.toml" --nvidia-runtime-path "$runtime_path" 2>/dev/null ||
  e2e_die "runtime configure (version 1) failed"
check "v1: no drop-in" test ! -e "$dir/v1.d/99-nvidia.toml"
containerd_dump "$dir/v1.toml" "$dir/dump-v1.toml"
check_eq "v1: BinaryName visible to containerd" "\"$runtime_path\"" \
  "$(toml_get "$dir/dump-v1.toml" plugins "$cri" containerd runtimes nvidia options BinaryName)"

# --- version 3 on containerd 1.x: refused, nothing written ---
if [ "$(containerd_major)" = 1 ]; then
  printf 'version = 3\n' >"$dir/v3.toml"
  if "$ctk" runtime configure --runtime=containerd --config "$dir/v3.toml" \
    --drop-in-config "$dir/v3.d/99-nvidia.toml" --nvidia-runtime-path "$runtime_path" \
    2>"$dir/v3.log"; then
    failed "v3 on containerd 1.x: expected exit 1"
  else
    pass "v3 on containerd 1.x: exit 1"
  fi
  check_contains "v3: message explains" "silently ignores version-3 files" "$(cat "$dir/v3.log")"
  check "v3: no drop-in" test ! -e "$dir/v3.d/99-nvidia.toml"
  check_eq "v3: main file untouched" "version = 3" "$(cat "$dir/v3.toml")"
else
  check_eq "containerd 2.x: version-3 check not applicable" 2 "$(containerd_major)"
fi

# --- the CRI plugin still loads: Debian's stock config.toml, and no file at all ----------------
# containerd decodes the CRI section into a fresh runtimes map: a drop-in with only `nvidia` made
# "no corresponding runtime configured in containerd.runtimes for default_runtime_name = runc".
# cri_status <dir>: configure <dir>/config.toml (drop-in mode), start a private containerd on it
# (own root, state and sockets, appended after the edit) and print the CRI plugin's status.
cri_status() {
  local d="$1" pid status
  "$ctk" --quiet runtime configure --runtime=containerd --config "$d/config.toml" \
    --drop-in-config "$d/conf.d/99-nvidia.toml" --nvidia-runtime-path "$runtime_path" ||
    e2e_die "runtime configure in $d failed"
  printf '\nroot = "%s/root"\nstate = "%s/state"\n' "$d" "$d" >"$d/private.toml"
  python3 - "$d/config.toml" "$d/private.toml" <<'PY'
import sys
main, extra = sys.argv[1], open(sys.argv[2]).read()
text = open(main).read()
# Top-level keys must come before the first table.
head, sep, rest = text.partition("\n[")
open(main, "w").write(head + extra + sep + rest)
PY
  printf '\n[grpc]\n  address = "%s/c.sock"\n[ttrpc]\n  address = "%s/t.sock"\n' "$d" "$d" \
    >>"$d/config.toml"
  containerd --config "$d/config.toml" >"$d/containerd.log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do [ -S "$d/c.sock" ] && break; sleep 0.1; done
  status="$(ctr --address "$d/c.sock" plugins ls 2>/dev/null | awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" { print $4 }')"
  kill "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
  umount -R "$d/state" 2>/dev/null || true
  echo "${status:-none}"
}
require_cmd ctr
stock="$dir/stock"
mkdir -p "$stock"
containerd_debian_stock_config "$stock/config.toml"
check_eq "Debian's stock config.toml: the CRI plugin loads after configure" ok "$(cri_status "$stock")"
check_contains "... its drop-in has containerd's runc entry beside nvidia" \
  'runtime_type = "io.containerd.runc.v2"' \
  "$(sed -n '/runtimes.runc\]/,/^$/p' "$stock/conf.d/99-nvidia.toml")"
none="$dir/none"
mkdir -p "$none"
check_eq "no config.toml: the CRI plugin loads after configure" ok "$(cri_status "$none")"

# --- a private containerd started with the generated config runs a container ---
require_cmd ctr containerd-shim-runc-v2
gpu_setup one-gpu
run_dir="$dir/run"
mkdir -p "$run_dir"
cat >"$run_dir/config.toml" <<TOML
version = 2
root = "$run_dir/root"
state = "$run_dir/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]

[grpc]
  address = "$run_dir/containerd.sock"

[ttrpc]
  address = "$run_dir/containerd.ttrpc.sock"
TOML
"$ctk" runtime configure --runtime=containerd --config "$run_dir/config.toml" \
  --drop-in-config "$run_dir/conf.d/99-nvidia.toml" --nvidia-runtime-path "$GPU_SHIM" \
  2>"$run_dir/ctk.log" || { cat "$run_dir/ctk.log" >&2; e2e_die "runtime configure (run) failed"; }
containerd --config "$run_dir/config.toml" >"$run_dir/containerd.log" 2>&1 &
echo $! >"$run_dir/containerd.pid"
e2e_on_exit "kill \$(cat '$run_dir/containerd.pid') 2>/dev/null; sleep 0.5; umount -R '$run_dir/state' 2>/dev/null"
for _ in $(seq 100); do [ -S "$run_dir/containerd.sock" ] && break; sleep 0.1; done
check "private containerd started with the generated config" test -S "$run_dir/containerd.sock"
make_rootfs "$run_dir/rootfs" glibc
printf '%s' "$GPU_REPORT" >"$run_dir/rootfs/report.sh"
out="$run_dir/ctr.out"
if timeout 120 ctr --address "$run_dir/containerd.sock" run --rm \
    --runtime io.containerd.runc.v2 --runc-binary "$GPU_SHIM" \
    --env PATH=/usr/sbin:/usr/bin:/sbin:/bin --env NVIDIA_VISIBLE_DEVICES=all \
    --mount type=tmpfs,src=tmpfs,dst=/proc/driver,options=nosuid:nodev:noexec \
    --rootfs "$run_dir/rootfs" nvct-ctk-e2e sh /report.sh >"$out" 2>"$run_dir/ctr.err"; then
  check_contains "ctr run through the shim: the container has /dev/nvidia0" "/dev/nvidia0" \
    "$(gpu_nodes "$out")"
  check_eq "ctr run through the shim: nvidia-smi -L lists the mock GPU" 1 \
    "$(gpu_field "$out" smi | grep -c '^GPU ')"
else
  failed "ctr run through the shim failed: $(tr '\n' ' ' <"$run_dir/ctr.err")"
fi

# --- ctr run --gpus 0: containerd's own GPU support calls nvidia-container-cli -----------------
# ctr adds a prestart hook `ctr oci-hook -- <nvidia-container-cli from PATH> --load-kmods
# configure --device=0 --compute --utility ... --pid=<pid> <rootfs>`, with the stock runc. The
# nvidia-container-cli it finds is a wrapper that adds --root <mock driver root> and records the
# arguments ctr passed.
cli_bin="$(nvct_bin nvidia-container-cli)"
mkdir -p "$run_dir/bin"
cat >"$run_dir/bin/nvidia-container-cli" <<SH
#!/bin/sh
printf '%s\n' "\$*" >>'$run_dir/cli-args'
exec '$cli_bin' --root '$GPU_ROOT' "\$@"
SH
chmod 0755 "$run_dir/bin/nvidia-container-cli"
out="$run_dir/ctr-gpus.out"
if PATH="$run_dir/bin:$PATH" timeout 120 ctr --address "$run_dir/containerd.sock" run --rm \
    --gpus 0 --env PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    --mount type=tmpfs,src=tmpfs,dst=/proc/driver,options=nosuid:nodev:noexec \
    --rootfs "$run_dir/rootfs" nvct-ctr-gpus sh /report.sh >"$out" 2>"$run_dir/ctr-gpus.err"; then
  check_contains "ctr run --gpus 0: our nvidia-container-cli ran as containerd's hook" \
    "--load-kmods configure" "$(cat "$run_dir/cli-args" 2>/dev/null)"
  check_contains "ctr run --gpus 0: the container has /dev/nvidia0" "/dev/nvidia0" "$(gpu_nodes "$out")"
  check_eq "ctr run --gpus 0: nvidia-smi -L lists the mock GPU" 1 \
    "$(gpu_field "$out" smi | grep -c '^GPU ')"
else
  failed "ctr run --gpus 0 failed: $(tr '\n' ' ' <"$run_dir/ctr-gpus.err")"
fi

e2e_finish
