#!/usr/bin/env bash
# P12: install then purge leaves the root as it was (spec/packaging.md §5): the snapshot of
# etc, usr and var/lib (names, types, link targets; minus dpkg/apt logs, caches and apt's
# auto-installed marks) after `apt-get purge --autoremove` equals the one before the install.
# config.toml, the env conffile, their directories, the wants links and deb-systemd-helper's
# state must all go; --autoremove takes the Debian libraries the install pulled in.
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"

pkg_require_debs
root="$(pkg_new_root p12)"
pkg_add_repo "$root" "$PKG_REPO" nvct
pkg_snapshot "$root" >"$E2E_TMP/before"

pkg_step "apt-get install -y nvidia-container-toolkit"
pkg_apt "$root" install nvidia-container-toolkit >"$E2E_TMP/install.log" 2>&1 ||
  e2e_die "install failed: $(tail -5 "$E2E_TMP/install.log")"
check "config.toml was generated" test -s "$root/etc/nvidia-container-runtime/config.toml"
pkg_snapshot "$root" >"$E2E_TMP/installed"
check "the install changed the snapshot (the comparison can see packages)" \
  bash -c "! cmp -s '$E2E_TMP/before' '$E2E_TMP/installed'"

pkg_step "apt-get purge -y --autoremove nvidia-container-toolkit nvidia-container-toolkit-base libnvidia-container-tools"
rc=0
pkg_apt "$root" purge --autoremove nvidia-container-toolkit nvidia-container-toolkit-base \
  libnvidia-container-tools >"$E2E_TMP/purge.log" 2>&1 || rc=$?
check_eq "apt-get purge exits 0" 0 "$rc"
[ "$rc" = 0 ] || tail -n 20 "$E2E_TMP/purge.log" >&2
check_eq "dpkg knows none of the packages any more" "" \
  "$(pkg_chroot "$root" dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${PKG_NAMES[@]}" 2>/dev/null |
    awk '$1 != "un" {print}' || true)"
pkg_snapshot "$root" >"$E2E_TMP/after"
if cmp -s "$E2E_TMP/before" "$E2E_TMP/after"; then
  pass "the snapshot after purge equals the one before the install ($(wc -l <"$E2E_TMP/after") entries)"
else
  failed "purge left differences (< before, > after): $(diff "$E2E_TMP/before" "$E2E_TMP/after" | grep '^[<>]' | head -40 | tr '\n' ' ')"
fi
e2e_finish
