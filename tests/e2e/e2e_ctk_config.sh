#!/usr/bin/env bash
# nvidia-ctk config: `config default` (and its aliases) prints the golden default file, `--set
# ... --in-place` edits a file keeping its mode and leaving no lock file beside it, and a bad key
# fails with exit 1 and a message naming the key, leaving the file untouched.
set -euo pipefail

NVCT_SOURCE_DIR="${NVCT_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}"
NVCT_BUILD_DIR="${NVCT_BUILD_DIR:?NVCT_BUILD_DIR must name the build directory}"
ctk="$NVCT_BUILD_DIR/bin/nvidia-ctk"
golden="$NVCT_SOURCE_DIR/tests/data/config/default.toml"

tmp="$(mktemp -d /tmp/nvct-e2e_ctk_config.XXXXXX)"
trap 'rm -rf "$tmp"' EXIT

passes=0
failures=0
pass() { passes=$((passes + 1)); echo "ok   - $*"; }
failed() { failures=$((failures + 1)); echo "FAIL - $*" >&2; }
die() { echo "FATAL [e2e_ctk_config]: $*" >&2; exit 1; }

[ -x "$ctk" ] || die "$ctk not built (cmake --build $NVCT_BUILD_DIR --target nvidia-ctk)"
[ -f "$golden" ] || die "$golden is missing"

# The golden is Debian's; on a host with /sbin/ldconfig.real the reference prints that instead.
expected="$tmp/expected.toml"
if [ -e /sbin/ldconfig.real ]; then
  sed 's|^ldconfig = "@/sbin/ldconfig"$|ldconfig = "@/sbin/ldconfig.real"|' "$golden" >"$expected"
else
  cp "$golden" "$expected"
fi
if grep -qE '^ID_LIKE=.*suse' /etc/os-release 2>/dev/null; then
  sed -i 's|^#user = "root:video"$|user = "root:video"|' "$expected"
fi

# 1. config default and its aliases, byte for byte, nothing on stderr.
for name in default create-default generate-default; do
  if "$ctk" config "$name" >"$tmp/$name.out" 2>"$tmp/$name.err" && cmp -s "$tmp/$name.out" "$expected" &&
    [ ! -s "$tmp/$name.err" ]; then
    pass "config $name prints the default file"
  else
    failed "config $name: $(cat "$tmp/$name.err"); diff: $(diff -u "$expected" "$tmp/$name.out" | head -20)"
  fi
done

# 2. config default --output writes the same file.
"$ctk" config default --output "$tmp/out/default.toml"
if cmp -s "$tmp/out/default.toml" "$expected"; then pass "config default -o"; else failed "config default -o differs"; fi

# 3. --set ... --in-place on a 0640 file: the values change, the mode stays, the sidecar lock file
#    is deleted when the edit is done.
cfg="$tmp/etc/config.toml"
mkdir -p "$tmp/etc"
cp "$expected" "$cfg"
chmod 0640 "$cfg"
"$ctk" config --config-file "$cfg" --in-place \
  --set nvidia-container-cli.no-cgroups \
  --set nvidia-container-runtime.mode=legacy \
  --set nvidia-container-runtime.runtimes=runc:crun:youki \
  --set swarm-resource=true 2>"$tmp/inplace.err" || failed "--in-place exited $?: $(cat "$tmp/inplace.err")"
mode="$(stat -c %a "$cfg")"
[ "$mode" = 640 ] && pass "--in-place keeps mode 0640" || failed "--in-place changed mode to $mode"
grep -qx 'no-cgroups = true' "$cfg" && pass "bool key alone set true" || failed "no-cgroups not set: $(cat "$cfg")"
grep -qx 'mode = "legacy"' "$cfg" && pass "string key set" || failed "mode not set"
grep -qx 'runtimes = \["runc", "crun", "youki"\]' "$cfg" && pass "list split on ':'" || failed "runtimes not set"
grep -qx 'swarm-resource = "true"' "$cfg" && pass "\"true\" stays a string" || failed "swarm-resource not a string"
[ ! -e "$tmp/etc/.config.toml.lock" ] && pass "no lock file left beside the config" || failed "the sidecar lock file was left behind"
# Only the four requested lines differ from the default file.
changed="$(diff "$expected" "$cfg" | grep -c '^>' || true)"
[ "$changed" = 4 ] && pass "only the set keys changed" || failed "$changed lines changed: $(diff "$expected" "$cfg")"

# 4. -c short flag, output to stdout, and the file is untouched without --in-place.
before="$(cat "$cfg")"
out="$("$ctk" config -c "$cfg" --set nvidia-ctk.path=/opt/nvidia-ctk)"
[[ "$out" == *$'[nvidia-ctk]\npath = "/opt/nvidia-ctk"'* ]] && pass "stdout output shows the set key" || failed "stdout output: $out"
[ "$before" = "$(cat "$cfg")" ] && pass "file untouched without --in-place" || failed "file changed without --in-place"

# 5. A bad key: exit 1, the key named on stderr, the file untouched.
rc=0
"$ctk" config -c "$cfg" -i --set nvidia-container-cli.no-such-key=1 >"$tmp/bad.out" 2>"$tmp/bad.err" || rc=$?
[ "$rc" = 1 ] && pass "bad key exits 1" || failed "bad key exited $rc"
grep -q 'nvidia-container-cli.no-such-key' "$tmp/bad.err" && pass "error names the key" ||
  failed "error does not name the key: $(cat "$tmp/bad.err")"
[ "$before" = "$(cat "$cfg")" ] && pass "file untouched after a bad key" || failed "file changed after a bad key"

# 6. A bool with a junk value and a container ldconfig are refused the same way.
rc=0
"$ctk" config -c "$cfg" -i --set disable-require=something 2>"$tmp/junk.err" || rc=$?
[ "$rc" = 1 ] && grep -q 'disable-require' "$tmp/junk.err" && pass "bool=junk refused" ||
  failed "bool=junk: rc $rc, $(cat "$tmp/junk.err")"
rc=0
"$ctk" config -c "$cfg" -i --set nvidia-container-cli.ldconfig=/sbin/ldconfig 2>"$tmp/ld.err" || rc=$?
[ "$rc" = 1 ] && grep -q 'not host-relative' "$tmp/ld.err" && pass "container ldconfig refused" ||
  failed "container ldconfig: rc $rc, $(cat "$tmp/ld.err")"
[ "$before" = "$(cat "$cfg")" ] && pass "file untouched after refused edits" || failed "file changed after refused edits"

# 7. --version layout.
ver="$("$ctk" --version)"
[[ "$ver" == "NVIDIA Container Toolkit CLI version "*$'\ncommit: '* ]] && pass "--version layout" || failed "--version: $ver"

echo "# e2e_ctk_config: $passes passed, $failures failed"
[ "$passes" -gt 0 ] || die "no checks ran"
[ "$failures" -eq 0 ]
