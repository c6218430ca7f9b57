#!/usr/bin/env bash
# nvidia-container-runtime in front of the real crun (Debian package): run, lifecycle,
# pass-through, injected prestart hook, glibc rootfs.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/shim_lifecycle.sh"
run_shim_lifecycle crun
e2e_finish
