#!/usr/bin/env bash
# Issue 18, Faults: SIGKILL at random moments (FAULT_KILLS, default 200, per file kind) during
# every host-file write nvidia-ctk makes: `config --in-place --set` (config.toml), `runtime
# configure` for docker (daemon.json), containerd and CRI-O, and `cdi generate --output` (the
# CDI spec). After every kill the file must be byte-identical to the old or to the new complete
# version (both computed first by unkilled runs); the next run must remove the temp and lock files
# of killed runs. Half the kills are spread uniformly over the writer's measured lifetime, half
# follow the appearance of its temp file; slow_write.c stretches the write itself so that many
# kills land while the temp file is half written. fault_inject_kill.c prints how many kills landed
# before the write, mid-write, after the rename, or after the writer had finished.
source "$(dirname "$0")/lib.sh"

# A runtime binary for --nvidia-runtime-path (checked to be an executable file).
RT="$FT/bin/nvidia-container-runtime"
mkdir -p "$FT/bin"
printf '#!/bin/sh\nexit 0\n' >"$RT"
chmod 0755 "$RT"
# Filler: big enough files that parsing and writing take a measurable part of the lifetime.
FILL60="$(printf 'x%.0s' {1..60})"
filler_comments() { for ((i = 1; i <= $1; i++)); do printf '# filler line %05d %s\n' "$i" "$FILL60"; done; }

kill_kind() { # <kind> <target> <old or -> <temp prefix> <command...>
  local kind="$1" target="$2" old="$3" temp="$4"
  shift 4
  FAULT_SLOW_WRITE_PREFIX="$temp" FAULT_SLOW_WRITE_US="${FAULT_SLOW_WRITE_US:-150}" \
    fault_kill --kind "$kind" --runs "$FAULT_KILLS" --target "$target" --old "$old" \
    --new "$FT/$kind.new" --temp "$temp" --lock .lock \
    --preload "$FAULT_SLOW_WRITE" --log "$FT/$kind.log" -- "$@"
  [ "$old" = - ] || check "$kind: the new version differs from the old" differs "$old" "$FT/$kind.new"
}

# --- config.toml: config --in-place --set ---
mkdir -p "$FT/ctk"
{ "$CTK" config default 2>/dev/null; filler_comments 250; } >"$FT/config.old"
check "config.toml: the old file has the key that is set" grep -q '^#* *debug = ' "$FT/config.old"
kill_kind config.toml "$FT/ctk/config.toml" "$FT/config.old" .config.toml. \
  "$CTK" --quiet config --in-place --config "$FT/ctk/config.toml" \
  --set nvidia-container-cli.debug=/var/log/faults.log
check "config.toml: the new version has the set key" \
  grep -q '^debug = "/var/log/faults.log"' "$FT/config.toml.new"

# --- daemon.json: runtime configure --runtime=docker ---
mkdir -p "$FT/docker"
{
  printf '{\n  "log-driver": "json-file",\n'
  for ((i = 1; i <= 200; i++)); do printf '  "x-filler-%04d": "%s%s",\n' "$i" "$FILL60" "$FILL60"; done
  printf '  "x-last": true\n}\n'
} >"$FT/daemon.old"
kill_kind daemon.json "$FT/docker/daemon.json" "$FT/daemon.old" .daemon.json. \
  "$CTK" --quiet runtime configure --runtime=docker --config "$FT/docker/daemon.json" \
  --nvidia-runtime-path "$RT"
check "daemon.json: the new version has the nvidia runtime" \
  grep -q '"nvidia"' "$FT/daemon.json.new"

# --- containerd config.toml, edited in place (--drop-in-config "") ---
mkdir -p "$FT/containerd"
{
  printf 'version = 2\n\n'
  filler_comments 250
  printf '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n'
  printf '  runtime_type = "io.containerd.runc.v2"\n'
  printf '[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]\n'
  printf '  SystemdCgroup = true\n'
} >"$FT/containerd.old"
kill_kind containerd "$FT/containerd/config.toml" "$FT/containerd.old" .config.toml. \
  "$CTK" --quiet runtime configure --runtime=containerd --config "$FT/containerd/config.toml" \
  --drop-in-config "" --nvidia-runtime-path "$RT"
check "containerd: the new version has the nvidia runtime with SystemdCgroup copied" \
  grep -q 'runtimes.nvidia.options' "$FT/containerd.new"

# --- CRI-O: the drop-in (the default mode) replacing an older drop-in ---
mkdir -p "$FT/crio/crio.conf.d"
printf '[crio.runtime]\ndefault_runtime = "runc"\n\n[crio.runtime.runtimes.runc]\nruntime_path = "/usr/bin/runc"\n' \
  >"$FT/crio/crio.conf"
printf '[crio.runtime.runtimes.nvidia]\nruntime_path = "/usr/local/old/nvidia-container-runtime"\nruntime_type = "oci"\n' \
  >"$FT/crio-dropin.old"
# The drop-in is a few hundred bytes: written 24 bytes at a time to be caught half written.
FAULT_SLOW_WRITE_CHUNK=24 kill_kind crio "$FT/crio/crio.conf.d/99-nvidia.toml" "$FT/crio-dropin.old" \
  .99-nvidia.toml. \
  "$CTK" --quiet runtime configure --runtime=crio --config "$FT/crio/crio.conf" \
  --drop-in-config "$FT/crio/crio.conf.d/99-nvidia.toml" --nvidia-runtime-path "$RT"
check "crio: the new drop-in points at the new runtime" grep -q "runtime_path = \"$RT\"" "$FT/crio.new"

# --- CDI spec: cdi generate --output ---
fault_mock_root eight-gpus "$FT/driver-root"
mkdir -p "$FT/cdi"
"$CTK" --quiet cdi generate --driver-root "$FT/driver-root" --nvidia-cdi-hook-path "$CDI_HOOK" \
  --device-name-strategy uuid --output "$FT/cdi.old" 2>"$FT/cdi-old.err" ||
  e2e_die "cdi generate (old version) failed: $(cat "$FT/cdi-old.err")"
kill_kind cdi-spec "$FT/cdi/nvidia.yaml" "$FT/cdi.old" .nvidia.yaml. \
  "$CTK" --quiet cdi generate --driver-root "$FT/driver-root" --nvidia-cdi-hook-path "$CDI_HOOK" \
  --output "$FT/cdi/nvidia.yaml"
check "cdi-spec: the new version names devices by index" grep -q 'name: "*0"*$' "$FT/cdi-spec.new"

e2e_finish
