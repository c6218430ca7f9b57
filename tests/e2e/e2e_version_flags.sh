#!/usr/bin/env bash
# `--version` of every binary (issue 16): each prints its own name, in the reference's layout
# where there is one (runtime.md §12, hook.md §1, ctk.md §1, cli.md §7), and the nvct version V
# that CMake generated (packaging.md §4.1).
source "$(dirname "$0")/lib/common.sh"

V="$(sed -n 's/.*kVersion = "\(.*\)";/\1/p' "$NVCT_BUILD_DIR/include/nvct/base/version_info.hpp")"
[ -n "$V" ] || e2e_die "no kVersion in $NVCT_BUILD_DIR/include/nvct/base/version_info.hpp"
check_contains "V is the nvct version scheme" "+nvct" "$V"

# first_line <binary> <args...>: "<exit status>|<first line of stdout>".
first_line() {
  local out rc=0
  out="$("$@" 2>/dev/null)" || rc=$?
  printf '%s|%s\n' "$rc" "$(printf '%s\n' "$out" | head -n1)"
}

check_eq "nvidia-ctk --version" "0|NVIDIA Container Toolkit CLI version $V" \
  "$(first_line "$(nvct_bin nvidia-ctk)" --version)"
check_eq "nvidia-ctk -v" "0|NVIDIA Container Toolkit CLI version $V" \
  "$(first_line "$(nvct_bin nvidia-ctk)" -v)"
check_eq "nvidia-cdi-hook --version" "0|NVIDIA CDI Hook version $V" \
  "$(first_line "$(nvct_bin nvidia-cdi-hook)" --version)"
check_eq "nvidia-container-runtime-hook -version" "0|NVIDIA Container Runtime Hook version $V" \
  "$(first_line "$(nvct_bin nvidia-container-runtime-hook)" -version)"
check_eq "nvidia-container-runtime-hook --version" "0|NVIDIA Container Runtime Hook version $V" \
  "$(first_line "$(nvct_bin nvidia-container-runtime-hook)" --version)"
check_eq "nvidia-container-runtime-nvml --version" "0|nvidia-container-runtime-nvml version $V" \
  "$(first_line "$(nvct_bin nvidia-container-runtime-nvml)" --version)"
# The reference's libnvidia-container layout has no program name: fields, one per line.
check_eq "nvidia-container-cli --version" "0|cli-version: $V" \
  "$(first_line "$(nvct_bin nvidia-container-cli)" --version)"

# The shim prints its block, then execs the low-level runtime for the runtime's own version.
FAKE="$(fake_runtime_bin)"
CFG="$E2E_TMP/config.toml"
printf '[nvidia-container-runtime]\nruntimes = ["%s"]\n' "$FAKE" >"$CFG"
mkdir -p "$E2E_TMP/rec"
check_eq "nvidia-container-runtime --version" "0|NVIDIA Container Runtime version $V" \
  "$(NVIDIA_CTK_CONFIG_FILE_PATH="$CFG" FAKE_RUNTIME_DIR="$E2E_TMP/rec" \
    first_line "$(shim_bin)" --version)"

# Every second line is the commit the binaries were built from.
commit="$(sed -n 's/.*kGitCommit = "\(.*\)";/\1/p' "$NVCT_BUILD_DIR/include/nvct/base/version_info.hpp")"
for bin in nvidia-ctk nvidia-cdi-hook nvidia-container-runtime-hook nvidia-container-runtime-nvml; do
  check_eq "$bin --version: commit line" "commit: $commit" \
    "$("$(nvct_bin "$bin")" --version 2>/dev/null | sed -n 2p)"
done

e2e_finish
