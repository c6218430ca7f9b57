#!/usr/bin/env bash
# P11: `apt-get remove` undoes the engine configuration nvidia-ctk made (spec/packaging.md §4.5,
# §5): daemon.json comes back as seeded, the containerd and CRI-O drop-ins are gone (containerd's
# imports line stays), the generated /var/run/cdi/nvidia.yaml is deleted while /etc/cdi/nvidia.yaml
# is kept, and config.toml, the env conffile and the units' enablement state stay until purge.
# With NVCT_KEEP_ENGINE_CONFIG=1 the engine files are left as they are.
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"

pkg_require_cmd jq
pkg_require_debs
pkg_require_mock_driver
REMOVE=(remove nvidia-container-toolkit nvidia-container-toolkit-base libnvidia-container-tools)
DOCKER=/etc/docker/daemon.json
CTD_MAIN=/etc/containerd/config.toml
CTD_DROPIN=/etc/containerd/conf.d/99-nvidia.toml
CRIO_DROPIN=/etc/crio/crio.conf.d/99-nvidia.toml
MOCK=/opt/nvct-mock-driver

# configure_engines <root>: the seed daemon.json, the three engines, both CDI specs.
configure_engines() {
  local root="$1" e
  mkdir -p "$root/etc/docker"
  # {"log-driver":"local"} in the layout nvidia-ctk writes (sorted keys, 4-space indent).
  printf '{\n    "log-driver": "local"\n}' >"$root$DOCKER"
  cp "$root$DOCKER" "$E2E_TMP/seed.json"
  for e in docker containerd crio; do
    pkg_chroot "$root" nvidia-ctk runtime configure --runtime=$e >"$E2E_TMP/configure-$e.log" 2>&1 ||
      e2e_die "nvidia-ctk runtime configure --runtime=$e failed: $(cat "$E2E_TMP/configure-$e.log")"
  done
  [ "$(jq -r .runtimes.nvidia.path "$root$DOCKER")" = nvidia-container-runtime ] ||
    e2e_die "configure --runtime=docker did not add runtimes.nvidia: $(cat "$root$DOCKER")"
  [ -f "$root$CTD_DROPIN" ] && grep -q '^imports' "$root$CTD_MAIN" ||
    e2e_die "configure --runtime=containerd wrote no drop-in + imports"
  [ -f "$root$CRIO_DROPIN" ] || e2e_die "configure --runtime=crio wrote no drop-in"
  pkg_mock_root "$root$MOCK" one-gpu
  for out in /etc/cdi/nvidia.yaml /var/run/cdi/nvidia.yaml; do
    pkg_chroot "$root" nvidia-ctk cdi generate --driver-root=$MOCK --output=$out \
      >"$E2E_TMP/generate.log" 2>&1 ||
      e2e_die "nvidia-ctk cdi generate --output=$out failed: $(tail -3 "$E2E_TMP/generate.log")"
  done
  grep -q /usr/bin/nvidia-cdi-hook "$root/run/cdi/nvidia.yaml" ||
    e2e_die "the generated spec names no /usr/bin/nvidia-cdi-hook"
}

pkg_step "install, configure docker/containerd/crio, generate both CDI specs"
root="$(pkg_root_with p11 nvidia-container-toolkit)"
configure_engines "$root"
pass "engines configured and CDI specs written"

pkg_step "apt-get remove"
rc=0
pkg_apt "$root" "${REMOVE[@]}" >"$E2E_TMP/remove.log" 2>&1 || rc=$?
cat "$E2E_TMP/remove.log"
check_eq "apt-get remove exits 0" 0 "$rc"
check_eq "no package of the five is installed any more" "" "$(pkg_installed "$root")"
check_eq "the base package keeps its config files until purge (rc)" "rc" \
  "$(pkg_chroot "$root" dpkg-query -W -f='${db:Status-Abbrev}' nvidia-container-toolkit-base | tr -d ' ')"
check "docker: daemon.json is the seed again, byte for byte" same_file "$E2E_TMP/seed.json" "$root$DOCKER"
check "containerd: the drop-in is gone" test ! -e "$root$CTD_DROPIN"
check_contains "containerd: the imports line stays in config.toml" \
  'imports = ["/etc/containerd/conf.d/*.toml"]' "$(cat "$root$CTD_MAIN" 2>&1)"
check "crio: the drop-in is gone" test ! -e "$root$CRIO_DROPIN"
for e in docker containerd crio; do
  check_contains "the removal tells to restart $e" "restart $e" "$(cat "$E2E_TMP/remove.log")"
done
check "/var/run/cdi/nvidia.yaml (generated, names our hook) is gone" test ! -e "$root/run/cdi/nvidia.yaml"
check "/etc/cdi/nvidia.yaml is kept" test -s "$root/etc/cdi/nvidia.yaml"
check_contains "a notice names the kept /etc/cdi/nvidia.yaml" "/etc/cdi/nvidia.yaml" "$(cat "$E2E_TMP/remove.log")"
check "the binaries are gone" test ! -e "$root/usr/bin/nvidia-ctk"
check "config.toml stays until purge" test -s "$root/etc/nvidia-container-runtime/config.toml"
check "the env conffile stays until purge" test -f "$root/etc/nvidia-container-toolkit/nvidia-cdi-refresh.env"
for u in nvidia-cdi-refresh.path nvidia-cdi-refresh.service; do
  check "deb-systemd-helper's state of $u stays until purge" \
    test -e "$root/var/lib/systemd/deb-systemd-helper-enabled/$u.dsh-also"
done

pkg_step "NVCT_KEEP_ENGINE_CONFIG=1 apt-get remove leaves the engines alone"
root="$(pkg_root_with p11-keep nvidia-container-toolkit)"
configure_engines "$root"
sums() { (cd "$1" && sha256sum ".$DOCKER" ".$CTD_MAIN" ".$CTD_DROPIN" ".$CRIO_DROPIN"); }
before="$(sums "$root")"
rc=0
PKG_CHROOT_ENV=(NVCT_KEEP_ENGINE_CONFIG=1)
pkg_apt "$root" "${REMOVE[@]}" >"$E2E_TMP/remove-keep.log" 2>&1 || rc=$?
PKG_CHROOT_ENV=()
check_eq "apt-get remove exits 0" 0 "$rc"
check_eq "daemon.json, containerd's files and the CRI-O drop-in unchanged" "$before" "$(sums "$root" 2>&1)"
e2e_finish
