#!/usr/bin/env bash
# Every script test CTest runs gets /dev/null as its stdin (NVCT_SCRIPT_TEST_COMMAND in
# cmake/NvctModule.cmake): CTest hands on its own stdin, a terminal when the README's test
# command runs in one, and `timeout 120 ctr run ...` (its own process group) then stops on
# SIGTTIN until the timeout. Checked two ways: this test's own stdin, and the command line of
# every test registered in the build tree that runs a shell script (ctest --show-only=json-v1),
# so that a script test registered with a plain add_test(... bash x.sh) fails here too.
source "$(dirname "$0")/../e2e/lib/common.sh"
require_cmd ctest jq

check_eq "this test's stdin is /dev/null" /dev/null "$(readlink /proc/self/fd/0)"

# ctest --show-only rewrites <dir>/Testing/Temporary/LastTest.log: run it on a copy of the
# build tree's CTestTestfile.cmake files, not on the tree whose CTest run is going on (the
# first version of this test left that run's LastTest.log empty).
tree="$E2E_TMP/tree"
mkdir -p "$tree"
(cd "$NVCT_BUILD_DIR" && find . -name CTestTestfile.cmake -not -path './package/*' \
  -not -path './hostile-asan/*' -print0 | tar --null -T - -cf -) | tar -C "$tree" -xf -
ctest --test-dir "$tree" --show-only=json-v1 >"$E2E_TMP/tests.json" 2>"$E2E_TMP/ctest.err" ||
  e2e_die "ctest --show-only=json-v1 failed: $(tail -3 "$E2E_TMP/ctest.err")"
# Tests whose command names a .sh file, and of those the ones not started through the wrapper.
jq -r '.tests[] | select(any(.command[]?; endswith(".sh"))) | .name' "$E2E_TMP/tests.json" \
  >"$E2E_TMP/scripts"
jq -r '.tests[] | select(any(.command[]?; endswith(".sh")))
         | select((.command[0] | test("(^|/)sh$")) and .command[1] == "-c"
                  and .command[2] == "exec bash \"$0\" \"$@\" </dev/null" | not) | .name' \
  "$E2E_TMP/tests.json" >"$E2E_TMP/plain"
n="$(wc -l <"$E2E_TMP/scripts")"
check "script tests found in $NVCT_BUILD_DIR ($n)" test "$n" -ge 100
check_eq "script tests not started with stdin from /dev/null" "" "$(tr '\n' ' ' <"$E2E_TMP/plain")"
e2e_finish
