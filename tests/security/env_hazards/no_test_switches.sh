#!/usr/bin/env bash
# No production binary reads a test-only switch from its environment (issue 18, checklist rows
# 17/18: an attacker who controls a hook's environment must not be able to downgrade it, e.g. to
# the userspace walker). Installs the build into a temporary prefix, as the packages do, and
# fails when any installed ELF file carries a name of the NVCT_TEST* or NVCT_FORCE* families
# (the names the test suites use for such switches): a name in the binary is a name some code
# can pass to getenv. Tests force the fallbacks with tests/security/no_openat2 (seccomp) instead.
# NVCT_SWITCH_SCAN_DIR scans that directory instead of installing (used to show the test fails).
source "$(dirname "$0")/../../e2e/lib/common.sh"
require_cmd cmake strings file

if [ -n "${NVCT_SWITCH_SCAN_DIR:-}" ]; then
  prefix="$NVCT_SWITCH_SCAN_DIR"
else
  prefix="$E2E_TMP/prefix"
  cmake --install "$NVCT_BUILD_DIR" --prefix "$prefix" >"$E2E_TMP/install.log" 2>&1 ||
    e2e_die "cmake --install $NVCT_BUILD_DIR failed: $(tail -3 "$E2E_TMP/install.log")"
fi
mapfile -t elves < <(find "$prefix" -type f -exec file {} + | grep ': *ELF' | cut -d: -f1 | sort)
echo "# ${#elves[@]} installed ELF files under $prefix"
check "there are ELF files to scan" test "${#elves[@]}" -gt 0
if [ -z "${NVCT_SWITCH_SCAN_DIR:-}" ]; then
  for b in nvidia-cdi-hook nvidia-container-runtime-hook nvidia-container-runtime nvidia-ctk; do
    check "the install has $b" bash -c "printf '%s\n' \"\$@\" | grep -q '/$b\$'" _ "${elves[@]}"
  done
fi
for elf in "${elves[@]}"; do
  names="$(strings -a "$elf" | { grep -o -E 'NVCT_(TEST|FORCE)[A-Z0-9_]*' || true; } | sort -u | tr '\n' ' ')"
  check_eq "${elf#"$prefix"/}: no test switch name" "" "$names"
done
e2e_finish
