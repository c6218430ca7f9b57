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
# NVCT_TEST_JOBS (2) tests at once that use the CPU, and one more place for the unit tests and
# the tests that mostly wait (critest, runc's bats suite): CTest's resource allocation, with the
# "cpu" slots of cmake/NvctModule.cmake in a spec file of the build tree.
jobs="${NVCT_TEST_JOBS:-2}"
spec="$PWD/build/ci/ctest-resources.json"
printf '{"version": {"major": 1, "minor": 0}, "local": [{"cpu": [{"id": "0", "slots": %d}]}]}\n' \
  "$jobs" >"$spec"
ctest --preset ci -j "$((jobs + 1))" --resource-spec-file "$spec" "${labels[@]}" "$@"
