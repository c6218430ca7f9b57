# shellcheck shell=bash
# Sourced by build-deb.sh and build-rpm.sh (bash). Both build from the same staged copy of the
# sources, with the same compiler flags and a build directory at the same depth, so that with
# ccache the second build is nearly all cache hits.
#
# Environment:
#   NVCT_PACKAGES_DIR     output root (default <repo>/build/packages): deb/, rpm/, stage/, ccache/
#   NVCT_PACKAGE_VERSION  the package version (default from packaging/version.cmake)
#   NVCT_COMPAT_VERSION   the NVIDIA toolkit version V starts with (default 1.20.0)
#   NVCT_GIT_COMMIT       the commit --version prints (default: git rev-parse HEAD)
#   NVCT_UNITY_BUILD      ON (default) or OFF: CMAKE_UNITY_BUILD of both builds
#   CCACHE_DIR            ccache's cache (default <output root>/ccache); ccache is used when
#                         installed, unless NVCT_NO_CCACHE=1

nvct_repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
nvct_out=${NVCT_PACKAGES_DIR:-$nvct_repo/build/packages}
mkdir -p "$nvct_out"
nvct_out=$(cd "$nvct_out" && pwd)
nvct_stage=$nvct_out/stage/nvct

nvct_die() {
  echo "${nvct_script:-packaging}: $*" >&2
  exit 1
}

# Copies the sources into $nvct_stage: what git tracks plus untracked files it does not ignore
# (uncommitted work included, no build directories), or the whole tree but build/ without git.
nvct_stage_sources() {
  rm -rf "$nvct_stage"
  mkdir -p "$nvct_stage"
  if git -C "$nvct_repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    (
      cd "$nvct_repo" || exit 1
      git ls-files -z -co --exclude-standard |
        while IFS= read -r -d '' f; do
          # Deleted but not yet committed files are listed too.
          if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
        done |
        tar --null --no-recursion -T - -cf -
    ) | tar -C "$nvct_stage" -xf -
  else
    tar -C "$nvct_repo" --exclude=./build --exclude=./.git -cf - . | tar -C "$nvct_stage" -xf -
  fi
  [ -f "$nvct_stage/CMakeLists.txt" ] || nvct_die "staging the sources into $nvct_stage failed"
}

# The package version V (spec/packaging.md §4.1).
nvct_version() {
  cmake -P "$nvct_repo/packaging/version.cmake" ||
    nvct_die "cannot compute the package version (packaging/version.cmake)"
}

# The last commit's date, as the deb changelog has it: SOURCE_DATE_EPOCH of both builds.
nvct_source_date_epoch() {
  git -C "$nvct_repo" log -1 --format=%ct 2>/dev/null || date +%s
}

nvct_commit() {
  if [ -n "${NVCT_GIT_COMMIT:-}" ]; then
    echo "$NVCT_GIT_COMMIT"
  else
    git -C "$nvct_repo" rev-parse HEAD 2>/dev/null || echo unknown
  fi
}

# ccache through CMake's launcher variables (read from the environment at configure time).
nvct_setup_ccache() {
  if [ "${NVCT_NO_CCACHE:-0}" = 1 ] || ! command -v ccache >/dev/null 2>&1; then
    unset CMAKE_C_COMPILER_LAUNCHER CMAKE_CXX_COMPILER_LAUNCHER
    nvct_ccache=no
    return 0
  fi
  nvct_ccache=yes
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
  export CCACHE_DIR=${CCACHE_DIR:-$nvct_out/ccache}
  # Paths under the stage are hashed relative to the compiler's working directory, which is
  # build/deb/... for the deb and build/rpm/... for the rpm: the same text, and the same as in
  # the ci preset's build/ci (scripts/build.sh), whose objects the package tests reuse.
  export CCACHE_BASEDIR=$nvct_stage
  export CCACHE_NOHASHDIR=1
  # ccache hashes the locale variables (they change the compiler's messages): rpmbuild sets
  # LANG=C, so the deb build gets the same. SOURCE_DATE_EPOCH, which dpkg-buildpackage takes from
  # the changelog (the last commit), is hashed for sources that use __DATE__ and __TIME__.
  export LANG=C LC_ALL=C
  unset LC_CTYPE LC_MESSAGES
  mkdir -p "$CCACHE_DIR"
  ccache --zero-stats >/dev/null 2>&1 || true
}

nvct_ccache_report() {
  if [ "$nvct_ccache" = yes ]; then
    ccache --print-stats 2>/dev/null |
      awk -F'\t' '$1 == "direct_cache_hit" { d = $2 } $1 == "preprocessed_cache_hit" { p = $2 }
                  $1 == "cache_miss" { m = $2 }
                  END { printf "ccache: %d hits, %d misses\n", d + p, m }'
  fi
}

nvct_seconds_since() {
  echo $(($(date +%s) - $1))
}
