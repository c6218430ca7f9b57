#!/usr/bin/env bash
# `nvidia-ctk runtime configure --runtime=docker --dry-run` of nvct and of the toolkit 1.13.1 on
# the same daemon.json inputs (missing, unrelated keys, an existing nvidia and another runtime),
# with and without --set-as-default and --nvidia-runtime-name: the printed file must be equal.
# An empty (0-byte) daemon.json is the documented difference (docs/deviations.md): the toolkit
# fails with "unable to load config: EOF", nvct takes it as {}.
# CRI-O: 1.13.1 prints nothing for a --dry-run and always edits the file given with --config, so
# both edit a copy of the same input for real (nvct with --drop-in-config=, its in-place mode:
# by default it writes /etc/crio/crio.conf.d/99-nvidia.toml as the later toolkit does) and the
# files must hold the same TOML (1.13.1 re-serialises the file, nvct edits it line by line, so
# they are compared parsed). Where an input already has runtimes the two base the new entry on
# different ones (docs/deviations.md, "options copied from"): the rest of the file must then
# still be equal.
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

# CRI-O
require_cmd python3
toml_json() { # <file>: the TOML document as sorted JSON ("absent" when there is no file)
  if [ -f "$1" ]; then
    python3 -c 'import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], "rb")), sort_keys=True))' "$1"
  else
    echo absent
  fi
}
grep -qF "options copied from" "$NVCT_SOURCE_DIR/docs/deviations.md" ||
  e2e_die "docs/deviations.md does not list the CRI-O difference this test allows (options copied from)"
: >"$d/empty.conf"
printf '# CRI-O config\n[crio]\nlog_dir = "/var/log/crio/pods"\n\n[crio.runtime]\ndefault_runtime = "runc"\nconmon = "/usr/bin/conmon"\n\n[crio.runtime.runtimes.runc]\nruntime_path = "/usr/bin/runc"\nruntime_type = "oci"\nruntime_root = "/run/runc"\n' \
  >"$d/unrelated.conf"
printf '[crio.runtime]\ndefault_runtime = "crun"\n[crio.runtime.runtimes.crun]\nruntime_path = "/usr/bin/crun"\nruntime_type = "oci"\nruntime_root = "/run/crun"\nmonitor_path = "/usr/libexec/crio/conmon"\n[crio.runtime.runtimes.nvidia]\nruntime_path = "/old/nvidia-container-runtime"\nruntime_type = "vm"\nprivileged_without_host_devices = true\n' \
  >"$d/existing.conf"
crio_cases=0
for f in missing.conf empty.conf unrelated.conf existing.conf; do
  for extra in "" --set-as-default --nvidia-runtime-name=gpu; do
    crio_cases=$((crio_cases + 1))
    name=nvidia
    [ "$extra" = --nvidia-runtime-name=gpu ] && name=gpu
    rm -f "$E2E_TMP/peer.conf" "$E2E_TMP/nvct.conf"
    [ -f "$d/$f" ] && cp "$d/$f" "$E2E_TMP/peer.conf" && cp "$d/$f" "$E2E_TMP/nvct.conf"
    # shellcheck disable=SC2086 # $extra is one option or none
    "$PEER_BIN/nvidia-ctk" runtime configure --runtime=crio --config="$E2E_TMP/peer.conf" \
      --runtime-path="$PEER_BIN/nvidia-container-runtime" $extra >"$E2E_TMP/peer.log" 2>&1 ||
      failed "crio $f $extra: NVIDIA's configure failed: $(tail -2 "$E2E_TMP/peer.log")"
    # shellcheck disable=SC2086
    "$ctk" runtime configure --runtime=crio --config="$E2E_TMP/nvct.conf" --drop-in-config= \
      --runtime-path="$PEER_BIN/nvidia-container-runtime" $extra >"$E2E_TMP/nvct.log" 2>&1 ||
      failed "crio $f $extra: nvct's configure failed: $(tail -2 "$E2E_TMP/nvct.log")"
    want="$(toml_json "$E2E_TMP/peer.conf")"
    got="$(toml_json "$E2E_TMP/nvct.conf")"
    if [ "$want" = "$got" ]; then
      pass "crio $f ${extra:-(defaults)}: same TOML as the toolkit's"
    elif [ "$f" = existing.conf ]; then
      # shellcheck disable=SC2016 # $n is jq's --arg
      rest='del(.crio.runtime.runtimes[$n])'
      check_eq "crio $f ${extra:-(defaults)}: only the $name entry's options differ (docs/deviations.md: options copied from)" \
        "$(jq -cS --arg n "$name" "$rest" <<<"$want")" "$(jq -cS --arg n "$name" "$rest" <<<"$got")"
    else
      check_eq "crio $f ${extra:-(defaults)}: same TOML as the toolkit's" "$want" "$got"
    fi
  done
done
echo "# conformance_ctk: $cases docker cases and $crio_cases CRI-O cases compared"
e2e_finish
