#!/usr/bin/env bash
# Checklist rows 17 and 18 of spec/security.md for the CDI hooks (tests/security/hook_env_hazards.sh
# covers the prestart hook): nvidia-cdi-hook runs with a hostile environment of its own (as a
# runtime that leaks the image env into hooks would give it) and with no option naming a config
# or a helper:
#   #17 NVIDIA_CTK_CONFIG_FILE_PATH and XDG_CONFIG_HOME point at a config that names a fake
#       ldconfig, a debug log on the host and a bad driver root;
#   #18 PATH starts with directories (host and /proc/self/cwd) holding fake ldconfig,
#       ldconfig.real, sh and nvidia-modprobe that write a marker when run.
# Expected: each hook does its job with its built-in defaults (the host's /sbin/ldconfig writes
# the cache), no fake helper runs, no offered config is opened, and the ldconfig child starts
# with an empty environment. The hook's cwd is the directory of the fake tools.
# NVCT_HOOK_VARIANT=normal|no_openat2 runs the hook plainly or under tests/security/no_openat2,
# and a debug run proves which resolver it used.
source "$(dirname "$0")/../../e2e/lib/common.sh"
source "$(dirname "$0")/../../e2e/lib/rootfs.sh"
require_root
require_cmd strace

VARIANT="${NVCT_HOOK_VARIANT:-normal}"
WRAP="$NVCT_BUILD_DIR/tests/security/no_openat2"
HOOK_BIN="$(nvct_bin nvidia-cdi-hook)"
case "$VARIANT" in
  normal) HOOK=("$HOOK_BIN") ;;
  no_openat2)
    [ -x "$WRAP" ] || e2e_die "$WRAP not built (cmake --build $NVCT_BUILD_DIR --target no_openat2)"
    HOOK=("$WRAP" "$HOOK_BIN")
    ;;
  *) e2e_die "NVCT_HOOK_VARIANT='$VARIANT' (want normal or no_openat2)" ;;
esac
[ -x /sbin/ldconfig ] || e2e_die "/sbin/ldconfig is missing (the hook's default ldconfig)"

marker="$E2E_TMP/owned"
evil="$E2E_TMP/evil"
mkdir -p "$evil/bin" "$evil/xdg/nvidia-container-toolkit" "$evil/xdg/nvidia-container-runtime"
for tool in ldconfig ldconfig.real nvidia-modprobe modprobe sh bash; do
  printf '#!/bin/sh\necho "%s $$" >> %s\n' "$tool" "$marker" >"$evil/bin/$tool"
  chmod 0755 "$evil/bin/$tool"
done
cat >"$evil/config.toml" <<TOML
[nvidia-container-cli]
root = "/nonexistent"
ldconfig = "@$evil/bin/ldconfig"
debug = "$E2E_TMP/evil-debug.log"

[nvidia-ctk]
path = "$evil/bin/nvidia-ctk"
TOML
cp "$evil/config.toml" "$evil/xdg/nvidia-container-toolkit/config.toml"
cp "$evil/config.toml" "$evil/xdg/nvidia-container-runtime/config.toml"
HOSTILE=("NVIDIA_CTK_CONFIG_FILE_PATH=$evil/config.toml" "XDG_CONFIG_HOME=$evil/xdg"
  "PATH=$evil/bin:/proc/self/cwd/bin:/usr/bin:/bin:/sbin" "HOME=$evil")

B="$E2E_TMP/bundle"
make_bundle "$B" glibc
R="$B/rootfs"
STATE="$E2E_TMP/state.json"
printf '{"ociVersion":"1.0.2","id":"env","status":"creating","pid":1,"bundle":"%s"}' "$B" >"$STATE"
mkdir -p "$R/opt/nv" "$R/usr/local/cuda/compat"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/opt/nv/libnv.so.1"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/usr/local/cuda/compat/libcuda.so.999.1.1"
rm -f "$R/etc/ld.so.cache"

# run_hostile <id> <hook args...>: the hook with the hostile env, cwd = $evil, traced for every
# file it opens and every program it or its children exec.
run_hostile() {
  local id="$1" rc=0
  shift
  (cd "$evil" && env -i "${HOSTILE[@]}" strace -f -qq -e trace=open,openat,openat2,execve,execveat \
    -o "$E2E_TMP/$id.trace" "${HOOK[@]}" "$@" <"$STATE" >"$E2E_TMP/$id.out" 2>"$E2E_TMP/$id.err") ||
    rc=$?
  check_eq "$id: succeeds with a hostile environment ($(tail -1 "$E2E_TMP/$id.err"))" 0 "$rc"
  check_eq "$id: opened nothing the environment offered" "" \
    "$(grep -v -e ENOENT -e '^[0-9]* +++' "$E2E_TMP/$id.trace" | grep -F -e "$evil" -e /proc/self/cwd || true)"
  check_eq "$id: looked up nothing the environment offered" "" \
    "$(grep -F -e "$evil/config.toml" -e "$evil/xdg" "$E2E_TMP/$id.trace" || true)"
}

run_hostile update-ldcache update-ldcache --folder /opt/nv
check "update-ldcache: the host's ldconfig wrote the cache in the rootfs" \
  grep -q -a /opt/nv/ "$R/etc/ld.so.cache"
check_eq "update-ldcache: the ldconfig child started with an empty environment" "" \
  "$(grep -F 'execveat(' "$E2E_TMP/update-ldcache.trace" | grep -v -F '/* 0 vars */' || true)"
check "update-ldcache: (the trace shows the child's exec)" grep -q 'execveat(' "$E2E_TMP/update-ldcache.trace"
run_hostile enable-cuda-compat enable-cuda-compat --host-driver-version=550.54.14
check "enable-cuda-compat: wrote its drop-in" \
  grep -r -q -x /usr/local/cuda/compat "$R/etc/ld.so.conf.d"
run_hostile create-symlinks create-symlinks --link libnv.so.1::/opt/nv/libnv.so
check_eq "create-symlinks: made the link" libnv.so.1 "$(readlink "$R/opt/nv/libnv.so")"
run_hostile chmod chmod --mode 0700 --path /opt/nv
check_eq "chmod: changed the mode" 700 "$(stat -c %a "$R/opt/nv")"

check "no fake helper ran" test ! -e "$marker"
check "no debug log was written where the offered config said" test ! -e "$E2E_TMP/evil-debug.log"
[ -e "$marker" ] && echo "marker: $(cat "$marker")" >&2

# Which resolver the hook used, from a debug run.
env -i NVIDIA_CTK_DEBUG=true "${HOOK[@]}" create-symlinks --link libnv.so.1::/opt/nv/resolver.so \
  <"$STATE" >/dev/null 2>"$E2E_TMP/resolver.log" || true
walker="$(grep -c -F "with the userspace walker (openat2 unavailable)" "$E2E_TMP/resolver.log" || true)"
check_eq "variant $VARIANT: the hook's resolver (walker lines)" \
  "$([ "$VARIANT" = normal ] && echo 0 || echo 1)" "$walker"
e2e_finish
