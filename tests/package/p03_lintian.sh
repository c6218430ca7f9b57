#!/usr/bin/env bash
# P3: lintian --fail-on error,warning on the five .debs (not the -dbgsym ones), run as the
# unprivileged user nobody as lintian expects: no error or warning, and the only override in any
# package is the one of spec/packaging.md §4.6 (statically-linked-binary for the static shim).
source "$(dirname "$0")/lib/pkg.sh"

pkg_require_cmd lintian runuser
id nobody >/dev/null 2>&1 || e2e_die "no user 'nobody' to run lintian as"
pkg_require_debs

dir="$E2E_TMP/lintian"
mkdir -p "$dir/home"
chmod 0755 "$E2E_TMP" "$dir"
chown nobody "$dir/home"
debs=()
for n in "${PKG_NAMES[@]}"; do
  cp "$(pkg_deb "$n")" "$dir/"
  debs+=("$dir/$(basename "$(pkg_deb "$n")")")
done
chmod 0644 "$dir"/*.deb

lint() { runuser -u nobody -- env HOME="$dir/home" lintian --tag-display-limit 0 "$@" "${debs[@]}"; }
pkg_step "lintian --fail-on error,warning (as nobody)"
rc=0
lint --fail-on error,warning >"$dir/out" 2>&1 || rc=$?
cat "$dir/out"
check_eq "lintian --fail-on error,warning exits 0" 0 "$rc"
check_eq "no error (E:) tag" "" "$(grep '^E: ' "$dir/out" || true)"
check_eq "no warning (W:) tag" "" "$(grep '^W: ' "$dir/out" || true)"
# Listed apart: with --show-overrides, lintian 2.116.3 exits 2 once it shows an override.
pkg_step "lintian --show-overrides"
lint --show-overrides >"$dir/overrides" 2>&1 || true
cat "$dir/overrides"
check_eq "the overridden tags: only the static shim's" \
  "O: nvidia-container-toolkit-base: statically-linked-binary [usr/bin/nvidia-container-runtime]" \
  "$(grep '^O: ' "$dir/overrides" || true)"

pkg_step "the override files the packages ship"
for n in "${PKG_NAMES[@]}"; do
  deb="$(pkg_deb "$n")"
  files="$(dpkg-deb -c "$deb" | awk '{print $6}' | grep '^\./usr/share/lintian/overrides/.' || true)"
  if [ "$n" = nvidia-container-toolkit-base ]; then
    check_eq "$n ships its override file" "./usr/share/lintian/overrides/$n" "$files"
    check_eq "$n: the override file holds exactly the §4.6 override" \
      "statically-linked-binary [usr/bin/nvidia-container-runtime]" \
      "$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - "./usr/share/lintian/overrides/$n" |
        grep -v '^[[:space:]]*#' | grep -v '^[[:space:]]*$' | sed "s/^$n\( binary\)\?: //")"
  else
    check_eq "$n ships no lintian override" "" "$files"
  fi
done
e2e_finish
