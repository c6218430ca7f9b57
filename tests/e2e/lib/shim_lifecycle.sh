# shellcheck shell=bash
# The shim in front of a real low-level runtime (runc or crun, the argument): `run`, the full
# create/start/state/exec/kill/delete lifecycle, pass-through of state/features/--help and of
# commands without a bundle (`run -h`, `create --help`, ...), the injected prestart hook (a
# recording stand-in) and the glibc rootfs variant.
# Sourced by e2e_shim_runc.sh / e2e_shim_crun.sh after common.sh and rootfs.sh.


# crun 1.8 refuses cgroup v1 "hybrid" hosts whose cgroup2 mount still has controllers
# ("cgroups in hybrid mode not supported, drop all controllers from cgroupv2"). On such hosts
# each crun call (through the shim or direct) runs in a private mount namespace without the
# cgroup2 mount, so crun sees plain cgroup v1; nothing changes on the host.
XRT_WRAP=()
xrt() { "${XRT_WRAP[@]}" "$@"; }
_setup_xrt() {
  XRT_WRAP=()
  if [ "$1" = crun ] && [ -n "$(cat /sys/fs/cgroup/unified/cgroup.controllers 2>/dev/null)" ]; then
    require_cmd unshare
    XRT_WRAP=(unshare -m --propagation private sh -c 'umount /sys/fs/cgroup/unified 2>/dev/null; exec "$@"' sh)
  fi
}

run_shim_lifecycle() {
  local rt_name="$1"
  require_root
  require_cmd "$rt_name" jq timeout
  _setup_xrt "$rt_name"
  local RT SHIM ROOT HOOKDIR HOOK CFG B out id rc
  RT="$(command -v "$rt_name")"
  SHIM="$(shim_bin)"
  ROOT="$E2E_TMP/state"
  HOOKDIR="$E2E_TMP/hookbin"
  HOOK="$(make_record_hook "$HOOKDIR")"
  CFG="$E2E_TMP/config.toml"
  export NVIDIA_CTK_CONFIG_FILE_PATH="$CFG"
  write_shim_config "$CFG" "[\"$rt_name\"]" "$HOOK" legacy "$E2E_TMP/shim-debug.log"
  mkdir -p "$ROOT"
  e2e_on_exit "for c in \$('$RT' --root '$ROOT' list -q 2>/dev/null); do xrt '$RT' --root '$ROOT' delete --force \$c; done"

  # --- run, GPU requested ---------------------------------------------------------------------
  B="$E2E_TMP/bundle-run"
  make_bundle "$B" busybox sh -c 'echo ok; echo "env=$NVIDIA_VISIBLE_DEVICES"'
  bundle_set_env "$B" NVIDIA_VISIBLE_DEVICES=all
  id="nvct-e2e-run-$$"
  out="$(xrt timeout 60 "$SHIM" --root "$ROOT" run --bundle "$B" "$id" </dev/null 2>"$E2E_TMP/run.err")" || true
  check_eq "$rt_name run through the shim: container output" "ok|env=all" "$(echo "$out" | paste -sd'|')"
  check_eq "$rt_name run: exactly one prestart hook in config.json" 1 \
    "$(jq '[.hooks.prestart[] | select(.path == "'"$HOOK"'")] | length' "$B/config.json")"
  check "$rt_name run: the injected hook ran" test -s "$HOOKDIR/hook-called"
  check_eq "$rt_name run: hook args (the shim passes its config file)" "args=-config $CFG prestart" \
    "$(grep '^args=' "$HOOKDIR/hook-called")"
  check_contains "$rt_name run: hook got only the minimal env" \
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
    "$(grep '^env=' "$HOOKDIR/hook-called")"
  check "$rt_name run: hook env has no container variable" \
    bash -c "! grep -q NVIDIA_VISIBLE_DEVICES <(grep '^env=' '$HOOKDIR/hook-called')"
  check_eq "$rt_name run: hook read the OCI state on stdin (id)" "$id" \
    "$(sed -n 's/^state=//p' "$HOOKDIR/hook-called" | jq -r .id)"
  check "$rt_name run: OCI state has a pid" \
    bash -c "sed -n 's/^state=//p' '$HOOKDIR/hook-called' | jq -e '.pid > 0'"
  xrt "$RT" --root "$ROOT" delete --force "$id" >/dev/null 2>&1 || true

  # --- run, no GPU ----------------------------------------------------------------------------
  B="$E2E_TMP/bundle-nogpu"
  make_bundle "$B" busybox sh -c 'echo ok'
  cp "$B/config.json" "$E2E_TMP/nogpu.orig"
  rm -f "$HOOKDIR/hook-called"
  out="$(xrt timeout 60 "$SHIM" --root "$ROOT" run --bundle "$B" "nvct-e2e-nogpu-$$" </dev/null 2>&1)" || true
  check_eq "$rt_name run without GPU: output" ok "$out"
  check "$rt_name run without GPU: config.json byte-identical" same_file "$B/config.json" "$E2E_TMP/nogpu.orig"
  check "$rt_name run without GPU: no hook ran" test ! -e "$HOOKDIR/hook-called"
  xrt "$RT" --root "$ROOT" delete --force "nvct-e2e-nogpu-$$" >/dev/null 2>&1 || true

  # --- lifecycle: create start state exec kill delete --------------------------------------------
  B="$E2E_TMP/bundle-life"
  make_bundle "$B" busybox sleep 300
  bundle_set_env "$B" NVIDIA_VISIBLE_DEVICES=0
  rm -f "$HOOKDIR/hook-called"
  id="nvct-e2e-life-$$"
  (cd "$B" && xrt timeout 60 "$SHIM" --root "$ROOT" --log "$E2E_TMP/life.json" --log-format json \
    create --pid-file init.pid "$id" </dev/null >/dev/null 2>"$E2E_TMP/create.err")
  rc=$?
  check_eq "$rt_name create through the shim (bundle = cwd) exits 0" 0 "$rc"
  check "$rt_name create: relative --pid-file written in the bundle" test -s "$B/init.pid"
  check_eq "$rt_name create: state created" created "$(xrt "$SHIM" --root "$ROOT" state "$id" | jq -r .status)"
  check "$rt_name create: state through the shim byte-identical to direct" \
    cmp -s <(xrt "$SHIM" --root "$ROOT" state "$id") <(xrt "$RT" --root "$ROOT" state "$id")
  check "$rt_name create: --log lines are valid JSON" jq -e . "$E2E_TMP/life.json"
  check_eq "$rt_name create: one hook injected" 1 "$(jq '.hooks.prestart | length' "$B/config.json")"
  if [ "$rt_name" = runc ]; then
    check "$rt_name create: prestart hook ran at create" test -s "$HOOKDIR/hook-called"
  fi
  xrt timeout 30 "$SHIM" --root "$ROOT" start "$id"
  check_eq "$rt_name start: running" running "$(xrt "$SHIM" --root "$ROOT" state "$id" | jq -r .status)"
  check "$rt_name: the hook ran by the time the container runs" test -s "$HOOKDIR/hook-called"
  check_eq "$rt_name exec through the shim" hi "$(xrt timeout 30 "$SHIM" --root "$ROOT" exec "$id" echo hi </dev/null)"
  check_eq "$rt_name exec: exit code of the process passes through" 7 \
    "$(xrt timeout 30 "$SHIM" --root "$ROOT" exec "$id" sh -c 'exit 7' </dev/null; echo $?)"
  xrt timeout 30 "$SHIM" --root "$ROOT" kill "$id" KILL
  for _ in $(seq 50); do
    [ "$(xrt "$RT" --root "$ROOT" state "$id" | jq -r .status)" = stopped ] && break
    sleep 0.1
  done
  check_eq "$rt_name kill: stopped" stopped "$(xrt "$SHIM" --root "$ROOT" state "$id" | jq -r .status)"
  check "$rt_name delete through the shim" xrt timeout 30 "$SHIM" --root "$ROOT" delete "$id"
  check "$rt_name delete: container gone" bash -c "! '$RT' --root '$ROOT' state '$id' >/dev/null 2>&1"

  # --- pass-through of informational commands ---------------------------------------------------
  # stdout, stderr and exit code (crun 1.8 has no `features`: the same error must come back).
  check "$rt_name features through the shim byte-identical" \
    cmp -s <(xrt "$SHIM" features 2>&1; echo "rc=$?") <(xrt "$RT" features 2>&1; echo "rc=$?")
  check "$rt_name --help through the shim byte-identical" \
    cmp -s <(xrt "$SHIM" --help 2>&1; echo "rc=$?") <(xrt "$RT" --help 2>&1; echo "rc=$?")
  check "$rt_name list through the shim byte-identical" \
    cmp -s <(xrt "$SHIM" --root "$ROOT" list) <(xrt "$RT" --root "$ROOT" list)
  # Commands without a bundle, run where there is no config.json (runc's bats runs `run -h` so):
  # help of create/run included, they create nothing.
  local empty="$E2E_TMP/no-bundle" cmd
  mkdir -p "$empty"
  for cmd in "run -h" "run --help" "create --help" "spec --help" "ps --help" "events --help" \
    "help run" "state nvct-no-such-container"; do
    # shellcheck disable=SC2086 # the command's words
    check "$rt_name '$cmd' without a bundle through the shim byte-identical (rc too)" \
      cmp -s <(cd "$empty" && xrt "$SHIM" --root "$ROOT" $cmd 2>&1; echo "rc=$?") \
      <(cd "$empty" && xrt "$RT" --root "$ROOT" $cmd 2>&1; echo "rc=$?")
  done
  check "$rt_name: nothing written where there was no bundle" test -z "$(ls -A "$empty")"
  out="$(xrt "$SHIM" --version)"
  check_eq "$rt_name --version: our banner first" "NVIDIA Container Runtime version" \
    "$(echo "$out" | head -n1 | cut -d' ' -f1-4)"
  check "$rt_name --version: then the runtime's own version block" \
    cmp -s <(echo "$out" | tail -n +5) <(xrt "$RT" --version)

  # --- glibc rootfs variant (for the GPU tests): ldconfig -p and the loader work inside ---------
  B="$E2E_TMP/bundle-glibc"
  make_bundle "$B" glibc sh -c '/sbin/ldconfig -p | grep -c "libc.so.6 "; /lib64/ld-linux-x86-64.so.2 --version | head -n1'
  out="$(xrt timeout 60 "$SHIM" --root "$ROOT" run --bundle "$B" "nvct-e2e-glibc-$$" </dev/null 2>&1)" || true
  check_eq "$rt_name glibc rootfs: ldconfig -p lists libc.so.6" 1 "$(echo "$out" | head -n1)"
  check_contains "$rt_name glibc rootfs: the dynamic loader runs" "ld.so" "$(echo "$out" | tail -n1)"
  xrt "$RT" --root "$ROOT" delete --force "nvct-e2e-glibc-$$" >/dev/null 2>&1 || true
}
