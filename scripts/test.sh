#!/usr/bin/env bash
# The README's test command: installs what is needed, builds, and runs the whole CTest suite
# (unit, e2e, security, bench). CTest's summary is the last thing printed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh ci
ctest --preset ci -j "${NVCT_TEST_JOBS:-2}" "$@"
