#!/usr/bin/env bash
# Runs a command for e2e_runc_bats.sh in a private mount namespace whose /etc is a throw-away
# overlay (upper layer on a tmpfs at <scratch-dir>): a few suite tests write host files under /etc
# (checkpoint.bats writes /etc/criu/default.conf when criu is installed); here those writes vanish
# with the namespace. Everything else (cgroupfs, /tmp, /run) is the host's: runc needs the real
# cgroups, and the suite keeps its state under its own TMPDIR.
#   runc_bats_ns.sh <scratch-dir> <command> [args...]
set -euo pipefail
if [ "${1:-}" != "--inside" ]; then
  exec unshare --mount --propagation private "$0" --inside "$@"
fi
shift
scratch="$1"
shift
mount -t tmpfs -o mode=0700 nvct-runc-bats "$scratch"
mkdir "$scratch/upper" "$scratch/work"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$scratch/upper,workdir=$scratch/work" /etc
exec "$@"
