# shellcheck shell=bash
# Full GPU containers on the mock driver (no GPU needed). Source after common.sh and rootfs.sh.
#
#   gpu_setup <topology>     builds a mock driver root (tests/mock-driver/topologies/<t>.conf) at
#                            $GPU_ROOT and writes $GPU_CONFIG: nvidia-container-cli.root = the
#                            mock root, legacy mode, runc, and the hook path $GPU_HOOK. Exports
#                            NVIDIA_CTK_CONFIG_FILE_PATH for the shim.
#   gpu_bundle <bundle> [NAME=VALUE...]   a glibc bundle whose process runs /report.sh
#                            ($GPU_REPORT: nodes, ldconfig -p, nvidia-smi -L, params, open()
#                            errors), with the given container env
#   gpu_add_mount <bundle> <json>         appends one entry to config.json's mounts
#   gpu_run <bundle> <id>    runs it through the shim (runc) into $E2E_TMP/<id>.out/.err; the
#                            exit status of the shim is returned
#   gpu_field <file> <key>   the values of the report's "<key> ..." lines, one per line
#
# $GPU_HOOK is a two-line wrapper that execs the built hook with `-config $GPU_CONFIG`: the hook
# never reads its config location from the environment, the shim does not pass -config yet, and
# dockerd's --gpus hook has no argument for it either; the wrapper is test plumbing only.
#
# The mock host has no nvidia kernel module, so the container's procfs has no
# /proc/driver/nvidia for the mount library's tmpfs (on a real host it always exists). Every GPU
# container therefore gets a tmpfs on /proc/driver (config.json mount, or docker --tmpfs), which
# stands in for the directory the driver would create.

GPU_REPORT='
find /dev -name "nvidia*" | sort | sed "s/^/node /"
/sbin/ldconfig -p | grep "x86-64" | sed -n "s/^[[:space:]]*\([^ ]*\) (.*) => \(.*\)$/lib \1 \2/p"
for l in libcuda.so.1 libnvidia-ml.so.1; do
  p=/usr/lib/x86_64-linux-gnu/$l
  [ -e $p ] && echo "real $l $(readlink -f $p) $(md5sum < $p | cut -d" " -f1)"
done
if [ -x /usr/bin/nvidia-smi ]; then
  smi="$(nvidia-smi -L 2>&1)"; echo "smirc $?"; echo "$smi" | sed "s/^/smi /"
else
  echo "smirc none"
fi
grep ModifyDeviceFiles /proc/driver/nvidia/params 2>/dev/null | sed "s/^/params /"
for n in /dev/nvidia[0-9]*; do
  [ -e "$n" ] && echo "open $n $(head -c1 "$n" 2>&1 >/dev/null | sed "s/.*: //")"
done
echo done
'

gpu_setup() {
  local topology="$1"
  require_root
  require_cmd runc jq md5sum
  GPU_ROOT="$E2E_TMP/driver-root"
  local make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
  [ -f "$make_root" ] || e2e_die "$make_root is missing (the mock driver)"
  [ -e "$NVCT_BUILD_DIR/tests/mock-driver/bin/nvidia-smi" ] ||
    e2e_die "mock driver not built (cmake --build $NVCT_BUILD_DIR --target mock_driver)"
  bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topology.conf" --out "$GPU_ROOT" \
    >"$E2E_TMP/make-root.log" 2>&1 ||
    e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make-root.log")"
  [ -c "$GPU_ROOT/dev/nvidia0" ] || e2e_die "mock root has no character device nodes (not root?)"

  GPU_SHIM="$(shim_bin)"
  GPU_REAL_HOOK="$(nvct_bin nvidia-container-runtime-hook)"
  GPU_CONFIG="$E2E_TMP/config.toml"
  GPU_HOOKDIR="$E2E_TMP/hookbin"
  GPU_HOOK="$GPU_HOOKDIR/nvidia-container-runtime-hook"
  GPU_STATE="$E2E_TMP/runc-state"
  mkdir -p "$GPU_HOOKDIR" "$GPU_STATE"
  printf '#!/bin/sh\nexec %s -config %s "$@"\n' "$GPU_REAL_HOOK" "$GPU_CONFIG" >"$GPU_HOOK"
  chmod 0755 "$GPU_HOOK"
  cat >"$GPU_CONFIG" <<TOML
[nvidia-container-cli]
root = "$GPU_ROOT"

[nvidia-container-runtime]
debug = "$E2E_TMP/shim-debug.log"
mode = "legacy"
runtimes = ["runc"]

[nvidia-container-runtime-hook]
path = "$GPU_HOOK"
TOML
  export NVIDIA_CTK_CONFIG_FILE_PATH="$GPU_CONFIG"
  e2e_on_exit "for c in \$(runc --root '$GPU_STATE' list -q 2>/dev/null); do runc --root '$GPU_STATE' delete --force \$c; done"
}

gpu_add_mount() {
  local bundle="$1" json="$2"
  jq --argjson m "$json" '.mounts += [$m]' "$bundle/config.json" >"$bundle/config.json.new"
  mv "$bundle/config.json.new" "$bundle/config.json"
}

gpu_bundle() {
  local bundle="$1"
  shift
  make_bundle "$bundle" glibc sh /report.sh
  printf '%s' "$GPU_REPORT" >"$bundle/rootfs/report.sh"
  [ $# -gt 0 ] && bundle_set_env "$bundle" "$@"
  gpu_add_mount "$bundle" \
    '{"destination":"/proc/driver","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","noexec","mode=755"]}'
}

gpu_run() {
  local bundle="$1" id="$2" rc=0
  timeout 120 "$GPU_SHIM" --root "$GPU_STATE" run --bundle "$bundle" "$id" \
    </dev/null >"$E2E_TMP/$id.out" 2>"$E2E_TMP/$id.err" || rc=$?
  runc --root "$GPU_STATE" delete --force "$id" >/dev/null 2>&1 || true
  return "$rc"
}

gpu_field() {
  sed -n "s/^$2 //p" "$1"
}

# The /dev/nvidia* nodes of a report as one space-separated line.
gpu_nodes() { gpu_field "$1" node | tr '\n' ' ' | sed 's/ $//'; }
# The GPU lines of nvidia-smi -L (MIG lines start with two spaces and are kept apart).
gpu_smi_gpus() { gpu_field "$1" smi | grep '^GPU ' | sed 's/^GPU [0-9]*: //' | tr '\n' '|' | sed 's/|$//'; }

# The host's mount table, for before/after comparisons: lines of this test's temp dir or of any
# nvidia path. Other tests may mount and unmount unrelated things concurrently.
gpu_host_mounts() {
  grep -E "$E2E_TMP|nvidia" /proc/self/mountinfo | awk '{ $1 = ""; $2 = ""; print }' | sort || true
}

# Hook variants of the security tests (spec/security.md checklist #48). After gpu_setup,
# gpu_hook_variant makes $GPU_HOOK run the hook at debug level into a log, and under
# tests/security/no_openat2 as NVCT_HOOK_VARIANT asks:
#   normal        openat2 and the new mount API as the kernel offers them (the default)
#   no_openat2    openat2 fails with ENOSYS: in-root paths go through the userspace walker
#   no_mount_api  also open_tree/move_mount/mount_setattr/fs*: walker + classic mount(2)
# gpu_variant_run is gpu_run that also keeps that run's hook log in $E2E_TMP/<id>.hook.log;
# gpu_check_variant <id> proves from it which resolver the run used (the mount library logs one
# debug line the first time a process falls back to the walker).
GPU_WALKER_LINE="with the userspace walker (openat2 unavailable)"

gpu_hook_variant() {
  GPU_VARIANT="${NVCT_HOOK_VARIANT:-normal}"
  GPU_HOOK_LOG="$E2E_TMP/hook-debug.log"
  local flag=""
  case "$GPU_VARIANT" in
    normal | no_openat2) ;;
    no_mount_api) flag="--no-new-mount-api" ;;
    *) e2e_die "NVCT_HOOK_VARIANT='$GPU_VARIANT' (want normal, no_openat2 or no_mount_api)" ;;
  esac
  : >"$GPU_HOOK_LOG"
  # The hook logs to nvidia-container-cli.debug, as the reference does.
  sed -i "s|^root = \"$GPU_ROOT\"\$|&\ndebug = \"$GPU_HOOK_LOG\"|" "$GPU_CONFIG"
  grep -q "^debug = \"$GPU_HOOK_LOG\"" "$GPU_CONFIG" || e2e_die "cannot set the hook debug log"
  if [ "$GPU_VARIANT" = normal ]; then
    echo "# hook variant: normal"
    return 0
  fi
  local wrap="$NVCT_BUILD_DIR/tests/security/no_openat2"
  [ -x "$wrap" ] || e2e_die "$wrap not built (cmake --build $NVCT_BUILD_DIR --target no_openat2)"
  require_cmd python3
  # Control: under the wrapper openat2 (and, for no_mount_api, open_tree) fail with ENOSYS, and
  # for no_openat2 open_tree still works, so that variant really exercises move_mount.
  local probe='import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
how = (ctypes.c_uint64 * 3)(0, 0, 0)
def err(rc): return 0 if rc >= 0 else ctypes.get_errno()
print(err(libc.syscall(437, -100, b"/", ctypes.byref(how), 24)),
      err(libc.syscall(428, -100, b"/", 0x80000 | 1)))'
  local got want="38 0"
  [ "$GPU_VARIANT" = no_mount_api ] && want="38 38"
  got="$("$wrap" $flag "$(command -v python3)" -c "$probe")"
  [ "$got" = "$want" ] ||
    e2e_die "no_openat2 $flag control: errno of openat2/open_tree is [$got], want [$want]"
  # sh under the filter records that the hook process really carries it (Seccomp: 2 = filter).
  cat >"$GPU_HOOK" <<SH
#!/bin/sh
exec $wrap $flag /bin/sh -c 'echo "wrapper: \$(grep "^Seccomp:" /proc/self/status | tr -s "\t " " ")" >>"$GPU_HOOK_LOG"; exec "\$0" "\$@"' $GPU_REAL_HOOK -config $GPU_CONFIG "\$@"
SH
  chmod 0755 "$GPU_HOOK"
  echo "# hook variant: $GPU_VARIANT (no_openat2 $flag)"
}

gpu_variant_run() {
  local bundle="$1" id="$2" rc=0 start
  start="$(stat -c %s "$GPU_HOOK_LOG")"
  # runc's default cgroup path is the container id: the id is unique per process so parallel
  # variants of one script never share a cgroup.
  gpu_run "$bundle" "$id-$$" || rc=$?
  mv "$E2E_TMP/$id-$$.out" "$E2E_TMP/$id.out"
  mv "$E2E_TMP/$id-$$.err" "$E2E_TMP/$id.err"
  tail -c "+$((start + 1))" "$GPU_HOOK_LOG" >"$E2E_TMP/$id.hook.log"
  return "$rc"
}

# Asserts that run <id>'s hook resolved rootfs paths the way the variant demands. Call it only for
# runs whose hook got as far as the mount library.
gpu_check_variant() {
  local id="$1" log="$E2E_TMP/$1.hook.log"
  local walker
  walker="$(grep -c -F "$GPU_WALKER_LINE" "$log" || true)"
  check "$id: the hook ran at debug level (its log has the configure line)" \
    grep -q "configuring container" "$log"
  if [ "$GPU_VARIANT" = normal ]; then
    check_eq "$id: the hook resolved with openat2 (no walker line)" 0 "$walker"
  else
    check "$id: the hook ran under the seccomp filter" grep -q "^wrapper: Seccomp: 2" "$log"
    check "$id: the hook fell back to the userspace walker" test "$walker" -ge 1
  fi
}

# Host sentinel trees for the attack tests: gpu_sentinel <dir> fills <dir> with a file, a
# subdirectory and a symlink and records its digest; gpu_sentinel_check <dir> asserts nothing in
# it changed (names, types, modes, link targets, contents). Images point their links at these.
declare -A GPU_SENTINELS=()
gpu_sentinel_digest() {
  (cd "$1" && find . -printf '%p %y %m %l\n' | sort && find . -type f -print0 | sort -z |
    xargs -0 -r cat) | sha256sum | cut -d' ' -f1
}
gpu_sentinel() {
  local dir="$1"
  mkdir -p "$dir/sub"
  echo "host sentinel $dir" >"$dir/victim"
  chmod 0600 "$dir/victim"
  ln -sfn victim "$dir/link"
  GPU_SENTINELS["$dir"]="$(gpu_sentinel_digest "$dir")"
}
# Records <dir>'s current state as the one to keep (after a test adds to a sentinel).
gpu_sentinel_rehash() { GPU_SENTINELS["$1"]="$(gpu_sentinel_digest "$1")"; }
gpu_sentinel_check() {
  local dir
  for dir in "${!GPU_SENTINELS[@]}"; do
    check_eq "host sentinel $dir untouched ($(ls -A "$dir" | tr '\n' ' '))" \
      "${GPU_SENTINELS[$dir]}" "$(gpu_sentinel_digest "$dir")"
  done
}

# The outcome of an attack run <id> (gpu_variant_run's status <rc>) is SAFE when either the
# container ran and got its GPU, or creation failed with the hook's error naming <what> (a
# substring of it). Sets GPU_OUTCOME to "ran" or "refused".
# shellcheck disable=SC2034  # GPU_OUTCOME is read by the calling script
gpu_safe_outcome() {
  local id="$1" rc="$2" what="$3" err
  err="$(cat "$E2E_TMP/$id.err")"
  if [ "$rc" = 0 ]; then
    GPU_OUTCOME=ran
    check_eq "$id: ran, and the container got its GPU" \
      "NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)" \
      "$(gpu_smi_gpus "$E2E_TMP/$id.out")"
  else
    GPU_OUTCOME=refused
    echo "# $id refused: $err"
    check_contains "$id: refused by the hook" "nvidia-container-" "$err"
    check_contains "$id: ... with an error naming the problem" "$what" "$err"
  fi
}

# gpu_hook_prelude <file>: the sh lines in <file> run in front of $GPU_HOOK's command each time
# runc starts the hook, i.e. after runc has set the container up and just before the hook: a
# stand-in for a racing or hostile writer of the bundle (use absolute paths: the hook's PATH is
# the shim's minimal one). Call after gpu_hook_variant.
gpu_hook_prelude() {
  mv "$GPU_HOOK" "$GPU_HOOK.inner"
  { echo '#!/bin/sh'; cat "$1"; echo "exec $GPU_HOOK.inner \"\$@\""; } >"$GPU_HOOK"
  chmod 0755 "$GPU_HOOK"
  bash -n "$GPU_HOOK" || e2e_die "gpu_hook_prelude: not valid sh: $(cat "$GPU_HOOK")"
}
