#!/usr/bin/env bash
# Configures and builds nvct with a CMake preset (default: ci). Usage: scripts/build.sh [preset]
#
# With ccache installed (scripts/install-deps.sh installs it), the compiler runs through ccache
# with the cache in build/<preset>/ccache, paths hashed relative to the source tree (CCACHE_BASEDIR)
# and the C locale, as packaging/stage.sh sets them up for the package builds. The `ci` preset
# compiles with the packages' flags, and the package tests (tests/package/lib/pkg.sh) build the
# packages with this cache in build directories at the same depth (build/deb, build/rpm): their
# compiles of the libraries and programs are cache hits on this build's objects, instead of a
# second full -O2 build in every CI run. NVCT_NO_CCACHE=1 builds without it.
set -euo pipefail
preset="${1:-ci}"
cd "$(dirname "$0")/.."
launcher=()
if [ "${NVCT_NO_CCACHE:-0}" != 1 ] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR="$PWD/build/$preset/ccache" CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
  # ccache hashes the locale variables (they change the compiler's messages).
  export LANG=C LC_ALL=C
  unset LC_CTYPE LC_MESSAGES
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
else
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER= -DCMAKE_CXX_COMPILER_LAUNCHER=)
fi
cmake --preset "$preset" "${launcher[@]}" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
