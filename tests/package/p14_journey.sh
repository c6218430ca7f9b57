#!/usr/bin/env bash
# P14: the install guide's journey (spec/packaging.md §2 steps 2-5) in a fresh root with the
# packages installed (as P7) and the one-GPU mock driver, no daemon: nvidia-ctk's edits of
# daemon.json, the containerd drop-in + imports and the CRI-O drop-in equal ctk.md's goldens; the
# rootless variant writes the user's daemon.json and `config --set ... no-cgroups`; `cdi generate`
# + `cdi list` show the mock GPU and "all"; the refresh unit's ExecStart= lines, run with the
# unit's Environment= and its env file, write /var/run/cdi/nvidia.yaml.
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"
source "$NVCT_SOURCE_DIR/tests/e2e/lib/containerd.sh"

pkg_require_debs
pkg_require_mock_driver
GOLDEN="$NVCT_SOURCE_DIR/tests/data/ctk"
MOCK=/opt/nvct-mock-driver
CONFIG=/etc/nvidia-container-runtime/config.toml
UNIT=/lib/systemd/system/nvidia-cdi-refresh.service

root="$(pkg_root_with p14 nvidia-container-toolkit)"
pkg_mock_root "$root$MOCK" one-gpu
# step <log-name> <command...>: one guide command in the root; a failure is reported.
step() {
  local name="$1"
  shift
  if pkg_chroot "$root" "$@" >"$E2E_TMP/$name.out" 2>"$E2E_TMP/$name.err"; then
    pass "\`$*\` exits 0"
  else
    failed "\`$*\` failed: $(tr '\n' ' ' <"$E2E_TMP/$name.err")"
  fi
}
same_as() {
  local what="$1" want="$2" file="$3"
  if [ -f "$file" ] && cmp -s "$want" "$file"; then
    pass "$what"
  else
    failed "$what: $(diff "$want" "$file" 2>&1 | head -20 | tr '\n' ' ')"
  fi
}

pkg_step "step 2: nvidia-ctk runtime configure --runtime=docker"
step docker nvidia-ctk runtime configure --runtime=docker
printf '{\n    "runtimes": {\n        "nvidia": {\n            "args": [],\n            "path": "nvidia-container-runtime"\n        }\n    }\n}' \
  >"$E2E_TMP/daemon.golden"
same_as "/etc/docker/daemon.json = ctk.md §5 (no previous file)" "$E2E_TMP/daemon.golden" "$root/etc/docker/daemon.json"
check_contains "it asks to restart docker" "restart" "$(cat "$E2E_TMP/docker.err" "$E2E_TMP/docker.out")"

pkg_step "step 2r: rootless Docker"
pkg_chroot "$root" useradd -m -s /bin/sh rootless || e2e_die "useradd failed"
step rootless runuser -u rootless -- nvidia-ctk runtime configure --runtime=docker \
  --config=/home/rootless/.config/docker/daemon.json
same_as "the user's daemon.json = the same golden" "$E2E_TMP/daemon.golden" \
  "$root/home/rootless/.config/docker/daemon.json"
check_eq "... owned by the user" "$(pkg_chroot "$root" id -u rootless)" \
  "$(stat -c %u "$root/home/rootless/.config/docker/daemon.json" 2>&1)"
step no-cgroups nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place
check_eq "config.toml: nvidia-container-cli.no-cgroups = true" true \
  "$(toml_get "$root$CONFIG" nvidia-container-cli no-cgroups)"

pkg_step "step 3: nvidia-ctk runtime configure --runtime=containerd"
step containerd nvidia-ctk runtime configure --runtime=containerd
same_as "/etc/containerd/conf.d/99-nvidia.toml = ctk.md §6.3" "$GOLDEN/containerd_example_v2_dropin.toml" \
  "$root/etc/containerd/conf.d/99-nvidia.toml"
printf 'imports = ["/etc/containerd/conf.d/*.toml"]\nversion = 2\n' >"$E2E_TMP/containerd-main.golden"
same_as "/etc/containerd/config.toml = the imports line + version" "$E2E_TMP/containerd-main.golden" \
  "$root/etc/containerd/config.toml"

pkg_step "step 4: nvidia-ctk runtime configure --runtime=crio"
step crio nvidia-ctk runtime configure --runtime=crio
same_as "/etc/crio/crio.conf.d/99-nvidia.toml = ctk.md §7.1" "$GOLDEN/crio_example_dropin.toml" \
  "$root/etc/crio/crio.conf.d/99-nvidia.toml"

pkg_step "step 5: CDI (driver root in config.toml, as on a driver-container host)"
step root nvidia-ctk config --set "nvidia-container-cli.root=$MOCK" --in-place
step generate nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml
check_eq "/etc/cdi/nvidia.yaml mode" 644 "$(stat -c %a "$root/etc/cdi/nvidia.yaml" 2>&1)"
check_contains "the spec's hooks are the packaged /usr/bin/nvidia-cdi-hook" \
  "path: /usr/bin/nvidia-cdi-hook" "$(cat "$root/etc/cdi/nvidia.yaml" 2>&1)"
step list nvidia-ctk cdi list
check_eq "nvidia-ctk cdi list: the mock GPU and all" "nvidia.com/gpu=0 nvidia.com/gpu=all" \
  "$(tr '\n' ' ' <"$E2E_TMP/list.out" | sed 's/ $//')"

pkg_step "the refresh unit's ExecStart= with its environment writes /var/run/cdi/nvidia.yaml"
rm -f "$root/etc/cdi/nvidia.yaml"
step unroot nvidia-ctk config --set "nvidia-container-cli.root=/" --in-place
# The admin's setting for a driver installed under another root, in the unit's env file.
echo "NVIDIA_CTK_DRIVER_ROOT=$MOCK" >>"$root/etc/nvidia-container-toolkit/nvidia-cdi-refresh.env"
env=()
while IFS= read -r line; do env+=("$line"); done < <(
  sed -n 's/^Environment=//p' "$root$UNIT" | tr ' ' '\n'
  for f in $(sed -n 's/^EnvironmentFile=-\{0,1\}//p' "$root$UNIT"); do
    [ -f "$root$f" ] && grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$root$f" | sed -E "s/=[\"'](.*)[\"']\$/=\\1/"
  done)
check_contains "the unit sets NVIDIA_CTK_CDI_OUTPUT_FILE_PATH" \
  "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/var/run/cdi/nvidia.yaml" "${env[*]}"
mapfile -t execs < <(sed -n 's/^ExecStart=[-@:+!]*//p' "$root$UNIT" | sed 's/\$\$/$/g')
check "the unit has ExecStart= lines" test "${#execs[@]}" -gt 0
PKG_CHROOT_ENV=("${env[@]}")
for cmd in "${execs[@]}"; do
  if pkg_chroot "$root" /bin/sh -c "$cmd" >"$E2E_TMP/exec.out" 2>"$E2E_TMP/exec.err"; then
    pass "ExecStart=$cmd"
  else
    failed "ExecStart=$cmd failed: $(tr '\n' ' ' <"$E2E_TMP/exec.err")"
  fi
done
PKG_CHROOT_ENV=()
check "/var/run/cdi/nvidia.yaml written" test -s "$root/run/cdi/nvidia.yaml"
check_eq "it lists the mock GPU and all" "nvidia.com/gpu=0 nvidia.com/gpu=all" \
  "$(pkg_chroot "$root" nvidia-ctk cdi list --spec-dir /var/run/cdi 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
e2e_finish
