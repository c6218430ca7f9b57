#!/usr/bin/env bash
# Issue 18, Faults: concurrent writers never lose either's change. FAULT_PAIRS (default 100)
# pairs of nvidia-ctk runs started together on the same file, in four rotating kinds:
#   docker      two `runtime configure --runtime=docker` with different runtime names (daemon.json)
#   containerd  two `runtime configure --runtime=containerd --drop-in-config ""` (config.toml)
#   crio        two `runtime configure --runtime=crio --drop-in-config ""` (crio.conf; the drop-in
#               itself is nvct's own file, rewritten whole by each run, so it is not a merge target)
#   config      two `config --in-place --set` of different keys (config.toml)
# After every pair both runs exited 0 and both changes are in the file; at the end no temp or
# lock file is left. The writers serialise their read-modify-write on the sidecar lock file
# (ctk/host_file.cpp, HostFileLock); without it one change is lost or a run fails.
source "$(dirname "$0")/lib.sh"
require_cmd jq
PAIRS="${FAULT_PAIRS:-100}"

RT="$FT/bin/nvidia-container-runtime"
mkdir -p "$FT/bin" "$FT/docker" "$FT/containerd" "$FT/crio" "$FT/ctk"
printf '#!/bin/sh\nexit 0\n' >"$RT"
chmod 0755 "$RT"
echo '{"log-driver": "json-file"}' >"$FT/docker/daemon.json"
printf 'version = 2\n\n[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]\n  runtime_type = "io.containerd.runc.v2"\n' \
  >"$FT/containerd/config.toml"
printf '[crio.runtime]\ndefault_runtime = "runc"\n' >"$FT/crio/crio.conf"
"$CTK" config default >"$FT/ctk/config.toml" 2>/dev/null

configure() { # <runtime> <name> <extra args...>
  local rt="$1" name="$2"
  shift 2
  "$CTK" --quiet runtime configure --runtime="$rt" --nvidia-runtime-name "$name" \
    --nvidia-runtime-path "$RT" "$@"
}
run_a() {
  case "$1" in
    docker) configure docker "a$2" --config "$FT/docker/daemon.json" ;;
    containerd) configure containerd "a$2" --config "$FT/containerd/config.toml" --drop-in-config "" ;;
    crio) configure crio "a$2" --config "$FT/crio/crio.conf" --drop-in-config "" ;;
    config) "$CTK" --quiet config --in-place --config "$FT/ctk/config.toml" --set "nvidia-container-cli.debug=/a$2" ;;
  esac
}
run_b() {
  case "$1" in
    docker) configure docker "b$2" --config "$FT/docker/daemon.json" ;;
    containerd) configure containerd "b$2" --config "$FT/containerd/config.toml" --drop-in-config "" ;;
    crio) configure crio "b$2" --config "$FT/crio/crio.conf" --drop-in-config "" ;;
    config) "$CTK" --quiet config --in-place --config "$FT/ctk/config.toml" --set "nvidia-container-runtime.debug=/b$2" ;;
  esac
}
has_both() {
  case "$1" in
    docker) jq -e --arg a "a$2" --arg b "b$2" '.runtimes[$a] and .runtimes[$b]' "$FT/docker/daemon.json" ;;
    containerd) grep -q "runtimes.a$2]" "$FT/containerd/config.toml" && grep -q "runtimes.b$2]" "$FT/containerd/config.toml" ;;
    crio) grep -q "runtimes.a$2]" "$FT/crio/crio.conf" && grep -q "runtimes.b$2]" "$FT/crio/crio.conf" ;;
    config) grep -q "^debug = \"/a$2\"" "$FT/ctk/config.toml" && grep -q "^debug = \"/b$2\"" "$FT/ctk/config.toml" ;;
  esac
}

kinds=(docker containerd crio config)
failed_runs=0 lost=0
for i in $(seq "$PAIRS"); do
  kind="${kinds[$((i % 4))]}"
  rc_a=0 rc_b=0
  run_a "$kind" "$i" 2>>"$FT/a.err" &
  pid_a=$!
  run_b "$kind" "$i" 2>>"$FT/b.err" &
  pid_b=$!
  wait "$pid_a" || rc_a=$?
  wait "$pid_b" || rc_b=$?
  if [ "$rc_a" -ne 0 ] || [ "$rc_b" -ne 0 ]; then
    failed_runs=$((failed_runs + 1))
    echo "# pair $i ($kind): exit $rc_a and $rc_b"
  fi
  if ! has_both "$kind" "$i" >/dev/null 2>&1; then
    lost=$((lost + 1))
    echo "# pair $i ($kind): a change was lost"
  fi
done
echo "# pairs=$PAIRS failed-runs=$failed_runs lost-changes=$lost"
[ "$failed_runs" -eq 0 ] || sed 's/^/#   /' "$FT/a.err" "$FT/b.err" | sort -u | head -5
check_eq "every run of every pair exited 0" 0 "$failed_runs"
check_eq "no pair lost a change" 0 "$lost"
check_eq "daemon.json holds every runtime of every docker pair" \
  "$((2 * $(seq "$PAIRS" | awk '$1 % 4 == 0' | wc -l)))" "$(jq '.runtimes | length' "$FT/docker/daemon.json")"
for d in docker containerd crio ctk; do
  check_eq "$d: no temp or lock file left" "" "$(ls -A "$FT/$d" | grep '^\.' || true)"
done
e2e_finish
