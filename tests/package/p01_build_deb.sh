#!/usr/bin/env bash
# P1 (fixture pkg_debs): scripts/package.sh deb builds the five .debs at V, and only those (plus
# their -dbgsym companions), into $NVCT_BUILD_DIR/package/packages/deb. build-deb.sh stages the
# tracked and unignored files, as a fresh clone has them. With NVCT_PACKAGE_DIR set, the packages
# there are checked instead and nothing is built.
source "$(dirname "$0")/lib/pkg.sh"

if [ -n "${NVCT_PACKAGE_DIR:-}" ]; then
  echo "# NVCT_PACKAGE_DIR=$PKG_DIR: checking the prebuilt packages there, not building"
else
  [ -x "$NVCT_SOURCE_DIR/scripts/package.sh" ] || e2e_die "scripts/package.sh is missing"
  pkg_require_cmd dpkg-buildpackage dh fakeroot help2man
  mkdir -p "$PKG_WORK"
  log="$PKG_WORK/build-deb.log"
  pkg_step "scripts/package.sh deb (log: $log)"
  start=$SECONDS
  if NVCT_PACKAGES_DIR="$PKG_DIR" "$NVCT_SOURCE_DIR/scripts/package.sh" deb >"$log" 2>&1; then
    pass "scripts/package.sh deb exits 0 ($((SECONDS - start)) s)"
  else
    tail -n 40 "$log" >&2
    e2e_die "scripts/package.sh deb failed after $((SECONDS - start)) s (log above, all of it in $log)"
  fi
  grep -E '^ccache:|packages in' "$log" || true
  echo "# compiler flags: DEB_CXXFLAGS_APPEND=${DEB_CXXFLAGS_APPEND:-} (lib/pkg.sh)"

  # The ci preset (CMAKE_BUILD_TYPE None) compiles with the packages' flags so that this build
  # reuses its objects through ccache (scripts/build.sh, lib/pkg.sh): a dpkg-buildflags that
  # changed, or a preset that drifted, would silently make this build a full second one.
  cache="$NVCT_BUILD_DIR/CMakeCache.txt"
  cache_var() { sed -n "s/^$1:[A-Z]*=//p" "$cache"; }
  if [ -f "$cache" ] && [ "$(cache_var CMAKE_BUILD_TYPE)" = None ]; then
    pkg_step "the ci build's flags are the packages' (dpkg-buildflags)"
    buildflags() {
      (cd "$NVCT_SOURCE_DIR" && DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1")
    }
    cppflags="$(buildflags CPPFLAGS)"
    check_eq "CMAKE_CXX_FLAGS of $NVCT_BUILD_DIR (CMakePresets.json, ci)" \
      "$(buildflags CXXFLAGS) $cppflags" "$(cache_var CMAKE_CXX_FLAGS)"
    check_eq "CMAKE_C_FLAGS of $NVCT_BUILD_DIR (CMakePresets.json, ci)" \
      "$(buildflags CFLAGS) $cppflags" "$(cache_var CMAKE_C_FLAGS)"
    # The commit --version prints is compiled in (version_info.hpp, from the ci build's last
    # configure): after a new commit without a reconfigure, the units that include it differ.
    ci_commit="$(sed -n 's/.*kGitCommit = "\(.*\)";/\1/p' "$NVCT_BUILD_DIR/include/nvct/base/version_info.hpp" 2>/dev/null)"
    pkg_commit="$(git -C "$NVCT_SOURCE_DIR" rev-parse HEAD 2>/dev/null || echo unknown)"
    if [ "$ci_commit" != "$pkg_commit" ]; then
      echo "# the ci build was configured at commit ${ci_commit:-?}, the packages are of $pkg_commit:" \
        "the units with --version's commit miss, so the miss count is not checked (cmake --preset ci)"
    elif [ "$(cache_var CMAKE_CXX_COMPILER_LAUNCHER)" = ccache ] && [ "${NVCT_NO_CCACHE:-0}" != 1 ]; then
      # What may miss: the few files whose text differs between the two builds (the generated
      # install_dirs.cpp, `--version`'s build facts) and what the ci build does not compile.
      misses="$(sed -n 's/^ccache: [0-9]* hits, \([0-9]*\) misses$/\1/p' "$log")"
      max_misses=6
      if [ -n "$misses" ] && [ "$misses" -le "$max_misses" ]; then
        pass "the package build reused the ci build's objects: $misses misses (at most $max_misses)"
      else
        failed "the package build compiled ${misses:-?} units again (at most $max_misses): the ci" \
          "build's objects in $CCACHE_DIR were not reused ($(grep -E '^ccache:' "$log"))"
      fi
    fi
  fi
fi

pkg_step "the .debs in $PKG_DIR/deb"
[ -d "$PKG_DIR/deb" ] || e2e_die "no directory $PKG_DIR/deb"
for n in "${PKG_NAMES[@]}"; do
  f="$PKG_DIR/deb/${n}_${PKG_V}_${PKG_ARCH}.deb"
  if [ -f "$f" ]; then
    pass "$n at V=$PKG_V: $(basename "$f")"
    check_eq "$(basename "$f"): Package field" "$n" "$(dpkg-deb -f "$f" Package)"
    check_eq "$(basename "$f"): Version field" "$PKG_V" "$(dpkg-deb -f "$f" Version)"
    check_eq "$(basename "$f"): Architecture field" "$PKG_ARCH" "$(dpkg-deb -f "$f" Architecture)"
  else
    failed "$n: $f was not built ($(ls "$PKG_DIR/deb" | tr '\n' ' '))"
  fi
done
# Nothing else but debug symbol packages of these five.
others=""
for f in "$PKG_DIR"/deb/*; do
  b="$(basename "$f")"
  case "$b" in
    *"_${PKG_V}_${PKG_ARCH}.deb" | *"_${PKG_V}_${PKG_ARCH}.ddeb") ;;
    *) others="$others $b" && continue ;;
  esac
  n="${b%%_*}"
  n="${n%-dbgsym}"
  grep -qx -- "$n" <<<"$(printf '%s\n' "${PKG_NAMES[@]}")" || others="$others $b"
done
check_eq "no other file in $PKG_DIR/deb (only the five and their -dbgsym)" "" "$others"
dbgsym="$(cd "$PKG_DIR/deb" && ls -- *-dbgsym_* 2>/dev/null | tr '\n' ' ')"
echo "# dbgsym packages (skipped by the other tests): ${dbgsym:-none}"
e2e_finish
