#!/usr/bin/env bash
# Issue 18, Faults: writes that cannot complete. For each host file nvidia-ctk writes
# (daemon.json through `runtime configure`, config.toml through `config --in-place`, the CDI spec
# through `cdi generate --output`):
#   full disk     a small tmpfs filled to the last byte: exit 1, an error naming the file, the
#                 cause and the fix ("free space"), the original byte-identical, no temp or lock
#                 file left, nothing else created;
#   read-only     the config directory on a read-only mount: the same, with "read-only" and the
#                 fix ("remount" / "make it writable");
#   signal storm  FAULT_STORM_RUNS (default 5) runs each under a SIGSTOP/SIGCONT storm (nvct
#                 handles no signal it survives; SIGINT/TERM/HUP/QUIT end it by design): every
#                 run exits 0 with the same file as an undisturbed run, no temp or lock file.
source "$(dirname "$0")/lib.sh"
STORM_RUNS="${FAULT_STORM_RUNS:-5}"

RT="$FT/bin/nvidia-container-runtime"
mkdir -p "$FT/bin" "$FT/src"
printf '#!/bin/sh\nexit 0\n' >"$RT"
chmod 0755 "$RT"
fault_mock_root one-gpu "$FT/driver-root"
{
  printf '{\n  "log-driver": "json-file",\n'
  for ((i = 1; i <= 100; i++)); do printf '  "x-filler-%04d": "%0100d",\n' "$i" 0; done
  printf '  "x-last": true\n}\n'
} >"$FT/src/daemon.json"
"$CTK" config default >"$FT/src/config.toml" 2>/dev/null
"$CTK" --quiet cdi generate --driver-root "$FT/driver-root" --device-name-strategy uuid \
  --output "$FT/src/nvidia.yaml" 2>/dev/null || e2e_die "cdi generate failed"

# writer_argv <kind> <dir>: W = the writer of <kind> on the file of <kind> in <dir>
writer_argv() {
  case "$1" in
    daemon.json) W=("$CTK" --quiet runtime configure --runtime=docker --config "$2/daemon.json" --nvidia-runtime-path "$RT") ;;
    config.toml) W=("$CTK" --quiet config --in-place --config "$2/config.toml" --set nvidia-container-cli.debug=/var/log/x.log) ;;
    nvidia.yaml) W=("$CTK" --quiet cdi generate --driver-root "$FT/driver-root" --output "$2/nvidia.yaml") ;;
  esac
}
writer() { writer_argv "$1" "$2" && "${W[@]}"; }
KINDS="daemon.json config.toml nvidia.yaml"

# --- full disk ---
for kind in $KINDS; do
  d="$FT/full-$kind"
  mkdir -p "$d"
  mount -t tmpfs -o size=256k fault-full "$d"
  cp "$FT/src/$kind" "$d/"
  dd if=/dev/zero of="$d/filler" bs=4k 2>/dev/null || true
  dd if=/dev/zero of="$d/filler2" bs=1 2>/dev/null || true  # the last bytes
  rc=0
  writer "$kind" "$d" >"$FT/out" 2>&1 || rc=$?
  err="$(cat "$FT/out")"
  check_eq "full disk, $kind: exit 1" 1 "$rc"
  check_contains "full disk, $kind: the error names the file" "$d/$kind" "$err"
  check_contains "full disk, $kind: the error names the cause" "No space left on device" "$err"
  check_contains "full disk, $kind: the error gives the fix" "free space" "$err"
  check "full disk, $kind: the original is intact" cmp -s "$FT/src/$kind" "$d/$kind"
  check_eq "full disk, $kind: no temp, lock or other file left" \
    "$(printf '%s\n' filler filler2 "$kind" | sort | tr '\n' ' ' | sed 's/ $//')" \
    "$(ls -A "$d" | sort | tr '\n' ' ' | sed 's/ $//')"
  umount "$d"
done

# --- read-only config directory ---
for kind in $KINDS; do
  d="$FT/ro-$kind"
  mkdir -p "$d"
  mount -t tmpfs -o size=1m fault-ro "$d"
  cp "$FT/src/$kind" "$d/"
  mount -o remount,ro "$d"
  rc=0
  writer "$kind" "$d" >"$FT/out" 2>&1 || rc=$?
  err="$(cat "$FT/out")"
  check_eq "read-only, $kind: exit 1" 1 "$rc"
  check_contains "read-only, $kind: the error names the directory" "$d" "$err"
  check_contains "read-only, $kind: the error names the cause" "read-only file system" "$err"
  if [[ "$err" == *"remount it read-write"* || "$err" == *"make it writable"* ]]; then
    pass "read-only, $kind: the error gives the fix"
  else
    failed "read-only, $kind: no fix in [$err]"
  fi
  check "read-only, $kind: the original is intact" cmp -s "$FT/src/$kind" "$d/$kind"
  check_eq "read-only, $kind: nothing else in the directory" "$kind" "$(ls -A "$d")"
  umount "$d"
done

# --- SIGSTOP/SIGCONT storm ---
for kind in $KINDS; do
  d="$FT/storm-$kind"
  mkdir -p "$d/ref"
  cp "$FT/src/$kind" "$d/ref/"
  writer "$kind" "$d/ref" >/dev/null 2>&1 || e2e_die "undisturbed $kind run failed"
  bad=0 pairs=0
  for i in $(seq "$STORM_RUNS"); do
    cp "$FT/src/$kind" "$d/"
    rc=0
    writer_argv "$kind" "$d"
    # The write itself stretched (slow_write.c) so that the storm also hits it mid-way.
    LD_PRELOAD="$FAULT_SLOW_WRITE" FAULT_SLOW_WRITE_PREFIX=".$kind." FAULT_SLOW_WRITE_US=100 \
      "$FAULT_INJECT" storm --period-us 100 -- "${W[@]}" >/dev/null 2>"$FT/storm.err" || rc=$?
    pairs=$((pairs + $(sed -n 's/^storm: \([0-9]*\) .*/\1/p' "$FT/storm.err")))
    if [ "$rc" -ne 0 ] || ! cmp -s "$d/$kind" "$d/ref/$kind"; then
      bad=$((bad + 1))
      echo "# storm $kind run $i: exit $rc: $(grep -v '^storm:' "$FT/storm.err" | tail -1)"
    fi
  done
  echo "# storm $kind: runs=$STORM_RUNS stop/cont-pairs=$pairs bad=$bad"
  check_eq "storm, $kind: every run succeeded with the undisturbed result" 0 "$bad"
  check "storm, $kind: the storm really hit the writer ($pairs pairs)" test "$pairs" -ge "$STORM_RUNS"
  check_eq "storm, $kind: no temp or lock file left" "$kind ref" "$(ls -A "$d" | sort | tr '\n' ' ' | sed 's/ $//')"
done
e2e_finish
