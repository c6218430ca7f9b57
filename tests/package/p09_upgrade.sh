#!/usr/bin/env bash
# P9: upgrade V -> V2 keeps the admin's edits without asking (spec/packaging.md §5): after
# `nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place` and an edit of the env
# conffile, installing V2 with stdin at /dev/null succeeds (a conffile prompt would fail with
# "end of file on stdin"), both files keep their sha256, and every binary reports V2.
#
# V2 is the same build repackaged: each .deb unpacked (dpkg-deb -R), its version and its
# "(= V)"/"(<< V)" relations set to V2, the version string in its files replaced by V2 (same
# length, so ELF binaries stay valid), md5sums recomputed, packed again. scripts/package.sh has
# no repackaging mode, and a second build with NVCT_PACKAGE_VERSION would cost a full compile.
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"

pkg_require_cmd perl md5sum sha256sum
pkg_require_debs
V="$PKG_V"
last="${V: -1}"
if [[ "$last" =~ [0-8] ]]; then V2="${V%?}$((last + 1))"; else V2="${V/+nvct/+nvcu}"; fi
[ "${#V2}" -eq "${#V}" ] && [ "$V2" != "$V" ] && dpkg --compare-versions "$V2" gt "$V" ||
  e2e_die "cannot derive a same-length version above $V (got $V2)"
CONFIG=/etc/nvidia-container-runtime/config.toml
ENVFILE=/etc/nvidia-container-toolkit/nvidia-cdi-refresh.env

pkg_step "repackaging V=$V as V2=$V2"
mkdir -p "$E2E_TMP/v2"
for n in "${PKG_NAMES[@]}"; do
  t="$E2E_TMP/v2/tree-$n"
  dpkg-deb -R "$(pkg_deb "$n")" "$t"
  sed -i -E "s/^Version: .*/Version: $V2/; s/\((=|<<) $(pkg_ere "$V")\)/(\1 $V2)/g" "$t/DEBIAN/control"
  replaced=0
  while IFS= read -r -d '' f; do
    if grep -qF -- "$V" "$f"; then
      V="$V" V2="$V2" perl -0777 -pi -e 's/\Q$ENV{V}\E/$ENV{V2}/g' "$f"
      replaced=$((replaced + 1))
    fi
  done < <(find "$t" -path "$t/DEBIAN" -prune -o -type f -print0)
  (cd "$t" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 -r md5sum) \
    >"$t/DEBIAN/md5sums"
  [ -s "$t/DEBIAN/md5sums" ] || rm -f "$t/DEBIAN/md5sums"
  dpkg-deb --root-owner-group -b "$t" "$E2E_TMP/v2/${n}_${V2}_${PKG_ARCH}.deb" >/dev/null ||
    e2e_die "dpkg-deb -b of $n at $V2 failed"
  echo "# $n: version replaced in $replaced file(s)"
done
check "the binaries carried V (so that --version can show V2)" \
  grep -qF -- "$V2" "$E2E_TMP/v2/tree-nvidia-container-toolkit-base/usr/bin/nvidia-ctk"
pkg_make_repo "$E2E_TMP/repo-v2" "$E2E_TMP"/v2/*.deb

pkg_step "install V and edit config.toml and the env file"
root="$(pkg_root_with p9 nvidia-container-toolkit)"
pkg_chroot "$root" nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place ||
  failed "nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place failed"
check "config.toml now says no-cgroups = true" grep -qE '^[[:space:]]*no-cgroups[[:space:]]*=[[:space:]]*true' "$root$CONFIG"
printf '%s\n' "NVIDIA_CTK_DEBUG=true" >>"$root$ENVFILE"
sum_config="$(sha256sum <"$root$CONFIG")"
sum_env="$(sha256sum <"$root$ENVFILE")"

pkg_step "upgrade to V2, stdin at /dev/null"
pkg_add_repo "$root" "$E2E_TMP/repo-v2" nvct-v2
rc=0
pkg_apt "$root" install nvidia-container-toolkit >"$E2E_TMP/upgrade.log" 2>&1 || rc=$?
check_eq "apt-get install -y nvidia-container-toolkit (V2) exits 0" 0 "$rc"
[ "$rc" = 0 ] || tail -n 30 "$E2E_TMP/upgrade.log" >&2
check_eq "no conffile prompt" "" "$(grep -E "Configuration file|end of file on stdin" "$E2E_TMP/upgrade.log" || true)"
check_eq "base, toolkit and tools upgraded to V2" \
  "$(printf '%s\n' "libnvidia-container-tools $V2" "nvidia-container-toolkit $V2" "nvidia-container-toolkit-base $V2" | sort)" \
  "$(pkg_installed "$root")"
check_eq "config.toml unchanged (sha256)" "$sum_config" "$(sha256sum <"$root$CONFIG")"
check_eq "the edited env file unchanged (sha256)" "$sum_env" "$(sha256sum <"$root$ENVFILE")"
check "no .dpkg-new / .dpkg-dist / .dpkg-old left next to them" bash -c \
  "! ls '$root/etc/nvidia-container-runtime' '$root/etc/nvidia-container-toolkit' | grep -q dpkg-"
check_eq "nvidia-ctk --version shows V2" "NVIDIA Container Toolkit CLI version $V2" \
  "$(pkg_chroot "$root" nvidia-ctk --version | head -n1)"
check_contains "nvidia-container-cli --version shows V2" "cli-version: $V2" \
  "$(pkg_chroot "$root" nvidia-container-cli --version 2>&1)"
e2e_finish
