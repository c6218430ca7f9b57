#!/usr/bin/env bash
# WSL2 on the mock driver (topologies/wsl.conf: libdxcore.so, one driver store, /dev/dxg, no
# Linux driver). `nvidia-ctk cdi generate --mode wsl` (yaml and json, content checked with
# python3's json), mode auto picking wsl on that root, the errors without a store or /dev/dxg;
# then real containers through the nvct shim and runc: cdi mode with the generated spec
# (nvidia.com/gpu=all) and jit-cdi mode (the in-memory spec of mode auto, NVIDIA_VISIBLE_DEVICES=
# all), and the runtime's own auto mode. Inside each container: /dev/dxg is a char device, the
# store files are there, /usr/bin/nvidia-smi links into the store, and the container's
# ld.so.cache resolves libcuda.so.1 and libdxcore.so to the store and /usr/lib/wsl/lib.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"

require_root
require_cmd runc jq python3
CTK="$(nvct_bin nvidia-ctk)"
CDI_HOOK="$(nvct_bin nvidia-cdi-hook)"
SHIM="$(shim_bin)"
ROOT="$E2E_TMP/wsl-root"
STORE=/usr/lib/wsl/drivers/nv_dispi.inf_amd64_5b2a7c0e9d1f4a36
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/wsl.conf" --out "$ROOT" \
  >"$E2E_TMP/make-root.log" 2>&1 ||
  e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make-root.log")"
[ -c "$ROOT/dev/dxg" ] || e2e_die "mock WSL root has no /dev/dxg character device"

# --- cdi generate ---------------------------------------------------------------------------
gen() { "$CTK" cdi generate --driver-root "$ROOT" --dev-root "$ROOT" "$@"; }
gen --mode wsl --format json --nvidia-cdi-hook-path "$CDI_HOOK" >"$E2E_TMP/wsl.json" \
  2>"$E2E_TMP/wsl.err" || e2e_die "cdi generate --mode wsl failed: $(cat "$E2E_TMP/wsl.err")"
# One line per fact, so the expected text below is the whole content.
summarize() {
  python3 - "$1" "$CDI_HOOK" "$ROOT" <<'PY'
import json, sys
spec = json.load(open(sys.argv[1]))
hook, root = sys.argv[2], sys.argv[3]
print("version", spec["cdiVersion"], "kind", spec["kind"])
for d in spec["devices"]:
    for n in d["containerEdits"]["deviceNodes"]:
        print("device", d["name"], n["path"], n.get("hostPath", "").replace(root, "ROOT"),
              n.get("type"), n.get("major"), n.get("minor"))
    assert set(d["containerEdits"]) == {"deviceNodes"}, d
e = spec["containerEdits"]
print("env", *e["env"])
for h in e["hooks"]:
    assert h["path"] == hook and h["env"] == ["NVIDIA_CTK_DEBUG=false"], h
    print("hook", h["hookName"], *h["args"][1:])
for m in e["mounts"]:
    assert m["options"] == ["ro", "nosuid", "nodev", "rbind", "rprivate"], m
    assert m["hostPath"] == root + m["containerPath"], m
    print("mount", m["containerPath"])
print("keys", *sorted(e))
PY
}
S="$STORE"
want="version 0.5.0 kind nvidia.com/gpu
device all /dev/dxg ROOT/dev/dxg c 10 63
env NVIDIA_VISIBLE_DEVICES=void
hook createContainer create-symlinks --link $S/nvidia-smi::/usr/bin/nvidia-smi --link libcuda.so.1.1::$S/libcuda.so.1
hook createContainer update-ldcache --folder $S --folder /usr/lib/wsl/lib
mount $S/libcuda.so.1.1
mount $S/libcuda_loader.so
mount $S/libnvidia-ptxjitcompiler.so.1
mount $S/libnvidia-ml.so.1
mount $S/libnvidia-ml_loader.so
mount $S/libnvdxgdmal.so.1
mount $S/nvcubins.bin
mount $S/nvidia-smi
mount /usr/lib/wsl/lib/libdxcore.so
keys env hooks mounts"
check_eq "wsl spec content (json)" "$want" "$(summarize "$E2E_TMP/wsl.json" 2>&1)"

gen --mode wsl --nvidia-cdi-hook-path "$CDI_HOOK" --output "$E2E_TMP/spec/nvidia.yaml" \
  2>"$E2E_TMP/yaml.err" || failed "cdi generate --mode wsl --output .yaml failed: $(cat "$E2E_TMP/yaml.err")"
check_eq "yaml output starts with the header and cdiVersion" "--- cdiVersion: 0.5.0" \
  "$(head -2 "$E2E_TMP/spec/nvidia.yaml" | tr '\n' ' ' | sed 's/ $//')"
check_eq "cdi list of the yaml spec" "nvidia.com/gpu=all" \
  "$("$CTK" cdi list --spec-dir "$E2E_TMP/spec" 2>/dev/null)"
gen --format json --nvidia-cdi-hook-path "$CDI_HOOK" >"$E2E_TMP/auto.json" 2>"$E2E_TMP/auto.err" ||
  failed "cdi generate (mode auto) failed on the WSL root: $(cat "$E2E_TMP/auto.err")"
check "mode auto gives the wsl spec on a WSL root" cmp -s "$E2E_TMP/wsl.json" "$E2E_TMP/auto.json"
gen --mode wsl --format json --disable-hook create-symlinks >"$E2E_TMP/nolinks.json" 2>/dev/null ||
  failed "cdi generate --disable-hook create-symlinks failed"
check_eq "--disable-hook create-symlinks leaves update-ldcache" "update-ldcache" \
  "$(python3 -c 'import json,sys; print(*[h["args"][1] for h in json.load(open(sys.argv[1]))["containerEdits"]["hooks"]])' "$E2E_TMP/nolinks.json")"
mkdir -p "$E2E_TMP/empty-dev"
if "$CTK" cdi generate --mode wsl --driver-root "$ROOT" --dev-root "$E2E_TMP/empty-dev" \
  >/dev/null 2>"$E2E_TMP/nodxg.err"; then
  failed "--mode wsl without /dev/dxg should fail"
else
  check_contains "no /dev/dxg is named" "WSL device node /dev/dxg not found: $E2E_TMP/empty-dev/dev/dxg" \
    "$(cat "$E2E_TMP/nodxg.err")"
fi
mkdir -p "$E2E_TMP/nostore/usr/lib/wsl/lib"
cp "$ROOT/usr/lib/wsl/lib/libdxcore.so" "$E2E_TMP/nostore/usr/lib/wsl/lib/"
if "$CTK" cdi generate --mode wsl --driver-root "$E2E_TMP/nostore" --dev-root "$ROOT" \
  >/dev/null 2>"$E2E_TMP/nostore.err"; then
  failed "--mode wsl without a driver store should fail"
else
  check_contains "no driver store names the directory" \
    "no NVIDIA WSL driver store found: no directory under $E2E_TMP/nostore/usr/lib/wsl/drivers" \
    "$(cat "$E2E_TMP/nostore.err")"
fi

# --- containers ---------------------------------------------------------------------------------
STATE="$E2E_TMP/runc-state"
mkdir -p "$STATE"
e2e_on_exit "for c in \$(runc --root '$STATE' list -q 2>/dev/null); do runc --root '$STATE' delete --force \$c; done"
write_config() { # <mode> -> path
  local file="$E2E_TMP/config-$1.toml"
  cat >"$file" <<TOML
[nvidia-container-cli]
root = "$ROOT"

[nvidia-container-runtime]
debug = "$E2E_TMP/shim-debug.log"
mode = "$1"
runtimes = ["runc"]

[nvidia-container-runtime.modes.cdi]
spec-dirs = ["$E2E_TMP/spec"]

[nvidia-ctk]
path = "$CTK"
TOML
  echo "$file"
}
REPORT='
[ -c /dev/dxg ] && echo "dxg $(stat -c "%t:%T" /dev/dxg)"
for f in libcuda.so.1.1 libnvidia-ml.so.1 libnvdxgdmal.so.1 nvcubins.bin nvidia-smi; do
  [ -f '"$STORE"'/$f ] && echo "store $f"
done
[ -f /usr/lib/wsl/lib/libdxcore.so ] && echo "dxcore"
echo "smi $(readlink /usr/bin/nvidia-smi)"
echo "libcuda.so.1 $(readlink '"$STORE"'/libcuda.so.1)"
/sbin/ldconfig -p | sed -n "s/^[[:space:]]*\(libcuda.so.1\|libdxcore.so\|libnvidia-ml.so.1\) (.*) => \(.*\)$/ld \1 \2/p" | sort
echo done
'
want_report="dxg a:3f
store libcuda.so.1.1
store libnvidia-ml.so.1
store libnvdxgdmal.so.1
store nvcubins.bin
store nvidia-smi
dxcore
smi $STORE/nvidia-smi
libcuda.so.1 libcuda.so.1.1
ld libcuda.so.1 $STORE/libcuda.so.1
ld libdxcore.so /usr/lib/wsl/lib/libdxcore.so
ld libnvidia-ml.so.1 $STORE/libnvidia-ml.so.1
done"

# run_case <name> <mode> <NVIDIA_VISIBLE_DEVICES>
run_case() {
  local name="$1" mode="$2" b="$E2E_TMP/b-$1" rc=0
  : >"$E2E_TMP/shim-debug.log"
  make_bundle "$b" glibc sh /report.sh
  printf '%s' "$REPORT" >"$b/rootfs/report.sh"
  bundle_set_env "$b" "NVIDIA_VISIBLE_DEVICES=$3"
  NVIDIA_CTK_CONFIG_FILE_PATH="$(write_config "$mode")" timeout 120 "$SHIM" --root "$STATE" \
    run --bundle "$b" "$name" </dev/null >"$E2E_TMP/$name.out" 2>"$E2E_TMP/$name.err" || rc=$?
  runc --root "$STATE" delete --force "$name" >/dev/null 2>&1 || true
  if [ "$rc" -ne 0 ]; then
    failed "$name: container failed (rc $rc): $(tr '\n' ' ' <"$E2E_TMP/$name.err")"
    return
  fi
  check_eq "$name: /dev/dxg, store files, nvidia-smi link, ld.so.cache" "$want_report" \
    "$(cat "$E2E_TMP/$name.out")"
  cp "$E2E_TMP/shim-debug.log" "$E2E_TMP/$name.log"
}
run_case wsl-cdi cdi nvidia.com/gpu=all
run_case wsl-jit jit-cdi all
run_case wsl-auto auto all
check_contains "jit-cdi: edits came from the in-memory spec" "applying JIT CDI edits for devices [all]" \
  "$(cat "$E2E_TMP/wsl-jit.log" 2>/dev/null)"
check_contains "the runtime's auto mode resolved to jit-cdi (dxcore in the root's ld.so.cache)" \
  "mode auto resolved to jit-cdi" "$(cat "$E2E_TMP/wsl-auto.log" 2>/dev/null)"

e2e_finish
