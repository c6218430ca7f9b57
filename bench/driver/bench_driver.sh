#!/usr/bin/env bash
# Builds the 8-GPU mock driver root and runs bench_driver on it (see bench_driver.cpp).
set -euo pipefail
NVCT_SOURCE_DIR="${NVCT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
NVCT_BUILD_DIR="${NVCT_BUILD_DIR:?NVCT_BUILD_DIR must name the build directory}"
bench="$NVCT_BUILD_DIR/bench/driver/bench_driver"
cli="$NVCT_BUILD_DIR/bin/nvidia-container-cli"
for f in "$bench" "$cli"; do
  [ -x "$f" ] || { echo "FATAL: $f is not built (cmake --build $NVCT_BUILD_DIR --target bench_driver nvidia-container-cli mock_driver)" >&2; exit 1; }
done
tmp="$(mktemp -d /tmp/nvct-bench-driver.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/eight-gpus.conf" --out "$tmp/root" \
  >"$tmp/make.log" 2>&1 || { echo "FATAL: make-driver-root.sh failed:" >&2; tail -5 "$tmp/make.log" >&2; exit 1; }
# Not exec: the EXIT trap must still remove the root (an exec left one behind per run).
rc=0
"$bench" --root "$tmp/root" --cli "$cli" || rc=$?
exit "$rc"
