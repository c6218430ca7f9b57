#!/usr/bin/env bash
# P12: install then purge leaves the root as it was (spec/packaging.md §5): the snapshot of
# etc, usr and var/lib (names, types, link targets; minus dpkg/apt logs, caches and apt's
# auto-installed marks) after `apt-get purge --autoremove` equals the one before the install.
# config.toml, the env conffile, their directories, the wants links and deb-systemd-helper's
# state must all go; --autoremove takes the Debian libraries the install pulled in. A second round
# edits config.toml first (`nvidia-ctk config --set ... --in-place`, the install guide's rootless
# step) and must leave nothing either.
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"

pkg_require_debs
root="$(pkg_new_root p12)"
pkg_add_repo "$root" "$PKG_REPO" nvct
pkg_snapshot "$root" >"$E2E_TMP/before"

# round <name> [<command in the root after the install>]
round() {
  local name="$1" edit="${2:-}" rc=0
  pkg_step "$name: apt-get install -y nvidia-container-toolkit${edit:+; $edit}"
  pkg_apt "$root" install nvidia-container-toolkit >"$E2E_TMP/$name-install.log" 2>&1 ||
    e2e_die "install failed: $(tail -5 "$E2E_TMP/$name-install.log")"
  check "$name: config.toml was generated" test -s "$root/etc/nvidia-container-runtime/config.toml"
  if [ -n "$edit" ]; then
    pkg_sh "$root" "$edit" >"$E2E_TMP/$name-edit.log" 2>&1 || failed "$name: $edit: $(cat "$E2E_TMP/$name-edit.log")"
  fi
  pkg_snapshot "$root" >"$E2E_TMP/$name-installed"
  check "$name: the install changed the snapshot (the comparison can see packages)" \
    bash -c "! cmp -s '$E2E_TMP/before' '$E2E_TMP/$name-installed'"

  pkg_step "$name: apt-get purge -y --autoremove nvidia-container-toolkit nvidia-container-toolkit-base libnvidia-container-tools"
  pkg_apt "$root" purge --autoremove nvidia-container-toolkit nvidia-container-toolkit-base \
    libnvidia-container-tools >"$E2E_TMP/$name-purge.log" 2>&1 || rc=$?
  check_eq "$name: apt-get purge exits 0" 0 "$rc"
  [ "$rc" = 0 ] || tail -n 20 "$E2E_TMP/$name-purge.log" >&2
  check_eq "$name: dpkg knows none of the packages any more" "" \
    "$(pkg_chroot "$root" dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' "${PKG_NAMES[@]}" 2>/dev/null |
      awk '$1 != "un" {print}' || true)"
  pkg_snapshot "$root" >"$E2E_TMP/$name-after"
  if cmp -s "$E2E_TMP/before" "$E2E_TMP/$name-after"; then
    pass "$name: the snapshot after purge equals the one before the install ($(wc -l <"$E2E_TMP/$name-after") entries)"
  else
    failed "$name: purge left differences (< before, > after): $(diff "$E2E_TMP/before" "$E2E_TMP/$name-after" | grep '^[<>]' | head -40 | tr '\n' ' ')"
  fi
}
round plain
round edited "nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place"
e2e_finish
