#!/usr/bin/env bash
# The image's environment must never reach the privileged prestart hook or its helpers
# (spec/security.md §5, checklist #15-#18). A GPU container on the mock driver, through the shim
# and runc, carries in its process.env:
#   #15 LD_PRELOAD of a library whose constructor writes a marker file on the host, by host path
#       and by /proc/self/cwd (the hook's cwd is the bundle when runc starts it);
#   #16 LD_LIBRARY_PATH, LD_AUDIT, GCONV_PATH, a malformed 64 KiB GLIBC_TUNABLES and
#       LD_DEBUG=all with LD_DEBUG_OUTPUT pointing at a host file;
#   #17 NVIDIA_CTK_CONFIG_FILE_PATH / XDG_CONFIG_HOME pointing at a config that would break the
#       hook (bad driver root, bad capabilities);
#   #18 PATH with a fake ldconfig/nvidia-modprobe first.
# Expected: the container gets its GPU, and no marker, debug output or fake-helper trace appears.
# NVCT_HOOK_VARIANT (set by CTest) runs the hook normally or under tests/security/no_openat2.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../e2e/lib/gpu.sh"
require_cmd gcc

gpu_setup one-gpu
gpu_hook_variant
marker="$E2E_TMP/owned"

# The payload: any process that loads it leaves "<pid> <exe>" in the marker file.
cat >"$E2E_TMP/poc.c" <<C
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
__attribute__((constructor)) static void owned(void) {
  char exe[256] = {0}, line[320];
  if (readlink("/proc/self/exe", exe, sizeof exe - 1) < 0) strcpy(exe, "?");
  int fd = open("$marker", O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (fd < 0) return;
  int n = snprintf(line, sizeof line, "%d %s\n", (int)getpid(), exe);
  if (n > 0) (void)!write(fd, line, (size_t)n);
  close(fd);
}
unsigned la_version(unsigned v) { return v; }
C
gcc -shared -fPIC -o "$E2E_TMP/poc.so" "$E2E_TMP/poc.c" || e2e_die "cannot build the payload"
# Control: the payload works, so an empty marker below means it never loaded.
LD_PRELOAD="$E2E_TMP/poc.so" /bin/true
check "control: the payload writes the marker when preloaded" test -s "$marker"
rm -f "$marker"

b="$E2E_TMP/b"
gpu_bundle "$b"
cp "$E2E_TMP/poc.so" "$b/poc.so"  # /proc/self/cwd/poc.so for a process whose cwd is the bundle
mkdir -p "$E2E_TMP/evil-bin" "$E2E_TMP/xdg/nvidia-container-runtime"
for tool in ldconfig ldconfig.real nvidia-modprobe modprobe sh; do
  printf '#!/bin/sh\necho "%s $$" >> %s\n' "$tool" "$marker" >"$E2E_TMP/evil-bin/$tool"
  chmod 0755 "$E2E_TMP/evil-bin/$tool"
done
printf '[nvidia-container-cli]\nroot = "/nonexistent"\nldconfig = "@%s/evil-bin/ldconfig"\nsupported-driver-capabilities = "not-compute"\n' \
  "$E2E_TMP" >"$E2E_TMP/evil.toml"
cp "$E2E_TMP/evil.toml" "$E2E_TMP/xdg/nvidia-container-runtime/config.toml"
tunables="glibc.malloc.check=$(head -c 65536 /dev/zero | tr '\0' 'x')"
bundle_set_env "$b" NVIDIA_VISIBLE_DEVICES=0 \
  "LD_PRELOAD=$E2E_TMP/poc.so /proc/self/cwd/poc.so" \
  "LD_AUDIT=$E2E_TMP/poc.so" "LD_LIBRARY_PATH=$E2E_TMP:$b" "GCONV_PATH=$E2E_TMP" \
  "GLIBC_TUNABLES=$tunables" LD_DEBUG=all "LD_DEBUG_OUTPUT=$E2E_TMP/lddebug" \
  "NVIDIA_CTK_CONFIG_FILE_PATH=$E2E_TMP/evil.toml" "XDG_CONFIG_HOME=$E2E_TMP/xdg" \
  "PATH=$E2E_TMP/evil-bin:/proc/self/cwd/evil-bin:/usr/bin:/bin:/sbin"
cp -r "$E2E_TMP/evil-bin" "$b/evil-bin"

if gpu_variant_run "$b" hazards; then
  check_eq "the container still got its GPU" \
    "NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)" \
    "$(gpu_smi_gpus "$E2E_TMP/hazards.out")"
else
  failed "GPU container with a hostile env failed: $(cat "$E2E_TMP/hazards.err")"
fi
check "#15/#16: no host process loaded the payload or ran a fake helper" test ! -e "$marker"
check "#16: no LD_DEBUG_OUTPUT file on the host" bash -c "! ls '$E2E_TMP'/lddebug* >/dev/null 2>&1"
check "#17: the offered config was not used (the hook's own config pointed at the mock root)" \
  grep -q "^node /dev/nvidia0$" "$E2E_TMP/hazards.out"
gpu_check_variant hazards
[ -e "$marker" ] && echo "marker: $(cat "$marker")" >&2

e2e_finish
