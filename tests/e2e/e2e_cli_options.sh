#!/usr/bin/env bash
# nvidia-container-cli option spelling (argp style, cli.md §1 and §3) and --load-kmods node
# creation on a mock driver root whose /dev was emptied (driver.md §7).
source "$(dirname "$0")/lib/common.sh"
require_root

cli="$(nvct_bin nvidia-container-cli)"
make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
[ -f "$make_root" ] || e2e_die "$make_root is missing (the mock driver)"
root="$E2E_TMP/one"
bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/one-gpu.conf" --out "$root" \
  >"$E2E_TMP/make.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make.log")"

want="$("$cli" --root "$root" list --binaries)"
[ -n "$want" ] || e2e_die "list --binaries printed nothing on the one-gpu root"
check_eq "-r ROOT" "$want" "$("$cli" -r "$root" list -b)"
check_eq "-rROOT" "$want" "$("$cli" -r"$root" list -b)"
check_eq "--root=ROOT" "$want" "$("$cli" --root="$root" list --binaries)"
check_eq "unique long prefix --ro" "$want" "$("$cli" --ro "$root" list --bin)"
check_eq "grouped short flags -bi" "$("$cli" -r "$root" list -b -i)" "$("$cli" -r "$root" list -bi)"
check_eq "--user=0:0" "$want" "$("$cli" --user=0:0 -r "$root" list -b)"
check_eq "--user without argument" "$want" "$("$cli" --user -r "$root" list -b)"
check_eq "-u root" "$want" "$("$cli" -uroot -r "$root" list -b)"
check_eq "--ldcache under the root" "$("$cli" -r "$root" list -l)" \
  "$("$cli" -r "$root" --ldcache=/etc/ld.so.cache list -l)"

rc=0
err="$("$cli" --bogus info 2>&1)" || rc=$?
check_eq "unknown global option exits 64" 64 "$rc"
check_contains "unknown global option message" "nvidia-container-cli: unrecognized option '--bogus'" "$err"
rc=0
err="$("$cli" -r "$root" list --device 2>&1)" || rc=$?
check_eq "missing argument exits 1" 1 "$rc"
check_contains "missing argument message" "option '--device' requires an argument" "$err"
rc=0
err="$("$cli" -r "$root" frobnicate 2>&1)" || rc=$?
check_eq "unknown command exits 64" 64 "$rc"
check_contains "--help lists the commands" "info" "$("$cli" --help)"
check_contains "list --help lists its options" "--mig-config" "$("$cli" list --help)"
rc=0
err="$("$cli" --user=nosuchuser -r "$root" info 2>&1)" || rc=$?
check_eq "unknown user exits 1" 1 "$rc"
check_eq "unknown user message" "nvidia-container-cli: initialization error: invalid user: nosuchuser" "$err"

# --debug writes a glog-style log.
"$cli" --debug="$E2E_TMP/debug.log" -r "$root" info >/dev/null
check "debug log is glog style" grep -Eq '^[IWE][0-9]{4} [0-9:.]{15} [0-9]+ nvidia-container-cli\] ' "$E2E_TMP/debug.log"

# --load-kmods recreates the missing nodes with the majors of the root's /proc/devices.
rm -rf "$root/dev"
"$cli" --load-kmods -r "$root" list -d all >"$E2E_TMP/kmods.out" 2>"$E2E_TMP/kmods.err" ||
  failed "--load-kmods list: $(cat "$E2E_TMP/kmods.err")"
uvm_major="$(awk '$2 == "nvidia-uvm" {print $1}' "$root/proc/devices")"
# node <path>: "c MAJ:MIN" of a character device, "" otherwise.
node() {
  [ -c "$1" ] || return 0
  printf 'c %d:%d' "0x$(stat -c %t "$1")" "0x$(stat -c %T "$1")"
}
check_eq "nvidiactl created" "c 195:255" "$(node "$root/dev/nvidiactl")"
check_eq "nvidia0 created" "c 195:0" "$(node "$root/dev/nvidia0")"
check_eq "nvidia-uvm created with the dynamic major" "c $uvm_major:0" "$(node "$root/dev/nvidia-uvm")"
check_eq "nvidia-modeset created" "c 195:254" "$(node "$root/dev/nvidia-modeset")"
check_eq "/dev/char link" "../nvidia0" "$(readlink "$root/dev/char/195:0")"
check_contains "list shows uvm after --load-kmods" "/dev/nvidia-uvm-tools" "$(cat "$E2E_TMP/kmods.out")"
imex_major="$(awk '$2 == "nvidia-caps-imex-channels" {print $1}' "$root/proc/devices")"
"$cli" --load-kmods --no-create-imex-channels -r "$root" list --imex-channel=1 >/dev/null 2>&1 || true
check_eq "--no-create-imex-channels creates no channel" "" "$(node "$root/dev/nvidia-caps-imex-channels/channel1")"
check_contains "--load-kmods creates the requested IMEX channel" "/dev/nvidia-caps-imex-channels/channel1" \
  "$("$cli" --load-kmods -r "$root" list --imex-channel=1)"
check_eq "IMEX channel node" "c $imex_major:1" "$(node "$root/dev/nvidia-caps-imex-channels/channel1")"
# Running it again finds everything in place (EEXIST tolerated).
check "--load-kmods twice" "$cli" --load-kmods -r "$root" info
e2e_finish
