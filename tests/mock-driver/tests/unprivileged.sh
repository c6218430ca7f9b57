#!/usr/bin/env bash
# Without root the builder still makes a usable root: device nodes are empty regular files
# (mknod needs CAP_MKNOD) with a warning, and the mock NVML still sees the GPUs.
source "$(dirname "$0")/lib/common.sh"
((EUID == 0)) || { echo "FAIL: this test drops from root to nobody; run it as root" >&2; exit 1; }
chmod 0777 "$WORK"
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups env PATH=/usr/bin:/bin "$@"; }

err="$(as_nobody "$BUILDER" --topology "$TOPOLOGIES/mig.conf" --out "$WORK/root" \
       --build-dir "$NVCT_BUILD_DIR" 2>&1 >/dev/null)"
expect_eq "one warning about device nodes" \
  "make-driver-root: warning: not root: device nodes are empty regular files" "$err"
expect_eq "nvidiactl is a regular file" "regular empty file" "$(stat -c %F "$WORK/root/dev/nvidiactl")"
expect_eq "nvidia0 is a regular file" "regular empty file" "$(stat -c %F "$WORK/root/dev/nvidia0")"
expect "the cache was still made" test -s "$WORK/root/etc/ld.so.cache"
expect "sockets were still made" test -S "$WORK/root/run/nvidia-persistenced/socket"
expect_eq "nvidia-smi as nobody lists both GPUs" 2 \
  "$(as_nobody env LD_LIBRARY_PATH="$WORK/root/$LIB64" "$ARTIFACTS/bin/nvidia-smi" -L | grep -c '^GPU')"
finish
