#!/usr/bin/env bash
# docs/host-writes.md, checked: each binary, run the usual ways on a driverless host stand-in,
# writes nothing on the host but what that page lists for the invocation (here: nothing at all,
# since every write it lists is either asked for by a flag or made only when the driver is there).
#
# The stand-in lives in a private mount namespace: tmpfs on /dev (with null, zero, full, random,
# urandom, tty bound from the host) and on /run; overlays on /etc and /var/log (their upper
# directories collect any write); /proc/devices and /proc/modules replaced by a driverless
# host's (no nvidia major, no nvidia module) and modprobe by one that finds no module, so the
# test means the same on a GPU host. TMPDIR points at an empty directory. A snapshot of /dev and /run (path, type, mode) is compared
# before and after each command; the /etc, /var/log and TMPDIR uppers must stay empty.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"

require_root
require_cmd unshare runc jq
T="$E2E_TMP"
CLI="$(nvct_bin nvidia-container-cli)"
CTK="$(nvct_bin nvidia-ctk)"
SHIM="$(nvct_bin nvidia-container-runtime)"
HOOK="$(nvct_bin nvidia-container-runtime-hook)"
CDI_HOOK="$(nvct_bin nvidia-cdi-hook)"

# A GPU bundle whose rootfs is under $T (writes into it are the container's, not the host's).
make_bundle "$T/bundle" glibc sh -c 'echo ok'
bundle_set_env "$T/bundle" NVIDIA_VISIBLE_DEVICES=all
cp "$T/bundle/config.json" "$T/config.json.orig"
printf '{"ociVersion":"1.0.2","id":"hw","status":"creating","pid":%s,"bundle":"%s"}' \
  "$$" "$T/bundle" >"$T/state.json"
for mode in legacy jit-cdi; do
  cat >"$T/config-$mode.toml" <<TOML
[nvidia-container-runtime]
mode = "$mode"
runtimes = ["runc"]
[nvidia-container-runtime-hook]
path = "$HOOK"
[nvidia-ctk]
path = "$CTK"
TOML
done

cat >"$T/inner.sh" <<'INNER'
set -u
T="$1"
fail() { echo "SETUP FAILED: $*" >&2; exit 3; }
mkdir -p "$T/dev" "$T/up/etc" "$T/work/etc" "$T/up/log" "$T/work/log" "$T/tmp" "$T/state"
mount -t tmpfs -o mode=755 tmpfs "$T/dev" || fail "tmpfs /dev"
for n in null zero full random urandom tty; do
  touch "$T/dev/$n" && mount --bind "/dev/$n" "$T/dev/$n" || fail "bind /dev/$n"
done
mkdir -p "$T/dev/pts" "$T/dev/shm" && ln -s /proc/self/fd "$T/dev/fd"
mount --rbind "$T/dev" /dev || fail "/dev"
mount -t tmpfs -o mode=755 tmpfs /run || fail "/run"
mount -t overlay overlay -o "lowerdir=/etc,upperdir=$T/up/etc,workdir=$T/work/etc" /etc || fail "/etc"
mount -t overlay overlay -o "lowerdir=/var/log,upperdir=$T/up/log,workdir=$T/work/log" /var/log ||
  fail "/var/log"
printf 'Character devices:\n  1 mem\n  4 tty\n  5 /dev/tty\n 10 misc\n136 pts\n\nBlock devices:\n  7 loop\n' \
  >"$T/proc-devices"
: >"$T/proc-modules"
mount --bind "$T/proc-devices" /proc/devices || fail "/proc/devices"
# (a kernel without module support has no /proc/modules: nothing to hide then)
if [ -e /proc/modules ]; then mount --bind "$T/proc-modules" /proc/modules || fail "/proc/modules"; fi
# modprobe finds no module, as on a host without the driver (and loads none on a GPU host).
printf '#!/bin/sh\necho "modprobe: FATAL: Module $1 not found (host stand-in)" >&2\nexit 1\n' \
  >"$T/modprobe" && chmod 755 "$T/modprobe"
for m in /sbin/modprobe /usr/sbin/modprobe; do
  if [ -e "$m" ]; then mount --bind "$T/modprobe" "$m" || fail "$m"; fi
done
export TMPDIR="$T/tmp"
snap() { find /dev /run -xdev -printf '%p %y %m\n' 2>/dev/null | sort; }
n=0
run() {  # run <name> <command...>: the command may fail; the host must not change
  n=$((n + 1))
  snap >"$T/before"
  "${@:2}" </dev/null >"$T/out.$n" 2>&1
  echo "rc $1 $?"
  echo "# $1: $(tail -n 2 "$T/out.$n" | tr '\n' ' ' | cut -c1-300)"
  snap >"$T/after"
  if cmp -s "$T/before" "$T/after"; then echo "same $1"; else
    echo "changed $1: $(diff "$T/before" "$T/after" | grep '^[<>]' | tr '\n' ' ')"; fi
}
CLI="$2" CTK="$3" SHIM="$4" HOOK="$5" CDI_HOOK="$6"
run "cli -k info" "$CLI" -k info
run "cli -k list" "$CLI" -k list
run "cli info" "$CLI" info
run "hook prestart" sh -c "'$HOOK' prestart <'$T/state.json'"
run "shim create (legacy)" env NVIDIA_CTK_CONFIG_FILE_PATH="$T/config-legacy.toml" \
  "$SHIM" --root "$T/state" create --bundle "$T/bundle" hw-legacy
runc --root "$T/state" delete --force hw-legacy >/dev/null 2>&1
cp "$T/config.json.orig" "$T/bundle/config.json"
run "shim create (jit-cdi)" env NVIDIA_CTK_CONFIG_FILE_PATH="$T/config-jit-cdi.toml" \
  "$SHIM" --root "$T/state" create --bundle "$T/bundle" hw-jit
runc --root "$T/state" delete --force hw-jit >/dev/null 2>&1
run "shim state" "$SHIM" --root "$T/state" state hw-none
run "ctk cdi generate" "$CTK" cdi generate
run "ctk cdi list" "$CTK" cdi list
run "ctk config" "$CTK" config
run "ctk runtime configure --dry-run (docker)" "$CTK" runtime configure --dry-run
run "ctk runtime configure --dry-run (containerd)" "$CTK" runtime configure --runtime=containerd --dry-run
run "ctk runtime configure --dry-run (crio)" "$CTK" runtime configure --runtime=crio --dry-run
run "ctk system create-dev-char-symlinks" "$CTK" system create-dev-char-symlinks --create-all
run "ctk --version" "$CTK" --version
run "cdi-hook update-ldcache" sh -c "'$CDI_HOOK' update-ldcache --folder /usr/lib/x86_64-linux-gnu <'$T/state.json'"
run "cdi-hook create-symlinks" sh -c "'$CDI_HOOK' create-symlinks --link libc.so.6::/lib/x.so <'$T/state.json'"
echo "upper /etc: $(find "$T/up/etc" -mindepth 1 | tr '\n' ' ')"
echo "upper /var/log: $(find "$T/up/log" -mindepth 1 | tr '\n' ' ')"
echo "TMPDIR: $(find "$T/tmp" -mindepth 1 | tr '\n' ' ')"
INNER

unshare -m --propagation private bash "$T/inner.sh" "$T" "$CLI" "$CTK" "$SHIM" "$HOOK" "$CDI_HOOK" \
  >"$T/report" 2>&1 || e2e_die "the host stand-in failed: $(cat "$T/report")"
grep -q '^SETUP FAILED' "$T/report" && e2e_die "$(cat "$T/report")"
while read -r line; do
  case "$line" in
    "same "*) pass "${line#same }: /dev and /run unchanged" ;;
    "changed "*) failed "${line#changed }" ;;
  esac
done <"$T/report"
grep '^# ' "$T/report" || true
check_eq "commands run" 17 "$(grep -c '^rc ' "$T/report")"
check_eq "nothing written under /etc" "upper /etc: " "$(grep '^upper /etc:' "$T/report")"
check_eq "nothing written under /var/log" "upper /var/log: " "$(grep '^upper /var/log:' "$T/report")"
check_eq "no temporary file left" "TMPDIR: " "$(grep '^TMPDIR:' "$T/report")"
# The commands did run (and failed for want of a driver where they need one).
check_contains "cli -k info fails for want of a driver" "rc cli -k info 1" "$(cat "$T/report")"
check_contains "runtime configure --dry-run succeeds" "rc ctk runtime configure --dry-run (crio) 0" \
  "$(cat "$T/report")"
e2e_finish
