#!/usr/bin/env bash
# bench_table (issue 19): one table, nvct next to the physical floors and NVIDIA's own binaries,
# all measured in the same run, interleaved (nvct, floor and peer take turns in a rotating
# order), medians of NVCT_BENCH_RUNS runs (default 30; ctest runs a reduced set).
#
#   figure | nvct | floor | peer | nvct - floor | nvct / peer | target
#
# Binaries: stripped copies of the build's programs, on the disk (NVCT_BENCH_DISK_DIR) as the floor
# programs and the peers are (the ci preset compiles with the packages'
# flags: -O2 and Debian's hardening, from dpkg-buildflags; it links without their -z relro/now). Peers: NVCT_PEER_DIR or ../shared/peers next to the source tree
# (NVIDIA toolkit 1.13.1, libnvidia-container 1.17.0, see its README); without them the peer
# column says "n/a" and the run says so. Floors:
#   - exec floor: a static program that only execve's the runtime (nvct-exec-floor), in front of
#     a static no-op runtime: what any exec-based shim costs at least;
#   - runc: a bare `runc create` (then `runc delete`, untimed) for the no-GPU container;
#   - binds: N read-only bind mounts (bind + remount) into the container's mount namespace by a
#     minimal C program (nvct-bind-floor), N = the mounts the nvct hook made;
#   - ldconfig: the host's /sbin/ldconfig -r on a rootfs that holds the same libraries (warm
#     aux-cache: the fastest ldconfig can be);
#   - hook/cli total floor = binds + ldconfig; info/list/ctk floor = one static exec (no-op).
# The shim, info, list and cdi generate rows use the mock root of the largest GPU count (16, or 8
# with NVCT_BENCH_QUICK): the shim reads every GPU's /proc information file for its device rules.
# Knobs: NVCT_BENCH_RUNS (30), NVCT_BENCH_GPUS ("1 2 4 8 16"), NVCT_BENCH_QUICK=1 (CI: fewer
# rows: GPUs "1 8", shim legacy and no-GPU only), NVCT_PEER_DIR, NVCT_BENCH_DISK_DIR (a
# directory on a disk for the disk-bundle rows; default under the build dir).
# Reporting only: it fails when a program fails, never on a timing.
source "$(dirname "$0")/../../tests/e2e/lib/common.sh"
source "$(dirname "$0")/../../tests/e2e/lib/rootfs.sh"

require_root
require_cmd unshare busybox awk strip runc jq
[ -d /sys/fs/cgroup/devices ] || e2e_die "no cgroup v1 devices hierarchy on this host"

runs="${NVCT_BENCH_RUNS:-30}"
quick="${NVCT_BENCH_QUICK:-}"
gpus="${NVCT_BENCH_GPUS:-1 2 4 8 16}"
[ -z "$quick" ] || gpus="${NVCT_BENCH_GPUS:-1 8}"
peers="${NVCT_PEER_DIR:-$NVCT_SOURCE_DIR/../shared/peers}"
have_peers=1
for p in nvidia-container-runtime nvidia-container-runtime-hook nvidia-ctk nvidia-container-cli; do
  [ -x "$peers/bin/$p" ] || have_peers=""
done
T="$E2E_TMP"
mkdir -p "$T/s"
mount -t tmpfs -o size=1g nvct-bench-table "$T" 2>/dev/null && e2e_on_exit "umount -l '$T'"
mkdir -p "$T/s"
# The disk directory holds the disk-bundle rows and the stripped nvct binaries. The binaries sit
# on the disk, as installed ones do in /usr/bin, and as the floor programs and the peers do: a
# program exec'd from tmpfs costs about 0.15 ms more per run on this VM than the same file on
# ext4 (its pages are faulted in one at a time rather than in large folios). Measured with the
# nvct shim, no GPU: 0.89 ms from ext4, 1.04-1.07 ms from tmpfs.
disk="${NVCT_BENCH_DISK_DIR:-$NVCT_BUILD_DIR/bench-table-disk}"
rm -rf "$disk" && mkdir -p "$disk/bin" && e2e_on_exit "rm -rf '$disk'"

# --- programs ---------------------------------------------------------------------------------
for p in nvidia-container-runtime nvidia-container-runtime-hook nvidia-container-cli nvidia-ctk \
  nvidia-container-runtime-nvml nvidia-cdi-hook; do
  src="$(nvct_bin "$p")" || e2e_die "$p is not built"
  strip -o "$disk/bin/$p" "$src" || e2e_die "strip $src failed"
done
tool() {
  local t="$NVCT_BUILD_DIR/bench/$1"
  [ -x "$t" ] || e2e_die "$t is not built (cmake --build $NVCT_BUILD_DIR --target $(basename "$1"))"
  echo "$t"
}
timed="$(tool table/nvct-run-timed)"
bindfloor="$(tool table/nvct-bind-floor)"
noop="$(tool shim/nvct-noop-runtime)"
execfloor="$(tool shim/nvct-exec-floor)"
N="$disk/bin"

# --- sampling ----------------------------------------------------------------------------------
# sample FIGURE WHO CMD...: one timed run (stdin: $SAMPLE_IN or /dev/null); appends ms to
# $T/s/FIGURE.WHO and the peak RSS in KiB to $T/s/FIGURE.WHO.rss.
sample() {
  local fig="$1" who="$2" rc=0
  shift 2
  "$timed" "$T/t" "$@" >/dev/null 2>"$T/err" <"${SAMPLE_IN:-/dev/null}" || rc=$?
  if [ "$rc" != 0 ]; then
    if [ "$who" = peer ]; then echo "peer failed: $fig: $(tail -2 "$T/err")" >>"$T/peer-failures"; return 0; fi
    e2e_die "$fig ($who) failed (exit $rc): $(tail -3 "$T/err")"
  fi
  awk '{ printf "%.4f\n", $1 / 1000 }' "$T/t" >>"$T/s/$fig.$who"
  awk '{ print $2 }' "$T/t" >>"$T/s/$fig.$who.rss"
}
add_ms() { echo "$3" >>"$T/s/$1.$2"; }
median_of() {
  [ -s "$1" ] || { echo nan; return; }
  sort -g "$1" | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
# order I: the rotation of the three contenders for run I.
order() { case $(( $1 % 3 )) in 0) echo "nvct floor peer" ;; 1) echo "floor peer nvct" ;; *) echo "peer nvct floor" ;; esac; }

# --- mock driver roots and rootfs ---------------------------------------------------------------
topology() {  # topology N > file: N H100s, minors and buses distinct
  local n="$1" i
  printf 'driver_version = 550.54.14\ncuda_version = 12040\nimex_channels = 2\nfabricmanager = yes\n'
  for ((i = 0; i < n; i++)); do
    printf 'gpu = minor=%d; bus=00000000:%02x:00.0; uuid=GPU-8a8a8a8a-0000-4000-8000-%012d; model=NVIDIA H100 80GB HBM3; brand=Nvidia; arch=9.0; pci_device_id=0x233010de; mig=disabled\n' \
      "$i" $((16 + 8 * i)) "$i"
  done
}
for g in $gpus; do
  topology "$g" >"$T/topo-$g.conf"
  bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$T/topo-$g.conf" --out "$T/drv$g" >"$T/make.log" 2>&1 ||
    e2e_die "make-driver-root.sh failed: $(tail -5 "$T/make.log")"
done
g_max="${gpus##* }"
make_bundle "$T/tpl" glibc true
bundle_set_env "$T/tpl" NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=utility,compute
# The ldconfig floor's rootfs: the template plus the driver's libraries, as after the mounts.
cp -a "$T/tpl/rootfs" "$T/ldroot"
cp -a "$T/drv$g_max/usr/lib/x86_64-linux-gnu/." "$T/ldroot/usr/lib/x86_64-linux-gnu/"
/sbin/ldconfig -r "$T/ldroot" 2>/dev/null || true

cg_n=0
start_container() {  # start_container ROOTFS: CPID, CG
  cg_n=$((cg_n + 1))
  CG="/sys/fs/cgroup/devices/nvct-bench-table-$$-$cg_n"
  mkdir "$CG" && echo a >"$CG/devices.deny"
  unshare -m --propagation private sh -c "echo \$\$ >'$CG/cgroup.procs' &&
    mount --bind '$1' '$1' && mount -t proc proc '$1/proc' && mount -t tmpfs tmpfs '$1/proc/driver' &&
    mkdir -p '$1/proc/driver/nvidia' && : >'$T/ready-$cg_n' && exec sleep 600" &
  CPID=$!
  local _
  # Ready once its mounts are made (the marker is written after them).
  for _ in $(seq 500); do [ -e "$T/ready-$cg_n" ] && { rm -f "$T/ready-$cg_n"; return; }; sleep 0.005; done
  e2e_die "the stand-in container did not start"
}
stop_container() {
  kill -9 "$CPID" 2>/dev/null; wait "$CPID" 2>/dev/null || true
  local _ p
  for _ in $(seq 100); do
    rmdir "$CG" 2>/dev/null && return
    for p in $(cat "$CG/cgroup.procs" 2>/dev/null); do kill -9 "$p" 2>/dev/null || true; done
    sleep 0.01
  done
  e2e_die "cannot remove $CG: left in it: $(cat "$CG/cgroup.procs" | xargs -r ps -o pid=,args= -p)"
}
fresh_bundle() { rm -rf "$T/b"; mkdir -p "$T/b"; cp "$T/tpl/config.json" "$T/b/"; cp -a "$T/tpl/rootfs" "$T/b/rootfs"; }
state() { printf '{"ociVersion":"1.0.2","id":"bench","status":"creating","pid":%d,"bundle":"%s"}' "$CPID" "$T/b" >"$T/state.json"; }

# --- hook prestart and cli configure, G GPUs -----------------------------------------------------
hook_row() {
  local g="$1" i who
  cat >"$T/hook-$g.toml" <<TOML
[nvidia-container-cli]
root = "$T/drv$g"
ldconfig = "@/sbin/ldconfig"
[nvidia-container-runtime]
mode = "legacy"
TOML
  cat >"$T/peer-hook-$g.toml" <<TOML
[nvidia-container-cli]
root = "$T/drv$g"
path = "$peers/bin/nvidia-container-cli"
load-kmods = false
ldconfig = "@/sbin/ldconfig"
[nvidia-container-runtime]
mode = "legacy"
TOML
  # One untimed nvct run first: warms the caches and counts the mounts the floor makes.
  fresh_bundle; start_container "$T/b/rootfs"; state
  local before mounts
  before="$(wc -l <"/proc/$CPID/mountinfo")"
  (cd "$T/b" && "$N/nvidia-container-runtime-hook" -config "$T/hook-$g.toml" prestart <"$T/state.json" >/dev/null 2>"$T/err") ||
    e2e_die "nvct hook failed on $g GPUs: $(tail -3 "$T/err")"
  mounts=$(( $(wc -l <"/proc/$CPID/mountinfo") - before ))
  stop_container
  for i in $(seq "$runs"); do
    for who in $(order "$i"); do
      # hook prestart
      fresh_bundle; start_container "$T/b/rootfs"; state
      case "$who" in
        nvct)
          (cd "$T/b" && SAMPLE_IN="$T/state.json" sample "hook$g" nvct "$N/nvidia-container-runtime-hook" -debug -config "$T/hook-$g.toml" prestart) ||
            e2e_die "nvct hook failed"
          local line; line="$(grep -o 'configure timing: .*' "$T/err")" || e2e_die "no 'configure timing' line in the hook's debug output"
          echo "$line" | awk -v d="$T/s/hook$g" '{ for (i = 3; i <= NF; i++) { split($i, kv, "="); sub(/ms$/, "", kv[2]); print kv[2] >> (d "-" kv[1] ".nvct") } }'
          ;;
        peer)
          if [ -n "$have_peers" ]; then
            (cd "$T/b" && SAMPLE_IN="$T/state.json" PATH="$peers/bin:$PATH" sample "hook$g" peer "$peers/bin/nvidia-container-runtime-hook" -config "$T/peer-hook-$g.toml" prestart)
          fi
          ;;
        floor)
          sample "hook$g-mounts" floor "$bindfloor" "$CPID" "$T/b/rootfs" "$T/drv$g/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14" "$mounts"
          sample "hook$g-ldconfig" floor /sbin/ldconfig -r "$T/ldroot" -f /etc/ld.so.conf -C /etc/ld.so.cache /usr/lib/x86_64-linux-gnu
          add_ms "hook$g" floor "$(awk -v a="$(tail -1 "$T/s/hook$g-mounts.floor")" -v b="$(tail -1 "$T/s/hook$g-ldconfig.floor")" 'BEGIN { printf "%.4f", a + b }')"
          ;;
      esac
      stop_container
      # nvidia-container-cli configure (the floor is the hook's)
      if [ "$who" = floor ]; then continue; fi
      fresh_bundle; start_container "$T/b/rootfs"
      local cli="$N/nvidia-container-cli"
      if [ "$who" = peer ]; then cli="$peers/bin/nvidia-container-cli"; fi
      if [ "$who" = nvct ] || [ -n "$have_peers" ]; then
        sample "cli$g" "$who" "$cli" --root "$T/drv$g" configure --ldconfig=@/sbin/ldconfig --device=all --compute --utility "--pid=$CPID" "$T/b/rootfs"
      fi
      stop_container
    done
  done
  MOUNTS[$g]="$mounts"
}

# --- info, list, nvidia-ctk ---------------------------------------------------------------------
misc_rows() {
  local i who d="$T/drv$g_max"
  echo '{}' >"$T/daemon.json"
  for i in $(seq "$runs"); do
    for who in $(order "$i"); do
      case "$who" in
        nvct)
          sample info nvct "$N/nvidia-container-cli" --root "$d" info
          sample list nvct "$N/nvidia-container-cli" --root "$d" list
          sample cdigen nvct "$N/nvidia-ctk" cdi generate --driver-root "$d" --output "$T/nvct.yaml"
          sample rtconf nvct "$N/nvidia-ctk" runtime configure --runtime=docker --dry-run "--config=$T/daemon.json"
          sample cfgdef nvct "$N/nvidia-ctk" config default
          ;;
        floor)
          for f in info list cdigen rtconf cfgdef; do sample "$f" floor "$noop"; done
          ;;
        peer)
          if [ -z "$have_peers" ]; then continue; fi
          sample info peer "$peers/bin/nvidia-container-cli" --root "$d" info
          sample list peer "$peers/bin/nvidia-container-cli" --root "$d" list
          LD_LIBRARY_PATH="$d/usr/lib/x86_64-linux-gnu" sample cdigen peer "$peers/bin/nvidia-ctk" cdi generate --driver-root "$d" --output "$T/peer.yaml"
          sample rtconf peer "$peers/bin/nvidia-ctk" runtime configure --runtime=docker --dry-run "--config=$T/daemon.json"
          ;;
      esac
    done
  done
}

# --- shim create ---------------------------------------------------------------------------------
shim_config() {  # shim_config FILE MODE RUNTIME
  cat >"$1" <<TOML
[nvidia-container-cli]
root = "$T/drv$g_max"
[nvidia-container-runtime]
mode = "$2"
runtimes = ["$3"]
[nvidia-container-runtime.modes.cdi]
spec-dirs = ["$T/cdi"]
[nvidia-container-runtime-hook]
path = "$N/nvidia-container-runtime-hook"
TOML
}
shim_row() {  # shim_row FIG MODE GPU(1/0) BUNDLE_DIR
  local fig="$1" mode="$2" gpu="$3" dir="$4" i who
  mkdir -p "$dir/sb/rootfs"
  local env='"PATH=/usr/bin:/bin"'
  case "$gpu" in
    all) env="$env,\"NVIDIA_VISIBLE_DEVICES=all\"" ;;
    cdi) env="$env,\"NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=all\"" ;;
  esac
  jq -c ".process.env = [$env] | .hooks = {}" "$T/tpl/config.json" >"$dir/config.orig"
  shim_config "$T/shim-$fig.toml" "$mode" "$noop"
  mkdir -p "$T/xdg-$fig/nvidia-container-runtime"
  shim_config "$T/xdg-$fig/nvidia-container-runtime/config.toml" "$mode" "$noop"
  for i in $(seq "$runs"); do
    for who in $(order "$i"); do
      # A new config.json each time, as the engines write it: containerd and Docker into a new
      # bundle, Podman after removing the old one (libpod saveSpec). Copying over the last
      # run's file instead truncates it, and ext4 (auto_da_alloc) starts writing the new data
      # out at close; the shim, which drops that inode when it replaces the file, then waits
      # for that write and frees its blocks: 1-3 ms on this VM's disk, a cost no engine causes.
      rm -f "$dir/sb/config.json"
      cp "$dir/config.orig" "$dir/sb/config.json"
      case "$who" in
        nvct) NVIDIA_CTK_CONFIG_FILE_PATH="$T/shim-$fig.toml" sample "$fig" nvct "$N/nvidia-container-runtime" create --bundle "$dir/sb" bench ;;
        floor) sample "$fig" floor "$execfloor" "$noop" create --bundle "$dir/sb" bench ;;
        peer)
          if [ -n "$have_peers" ] && [ "$mode" != jit-cdi ]; then
            XDG_CONFIG_HOME="$T/xdg-$fig" PATH="$peers/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
              sample "$fig" peer "$peers/bin/nvidia-container-runtime" create --bundle "$dir/sb" bench
          fi
          ;;
      esac
    done
  done
}
# No GPU, real runc: the shim in front of `runc create` against a bare `runc create`.
runc_row() {
  local fig=shim-nogpu-runc i who
  rm -rf "$T/rb"; mkdir -p "$T/rb"; cp -a "$T/tpl/rootfs" "$T/rb/rootfs"
  jq -c '.process.env = ["PATH=/bin"] | .process.args = ["true"]' "$T/tpl/config.json" >"$T/rb/config.orig"
  shim_config "$T/shim-runc.toml" legacy "$(command -v runc)"
  mkdir -p "$T/xdg-runc/nvidia-container-runtime"
  shim_config "$T/xdg-runc/nvidia-container-runtime/config.toml" legacy "$(command -v runc)"
  local rt="--root=$T/runc-state"
  for i in $(seq "$runs"); do
    for who in $(order "$i"); do
      cp "$T/rb/config.orig" "$T/rb/config.json"
      case "$who" in
        nvct) NVIDIA_CTK_CONFIG_FILE_PATH="$T/shim-runc.toml" sample "$fig" nvct "$N/nvidia-container-runtime" "$rt" create --bundle "$T/rb" "b$i$who" ;;
        floor) sample "$fig" floor "$(command -v runc)" "$rt" create --bundle "$T/rb" "b$i$who" ;;
        peer)
          if [ -n "$have_peers" ]; then
            XDG_CONFIG_HOME="$T/xdg-runc" PATH="$peers/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
              sample "$fig" peer "$peers/bin/nvidia-container-runtime" "$rt" create --bundle "$T/rb" "b$i$who"
          fi
          ;;
      esac
      runc "$rt" delete -f "b$i$who" >/dev/null 2>&1 || true
    done
  done
}

# --- run --------------------------------------------------------------------------------------
declare -A MOUNTS
start_s=$SECONDS
for g in $gpus; do hook_row "$g"; done
misc_rows
mkdir -p "$T/cdi"
"$N/nvidia-ctk" cdi generate --driver-root "$T/drv$g_max" --output "$T/cdi/nvidia.yaml" >/dev/null 2>&1 ||
  e2e_die "nvidia-ctk cdi generate failed"
shim_row shim-legacy legacy all "$T"
shim_row shim-legacy-disk legacy all "$disk"
shim_row shim-nogpu legacy none "$T"
if [ -z "$quick" ]; then
  shim_row shim-jit jit-cdi all "$T"
  shim_row shim-cdi cdi cdi "$T"
  shim_row shim-nogpu-disk legacy none "$disk"
fi
runc_row

# --- table ------------------------------------------------------------------------------------
row() {  # row LABEL FIG TARGET [NVCT_FILE_SUFFIX]
  local label="$1" fig="$2" target="$3"
  local n f p
  n="$(median_of "$T/s/$fig.nvct")"; f="$(median_of "$T/s/$fig.floor")"; p="$(median_of "$T/s/$fig.peer")"
  awk -v l="$label" -v n="$n" -v f="$f" -v p="$p" -v t="$target" 'BEGIN {
    ns = (n == "nan") ? "n/a" : sprintf("%.3f", n); fs = (f == "nan") ? "n/a" : sprintf("%.3f", f)
    ps = (p == "nan") ? "n/a" : sprintf("%.3f", p)
    d = (n == "nan" || f == "nan") ? "n/a" : sprintf("%+.3f", n - f)
    r = (n == "nan" || p == "nan" || p == 0) ? "n/a" : sprintf("%.2f", n / p)
    printf "| %-34s | %8s | %8s | %8s | %8s | %6s | %-22s |\n", l, ns, fs, ps, d, r, t }'
}
rss_row() {  # rss_row LABEL FIG TARGET
  local n p
  n="$(median_of "$T/s/$2.nvct.rss")"; p="$(median_of "$T/s/$2.peer.rss")"
  awk -v l="$1" -v n="$n" -v p="$p" -v t="$3" 'BEGIN {
    ns = (n == "nan") ? "n/a" : sprintf("%d", n); ps = (p == "nan") ? "n/a" : sprintf("%d", p)
    r = (n == "nan" || p == "nan" || p == 0) ? "n/a" : sprintf("%.2f", n / p)
    printf "| %-34s | %8s | %8s | %8s | %8s | %6s | %-22s |\n", l, ns, "", ps, "", r, t }'
}
echo
echo "nvct vs floors vs NVIDIA peers: medians of $runs interleaved runs, ms (RSS: KiB), stripped -O2 binaries, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $((SECONDS - start_s)) s"
[ -n "$have_peers" ] || echo "peers: not found in $peers (set NVCT_PEER_DIR): peer column n/a"
echo "| figure                             |     nvct |    floor |     peer |  nvct-fl | n/peer | target                 |"
echo "|------------------------------------|----------|----------|----------|----------|--------|------------------------|"
row "shim create legacy $g_max GPU (tmpfs)" shim-legacy "fl+0.3"
row "shim create legacy $g_max GPU (disk)" shim-legacy-disk "fl+0.3"
[ -n "$quick" ] || row "shim create jit-cdi $g_max GPU (tmpfs)" shim-jit "fl+0.5"
[ -n "$quick" ] || row "shim create cdi $g_max GPU (tmpfs)" shim-cdi "report"
row "shim create no GPU (tmpfs)" shim-nogpu "report"
[ -n "$quick" ] || row "shim create no GPU (disk)" shim-nogpu-disk "report"
row "shim + runc create, no GPU" shim-nogpu-runc "<= 1.02 x runc"
for g in $gpus; do
  t="<= peer/3"; if [ "$g" = 8 ]; then t="<= 5 ms, <= peer/3"; fi
  row "hook prestart $g GPU (${MOUNTS[$g]} mounts)" "hook$g" "$t"
  row "  discovery" "hook$g-discovery" ""
  row "  mounts (floor: binds)" "hook$g-mounts" ""
  row "  ldcache (floor: ldconfig)" "hook$g-ldconfig" ""
  row "cli configure $g GPU" "cli$g" "<= peer/3"
done
row "cli info, $g_max GPU" info "<= peer/3"
row "cli list, $g_max GPU" list "<= peer/3"
row "ctk cdi generate, $g_max GPU" cdigen "<= peer/2"
row "ctk runtime configure --dry-run" rtconf "<= peer/2"
row "ctk config default" cfgdef "peer has none"
rss_row "RSS shim legacy $g_max GPU (KiB)" shim-legacy "<= peer"
rss_row "RSS hook prestart $g_max GPU (KiB)" "hook$g_max" "<= peer"
[ ! -s "$T/peer-failures" ] || { echo "peer runs that failed (not counted):"; sort "$T/peer-failures" | uniq -c | head -5; }
pass "bench table printed"
e2e_finish
