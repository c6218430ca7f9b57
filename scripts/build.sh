#!/usr/bin/env bash
# Configures and builds nvct with a CMake preset (default: ci). Usage: scripts/build.sh [preset]
set -euo pipefail
preset="${1:-ci}"
cd "$(dirname "$0")/.."
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
