#!/usr/bin/env bash
# Attack cases of spec/security.md against the CDI hooks, run as the real nvidia-cdi-hook:
#   #7  /etc/ld.so.conf.d -> host dir (CVE-2025-23267)        update-ldcache, enable-cuda-compat
#   #1-3 symlinked link parents, absolute and ../../ (CVE-2024-0134)   create-symlinks
#   #4  chmod through an absolute symlink; #13 a fake /proc in the image
#   #15/#16 LD_PRELOAD / LD_LIBRARY_PATH in the image env (CVE-2025-23266), hooks run by runc
# Every case checks that host sentinel directories stay untouched. Modes (set by CTest):
#   NVCT_HOOK_WRAPPER=<args>        the hook runs under tests/security/no_openat2 <args> (empty:
#                                   openat2 only; --no-new-mount-api: also the new mount API)
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
require_root
require_cmd runc jq unshare gcc sha256sum

HOOK_BIN="$(nvct_bin nvidia-cdi-hook)"
HOOK=("$HOOK_BIN")
HOOK_ENV=("NVIDIA_CTK_DEBUG=false")
if [ -n "${NVCT_HOOK_WRAPPER+x}" ]; then
  WRAP="$NVCT_BUILD_DIR/tests/security/no_openat2"
  [ -x "$WRAP" ] || e2e_die "$WRAP not built (cmake --build $NVCT_BUILD_DIR --target no_openat2)"
  # shellcheck disable=SC2206
  HOOK=("$WRAP" $NVCT_HOOK_WRAPPER "$HOOK_BIN")
fi
echo "# hook command: ${HOOK[*]} env: ${HOOK_ENV[*]}"

# Host sentinel directories: each must hash the same at the end.
SENT="$(mktemp -d /tmp/nvct-sentinel.XXXXXX)"
e2e_on_exit "rm -rf '$SENT'"
mkdir -p "$SENT/ld" "$SENT/lib" "$SENT/etc-nvidia" "$SENT/compat-conf"
echo keep >"$SENT/victim" && chmod 0600 "$SENT/victim"
tree_hash() { (cd "$SENT" && find . -printf '%p %m %y %l\n' | sort && find . -type f -exec cat {} +) | sha256sum; }
BEFORE="$(tree_hash)"

B="$E2E_TMP/bundle"
make_bundle "$B" glibc sh -c 'echo ok'
R="$B/rootfs"
STATE="$E2E_TMP/state.json"
printf '{"ociVersion":"1.0.2","id":"sec-hooks","status":"creating","pid":1,"bundle":"%s"}' "$B" \
  >"$STATE"
# Runs the hook like runc would: private mount ns, explicit env, state on stdin.
run_hook() {
  env -i "${HOOK_ENV[@]}" unshare -m --propagation private "${HOOK[@]}" "$@" <"$STATE"
}

# #7: /etc/ld.so.conf.d is an absolute symlink to a host directory. Dangling inside the rootfs
# first: the hook must fail closed (it never follows the link onto the host).
rm -rf "$R/etc/ld.so.conf.d"
ln -s "$SENT/ld" "$R/etc/ld.so.conf.d"
mkdir -p "$R/opt/nv" && cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/opt/nv/"
rc=0
run_hook update-ldcache --folder /opt/nv 2>"$E2E_TMP/err" || rc=$?
check_eq "update-ldcache with a dangling ld.so.conf.d link fails closed" 1 "$rc"
check_eq "host ld dir is empty" "" "$(ls -A "$SENT/ld")"
# Then with the link's target present inside the rootfs: it resolves there.
mkdir -p "$R$SENT/ld"
rc=0
run_hook update-ldcache --folder /opt/nv 2>"$E2E_TMP/err" || rc=$?
check_eq "update-ldcache with a symlinked ld.so.conf.d succeeds in-root ($(cat "$E2E_TMP/err"))" 0 "$rc"
check_eq "the drop-in landed inside the rootfs" 1 \
  "$(find "$R$SENT/ld" -name '00-nvcr-*.conf' 2>/dev/null | wc -l)"
check "ldconfig wrote the cache inside the rootfs" grep -q /opt/nv/libm.so.6 "$R/etc/ld.so.cache"
check_eq "host ld dir is still empty" "" "$(ls -A "$SENT/ld")"

# enable-cuda-compat with the same symlinked drop-in dir.
mkdir -p "$R/usr/local/cuda/compat"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/usr/local/cuda/compat/libcuda.so.999.1.1"
rc=0
run_hook enable-cuda-compat --host-driver-version=550.54.14 2>"$E2E_TMP/err" || rc=$?
check_eq "enable-cuda-compat succeeds ($(cat "$E2E_TMP/err"))" 0 "$rc"
check_eq "the compat drop-in landed inside the rootfs" 1 \
  "$(find "$R$SENT/ld" -name '00-compat-*.conf' 2>/dev/null | wc -l)"

# #1/#2: link parents that point at a host directory, absolute and with ../../.
ln -s "$SENT/lib" "$R/usr/lib64"
ln -s "../../../../../../../../../..$SENT/lib" "$R/usr/libdots"
rc=0
run_hook create-symlinks --link libcuda.so.1::/usr/lib64/libcuda.so 2>"$E2E_TMP/err" || rc=$?
check_eq "create-symlinks through a dangling host-pointing parent fails closed" 1 "$rc"
mkdir -p "$R$SENT/lib"
rc=0
run_hook create-symlinks --link libcuda.so.1::/usr/lib64/libcuda.so \
  --link libcuda.so.1::/usr/libdots/deeper/libcuda.so 2>"$E2E_TMP/err" || rc=$?
check_eq "create-symlinks through symlinked parents succeeds in-root ($(cat "$E2E_TMP/err"))" 0 "$rc"
check_eq "absolute-parent link is inside the rootfs" "libcuda.so.1" \
  "$(readlink "$R$SENT/lib/libcuda.so")"
check_eq "../../-parent link is inside the rootfs" "libcuda.so.1" \
  "$(readlink "$R$SENT/lib/deeper/libcuda.so")"
check_eq "host lib dir is empty" "" "$(ls -A "$SENT/lib")"

# update-application-profile with /etc/nvidia pointing at the host.
ln -s "$SENT/etc-nvidia" "$R/etc/nvidia"
mkdir -p "$R$SENT/etc-nvidia"
jq '.linux.devices = [{"path":"/dev/nvidia0","type":"c","major":195,"minor":0}]' \
  "$B/config.json" >"$B/c.new" && mv "$B/c.new" "$B/config.json"
rc=0
run_hook update-application-profile 2>"$E2E_TMP/err" || rc=$?
check_eq "update-application-profile succeeds in-root ($(cat "$E2E_TMP/err"))" 0 "$rc"
check "the profile is inside the rootfs" \
  test -f "$R$SENT/etc-nvidia/nvidia-application-profiles-rc.d/10-container.conf"

# #4-like: chmod through an absolute symlink to a host file.
mkdir -p "$R/usr/bin" && ln -s "$SENT/victim" "$R/usr/bin/tool"
rc=0
run_hook chmod --mode 777 --path /usr/bin/tool 2>"$E2E_TMP/err" || rc=$?
check_eq "chmod through a host symlink does not fail" 0 "$rc"
check_eq "host victim keeps its mode" 600 "$(stat -c %a "$SENT/victim")"

# #13: a fake /proc/driver/nvidia/params in the image is never the source; with no driver on
# this host the hook does nothing.
mkdir -p "$R/proc/driver/nvidia" && echo "ModifyDeviceFiles: 1" >"$R/proc/driver/nvidia/params"
rc=0
run_hook disable-device-node-modification 2>"$E2E_TMP/err" || rc=$?
if [ -e /proc/driver/nvidia/params ]; then
  check_eq "disable-device-node-modification succeeds" 0 "$rc"
else
  check_eq "without host params the hook is a no-op that succeeds" 0 "$rc"
  check_eq "the image's params file is untouched" "ModifyDeviceFiles: 1" \
    "$(cat "$R/proc/driver/nvidia/params")"
fi

# #15/#16: the image env carries LD_PRELOAD and LD_LIBRARY_PATH aimed at a payload in the rootfs.
# runc 1.1.5 gives an env-less createContainer hook the container's env (CVE-2025-23266); the
# hooks we generate carry an explicit env, so the payload must never run.
cat >"$E2E_TMP/poc.c" <<C
#include <fcntl.h>
#include <unistd.h>
__attribute__((constructor)) static void owned(void) {
  int fd = open("$SENT/owned", O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (fd >= 0) close(fd);
}
C
B2="$E2E_TMP/run"
make_bundle "$B2" glibc sh -c 'readlink /lib/liblink.so'
gcc -shared -fPIC -o "$B2/rootfs/poc.so" "$E2E_TMP/poc.c"
mkdir -p "$B2/rootfs/evil"
cp "$B2/rootfs/poc.so" "$B2/rootfs/evil/libseccomp.so.2"
cp "$B2/rootfs/poc.so" "$B2/rootfs/evil/libstdc++.so.6"
json_list() { printf '%s\n' "$@" | jq -R . | jq -s -c .; }
hook_json() { # hook_json <with-env:0|1> args...
  local with_env="$1"
  shift
  jq -n -c --arg p "${HOOK[0]}" --argjson e "$with_env" --argjson env "$(json_list "${HOOK_ENV[@]}")" \
    --argjson a "$(json_list "${HOOK[@]:1}" "$@")" \
    '{path: $p, args: ([$p | split("/") | last] + $a), timeout: 30}
     + (if $e == 1 then {env: $env} else {} end)'
}
set_hooks() { # set_hooks <with-env> <image env...>
  local with_env="$1"
  shift
  jq --argjson h "$(hook_json "$with_env" create-symlinks --link libc.so.6::/lib/liblink.so)" \
    --argjson env "$(json_list "$@")" \
    '.root.readonly = false | .hooks.createContainer = [$h] | .process.env += $env' \
    "$B2/config.json.orig" >"$B2/config.json"
}
cp "$B2/config.json" "$B2/config.json.orig"
mkdir -p "$E2E_TMP/runc-root"
e2e_on_exit "runc --root '$E2E_TMP/runc-root' delete -f sec-hooks-env-$$"
set_hooks 1 "LD_PRELOAD=/proc/self/cwd/poc.so" "LD_LIBRARY_PATH=/proc/self/cwd/evil"
rc=0
out="$(runc --root "$E2E_TMP/runc-root" run -b "$B2" sec-hooks-env-$$ 2>&1)" || rc=$?
check_eq "container with LD_PRELOAD/LD_LIBRARY_PATH in its env runs the hook ($out)" 0 "$rc"
check_eq "the hook did its job" "libc.so.6" "$out"
check "no payload ran on the host" test ! -e "$SENT/owned"

# Control: the same container with an env-less hook reproduces CVE-2025-23266 on runc < 1.3,
# which shows that the check above can fail.
runc_minor="$(runc --version | sed -n 's/^runc version 1\.\([0-9]*\).*/\1/p')"
if [ -n "$runc_minor" ] && [ "$runc_minor" -lt 3 ]; then
  runc --root "$E2E_TMP/runc-root" delete -f sec-hooks-env-$$ >/dev/null 2>&1 || true
  # LD_PRELOAD only: with the fake libraries of LD_LIBRARY_PATH the loader would stop the hook
  # before any constructor runs.
  set_hooks 0 "LD_PRELOAD=/proc/self/cwd/poc.so"
  runc --root "$E2E_TMP/runc-root" run -b "$B2" sec-hooks-env-$$ >/dev/null 2>&1 || true
  check "control: an env-less hook on runc 1.$runc_minor loads the payload" test -e "$SENT/owned"
  rm -f "$SENT/owned"
else
  echo "# runc 1.$runc_minor does not pass the container env to hooks; control not applicable"
fi

# Which resolver the hooks used here, from a debug run: the walker exactly under the wrapper.
env -i NVIDIA_CTK_DEBUG=true "${HOOK[@]}" create-symlinks --link libc.so.6::/lib/resolver.so \
  <"$STATE" >/dev/null 2>"$E2E_TMP/resolver.log" || true
walker="$(grep -c -F "with the userspace walker (openat2 unavailable)" "$E2E_TMP/resolver.log" || true)"
check_eq "the hook resolved with $([ -n "${NVCT_HOOK_WRAPPER+x}" ] && echo the walker || echo openat2)" \
  "$([ -n "${NVCT_HOOK_WRAPPER+x}" ] && echo 1 || echo 0)" "$walker"
check_eq "host sentinel tree unchanged" "$BEFORE" "$(tree_hash)"
check_eq "no mount of the hooks is left in this namespace" "" \
  "$(grep -F "$E2E_TMP" /proc/self/mountinfo || true)"
e2e_finish
