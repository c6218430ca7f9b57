#!/usr/bin/env bash
# `nvidia-ctk runtime configure --runtime=docker --dry-run` of nvct and of the toolkit 1.13.1 on
# the same daemon.json inputs (missing, unrelated keys, an existing nvidia and another runtime),
# with and without --set-as-default and --nvidia-runtime-name: the printed file must be equal.
# An empty (0-byte) daemon.json is the documented difference (docs/deviations.md): the toolkit
# fails with "unable to load config: EOF", nvct takes it as {}. (1.13.1 prints nothing for a
# CRI-O --dry-run, so CRI-O has no counterpart here; e2e_ctk_runtime_matrix_docker_crio covers it.)
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/lib/peers.sh"
require_cmd jq
peers_require
ctk="$(nvct_bin nvidia-ctk)"
d="$E2E_TMP/in"
mkdir -p "$d"
printf '{"log-level":"warn","runtimes":{"custom":{"path":"/usr/bin/custom"}},"data-root":"/srv/docker"}\n' \
  >"$d/unrelated.json"
printf '{"runtimes":{"nvidia":{"path":"/old/nvidia-container-runtime","args":["--x"]}},"default-runtime":"runc"}\n' \
  >"$d/existing.json"
printf '{\n  "default-runtime": "runc",\n  "features": {"cdi": true}\n}\n' >"$d/features.json"
cases=0
for f in missing.json unrelated.json existing.json features.json; do
  for extra in "" --set-as-default --nvidia-runtime-name=gpu; do
    cases=$((cases + 1))
    # Both look the runtime up in PATH (dockerd does): give them the same PATH.
    want="$(PATH="$PEER_BIN:$PATH" "$PEER_BIN/nvidia-ctk" runtime configure --runtime=docker \
      --dry-run --config="$d/$f" $extra 2>/dev/null)" || true
    got="$(PATH="$PEER_BIN:$PATH" "$ctk" runtime configure --runtime=docker --dry-run \
      --config="$d/$f" $extra 2>/dev/null)" || true
    check_eq "docker $f ${extra:-(defaults)}: same file as the toolkit's" "$want" "$got"
  done
done
: >"$d/empty.json"
peer_err="$("$PEER_BIN/nvidia-ctk" runtime configure --runtime=docker --dry-run --config="$d/empty.json" 2>&1 >/dev/null || true)"
check_contains "empty daemon.json: the toolkit fails as docs/deviations.md says" "unable to load config: EOF" "$peer_err"
check "empty daemon.json: the deviation is listed" grep -qF "unable to load config: EOF" \
  "$NVCT_SOURCE_DIR/docs/deviations.md"
check_eq "empty daemon.json: nvct writes the runtime as for {}" \
  "$(PATH="$PEER_BIN:$PATH" "$ctk" runtime configure --runtime=docker --dry-run --config="$d/missing.json" 2>/dev/null)" \
  "$(PATH="$PEER_BIN:$PATH" "$ctk" runtime configure --runtime=docker --dry-run --config="$d/empty.json" 2>/dev/null)"
echo "# conformance_ctk: $cases docker cases compared"
e2e_finish
