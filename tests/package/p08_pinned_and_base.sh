#!/usr/bin/env bash
# P8: the install guide's pinned command, all four names at one version, works with nvct's
# packages (libnvidia-container1 is the empty compatibility package); and a CDI-only host installs
# nvidia-container-toolkit-base alone, without nvidia-container-cli (spec/packaging.md §2, §5).
source "$(dirname "$0")/lib/pkg.sh"
source "$(dirname "$0")/lib/root.sh"

pkg_require_debs
V="$PKG_V"

pkg_step "pinned: apt-get install -y nvidia-container-toolkit=V nvidia-container-toolkit-base=V libnvidia-container-tools=V libnvidia-container1=V"
root="$(pkg_root_with pinned nvidia-container-toolkit="$V" nvidia-container-toolkit-base="$V" \
  libnvidia-container-tools="$V" libnvidia-container1="$V")"
pass "the pinned install exits 0"
check_eq "the four packages at V" \
  "$(printf '%s\n' "libnvidia-container-tools $V" "libnvidia-container1 $V" \
    "nvidia-container-toolkit $V" "nvidia-container-toolkit-base $V" | sort)" \
  "$(pkg_installed "$root")"
check "nvidia-container-cli runs" pkg_chroot "$root" nvidia-container-cli --version

pkg_step "CDI-only host: apt-get install -y nvidia-container-toolkit-base"
root="$(pkg_root_with base nvidia-container-toolkit-base)"
pass "installing the base package alone exits 0"
check_eq "only the base package is installed" "nvidia-container-toolkit-base $V" "$(pkg_installed "$root")"
check "no /usr/bin/nvidia-container-cli" test ! -e "$root/usr/bin/nvidia-container-cli"
check "no hook /usr/bin/nvidia-container-runtime-hook" test ! -e "$root/usr/bin/nvidia-container-runtime-hook"
check_eq "nvidia-ctk runs" "NVIDIA Container Toolkit CLI version $V" \
  "$(pkg_chroot "$root" nvidia-ctk --version | head -n1)"
check "config.toml was generated" test -s "$root/etc/nvidia-container-runtime/config.toml"
check "the CDI refresh units are there" test -f "$root/lib/systemd/system/nvidia-cdi-refresh.service"
e2e_finish
