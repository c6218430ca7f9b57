#!/usr/bin/env bash
# The shim's `create` in legacy mode: nvct's nvidia-container-runtime and NVIDIA's (toolkit
# 1.13.1) in front of the same recording runtime (nvct-fake-runtime), on the same bundles and the
# same command lines, as containerd, Docker and Podman call them. Compared: the exit status, the
# command line the runtime got and the config.json it saw (as JSON: the toolkit re-serialises the
# whole file, nvct edits it in place). Where the two must differ in every case, both sides are
# normalised and docs/deviations.md must list the reason:
#   - the hook's path is each toolkit's own hook binary (HOOK on both sides); args[0] is its
#     basename in nvct and the full path in 1.13.1 ("legacy hook `args[0]`");
#   - nvct gives the hook an explicit env and a timeout ("explicit `env` and a `timeout`") and
#     the config file the shim read ("`-config <file>`");
# and these cases differ, as docs/deviations.md says:
#   - 1.13.1 drops the fields its Go structs do not know and writes `process.user` {"uid":0,
#     "gid":0} when the file had none ("fields it does not know");
#   - without a GPU request nvct leaves config.json untouched ("without a GPU request").
# Pass-through commands (state, start, kill, delete, features) must reach the runtime with the
# same arguments from both.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/lib/peers.sh"
require_cmd jq
peers_require

shim="$(nvct_bin nvidia-container-runtime)"
nvct_dir="$(dirname "$shim")"
fake="$(fake_runtime_bin)"
for phrase in "legacy hook \`args[0]\`" "explicit \`env\` and a \`timeout\`" "\`-config <file>\`" \
  "fields it does not know" "without a GPU request"; do
  grep -qF "$phrase" "$NVCT_SOURCE_DIR/docs/deviations.md" ||
    e2e_die "docs/deviations.md does not list a difference this test normalises ($phrase)"
done

# One config for both: the toolkit 1.13.1 reads $XDG_CONFIG_HOME/nvidia-container-runtime/
# config.toml, nvct too (and NVIDIA_CTK_CONFIG_FILE_PATH, left unset here).
export XDG_CONFIG_HOME="$E2E_TMP/xdg"
mkdir -p "$XDG_CONFIG_HOME/nvidia-container-runtime"
printf '[nvidia-container-runtime]\nmode = "legacy"\nruntimes = ["%s"]\n' "$fake" \
  >"$XDG_CONFIG_HOME/nvidia-container-runtime/config.toml"
unset NVIDIA_CTK_CONFIG_FILE_PATH

# normalise <config.json>: the documented differences taken out (see the header).
normalise() {
  jq -S '
    def hookname: (.path // "" | split("/") | last);
    def nvhook: (hookname == "nvidia-container-runtime-hook");
    (if .hooks.prestart then .hooks.prestart |= map(if nvhook then
        .path = "HOOK" | .args[0] = "HOOK" | del(.env, .timeout)
        | .args |= (if .[1] == "-config" then [.[0]] + .[3:] else . end) else . end) else . end)' "$1"
}

# run <shim> <bundle json> <argv...>: "exit N", the runtime's argv (the runtime's own path
# dropped, the bundle as BUNDLE) and the normalised config.json it saw.
run() {
  local bin="$1" spec="$2" b="$E2E_TMP/bundle" rec="$E2E_TMP/rec" rc=0 path
  shift 2
  rm -rf "$b" "$rec"
  mkdir -p "$b/rootfs" "$rec"
  printf '%s\n' "$spec" >"$b/config.json"
  if [ "$bin" = "$shim" ]; then path="$nvct_dir:$PATH"; else path="$PEER_BIN:$PATH"; fi
  (cd "$b" && PATH="$path" FAKE_RUNTIME_DIR="$rec" "$bin" "$@") >"$E2E_TMP/out" 2>"$E2E_TMP/err" ||
    rc=$?
  echo "exit $rc"
  cat "$E2E_TMP/out"
  if [ -f "$rec/last.json" ]; then
    jq -c --arg b "$b" '.argv[1:] | map(if . == $b then "BUNDLE" else . end)' "$rec/last.json"
  else
    echo "the runtime was not called: $(head -3 "$E2E_TMP/err")"
  fi
  if [ -f "$rec/config.json" ]; then normalise "$rec/config.json"; fi
}

cases=0 same=0 explained=0
# compare <what> <why phrase or ""> <jq filter or ""> <bundle json> <argv...>: equal reports, or
# a difference docs/deviations.md explains (it contains <why>) and that is exactly that
# difference: <filter> applied to the config.json nvct handed on gives the toolkit's.
compare() {
  local what="$1" why="$2" filter="$3" spec="$4"
  shift 4
  cases=$((cases + 1))
  local argv=("$@")
  argv=("${argv[@]//@B@/$E2E_TMP/bundle}")
  run "$shim" "$spec" "${argv[@]}" >"$E2E_TMP/nvct.txt"
  run "$PEER_BIN/nvidia-container-runtime" "$spec" "${argv[@]}" >"$E2E_TMP/peer.txt"
  if same_file "$E2E_TMP/nvct.txt" "$E2E_TMP/peer.txt"; then
    same=$((same + 1))
    pass "$what"
    return
  fi
  if [ -n "$why" ] && grep -qF "$why" "$NVCT_SOURCE_DIR/docs/deviations.md"; then
    # The report's first two lines (exit, argv) stay as they are; the JSON goes through <filter>.
    { head -2 "$E2E_TMP/nvct.txt"; tail -n +3 "$E2E_TMP/nvct.txt" | jq -S "$filter"; } \
      >"$E2E_TMP/nvct.explained.txt"
    if same_file "$E2E_TMP/nvct.explained.txt" "$E2E_TMP/peer.txt"; then
      explained=$((explained + 1))
      pass "$what: differs as docs/deviations.md says ($why)"
      return
    fi
  fi
  failed "$what: --- NVIDIA / +++ nvct
$(diff -u "$E2E_TMP/peer.txt" "$E2E_TMP/nvct.txt" | tail -n +3 | head -60)"
}

spec() { # <env json array> [<extra top-level fields, a JSON object>]
  jq -cn --argjson env "$1" --argjson extra "${2:-{\}}" \
    '{"ociVersion":"1.0.2","process":{"user":{"uid":0,"gid":0},"args":["sh"],"env":$env,"cwd":"/"},
      "root":{"path":"rootfs"}} + $extra'
}
gpu='["PATH=/usr/bin:/bin","NVIDIA_VISIBLE_DEVICES=all"]'
containerd=(--root /run/containerd/runc/k8s.io --log @B@/log.json --log-format json create
  --bundle @B@ --pid-file @B@/init.pid ctr1)
docker=(--root /var/run/docker/runtime-runc/moby --log @B@/log.json --log-format json create
  --bundle @B@ --pid-file @B@/init.pid ctr1)
podman=(--systemd-cgroup --root /run/runc create --bundle @B@ --pid-file @B@/pidfile --console-socket
  /tmp/x.sock ctr1)

callers() { # <caller> <argv...>: the GPU cases with one engine's command line
  local caller="$1"
  shift
  compare "$caller create, all GPUs" "" "" "$(spec "$gpu")" "$@"
  compare "$caller create, GPU 0 compute,utility" "" "" \
    "$(spec '["PATH=/bin","NVIDIA_VISIBLE_DEVICES=0","NVIDIA_DRIVER_CAPABILITIES=compute,utility"]')" "$@"
}
callers containerd "${containerd[@]}"
callers docker "${docker[@]}"
callers podman "${podman[@]}"
compare "create, bundle from the cwd (no --bundle)" "" "" "$(spec "$gpu")" create ctr1
compare "create -b" "" "" "$(spec "$gpu")" create -b @B@ ctr1
compare "create --bundle=" "" "" "$(spec "$gpu")" create --bundle=@B@ ctr1
compare "create, NVIDIA_VISIBLE_DEVICES=none" "" "" "$(spec '["NVIDIA_VISIBLE_DEVICES=none"]')" \
  "${containerd[@]}"
compare "create, a UUID and requirements" "" "" \
  "$(spec '["NVIDIA_VISIBLE_DEVICES=GPU-0a1b","NVIDIA_REQUIRE_CUDA=cuda>=12.0","CUDA_VERSION=12.4.0"]')" \
  "${containerd[@]}"
compare "create, another prestart hook kept first" "" "" \
  "$(spec "$gpu" '{"hooks":{"prestart":[{"path":"/usr/bin/other-hook","args":["other-hook","x"]}],"poststop":[{"path":"/bin/true"}]}}')" \
  "${containerd[@]}"
compare "create, the NVIDIA hook already there (docker --gpus): not added twice" "" "" \
  "$(spec "$gpu" '{"hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-runtime-hook","args":["nvidia-container-runtime-hook","prestart"]}]}}')" \
  "${containerd[@]}"
compare "create, a hook named nvidia-container-toolkit already there" "" "" \
  "$(spec "$gpu" '{"hooks":{"prestart":[{"path":"/usr/bin/nvidia-container-toolkit","args":["nvidia-container-toolkit","prestart"]}]}}')" \
  "${containerd[@]}"
compare "create, createRuntime hooks and linux section kept" "" "" \
  "$(spec "$gpu" '{"hooks":{"createRuntime":[{"path":"/bin/true"}]},"linux":{"namespaces":[{"type":"mount"},{"type":"pid"}],"resources":{"devices":[{"allow":false,"access":"rwm"}]}},"annotations":{"io.kubernetes.cri.container-type":"container"}}')" \
  "${containerd[@]}"
# (written by hand: jq would turn the uint64 into a float, which nvct refuses, runtime.md §5.2)
compare "create, fields the runtime-spec does not define" "fields it does not know" 'del(.["x-unknown"])' \
  '{"ociVersion":"1.0.2","process":{"user":{"uid":0,"gid":0},"args":["sh"],"env":["NVIDIA_VISIBLE_DEVICES=all"],"cwd":"/"},"root":{"path":"rootfs"},"x-unknown":{"n":18446744073709551615}}' \
  "${containerd[@]}"
compare "create, no process.user" "fields it does not know" '.process.user = {"uid": 0, "gid": 0}' \
  '{"ociVersion":"1.0.2","process":{"args":["sh"],"env":["NVIDIA_VISIBLE_DEVICES=all"],"cwd":"/"},"root":{"path":"rootfs"}}' \
  "${containerd[@]}"
for novisible in '["PATH=/bin"]' '["NVIDIA_VISIBLE_DEVICES=void"]' '["NVIDIA_VISIBLE_DEVICES="]'; do
  compare "create, no GPU request ($novisible)" "without a GPU request" \
    '.hooks.prestart = [{"args": ["HOOK", "prestart"], "path": "HOOK"}]' "$(spec "$novisible")" \
    "${containerd[@]}"
done
for cmd in "state ctr1" "start ctr1" "kill ctr1 9" "delete --force ctr1" "features" "ps ctr1"; do
  # shellcheck disable=SC2086 # the command splits on purpose
  compare "pass-through: $cmd" "" "" "$(spec "$gpu")" --root /run/containerd/runc/k8s.io $cmd
done
echo "# conformance_shim: $cases cases: $same identical, $explained explained by docs/deviations.md"
e2e_finish
