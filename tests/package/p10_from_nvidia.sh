#!/usr/bin/env bash
# P10: from NVIDIA's packages to nvct's (spec/packaging.md §5, §1.2, §4.5). Fixture debs built
# here with dpkg-deb imitate NVIDIA's 1.18.0-1: the refresh units as conffiles in
# /etc/systemd/system, enabled by the postinst; a postinst-generated config.toml; the alias
# /usr/bin/nvidia-container-toolkit made by the toolkit's postinst (absolute, unowned); stub
# binaries. Then `apt-get install -y nvidia-container-toolkit` from nvct's repo, stdin at
# /dev/null: it succeeds; the old units are gone (the edited one kept as .dpkg-bak); the wants
# links point at /lib/systemd/system; config.toml is untouched; nvct owns the alias.
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"

pkg_require_debs
V="$PKG_V"
OLD=1.18.0-1
F="$E2E_TMP/fixture"
UNITS=(nvidia-cdi-refresh.service nvidia-cdi-refresh.path)

# fixture_deb <package> <control fields...>: packs $F/<package> (DEBIAN/control written here).
fixture_deb() {
  local n="$1" t="$F/$1"
  shift
  mkdir -p "$t/DEBIAN"
  {
    echo "Package: $n"
    echo "Version: $OLD"
    echo "Architecture: $PKG_ARCH"
    echo "Maintainer: nvct tests <tests@nvct.invalid>"
    printf '%s\n' "$@"
    echo "Description: test fixture imitating NVIDIA's $n $OLD"
    echo " Stub files and maintainer scripts shaped like NVIDIA's 1.18.0 packages."
  } >"$t/DEBIAN/control"
  dpkg-deb --root-owner-group -b "$t" "$F/${n}_${OLD}_${PKG_ARCH}.deb" >/dev/null ||
    e2e_die "dpkg-deb -b of the fixture $n failed"
}
stub() {
  mkdir -p "$(dirname "$1")"
  printf '#!/bin/sh\necho "%s (NVIDIA %s stub)"\n' "$(basename "$1")" "$OLD" >"$1"
  chmod 0755 "$1"
}

pkg_step "fixture debs imitating NVIDIA $OLD"
lib="$F/libnvidia-container1/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)"
mkdir -p "$lib"
echo "stub library" >"$lib/libnvidia-container.so.1.18.0"
ln -s libnvidia-container.so.1.18.0 "$lib/libnvidia-container.so.1"
fixture_deb libnvidia-container1 "Multi-Arch: same"

stub "$F/libnvidia-container-tools/usr/bin/nvidia-container-cli"
fixture_deb libnvidia-container-tools "Depends: libnvidia-container1 (>= $OLD)"

t="$F/nvidia-container-toolkit-base"
for b in nvidia-container-runtime nvidia-ctk nvidia-cdi-hook; do stub "$t/usr/bin/$b"; done
mkdir -p "$t/DEBIAN" "$t/etc/systemd/system" "$t/etc/nvidia-container-toolkit"
cat >"$t/etc/systemd/system/nvidia-cdi-refresh.service" <<'UNIT'
[Unit]
Description=Refresh NVIDIA CDI specification file
ConditionPathExists=|/usr/bin/nvidia-smi
ConditionPathExists=|/usr/sbin/nvidia-smi

[Service]
Type=oneshot
Environment=NVIDIA_CTK_CDI_OUTPUT_FILE_PATH=/var/run/cdi/nvidia.yaml
EnvironmentFile=-/etc/nvidia-container-toolkit/nvidia-cdi-refresh.env
ExecStart=/usr/bin/nvidia-ctk cdi generate

[Install]
WantedBy=multi-user.target
UNIT
cat >"$t/etc/systemd/system/nvidia-cdi-refresh.path" <<'UNIT'
[Unit]
Description=Trigger CDI refresh on NVIDIA driver install / uninstall events

[Path]
PathChanged=/lib/modules/%v/modules.dep
PathChanged=/lib/modules/%v/modules.dep.bin

[Install]
WantedBy=multi-user.target
UNIT
printf '# NVIDIA_CTK_CDI_GENERATE_FEATURE_FLAGS=\n' >"$t/etc/nvidia-container-toolkit/nvidia-cdi-refresh.env"
printf '%s\n' /etc/nvidia-container-toolkit/nvidia-cdi-refresh.env \
  /etc/systemd/system/nvidia-cdi-refresh.path /etc/systemd/system/nvidia-cdi-refresh.service \
  >"$t/DEBIAN/conffiles"
# The 1.18 postinst: config.toml written by nvidia-ctk, units enabled by hand (failures ignored).
cat >"$t/DEBIAN/postinst" <<'SH'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  mkdir -p /etc/nvidia-container-runtime
  if [ ! -e /etc/nvidia-container-runtime/config.toml ]; then
    cat > /etc/nvidia-container-runtime/config.toml <<TOML
#accept-nvidia-visible-devices-as-volume-mounts = false
#accept-nvidia-visible-devices-envvar-when-unprivileged = true
disable-require = false
supported-driver-capabilities = "compat32,compute,display,graphics,ngx,utility,video"

[nvidia-container-cli]
environment = []
ldconfig = "@/sbin/ldconfig"
load-kmods = true

[nvidia-container-runtime]
log-level = "info"
mode = "auto"
runtimes = ["docker-runc", "runc", "crun"]

[nvidia-container-runtime.modes.cdi]
default-kind = "nvidia.com/gpu"
TOML
  fi
  systemctl enable nvidia-cdi-refresh.path nvidia-cdi-refresh.service || true
fi
SH
chmod 0755 "$t/DEBIAN/postinst"
fixture_deb nvidia-container-toolkit-base \
  "Breaks: nvidia-container-runtime (<= 3.5.0-1), nvidia-container-runtime-hook, nvidia-container-toolkit (<= 1.10.0-1)" \
  "Replaces: nvidia-container-runtime (<= 3.5.0-1), nvidia-container-runtime-hook"

t="$F/nvidia-container-toolkit"
stub "$t/usr/bin/nvidia-container-runtime-hook"
mkdir -p "$t/DEBIAN"
cat >"$t/DEBIAN/postinst" <<'SH'
#!/bin/sh
set -e
if [ "$1" = configure ] && [ ! -e /usr/bin/nvidia-container-toolkit ]; then
  ln -s /usr/bin/nvidia-container-runtime-hook /usr/bin/nvidia-container-toolkit
fi
SH
cat >"$t/DEBIAN/postrm" <<'SH'
#!/bin/sh
set -e
if [ "$1" = purge ]; then rm -f /usr/bin/nvidia-container-toolkit; fi
SH
chmod 0755 "$t/DEBIAN/postinst" "$t/DEBIAN/postrm"
fixture_deb nvidia-container-toolkit \
  "Depends: nvidia-container-toolkit-base (= $OLD), libnvidia-container-tools (>= $OLD), libnvidia-container-tools (<< 2.0.0)" \
  "Breaks: nvidia-container-runtime (<= 3.5.0-1), nvidia-container-runtime-hook" \
  "Replaces: nvidia-container-runtime (<= 3.5.0-1), nvidia-container-runtime-hook"
pkg_make_repo "$E2E_TMP/repo-nvidia" "$F"/*.deb

pkg_step "install the NVIDIA $OLD fixture"
root="$(pkg_new_root p10)"
pkg_add_repo "$root" "$E2E_TMP/repo-nvidia" nvidia
pkg_apt "$root" install nvidia-container-toolkit="$OLD" nvidia-container-toolkit-base="$OLD" \
  libnvidia-container-tools="$OLD" libnvidia-container1="$OLD" >"$E2E_TMP/old.log" 2>&1 ||
  e2e_die "installing the fixture failed: $(tail -5 "$E2E_TMP/old.log")"
for u in "${UNITS[@]}"; do
  [ "$(readlink "$root/etc/systemd/system/multi-user.target.wants/$u")" = "/etc/systemd/system/$u" ] ||
    e2e_die "fixture: $u was not enabled from /etc/systemd/system"
done
[ "$(readlink "$root/usr/bin/nvidia-container-toolkit")" = /usr/bin/nvidia-container-runtime-hook ] ||
  e2e_die "fixture: the postinst made no absolute alias"
if pkg_chroot "$root" dpkg -S /usr/bin/nvidia-container-toolkit >/dev/null 2>&1; then
  e2e_die "fixture: the alias must be unowned"
fi
pass "the fixture is installed: units in /etc/systemd/system enabled, config.toml, unowned alias"
# The admin edited the service unit (its conffile must come back as .dpkg-bak), not the path unit.
echo "# local edit" >>"$root/etc/systemd/system/nvidia-cdi-refresh.service"
sum_config="$(sha256sum <"$root/etc/nvidia-container-runtime/config.toml")"

pkg_step "apt-get install -y nvidia-container-toolkit from nvct's repo, stdin at /dev/null"
pkg_add_repo "$root" "$PKG_REPO" nvct
rc=0
pkg_apt "$root" install nvidia-container-toolkit >"$E2E_TMP/upgrade.log" 2>&1 || rc=$?
check_eq "the upgrade to nvct exits 0" 0 "$rc"
[ "$rc" = 0 ] || tail -n 30 "$E2E_TMP/upgrade.log" >&2
check_eq "no conffile prompt" "" "$(grep -E "Configuration file|end of file on stdin" "$E2E_TMP/upgrade.log" || true)"
check_eq "base, toolkit and tools are nvct's V" \
  "$(printf '%s\n' "libnvidia-container-tools $V" "nvidia-container-toolkit $V" \
    "nvidia-container-toolkit-base $V" | sort)" \
  "$(pkg_installed "$root" | grep -v '^libnvidia-container1 ')"
# apt may leave NVIDIA's library package or replace it with nvct's empty one: both are sound.
lib1="$(pkg_installed "$root" | awk '$1 == "libnvidia-container1" {print $2}')"
if [ "$lib1" = "$OLD" ] || [ "$lib1" = "$V" ]; then
  pass "libnvidia-container1 is NVIDIA's $OLD or nvct's V ($lib1)"
else
  failed "libnvidia-container1: unexpected state '$lib1'"
fi
check_eq "dpkg --audit: nothing half-installed" "" "$(pkg_chroot "$root" dpkg --audit 2>&1)"

pkg_step "the obsolete unit conffiles in /etc/systemd/system"
check "nvidia-cdi-refresh.path removed (it was not edited)" test ! -e "$root/etc/systemd/system/nvidia-cdi-refresh.path"
check "... and no .dpkg-bak of it" test ! -e "$root/etc/systemd/system/nvidia-cdi-refresh.path.dpkg-bak"
check "nvidia-cdi-refresh.service removed" test ! -e "$root/etc/systemd/system/nvidia-cdi-refresh.service"
check "... the edited one kept as nvidia-cdi-refresh.service.dpkg-bak" \
  grep -q "# local edit" "$root/etc/systemd/system/nvidia-cdi-refresh.service.dpkg-bak"
for u in "${UNITS[@]}"; do
  check_eq "multi-user.target.wants/$u -> /lib/systemd/system/$u" "/lib/systemd/system/$u" \
    "$(readlink "$root/etc/systemd/system/multi-user.target.wants/$u" || echo missing)"
  check "$u is no longer a conffile of the base package" bash -c \
    "! chroot '$root' dpkg-query -W -f='\${Conffiles}' nvidia-container-toolkit-base | grep -q '/etc/systemd/system/$u'"
done

pkg_step "config.toml, the alias, the binaries"
check_eq "config.toml identical (sha256)" "$sum_config" \
  "$(sha256sum <"$root/etc/nvidia-container-runtime/config.toml")"
check_eq "dpkg -S: nvidia-container-toolkit owns the alias" \
  "nvidia-container-toolkit: /usr/bin/nvidia-container-toolkit" \
  "$(pkg_chroot "$root" dpkg -S /usr/bin/nvidia-container-toolkit 2>&1)"
check_eq "the alias is now nvct's relative link" nvidia-container-runtime-hook \
  "$(readlink "$root/usr/bin/nvidia-container-toolkit")"
check_eq "nvidia-ctk is nvct's" "NVIDIA Container Toolkit CLI version $V" \
  "$(pkg_chroot "$root" nvidia-ctk --version | head -n1)"
e2e_finish
