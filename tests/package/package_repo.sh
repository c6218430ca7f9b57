#!/usr/bin/env bash
# Fixture pkg_repo: the flat apt repo the install tests add to their roots
# ($NVCT_BUILD_DIR/package/repo: the five .debs at V, Packages, Release; `deb [trusted=yes]`),
# and the Debian packages they pull in, downloaded once into $NVCT_BUILD_DIR/package/apt-archives
# (the dependencies of the five, and rpm for P13). The tests copy that cache into their roots, so
# they install offline and never race for apt's archive lock.
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"

pkg_require_base_root
pkg_require_debs
debs=()
for n in "${PKG_NAMES[@]}"; do debs+=("$(pkg_deb "$n")"); done

pkg_step "the flat repo $PKG_REPO"
pkg_make_repo "$PKG_REPO" "${debs[@]}"
check_eq "Packages lists the five packages at V" \
  "$(for n in "${PKG_NAMES[@]}"; do echo "$n $PKG_V"; done | sort)" \
  "$(awk '/^Package:/ {p = $2} /^Version:/ {print p, $2}' "$PKG_REPO/Packages" | sort)"

pkg_step "downloading the Debian packages the tests install into $PKG_ARCHIVES"
mkdir -p "$PKG_ARCHIVES/partial"
root="$(pkg_new_root prefetch)"
mount --bind "$PKG_ARCHIVES" "$root/var/cache/apt/archives"
pkg_add_repo "$root" "$PKG_REPO" nvct
start=$SECONDS
if pkg_apt "$root" install --download-only "${PKG_NAMES[@]}" rpm >"$E2E_TMP/download.log" 2>&1; then
  pass "apt-get install --download-only of the five and rpm ($((SECONDS - start)) s)"
else
  tail -n 20 "$E2E_TMP/download.log" >&2
  e2e_die "downloading the dependencies failed: a base root older than the mirror's pool? (rm -rf $PKG_BASE_ROOT)"
fi
check "the cache holds Debian packages" compgen -G "$PKG_ARCHIVES/*.deb"
echo "# $(ls "$PKG_ARCHIVES"/*.deb | wc -l) packages in the cache, $(du -sh "$PKG_ARCHIVES" | cut -f1)"

pkg_step "a fresh root finds everything in the repo and the cache (no download)"
root2="$(pkg_new_root offline)"
pkg_add_repo "$root2" "$PKG_REPO" nvct
if pkg_apt "$root2" install --no-download --download-only "${PKG_NAMES[@]}" rpm \
  >"$E2E_TMP/sim.log" 2>&1; then
  pass "every package the five and rpm need is in the repo or the cache"
else
  failed "offline install not possible: $(tail -5 "$E2E_TMP/sim.log" | tr '\n' ' ')"
fi
e2e_finish
