#!/usr/bin/env bash
# The README's test command: installs what is needed, builds, and runs the whole CTest suite
# (labels unit, e2e, security, bench, package, conformance). CTest's summary is the last thing
# printed.
#
# The `package` label (tests/package) builds the .deb and .rpm packages and installs them into
# throwaway Debian 12 roots; NVCT_TEST_PACKAGES=0 leaves it out (a quicker run while developing).
# Extra arguments go to ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh ci
labels=()
if [ "${NVCT_TEST_PACKAGES:-1}" = 0 ]; then
  labels=(-LE package)
fi
ctest --preset ci -j "${NVCT_TEST_JOBS:-2}" "${labels[@]}" "$@"
