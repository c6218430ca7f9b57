#!/usr/bin/env bash
# The hostile-input table (hostile_inputs.sh) against binaries built with AddressSanitizer and
# UBSan (issue 18): NVCT_SANITIZE=ON with clang, the compiler and sanitizers of the `fuzz` preset
# (Debian's clang and libclang-rt-14-dev, from scripts/install-deps.sh). A row fails on any
# sanitizer report (hostile_inputs.sh looks for "AddressSanitizer" and "runtime error:"), and
# UBSan stops at the first error.
#
# CTest test security_hostile_inputs_asan (label security), in every CI run. The build is -O0
# -g1: ASan and UBSan check the same at -O0 (nothing is optimised away), and -O1 took more than
# twice the CPU. One unity unit per library (CMAKE_UNITY_BUILD_BATCH_SIZE=0, 20% less CPU than
# the default 8 files per unit): two files of a library with file-local helpers of the same name
# break this build first. clang, not g++: with both sanitizers at -O0, the six programs took 439
# CPU-s from scratch with g++ and 283 with clang (idle machine), and this build and the package
# build are the two longest steps of a CI run's tests.
# The table itself takes one to three minutes under the sanitizers.
#
#   NVCT_BUILD_DIR=$PWD/build/ci NVCT_SOURCE_DIR=$PWD \
#     NVCT_DRIVER_FACTS_CACHE_DIR=$PWD/build/ci/test-driver-facts \
#     bash tests/security/hostile/hostile_inputs_asan.sh
#
# The build goes to $NVCT_BUILD_DIR/hostile-asan (kept between runs, so a later run rebuilds only
# what changed). NVCT_HOSTILE_ASAN_BIN_DIR=<dir> skips the build and uses binaries built
# elsewhere (the `asan` preset's build/asan/bin, say, a g++ build).
source "$(dirname "$0")/../../e2e/lib/common.sh"
require_root
require_cmd cmake

programs=(nvidia-container-runtime nvidia-container-runtime-hook nvidia-container-cli nvidia-ctk
  nvidia-cdi-hook nvidia-container-runtime-nvml)
bin="${NVCT_HOSTILE_ASAN_BIN_DIR:-}"
if [ -z "$bin" ]; then
  require_cmd clang clang++
  # clang's sanitizer runtimes are a package of their own: without it the link fails late.
  [ -f "$(clang++ -print-file-name=libclang_rt.asan-x86_64.a)" ] ||
    e2e_die "clang's ASan runtime is missing (libclang-rt-14-dev; scripts/install-deps.sh installs it)"
  build="$NVCT_BUILD_DIR/hostile-asan"
  # A build directory configured with another compiler (g++, before clang) starts over.
  if [ -f "$build/CMakeCache.txt" ] && ! grep -q '^CMAKE_CXX_COMPILER:[A-Z]*=.*clang++$' "$build/CMakeCache.txt"; then
    rm -rf "$build"
  fi
  start=$(date +%s)
  cmake -S "$NVCT_SOURCE_DIR" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -g1" \
    -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=0 -DNVCT_SANITIZE=ON -DBUILD_TESTING=OFF -DNVCT_WERROR=OFF \
    >"$E2E_TMP/configure.log" 2>&1 || e2e_die "configuring the sanitizer build failed: $(tail -20 "$E2E_TMP/configure.log")"
  cmake --build "$build" -j "$(nproc)" --target "${programs[@]}" >"$E2E_TMP/build.log" 2>&1 ||
    e2e_die "building the sanitizer binaries failed: $(grep -m5 -E 'error|Error' "$E2E_TMP/build.log")"
  echo "# sanitizer build: $(($(date +%s) - start)) s"
  bin="$build/bin"
fi
for p in "${programs[@]}"; do
  [ -x "$bin/$p" ] || e2e_die "$bin/$p is missing"
done
# Proof that these are sanitizer builds: the ASan runtime is linked in.
for p in nvidia-container-cli nvidia-ctk nvidia-container-runtime-hook nvidia-container-runtime; do
  grep -q "__asan_init" "$bin/$p" || e2e_die "$bin/$p has no AddressSanitizer runtime"
  grep -q "__ubsan_handle" "$bin/$p" || e2e_die "$bin/$p has no UBSan handlers"
done

# halt_on_error: the first report ends the process with a nonzero status; the table then sees
# an unexpected exit code and the report in stderr.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=1:allocator_may_return_null=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export NVCT_HOSTILE_BIN_DIR="$bin"
export NVCT_HOSTILE_CASE_TIMEOUT="${NVCT_HOSTILE_CASE_TIMEOUT:-30}"
rm -rf "$E2E_TMP" # exec drops the EXIT trap (it left the build logs behind); the table makes its own
exec bash "$(dirname "$0")/hostile_inputs.sh"
