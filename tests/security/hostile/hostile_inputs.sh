#!/usr/bin/env bash
# The hostile-input table of issue 18 (security.md §8, checklist #11, #32, #42): every file nvct
# opens is given a FIFO, a socket, a device node, a symlink loop, a /proc/self/fd link or a huge
# sparse file; every parser gets deep nesting, NUL bytes, invalid UTF-8, duplicate keys and wrong
# types; NVIDIA_* variables get hostile values; the hook gets a root.path that is not a container
# root; the shim gets a read-only bundle; the shim's and the hook's log paths are a FIFO, links to
# a host file or a planted file (#41); every writer gets a hard-linked target (#44); a CDI spec
# dir holds hostile files and an alias bomb beside a valid spec. Each row checks:
#   - nothing blocks: the row runs under `timeout` and a kill fails it ("blocked");
#   - a clear error: the exit code and the message are checked;
#   - nothing lost: the files of the row are byte-identical afterwards (a FIFO is still a FIFO),
#     their directories list the same entries (no temp file, no backup, no drop-in), and a host
#     sentinel tree hashes the same.
# The stdin of every command is a FIFO held open by this script (a read of it never ends), so
# a /proc/self/fd/0 link is a FIFO too, and a command that reads stdin by mistake blocks.
#
# NVCT_HOSTILE_BIN_DIR names the directory of the binaries (default: $NVCT_BUILD_DIR/bin), so
# the same table runs against a sanitizer build; NVCT_HOSTILE_CASE_TIMEOUT (s, default 10)
# gives slower builds more time per row.
source "$(dirname "$0")/../../e2e/lib/common.sh"
require_root
require_cmd python3 timeout unshare nsenter sha256sum mknod truncate

BIN="${NVCT_HOSTILE_BIN_DIR:-$NVCT_BUILD_DIR/bin}"
for b in nvidia-container-cli nvidia-ctk nvidia-container-runtime nvidia-container-runtime-hook; do
  [ -x "$BIN/$b" ] || e2e_die "$BIN/$b is missing (build it, or set NVCT_HOSTILE_BIN_DIR)"
done
CLI="$BIN/nvidia-container-cli"
CTK="$BIN/nvidia-ctk"
SHIM="$BIN/nvidia-container-runtime"
HOOK="$BIN/nvidia-container-runtime-hook"
CASE_TIMEOUT="${NVCT_HOSTILE_CASE_TIMEOUT:-10}"
T="$E2E_TMP"
echo "# binaries: $BIN"

# --- fixtures --------------------------------------------------------------------------------
R="$T/driver-root"
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/one-gpu.conf" --out "$R" \
  >"$T/make-root.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$T/make-root.log")"
[ -c "$R/dev/nvidia0" ] || e2e_die "the mock driver root has no device nodes"
LIB="$R/usr/lib/x86_64-linux-gnu"
VER="$(sed -n 's/.*Kernel Module *\([0-9.]*\).*/\1/p' "$R/proc/driver/nvidia/version" | head -1)"
[ -n "$VER" ] || e2e_die "no driver version in $R/proc/driver/nvidia/version"
INFO="$(echo "$R"/proc/driver/nvidia/gpus/*/information)"
[ -f "$INFO" ] || e2e_die "the mock root has no GPU information file"

# A host sentinel that no row may touch.
SENT="$T/host-sentinel"
mkdir -p "$SENT/etc" "$SENT/dev"
echo sentinel >"$SENT/etc/file"
sentinel_digest() { (cd "$SENT" && find . -printf '%p %y %m %s\n' | sort && cat etc/file) | sha256sum; }
SENT_DIGEST="$(sentinel_digest)"

# A never-ending stdin: a FIFO this script holds open read-write.
mkfifo "$T/stdin.fifo"
exec 7<>"$T/stdin.fifo"

# Config for the shim and the hook: legacy mode on the mock root; the shim's runtime is `true`
# (only what happens before the exec matters here).
GOOD_TOML="$T/good.toml"
cat >"$GOOD_TOML" <<TOML
[nvidia-container-cli]
root = "$R"
no-cgroups = true
[nvidia-container-runtime]
mode = "legacy"
runtimes = ["$(command -v true)"]
[nvidia-container-runtime-hook]
path = "$HOOK"
TOML

# A bundle whose config.json requests GPU 0; rootfs is a plain directory.
make_gpu_bundle() {
  local b="$1" root="${2:-rootfs}"
  shift 2 || shift $#
  [ $# -gt 0 ] || set -- NVIDIA_VISIBLE_DEVICES=0
  mkdir -p "$b/rootfs/dev" "$b/rootfs/proc"
  # NUL-separated, written as raw bytes: values may hold newlines and invalid UTF-8.
  printf '%s\0' "$@" | python3 -c '
import json, sys
root, out = sys.argv[1], sys.argv[2]
env = [e.decode("utf-8", "surrogateescape") for e in sys.stdin.buffer.read().split(b"\0")[:-1]]
doc = {"ociVersion": "1.0.2", "process": {"args": ["sh"], "cwd": "/", "env": env},
       "root": {"path": root}}
open(out, "wb").write(json.dumps(doc, ensure_ascii=False).encode("utf-8", "surrogateescape"))
' "$root" "$b/config.json"
}
BUNDLE="$T/bundle"
make_gpu_bundle "$BUNDLE"
state_for() { printf '{"ociVersion":"1.0.2","id":"hostile","status":"creating","pid":%s,"bundle":"%s"}' "$2" "$1"; }
state_for "$BUNDLE" $$ >"$T/state.json"

# --- the row runner ----------------------------------------------------------------------------
declare -A CAT_TOTAL CAT_PASS
CATS=()
ROWS=0
ROWS_FAILED=0
WATCH=()
ROW_STDIN=""

digest() {
  local p="$1"
  if [ -L "$p" ]; then
    echo "link $(readlink "$p")"
  elif [ -f "$p" ] && [ "$(stat -c %s "$p")" -le $((64 << 20)) ]; then
    echo "file $(stat -c '%a %u:%g' "$p") $(sha256sum <"$p")"
  elif [ -e "$p" ]; then
    stat -c '%F %a %s %Y' "$p"
  else
    echo absent
  fi
}
listing() { ls -A "$1" 2>/dev/null | sort | tr '\n' ' '; }

# watch <path...>: the row must leave these and their directories' listings as they are.
declare -A W_DIGEST W_LIST
watch() {
  local p
  for p in "$@"; do
    WATCH+=("$p")
    W_DIGEST["$p"]="$(digest "$p")"
    W_LIST["$p"]="$(listing "$(dirname "$p")")"
  done
}

# row <category> <id> <exit> <message> <command...>: runs one row (stdin: $ROW_STDIN or the
# never-ending FIFO) and checks it.
row() {
  local cat="$1" id="$2" want_rc="$3" want_msg="$4" rc=0 problems=() p
  shift 4
  if [ -z "${CAT_TOTAL[$cat]:-}" ]; then
    CATS+=("$cat")
    CAT_TOTAL[$cat]=0
    CAT_PASS[$cat]=0
  fi
  # Appending: a --debug=/dev/stderr log opened by the command itself then cannot overwrite
  # stdout's output (two open file descriptions with their own offsets).
  : >"$T/row.out"
  if [ -n "$ROW_STDIN" ]; then
    timeout -k 2 "$CASE_TIMEOUT" "$@" <"$ROW_STDIN" >>"$T/row.out" 2>&1 || rc=$?
  else
    timeout -k 2 "$CASE_TIMEOUT" "$@" <&7 >>"$T/row.out" 2>&1 || rc=$?
  fi
  local out
  out="$(cat "$T/row.out")"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    problems+=("blocked: killed after ${CASE_TIMEOUT}s")
  elif [ "$rc" -ne "$want_rc" ]; then
    problems+=("exit $rc, want $want_rc")
  fi
  [[ "$out" == *"$want_msg"* ]] || problems+=("message [$want_msg] not in the output")
  case "$out" in
    *"Segmentation fault"* | *"AddressSanitizer"* | *"runtime error:"* | *"terminate called"*)
      problems+=("crashed") ;;
  esac
  for p in "${WATCH[@]}"; do
    [ "$(digest "$p")" = "${W_DIGEST[$p]}" ] || problems+=("$p changed: $(digest "$p")")
    [ "$(listing "$(dirname "$p")")" = "${W_LIST[$p]}" ] ||
      problems+=("$(dirname "$p") now lists [$(listing "$(dirname "$p")")], was [${W_LIST[$p]}]")
  done
  [ "$(sentinel_digest)" = "$SENT_DIGEST" ] || problems+=("the host sentinel changed")
  ROWS=$((ROWS + 1))
  CAT_TOTAL[$cat]=$((CAT_TOTAL[$cat] + 1))
  local first
  first="$(head -c 300 "$T/row.out" | tr '\n' ' ')"
  if [ ${#problems[@]} -eq 0 ]; then
    CAT_PASS[$cat]=$((CAT_PASS[$cat] + 1))
    pass "$cat/$id (exit $rc)"
  else
    ROWS_FAILED=$((ROWS_FAILED + 1))
    failed "$cat/$id: $(IFS=';'; echo "${problems[*]}") -- output: $first"
  fi
  [ -n "${NVCT_HOSTILE_VERBOSE:-}" ] && echo "#   $first"
  WATCH=()
  ROW_STDIN=""
  return 0
}

# plant <kind> <path>: puts a hostile object where a file is expected (the original, if any,
# is kept aside as <path>.orig-hostile; unplant puts it back).
plant() {
  local kind="$1" p="$2"
  if [ -e "$p" ] || [ -L "$p" ]; then mv "$p" "$p.orig-hostile"; fi
  case "$kind" in
    fifo) mkfifo "$p" ;;
    socket) python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])' "$p" ;;
    chardev) mknod "$p" c 1 5 ;; # /dev/zero: a read never ends
    blockdev) mknod "$p" b 7 0 ;;
    loop)
      ln -s "$(basename "$p").loop" "$p"
      ln -s "$(basename "$p")" "$p.loop"
      ;;
    procfd) ln -s /proc/self/fd/0 "$p" ;; # the reader's stdin: the never-ending FIFO
    dir) mkdir "$p" ;;
    huge) truncate -s 1T "$p" ;; # sparse
    *) e2e_die "plant: unknown kind $kind" ;;
  esac
}
unplant() {
  local p="$1"
  rm -rf "$p" "$p.loop"
  if [ -e "$p.orig-hostile" ] || [ -L "$p.orig-hostile" ]; then mv "$p.orig-hostile" "$p"; fi
}
# write_file <path> <python expression producing bytes>
pyfile() { python3 -c "import sys; open(sys.argv[1],'wb').write($2)" "$1"; }

# Messages of the file-type refusals.
msg_of() {
  case "$1" in
    fifo) echo "is a FIFO, not a regular file" ;;
    socket) echo "is a socket, not a regular file" ;;
    chardev) echo "is a character device, not a regular file" ;;
    blockdev) echo "is a block device, not a regular file" ;;
    loop) echo "oo many levels of symbolic links" ;; # "Too" (strerror) or "too" (resolvers)
    procfd) echo "is a FIFO, not a regular file" ;;
    dir) echo "is a directory, not a regular file" ;;
    huge) echo "larger than" ;;
  esac
}

# --- driver root: nvidia-container-cli info/list -------------------------------------------------
# (a FIFO at any of these hung nvidia-container-cli before issue 18)
DRIVER_FILES=("$LIB/libcuda.so.$VER" "$LIB/libnvidia-ml.so.$VER" "$R/etc/ld.so.cache" "$INFO"
  "$R/proc/driver/nvidia/version" "$R/proc/devices")
driver_expect() { # <file> <kind> -> "<exit>|<message>"
  local f="$1" kind="$2"
  case "$kind:$(basename "$f")" in
    # A library that is not a regular file is skipped with a warning naming it (the reference
    # skips a missing library the same way); the rest of the driver still works.
    loop:lib*.so.*) echo "0|oo many levels of symbolic links" ;;
    procfd:lib*.so.*) echo "0|missing library" ;;
    *:lib*.so.*) echo "0|$(msg_of "$kind")" ;;
    # The mock NVML (standing in for the kernel's procfs) cannot read its version file.
    *:version) echo "1|nvml error: driver not loaded" ;;
    # The mock NVML reads the information file (the real one reads the kernel's): it now fails
    # without blocking and the GPU is left out; the control devices are still listed.
    *:information) echo "0|/dev/nvidiactl" ;;
    # /proc/devices: the default majors are used, with a warning naming the file (a link that
    # does not resolve in the root means "absent": the host's file is read).
    procfd:devices) echo "0|reading the host's" ;;
    *:devices) echo "0|$(msg_of "$kind")" ;;
    # Inside the driver root /proc/self/fd/0 resolves in the root, where it does not exist.
    procfd:*) echo "1|No such file or directory" ;;
    *) echo "1|$(msg_of "$kind")" ;;
  esac
}
for f in "${DRIVER_FILES[@]}"; do
  for kind in fifo socket chardev loop procfd huge; do
    [ "$kind" = huge ] && [[ "$f" == *.so.* ]] && continue
    plant "$kind" "$f"
    watch "$f"
    IFS='|' read -r want_rc want_msg <<<"$(driver_expect "$f" "$kind")"
    cmd=info
    [ "$kind" = socket ] || [ "$kind" = procfd ] || [[ "$f" == */information ]] && cmd=list
    row driver-root "$kind-$(basename "$f")-$cmd" "$want_rc" "$want_msg" "$CLI" --debug=/dev/stderr \
      --root "$R" "$cmd"
    unplant "$f"
  done
done
# A 1 TiB sparse library: read as an ELF header of zeros, never read whole.
plant huge "$LIB/libnvidia-ml.so.$VER"
watch "$LIB/libnvidia-ml.so.$VER"
row driver-root huge-libnvidia-ml 0 "invalid ELF header; using /proc/driver/nvidia instead of NVML" "$CLI" --debug=/dev/stderr --root "$R" info
unplant "$LIB/libnvidia-ml.so.$VER"
# The driver root itself a FIFO / a loop.
plant fifo "$T/root-fifo"
row driver-root fifo-as-root 1 "open driver root $T/root-fifo: Not a directory" "$CLI" --root "$T/root-fifo" info
unplant "$T/root-fifo"

# --- config.toml: the shim, the hook and nvidia-ctk ----------------------------------------------
CFG="$T/cfg/config.toml"
mkdir -p "$T/cfg"
config_rows() { # <kind-or-content-id> <exit> <message>
  local id="$1" rc="$2" msg="$3"
  watch "$CFG"
  row config-toml "$id-shim" "$rc" "$msg" env NVIDIA_CTK_CONFIG_FILE_PATH="$CFG" \
    "$SHIM" create --bundle "$BUNDLE" hostile
  watch "$CFG"
  ROW_STDIN="$T/state.json"
  # The hook's stdin is the state (a regular file): a /proc/self/fd/0 link reads JSON as TOML.
  local hook_msg="$msg"
  [ "$id" = procfd ] && hook_msg="parse TOML: line 1, column 1"
  row config-toml "$id-hook" "$rc" "$hook_msg" "$HOOK" -config "$CFG" prestart
  watch "$CFG"
  row config-toml "$id-ctk" "$rc" "$msg" "$CTK" config --config-file "$CFG" --in-place \
    --set nvidia-container-cli.debug=/tmp/x.log
}
for kind in fifo socket chardev loop procfd dir huge; do
  plant "$kind" "$CFG"
  config_rows "$kind" 1 "$(msg_of "$kind")"
  unplant "$CFG"
done
pyfile "$CFG" "b'a = ' + b'['*100000 + b']'*100000"
config_rows deep-arrays 1 "TOML nested deeper than 128 levels"
pyfile "$CFG" "b'a = ' + b'{b = '*5000 + b'1' + b'}'*5000"
config_rows deep-inline-tables 1 "TOML nested deeper than 128 levels"
# Dotted keys and [table] headers nest the table tree without brackets; toml++ recursed over a
# 200 000-segment key until the stack overflowed (SIGSEGV; found by the fuzz campaign).
pyfile "$CFG" "b'x' + b'.a'*200000 + b' = 1'"
config_rows deep-dotted-key 1 "TOML nested deeper than 128 levels"
pyfile "$CFG" "b'[x' + b'.a'*200000 + b']'"
config_rows deep-table-header 1 "TOML nested deeper than 128 levels"
pyfile "$CFG" "b'[nvidia-container-cli]\nroot = \"/\"\0\nldconfig = \"/sbin/ldconfig\"\n'"
config_rows nul 1 "NUL byte at line 2"
pyfile "$CFG" "b'[nvidia-container-cli]\nroot = \"/r\xff\xfe\"\n'"
config_rows invalid-utf8 1 "invalid UTF-8 (byte 0xff) at line 2"
pyfile "$CFG" "b'[nvidia-container-runtime]\nmode = \"legacy\"\nmode = \"cdi\"\n'"
config_rows duplicate-key 1 "cannot redefine existing string 'mode'"
pyfile "$CFG" "b'[nvidia-container-runtime]\nruntimes = 5\n'"
config_rows wrong-type 1 "nvidia-container-runtime.runtimes: expected an array of strings"
rm -f "$CFG"

# --- daemon.json: nvidia-ctk runtime configure --runtime=docker ----------------------------------
DJ="$T/docker/daemon.json"
mkdir -p "$T/docker"
CONFIGURE=("$CTK" runtime configure "--nvidia-runtime-path=$SHIM")
docker_row() { # <id> <exit> <message>
  watch "$DJ"
  row daemon-json "$1" "$2" "$3" "${CONFIGURE[@]}" --runtime=docker --config="$DJ"
}
for kind in fifo socket chardev loop procfd dir huge; do
  plant "$kind" "$DJ"
  docker_row "$kind" 1 "$(msg_of "$kind")"
  unplant "$DJ"
done
pyfile "$DJ" "b'{\"a\":'*100000 + b'1' + b'}'*100000"
docker_row deep-objects 1 "JSON nested deeper than 128 levels"
pyfile "$DJ" "b'{\"a\":' + b'['*100000 + b']'*100000 + b'}'"
docker_row deep-arrays 1 "JSON nested deeper than 128 levels"
pyfile "$DJ" "b'{\"a\":1}\0{\"runtimes\":{}}'"
docker_row nul 1 "NUL byte at line 1 (byte offset 7)"
pyfile "$DJ" "b'{\"data-root\":\"/var/lib/d\xc3\x28\"}'"
docker_row invalid-utf8 1 "invalid UTF-8 (byte 0xc3) at line 1"
pyfile "$DJ" "b'{\"data-root\":\"/ok\xed\xa0\x80\"}'"
docker_row utf8-surrogate 1 "invalid UTF-8 (byte 0xed)"
pyfile "$DJ" "b'{\"runtimes\":{\"a\":{\"path\":\"/a\"}},\"runtimes\":{}}'"
docker_row duplicate-key 1 'duplicate key \"runtimes\" in one object' 
pyfile "$DJ" "b'{\"runtimes\":[]}'"
docker_row runtimes-array 1 '\"runtimes\" must be an object, not array' 
pyfile "$DJ" "b'{\"default-runtime\":5}'"
docker_row default-runtime-number 1 '\"default-runtime\" must be a string, not number' 
pyfile "$DJ" "b'{\"features\":\"cdi\"}'"
docker_row features-string 1 '\"features\" must be an object, not string' 
pyfile "$DJ" "b'[1,2]'"
docker_row array-root 1 "the top level must be a JSON object, not array"
pyfile "$DJ" "b'\xef\xbb\xbf{}'"
docker_row bom 1 "byte-order mark is not allowed in JSON"
pyfile "$DJ" "b'{\"a\":1} trailing'"
docker_row trailing-garbage 1 "invalid JSON"
pyfile "$DJ" "b'{\"a\":1,'"
docker_row truncated 1 "invalid JSON"
pyfile "$DJ" "b'{\"a\":1, /* c */ \"b\":2}'"
docker_row comment 1 "invalid JSON"
# A writer killed between create and rename left its temp file; the next write removes it.
printf '{"data-root":"/var/lib/docker"}\n' >"$DJ"
true &
dead=$!
wait "$dead"
printf '{"half' >"$T/docker/.daemon.json.$dead-Ab12Cd"
row daemon-json stale-temp-removed 0 "Wrote updated config" "${CONFIGURE[@]}" --runtime=docker \
  --config="$DJ"
check_eq "stale-temp-removed: the directory holds only daemon.json" "daemon.json " \
  "$(listing "$T/docker")"
rm -f "$DJ"

# --- containerd and CRI-O configs -----------------------------------------------------------------
CD="$T/containerd/config.toml"
DROP="$T/containerd/conf.d/99-nvidia.toml"
mkdir -p "$T/containerd/conf.d"
containerd_row() { # <id> <exit> <message>
  watch "$CD" "$DROP"
  row containerd "$1" "$2" "$3" "${CONFIGURE[@]}" --runtime=containerd --config="$CD" \
    --drop-in-config="$DROP"
}
for kind in fifo socket chardev loop procfd dir huge; do
  plant "$kind" "$CD"
  containerd_row "$kind" 1 "$(msg_of "$kind")"
  unplant "$CD"
done
pyfile "$CD" "b'version = 2\nx = ' + b'['*100000 + b']'*100000"
containerd_row deep 1 "TOML nested deeper than 128 levels"
pyfile "$CD" "b'version = 2\n[plugins' + b'.a'*200000 + b']'"
containerd_row deep-table-header 1 "TOML nested deeper than 128 levels"
pyfile "$CD" "b'version = 2\n\0[plugins]\n'"
containerd_row nul 1 "NUL byte at line 2"
pyfile "$CD" "b'version = 2\nroot = \"/var/lib/\x80\"\n'"
containerd_row invalid-utf8 1 "invalid UTF-8 (byte 0x80) at line 2"
pyfile "$CD" "b'version = 2\nversion = 3\n'"
containerd_row duplicate-key 1 "cannot redefine existing integer 'version'"
pyfile "$CD" "b'version = 2\nimports = 5\n'"
containerd_row imports-number 1 '\"imports\" must be an array of strings' 
pyfile "$CD" "b'version = \"two\"\n'"
containerd_row version-string 1 '\"version\" must be an integer' 
pyfile "$CD" "b'version = 2\nimports = [\"$T/containerd/imp.toml\"]\n'"
plant fifo "$T/containerd/imp.toml"
containerd_row import-fifo 1 "is a FIFO, not a regular file"
unplant "$T/containerd/imp.toml"
# The drop-in itself a FIFO (it is read to be merged).
pyfile "$CD" "b'version = 2\n'"
plant fifo "$DROP"
containerd_row drop-in-fifo 1 "is a FIFO, not a regular file"
unplant "$DROP"
rm -f "$CD"

CRIO="$T/crio/crio.conf"
CRIO_DROP="$T/crio/crio.conf.d/99-nvidia.toml"
mkdir -p "$T/crio/crio.conf.d"
crio_row() {
  watch "$CRIO" "$CRIO_DROP"
  row crio "$1" "$2" "$3" "${CONFIGURE[@]}" --runtime=crio --config="$CRIO" \
    --drop-in-config="$CRIO_DROP"
}
for kind in fifo chardev loop; do
  plant "$kind" "$CRIO"
  crio_row "$kind" 1 "$(msg_of "$kind")"
  unplant "$CRIO"
done
pyfile "$CRIO" "b'[crio]\nx = ' + b'{a = '*5000 + b'1' + b'}'*5000"
crio_row deep 1 "TOML nested deeper than 128 levels"
pyfile "$CRIO" "b'[crio]\nx' + b'.a'*200000 + b' = 1'"
crio_row deep-dotted-key 1 "TOML nested deeper than 128 levels"
pyfile "$CRIO" "b'[crio]\n\0'"
crio_row nul 1 "NUL byte at line 2"
pyfile "$CRIO" "b'[crio]\n[crio]\n'"
crio_row duplicate-table 1 "cannot redefine existing table 'crio'"
rm -f "$CRIO"

# --- CDI specs: nvidia-ctk cdi list, the shim in cdi mode ------------------------------------------
SPECS="$T/cdi"
mkdir -p "$SPECS"
SPEC="$SPECS/nvidia.yaml"
cdi_row() { # <id> <exit> <message>
  watch "$SPEC"
  row cdi-spec "$1" "$2" "$3" "$CTK" cdi list --spec-dir "$SPECS"
}
# The registry reads only regular files (symlinks followed): a FIFO, socket or device is
# passed over without being opened; a loop or a huge file is reported.
for kind in fifo socket chardev procfd; do
  plant "$kind" "$SPEC"
  cdi_row "$kind" 0 "Found 0 CDI devices"
  unplant "$SPEC"
done
for kind in loop huge; do
  plant "$kind" "$SPEC"
  cdi_row "$kind" 0 "$(msg_of "$kind")"
  unplant "$SPEC"
done
pyfile "$SPEC" "b'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: ' + b'['*100000 + b']'*100000"
cdi_row deep-flow 0 "YAML nested deeper than 128 levels"
pyfile "$SPEC" "b'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\nx:\n' + b''.join(b' '*i + b'k:\n' for i in range(1, 400))"
cdi_row deep-block 0 "YAML nested deeper than 128 levels"
pyfile "$SPEC" "b'- '*5000 + b'x\n'"
cdi_row deep-dashes 0 "YAML nested deeper than 128 levels"
pyfile "$SPEC" "b'{\"cdiVersion\":\"0.5.0\",\"kind\":\"nvidia.com/gpu\",\"devices\":' + b'{\"a\":'*100000 + b'1' + b'}'*100000 + b'}'"
cdi_row deep-json 0 "YAML nested deeper than 128 levels"
pyfile "$SPEC" "b'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\0\ndevices: []\n'"
cdi_row nul 0 "NUL byte at line 2"
pyfile "$SPEC" "b'cdiVersion: 0.5.0\nkind: nvidia.com/\xff\n'"
cdi_row invalid-utf8 0 "invalid UTF-8 (byte 0xff) at line 2"
pyfile "$SPEC" "b'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\nkind: evil.com/gpu\ndevices: []\n'"
cdi_row duplicate-key 0 'spec: duplicate field \"kind\"' 
pyfile "$SPEC" "b'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: 5\n'"
cdi_row devices-number 0 "spec.devices: expected a list"
pyfile "$SPEC" "b'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\ng: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ncdiVersion: 0.5.0\n'"
cdi_row billion-laughs 0 "aliases are not allowed in CDI specs"
rm -f "$SPEC"

# --- the bundle's config.json: the shim at create, the hook at prestart ---------------------------
SPECB="$T/specb"
make_gpu_bundle "$SPECB"
cp "$SPECB/config.json" "$T/config.good"
state_for "$SPECB" $$ >"$T/state-specb.json"
spec_rows() { # <id> <exit> <message> [hook message]
  watch "$SPECB/config.json"
  row oci-bundle "$1-shim" "$2" "$3" env NVIDIA_CTK_CONFIG_FILE_PATH="$GOOD_TOML" \
    "$SHIM" create --bundle "$SPECB" hostile
  watch "$SPECB/config.json"
  ROW_STDIN="$T/state-specb.json"
  row oci-bundle "$1-hook" "$2" "${4:-$3}" "$HOOK" -config "$GOOD_TOML" prestart
}
spec_msg() {
  case "$1" in
    socket) echo "open: No such device or address" ;;
    loop) echo "open: Too many levels of symbolic links" ;;
    huge) echo "larger than 16777216 bytes" ;;
    *) echo "not a regular file" ;;
  esac
}
for kind in fifo socket chardev loop dir huge; do
  plant "$kind" "$SPECB/config.json"
  spec_rows "$kind" 1 "load OCI spec $SPECB/config.json: $(spec_msg "$kind")"
  unplant "$SPECB/config.json"
done
pyfile "$SPECB/config.json" "b'{\"ociVersion\":\"1.0.2\",\"x\":' + b'['*100000 + b']'*100000 + b'}'"
spec_rows deep 1 "nesting deeper than 64 levels at /x/0/0"
pyfile "$SPECB/config.json" "open('$T/config.good','rb').read().replace(b'\"sh\"', b'\"s\0h\"')"
spec_rows nul 1 "control character U+0000 (NUL) must be escaped"
pyfile "$SPECB/config.json" "open('$T/config.good','rb').read().replace(b'\"sh\"', b'\"s\xffh\"')"
spec_rows invalid-utf8 1 "invalid string: ill-formed UTF-8 byte"
pyfile "$SPECB/config.json" "open('$T/config.good','rb').read().replace(b'\"root\"', b'\"root\":{\"path\":\"/\"},\"root\"')"
spec_rows duplicate-root 1 "duplicate key at /root"
pyfile "$SPECB/config.json" "b'{\"ociVersion\":\"1.0.2\",\"process\":5,\"root\":{\"path\":\"rootfs\"}}'"
spec_rows process-number 1 "process must be an object"
pyfile "$SPECB/config.json" "b'{\"ociVersion\":\"1.0.2\",\"process\":{\"args\":[\"sh\"],\"env\":[\"NVIDIA_VISIBLE_DEVICES=0\"]},\"root\":{\"path\":\"rootfs\"},\"linux\":{\"resources\":{\"memory\":{\"limit\":1.5e400}}}}'"
spec_rows float-overflow 1 "number overflow parsing '1.5e400'"
cp "$T/config.good" "$SPECB/config.json"

# A read-only bundle (a private read-only bind mount): the shim must fail cleanly, not half-write.
watch "$SPECB/config.json"
row oci-bundle readonly-shim 1 "Read-only file system" unshare -m --propagation private sh -c \
  "mount --bind -o ro '$SPECB' '$SPECB' && NVIDIA_CTK_CONFIG_FILE_PATH='$GOOD_TOML' exec '$SHIM' create --bundle '$SPECB' hostile"

# --- the OCI state on the hook's stdin -------------------------------------------------------------
state_row() { # <id> <exit> <message> <python bytes>
  pyfile "$T/state-hostile" "$4"
  ROW_STDIN="$T/state-hostile"
  row oci-state "$1" "$2" "$3" "$HOOK" -config "$GOOD_TOML" prestart
}
state_row deep 1 "parse OCI state: nesting deeper than 16 levels at /annotations/a" "b'{\"ociVersion\":\"1.0.2\",\"annotations\":' + b'{\"a\":'*100000 + b'1' + b'}'*100000 + b'}'"
state_row nul 1 "control character U+0000 (NUL) must be escaped" "b'{\"ociVersion\":\"1.0.2\",\"id\":\"a\0b\",\"status\":\"creating\",\"pid\":1,\"bundle\":\"$SPECB\"}'"
state_row invalid-utf8 1 "ill-formed UTF-8 byte" "b'{\"ociVersion\":\"1.0.2\",\"id\":\"a\xffb\",\"status\":\"creating\",\"pid\":1,\"bundle\":\"$SPECB\"}'"
state_row huge 1 "read OCI state from stdin: input larger than 1048576 bytes" "b' '*(2<<20) + b'{}'"
state_row pid-negative 1 "\"pid\" -1 must not be negative" "b'{\"ociVersion\":\"1.0.2\",\"id\":\"a\",\"status\":\"creating\",\"pid\":-1,\"bundle\":\"$SPECB\"}'"
state_row pid-overflow 1 "number at /pid is not an integer in the int64/uint64 range" "b'{\"ociVersion\":\"1.0.2\",\"id\":\"a\",\"status\":\"creating\",\"pid\":99999999999999999999999,\"bundle\":\"$SPECB\"}'"
state_row pid-string 1 "\"pid\" must be an integer" "b'{\"ociVersion\":\"1.0.2\",\"id\":\"a\",\"status\":\"creating\",\"pid\":\"1\",\"bundle\":\"$SPECB\"}'"
state_row bundle-relative 1 "must be an absolute path" "b'{\"ociVersion\":\"1.0.2\",\"id\":\"a\",\"status\":\"creating\",\"pid\":1,\"bundle\":\"specb\"}'"
state_row duplicate-bundle 1 "duplicate key at /bundle" "b'{\"ociVersion\":\"1.0.2\",\"id\":\"a\",\"status\":\"creating\",\"pid\":1,\"bundle\":\"/\",\"bundle\":\"$SPECB\"}'"
state_row empty 1 "unexpected end of input" "b''"

# --- root.path that is not a container root (the hook) --------------------------------------------
# A stand-in container: a private mount namespace in which CROOT is bind-mounted onto itself,
# as runc's prepareRootfs leaves it when prestart hooks run; PLAIN is an ordinary directory.
CROOT="$T/container-root"
PLAIN="$T/plain"
mkdir -p "$CROOT/dev" "$CROOT/proc" "$PLAIN/dev" "$PLAIN/proc"
unshare -m --propagation private sh -c \
  "mount --bind '$CROOT' '$CROOT' && mount -t proc proc '$CROOT/proc' && mount -t tmpfs tmpfs '$CROOT/proc/driver' && exec sleep 600" &
CPID=$!
e2e_on_exit "kill -9 $CPID; wait $CPID"
for _ in $(seq 100); do
  [ "$(cat "/proc/$CPID/comm" 2>/dev/null)" = sleep ] && break
  sleep 0.05
done
[ "$(cat "/proc/$CPID/comm" 2>/dev/null)" = sleep ] || e2e_die "the stand-in container did not start"

RB="$T/rootb"
hook_root_row() { # <id> <pid> <root.path> <exit> <message> [env...]
  local id="$1" pid="$2" root="$3" rc="$4" msg="$5"
  shift 5
  rm -rf "$RB"
  make_gpu_bundle "$RB" "$root" "$@"
  [ "$root" = link ] && ln -s "$PLAIN" "$RB/link"
  state_for "$RB" "$pid" >"$T/state-rootb.json"
  watch "$PLAIN/dev" "$PLAIN/proc" "$CROOT/dev" "$RB/config.json"
  ROW_STDIN="$T/state-rootb.json"
  row "${CAT:-root-path}" "$id" "$rc" "$msg" "$HOOK" -config "$GOOD_TOML" prestart
}
hook_root_row host-namespace $$ "$PLAIN" 1 "the process shares the hook's mount namespace"
hook_root_row not-a-mount-point "$CPID" "$PLAIN" 1 "root.path is not a mount point in the container's mount namespace"
hook_root_row bundle-itself "$CPID" . 1 "root.path is not a mount point in the container's mount namespace"
hook_root_row host-root "$CPID" / 1 "container root is the host root \"/\""
hook_root_row dotdot-to-host-root "$CPID" ../../../../../../../../.. 1 "container root is the host root \"/\""
hook_root_row symlink-out "$CPID" link 1 "root.path must not go"
hook_root_row missing "$CPID" "$T/absent" 1 "container root: resolve $T/absent: No such file or directory"

# --- hostile NVIDIA_* values (the hook on the stand-in container) ---------------------------------
# The root check passes here (CROOT is a mount point), so each refusal below comes from the
# request itself; nothing may be created in the container root.
CAT=nvidia-env
VALID="valid devices: 0 (GPU-11111111-2222-3333-4444-555555555550), or all"
env_row() { # <id> <exit> <message> <env...>
  local id="$1" rc="$2" msg="$3"
  shift 3
  hook_root_row "$id" "$CPID" "$CROOT" "$rc" "$msg" "$@"
}
env_row devices-negative 1 "device error: -1: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" NVIDIA_VISIBLE_DEVICES=-1
env_row devices-overflow 1 "device error: 99999999999999999999999: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" NVIDIA_VISIBLE_DEVICES=99999999999999999999999
env_row devices-uuid-garbage 1 "device error: GPU-nope: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" NVIDIA_VISIBLE_DEVICES=GPU-nope
env_row devices-path 1 "device error: ../../sda: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" NVIDIA_VISIBLE_DEVICES=../../sda
env_row devices-mig-garbage 1 "device error: MIG-: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" NVIDIA_VISIBLE_DEVICES=MIG-
env_row devices-mig-overflow 1 "device error: 0:99999999999999999999: unknown device (from NVIDIA_VISIBLE_DEVICES); $VALID" NVIDIA_VISIBLE_DEVICES=0:99999999999999999999
env_row devices-huge-list 1 "device error: 1: unknown device (from NVIDIA_VISIBLE_DEVICES)" "NVIDIA_VISIBLE_DEVICES=$(seq -s, 0 20000)"
env_row devices-control-chars 1 "unknown device (from NVIDIA_VISIBLE_DEVICES)" "NVIDIA_VISIBLE_DEVICES=$(printf '0\001\033[31m')"
env_row devices-newline 1 "unknown device (from NVIDIA_VISIBLE_DEVICES)" "NVIDIA_VISIBLE_DEVICES=$(printf '0\n1')"
env_row capabilities-control-char 1 "unsupported capabilities found in 'compute" NVIDIA_VISIBLE_DEVICES=0 "NVIDIA_DRIVER_CAPABILITIES=$(printf 'compute\a')"
env_row capabilities-huge 1 "unsupported capabilities found in 'xxxxx" NVIDIA_VISIBLE_DEVICES=0 "NVIDIA_DRIVER_CAPABILITIES=$(python3 -c "print(','.join(['x'*50]*2000))")"
env_row require-overflow 1 "requirement error: unsatisfied condition: cuda>=99999999999999999999999.0" NVIDIA_VISIBLE_DEVICES=0 "NVIDIA_REQUIRE_CUDA=cuda>=99999999999999999999999.0"
env_row require-garbage 1 "requirement error: invalid expression" NVIDIA_VISIBLE_DEVICES=0 "NVIDIA_REQUIRE_CUDA=$(printf 'cuda>=\001 brand=((')"
env_row env-invalid-utf8 1 "ill-formed UTF-8 byte" NVIDIA_VISIBLE_DEVICES=0 "CUDA_VERSION=$(printf '12.\377')"
env_row imex-negative 1 "unsupported IMEX channel value: -1" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=-1
env_row imex-overflow 1 "unsupported IMEX channel value: 99999999999999999999" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=99999999999999999999
env_row mig-config-unprivileged 1 "cannot set MIG_CONFIG_DEVICES in non privileged container" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_MIG_CONFIG_DEVICES=all
# Control: the same stand-in container with a valid request is configured, so the root check
# accepts a real container root (runs last: it fills the container root).
rm -rf "$RB"
make_gpu_bundle "$RB" "$CROOT" NVIDIA_VISIBLE_DEVICES=0
state_for "$RB" "$CPID" >"$T/state-rootb.json"
ROW_STDIN="$T/state-rootb.json"
row nvidia-env control-valid-request 0 "" "$HOOK" -config "$GOOD_TOML" prestart
check "control: GPU 0's node was created in the container root" \
  nsenter -t "$CPID" -m test -c "$CROOT/dev/nvidia0"
unset CAT

# --- log paths (security.md §9 row 41): the shim's --log and debug file, the hook's debug file ---
# A FIFO (its open hung the shim and the hook), a hard link and a symlink to a host file, and a
# file another user planted in a sticky world-writable directory: nothing blocks, the host file
# and the planted object are unchanged, a warning names the file, and the container still starts
# (exit 0): a log that cannot be opened never fails a container (security.md §8 "Logging"; the
# reference warns only). The hook runs on the stand-in container with a valid request.
ADDED_START=$SECONDS
LOG_HOST="$T/log-host/secret"
mkdir -p "$T/log-host"
echo "host secret" >"$LOG_HOST"
# A fresh stand-in container per hook row (a root configured once cannot be configured again).
LOG_CPID=""
start_log_container() { # <root>
  mkdir -p "$1/dev" "$1/proc"
  unshare -m --propagation private sh -c \
    "mount --bind '$1' '$1' && mount -t proc proc '$1/proc' && mount -t tmpfs tmpfs '$1/proc/driver' && exec sleep 600" &
  LOG_CPID=$!
  e2e_on_exit "kill -9 $LOG_CPID 2>/dev/null; wait $LOG_CPID 2>/dev/null"
  for _ in $(seq 100); do
    [ "$(cat "/proc/$LOG_CPID/comm" 2>/dev/null)" = sleep ] && break
    sleep 0.05
  done
  [ "$(cat "/proc/$LOG_CPID/comm" 2>/dev/null)" = sleep ] || e2e_die "the stand-in container did not start"
  make_gpu_bundle "$RB" "$1" NVIDIA_VISIBLE_DEVICES=0
  state_for "$RB" "$LOG_CPID" >"$T/state-log.json"
}
for kind in fifo hardlink symlink planted control; do
  d="$T/logs/$kind"
  mkdir -p "$d"
  LOGP="$d/nvct.log"
  case "$kind" in
    fifo) mkfifo "$LOGP"; msg="log file $LOGP is a FIFO, not a regular file" ;;
    hardlink) ln "$LOG_HOST" "$LOGP"; msg="log file $LOGP has 2 hard links" ;;
    symlink) ln -s "$LOG_HOST" "$LOGP"; msg="log file $LOGP is a symbolic link" ;;
    planted)
      chmod 1777 "$d"
      echo planted >"$LOGP"
      chown 65534:65534 "$LOGP"
      msg="log file $LOGP belongs to uid 65534"
      ;;
    control) chmod 1777 "$d"; msg="" ;; # created by the writer itself: accepted and written
  esac
  sed -e "s|^\[nvidia-container-cli\]$|&\ndebug = \"$LOGP\"|" \
    -e "s|^\[nvidia-container-runtime\]$|&\ndebug = \"$LOGP\"|" "$GOOD_TOML" >"$T/log.toml"
  for who in shim-log shim-debug hook-debug cli-debug; do
    [ "$kind" = control ] || watch "$LOGP" "$LOG_HOST"
    case "$who" in
      shim-log) row log-path "$kind-$who" 0 "${msg:+nvidia-container-runtime: warning: $msg}" \
        env NVIDIA_CTK_CONFIG_FILE_PATH="$GOOD_TOML" "$SHIM" --log "$LOGP" --log-format json \
        create --bundle "$BUNDLE" hostile ;;
      shim-debug) row log-path "$kind-$who" 0 "${msg:+nvidia-container-runtime: warning: $msg}" \
        env NVIDIA_CTK_CONFIG_FILE_PATH="$T/log.toml" "$SHIM" create --bundle "$BUNDLE" hostile ;;
      cli-debug) # a log that cannot be opened safely fails the CLI: its user asked for it
        if [ "$kind" = control ]; then
          row log-path "$kind-$who" 0 "" "$CLI" --debug="$LOGP" --root "$R" info
        else
          row log-path "$kind-$who" 1 "open the --debug log: $msg" "$CLI" --debug="$LOGP" --root "$R" info
        fi ;;
      hook-debug)
        start_log_container "$T/log-root-$kind"
        ROW_STDIN="$T/state-log.json"
        row log-path "$kind-$who" 0 "${msg:+nvidia-container-runtime-hook: warning: $msg}" \
          "$HOOK" -config "$T/log.toml" prestart
        check "log-path $kind-$who: the container was configured (GPU 0's node)" \
          nsenter -t "$LOG_CPID" -m test -c "$T/log-root-$kind/dev/nvidia0"
        kill -9 "$LOG_CPID" 2>/dev/null || true
        wait "$LOG_CPID" 2>/dev/null || true ;;
    esac
  done
done
check "log-path control: the shim's json log, its debug log and the hook's were written" \
  grep -q '"level"' "$T/logs/control/nvct.log"
check "log-path control: the hook's debug lines are there" \
  grep -q 'nvidia-container-runtime-hook\[' "$T/logs/control/nvct.log"
check "log-path control: the CLI's debug lines are there" \
  grep -q 'nvidia-container-cli\]' "$T/logs/control/nvct.log"

# --- hard links and file attributes (security.md §9 row 44) ---------------------------------------
# Every writer refuses a file with a second name (it may be a host file): nothing written, no
# temp file, no backup, no drop-in. The CDI chmod hook refuses a hard link and a file on another
# filesystem than the container root (a host file mounted in).
HL="$T/hardlink"
mkdir -p "$HL/conf.d" "$HL/crio.conf.d" "$T/hl-host"
CDI_HOOK="$BIN/nvidia-cdi-hook"
[ -x "$CDI_HOOK" ] || e2e_die "$CDI_HOOK is missing (build it, or set NVCT_HOSTILE_BIN_DIR)"
hl_row() { # <id> <content of the host file> <linked path> <command...>
  local id="$1" content="$2" target="$3"
  shift 3
  printf '%b' "$content" >"$T/hl-host/$id"
  ln "$T/hl-host/$id" "$target"
  watch "$T/hl-host/$id" "$target" "$HL/conf.d/99-nvidia.toml" "$HL/crio.conf.d/99-nvidia.toml"
  row hardlink "$id" 1 "has 2 hard links" "$@"
  rm -f "$target"
}
hl_row config-toml-in-place '[nvidia-container-cli]\n' "$HL/config.toml" \
  "$CTK" config --config-file "$HL/config.toml" --in-place --set nvidia-container-cli.debug=/x.log
hl_row daemon-json '{"data-root":"/var/lib/docker"}\n' "$HL/daemon.json" \
  "${CONFIGURE[@]}" --runtime=docker --config="$HL/daemon.json"
hl_row containerd 'version = 2\n' "$HL/containerd.toml" "${CONFIGURE[@]}" --runtime=containerd \
  --config="$HL/containerd.toml" --drop-in-config="$HL/conf.d/99-nvidia.toml"
hl_row containerd-drop-in 'version = 2\n' "$HL/conf.d/99-nvidia.toml" "${CONFIGURE[@]}" \
  --runtime=containerd --config="$HL/containerd-main.toml" --drop-in-config="$HL/conf.d/99-nvidia.toml"
hl_row crio-drop-in '[crio]\n' "$HL/crio.conf.d/99-nvidia.toml" "${CONFIGURE[@]}" --runtime=crio \
  --config="$HL/crio.conf" --drop-in-config="$HL/crio.conf.d/99-nvidia.toml"
hl_row cdi-spec-output 'old spec\n' "$HL/nvidia.yaml" "$CTK" cdi generate --driver-root "$R" \
  --nvidia-cdi-hook-path "$CDI_HOOK" --output "$HL/nvidia.yaml"
rm -f "$HL/containerd-main.toml" "$HL/crio.conf"

# The chmod hook: a hard link in the rootfs to a host file, then a host file bind-mounted into a
# rootfs on another filesystem (a private mount namespace with a tmpfs rootfs).
CHB="$T/chmod-bundle"
make_gpu_bundle "$CHB"
mkdir -p "$CHB/rootfs/usr/bin"
state_for "$CHB" $$ >"$T/state-chmod.json"
printf 'host\n' >"$T/hl-host/chmod-victim"
chmod 0600 "$T/hl-host/chmod-victim"
ln "$T/hl-host/chmod-victim" "$CHB/rootfs/usr/bin/tool"
watch "$T/hl-host/chmod-victim"
ROW_STDIN="$T/state-chmod.json"
row hardlink chmod-hook-hard-link 1 "/usr/bin/tool has 2 hard links" "$CDI_HOOK" chmod \
  --mode 755 --path /usr/bin/tool
rm -f "$CHB/rootfs/usr/bin/tool"
watch "$T/hl-host/chmod-victim"
ROW_STDIN="$T/state-chmod.json"
row hardlink chmod-hook-other-filesystem 1 "/data/file is on another filesystem" unshare -m \
  --propagation private sh -c "mount -t tmpfs tmpfs '$CHB/rootfs' && mkdir -p '$CHB/rootfs/data' \
  && : >'$CHB/rootfs/data/file' && mount --bind '$T/hl-host/chmod-victim' '$CHB/rootfs/data/file' \
  && exec '$CDI_HOOK' chmod --mode 755 --path /data/file"

# Attributes kept through a symlinked daemon.json (written through, the link kept): mode 0600, a
# non-root group, and the SELinux label security.selinux (user.nvct-label stands in where the
# kernel refuses security.* without an SELinux policy).
ATTR="$T/attr"
mkdir -p "$ATTR/real"
printf '{"data-root":"/var/lib/docker"}\n' >"$ATTR/real/daemon.json"
chown 0:4242 "$ATTR/real/daemon.json"
chmod 0600 "$ATTR/real/daemon.json"
ln -s real/daemon.json "$ATTR/daemon.json"
LABEL_XATTR="$(python3 -c '
import os, sys
label = b"system_u:object_r:container_config_t:s0\0"
try:
    os.setxattr(sys.argv[1], "security.selinux", label); print("security.selinux")
except OSError:
    os.setxattr(sys.argv[1], "user.nvct-label", label); print("user.nvct-label")
' "$ATTR/real/daemon.json")"
echo "# row 44: the label is kept in $LABEL_XATTR"
row daemon-json attributes-kept 0 "Wrote updated config to $ATTR/real/daemon.json" \
  "${CONFIGURE[@]}" --runtime=docker --config="$ATTR/daemon.json"
check_eq "attributes-kept: owner, group and mode" "0:4242 600" \
  "$(stat -c '%u:%g %a' "$ATTR/real/daemon.json")"
check_eq "attributes-kept: the $LABEL_XATTR label" "system_u:object_r:container_config_t:s0" \
  "$(python3 -c 'import os,sys; print(os.getxattr(sys.argv[1], sys.argv[2]).rstrip(b"\0").decode())' \
    "$ATTR/real/daemon.json" "$LABEL_XATTR")"
check "attributes-kept: the symlink is kept" test -L "$ATTR/daemon.json"
check "attributes-kept: the runtime was added" grep -q '"nvidia"' "$ATTR/real/daemon.json"

# --- hostile CDI spec files beside a valid spec (issue 18) ----------------------------------------
# Each is named in a warning by `nvidia-ctk cdi list` and by the shim in cdi mode (in its log),
# never skipped silently, and the valid spec still provides its device. A "billion laughs" spec
# (nine levels of nine aliases) is refused before any expansion.
SPECS2="$T/cdi2"
mkdir -p "$SPECS2"
printf 'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: "0"\n  containerEdits:\n    env: [NVCT_HOSTILE_GOOD=1]\n' \
  >"$SPECS2/good.yaml"
CDI_TOML="$T/cdi.toml"
cat >"$CDI_TOML" <<TOML
[nvidia-container-runtime]
mode = "cdi"
runtimes = ["$(command -v true)"]
[nvidia-container-runtime.modes.cdi]
spec-dirs = ["$SPECS2"]
TOML
CB="$T/cdi-bundle"
BAD="$SPECS2/bad.yaml"
BOMB="b'a: &a [x, x, x, x, x, x, x, x, x]\n' + b''.join(b'%c: &%c [' % (c, c) + b', '.join([b'*%c' % (c - 1)] * 9) + b']\n' for c in range(ord('b'), ord('j'))) + b'cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: []\n'"
for kind in fifo socket dir loop huge invalid-yaml alias-bomb; do
  case "$kind" in
    invalid-yaml) pyfile "$BAD" "b'cdiVersion: [\n'"; msg="failed to parse CDI spec $BAD" ;;
    alias-bomb) pyfile "$BAD" "$BOMB"; msg="the YAML anchor &a at line 1, column 4: aliases are not allowed in CDI specs" ;;
    loop) plant loop "$BAD"; msg="failed to stat CDI spec $BAD: Too many levels of symbolic links" ;;
    huge) plant huge "$BAD"; msg="$BAD is 1099511627776 bytes, larger than" ;;
    *) plant "$kind" "$BAD"; msg="CDI spec $BAD is a $(stat -c %F "$BAD" | sed 's/fifo/FIFO/'), not a regular file" ;;
  esac
  watch "$BAD" "$SPECS2/good.yaml"
  row cdi-dir "$kind-cdi-list" 0 "$msg" "$CTK" cdi list --spec-dir "$SPECS2"
  check "cdi-dir $kind-cdi-list: the valid spec's device is listed" grep -qx "nvidia.com/gpu=0" "$T/row.out"
  rm -rf "$CB"
  make_gpu_bundle "$CB" rootfs NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=0
  rm -f "$T/cdi-shim.log"
  watch "$BAD" "$SPECS2/good.yaml"
  row cdi-dir "$kind-shim" 0 "$msg" sh -c "NVIDIA_CTK_CONFIG_FILE_PATH='$CDI_TOML' '$SHIM' \
    --log '$T/cdi-shim.log' create --bundle '$CB' hostile; rc=\$?; cat '$T/cdi-shim.log'; exit \$rc"
  check "cdi-dir $kind-shim: the valid spec's edits were injected" grep -q NVCT_HOSTILE_GOOD=1 "$CB/config.json"
  unplant "$BAD"
done
echo "# rows 41 and 44 and the CDI spec dir rows: $((SECONDS - ADDED_START))s"

# --- summary ----------------------------------------------------------------------------------
echo "# hostile-input table: $ROWS rows, $((ROWS - ROWS_FAILED)) passed, $ROWS_FAILED failed, ${SECONDS}s"
for c in "${CATS[@]}"; do
  echo "#   $c: ${CAT_PASS[$c]}/${CAT_TOTAL[$c]}"
done
[ "$ROWS" -ge 100 ] || failed "the table has $ROWS rows; issue 18 asks for at least 100"
e2e_finish
