#!/usr/bin/env bash
# P13: the rpms in a fresh Debian root with Debian's rpm (spec/packaging.md §5, §4.5): `rpm -i
# --nodeps` installs the files of P6, %post generates config.toml and presets the refresh units
# (wants links); the alias is owned. `rpm -e` of a clean install leaves nothing; after edits,
# config.toml and the env file come back as .rpmsave and nothing else is left.
# (Debian-built rpms require Debian sonames, which no rpm provides here, so --nodeps; the Debian
# libraries the binaries link with are installed with apt first, as the .debs' Depends name them;
# rpm --force-debian where Debian's rpm asks for it.)
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"

pkg_require_debs
V="$PKG_V"
CONFIG=/etc/nvidia-container-runtime/config.toml
ENVFILE=/etc/nvidia-container-toolkit/nvidia-cdi-refresh.env
rpms=()
for n in "${PKG_NAMES[@]}"; do rpms+=("/tmp/rpms/$(basename "$(pkg_rpm "$n")")"); done

# The Debian packages the .debs depend on, but the five themselves (names only).
libs=()
for n in "${PKG_NAMES[@]}"; do
  for dep in $(dpkg-deb -f "$(pkg_deb "$n")" Depends | tr ',|' '\n\n' | sed 's/(.*//; s/[[:space:]]//g'); do
    grep -qx -- "$dep" <<<"$(printf '%s\n' "${PKG_NAMES[@]}")" || libs+=("$dep")
  done
done
mapfile -t libs < <(printf '%s\n' "${libs[@]}" | sort -u)

pkg_step "apt-get install rpm ${libs[*]} in a fresh root"
root="$(pkg_new_root p13)"
pkg_apt "$root" install rpm "${libs[@]}" >"$E2E_TMP/apt-rpm.log" 2>&1 ||
  e2e_die "apt-get install rpm ${libs[*]} failed: $(tail -5 "$E2E_TMP/apt-rpm.log")"
mkdir -p "$root/tmp/rpms"
for n in "${PKG_NAMES[@]}"; do cp "$(pkg_rpm "$n")" "$root/tmp/rpms/"; done
# On rpm distributions the filesystem package owns /usr/share/licenses; a Debian root lacks it,
# and rpm would leave the parent of the %license files behind as an unowned directory.
mkdir -p "$root/usr/share/licenses"
RPM=(rpm)
if grep -q -- --force-debian <<<"$(pkg_chroot "$root" rpm --help 2>/dev/null)"; then RPM=(rpm --force-debian); fi
pkg_snapshot "$root" | grep -v '^tmp/' >"$E2E_TMP/before"

rpm_install() {
  if pkg_chroot "$root" "${RPM[@]}" -i --nodeps "${rpms[@]}" >"$E2E_TMP/$1.log" 2>&1; then
    pass "$1: rpm -i --nodeps of the five rpms exits 0"
  else
    failed "$1: rpm -i --nodeps failed: $(tr '\n' ' ' <"$E2E_TMP/$1.log")"
    e2e_finish
  fi
}
rpm_erase() {
  if pkg_chroot "$root" "${RPM[@]}" -e "${PKG_NAMES[@]}" >"$E2E_TMP/$1.log" 2>&1; then
    pass "$1: rpm -e of the five exits 0"
  else
    failed "$1: rpm -e failed: $(tr '\n' ' ' <"$E2E_TMP/$1.log")"
  fi
}

pkg_step "rpm -i --nodeps"
rpm_install install
check_eq "rpm -q: the five at V-1" \
  "$(for n in "${PKG_NAMES[@]}"; do echo "$n-$V-1.$PKG_RPM_ARCH"; done | sort)" \
  "$(pkg_chroot "$root" rpm -q "${PKG_NAMES[@]}" | sort)"
missing=""
for n in "${PKG_NAMES[@]}"; do
  for p in $(pkg_chroot "$root" rpm -ql "$n" | grep -v '^(contains no files)$'); do
    [ -e "$root$p" ] || [ -L "$root$p" ] || missing="$missing $p"
  done
done
check_eq "every file of rpm -ql exists (config.toml too: %post made it)" "" "$missing"
check_eq "rpm -V: the installed files match the packages" "" \
  "$(pkg_chroot "$root" rpm -V --nodeps "${PKG_NAMES[@]}" 2>&1 | grep -v " $CONFIG\$" || true)"
check_eq "rpm -qf: nvidia-container-toolkit owns the alias" "nvidia-container-toolkit-$V-1.$PKG_RPM_ARCH" \
  "$(pkg_chroot "$root" rpm -qf /usr/bin/nvidia-container-toolkit)"
check_eq "the alias is a relative link to the hook" nvidia-container-runtime-hook \
  "$(readlink "$root/usr/bin/nvidia-container-toolkit")"

pkg_step "%post: config.toml and the preset"
pkg_chroot "$root" nvidia-ctk config default >"$E2E_TMP/default.toml" 2>/dev/null
check "config.toml = \`nvidia-ctk config default\`" same_file "$E2E_TMP/default.toml" "$root$CONFIG"
check_eq "config.toml mode" 644 "$(stat -c %a "$root$CONFIG" 2>&1)"
for u in nvidia-cdi-refresh.path nvidia-cdi-refresh.service; do
  link="$root/etc/systemd/system/multi-user.target.wants/$u"
  target="$(readlink "$link" || true)"
  if [ -n "$target" ] && [ "$(basename "$target")" = "$u" ] && [ -f "$root$target" ]; then
    pass "preset: multi-user.target.wants/$u -> $target"
  else
    failed "preset: no wants link for $u (readlink: '$target')"
  fi
done
check "no unexpanded macro ran: no file named after one in the root" \
  bash -c "! (cd '$root' && find etc usr var -xdev -name '*%{*' | grep -q .)"

pkg_step "rpm -e of a clean install"
rpm_erase erase-clean
check "config.toml equal to the default: deleted" test ! -e "$root$CONFIG"
check "no .rpmsave" bash -c "! (cd '$root' && find etc -name '*.rpmsave' | grep -q .)"
pkg_snapshot "$root" | grep -v '^tmp/' >"$E2E_TMP/after-clean"
if cmp -s "$E2E_TMP/before" "$E2E_TMP/after-clean"; then
  pass "nothing is left (snapshot = before the install)"
else
  failed "rpm -e left (< before, > after): $(diff "$E2E_TMP/before" "$E2E_TMP/after-clean" | grep '^[<>]' | head -30 | tr '\n' ' ')"
fi

pkg_step "rpm -e after editing config.toml and the env file"
rpm_install reinstall
pkg_chroot "$root" nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place ||
  failed "nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place failed"
echo "NVIDIA_CTK_DEBUG=true" >>"$root$ENVFILE"
cp "$root$CONFIG" "$E2E_TMP/edited.toml"
cp "$root$ENVFILE" "$E2E_TMP/edited.env"
rpm_erase erase-edited
check "config.toml -> config.toml.rpmsave (the edit kept)" same_file "$E2E_TMP/edited.toml" "$root$CONFIG.rpmsave"
check "the env file -> .rpmsave (the edit kept)" same_file "$E2E_TMP/edited.env" "$root$ENVFILE.rpmsave"
pkg_snapshot "$root" | grep -v '^tmp/' >"$E2E_TMP/after-edited"
check_eq "nothing else is left (only the two .rpmsave files and their directories)" \
  "$(printf '%s\n' "etc/nvidia-container-runtime d " "etc/nvidia-container-runtime/config.toml.rpmsave f " \
    "etc/nvidia-container-toolkit d " "etc/nvidia-container-toolkit/nvidia-cdi-refresh.env.rpmsave f " | sort)" \
  "$(comm -13 "$E2E_TMP/before" "$E2E_TMP/after-edited")"
check_eq "nothing of the root before the install is missing" "" "$(comm -23 "$E2E_TMP/before" "$E2E_TMP/after-edited")"
e2e_finish
