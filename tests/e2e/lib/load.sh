# shellcheck shell=bash
# Helpers for the load and create-storm tests: many GPU containers at once on the mock driver,
# then proof that nothing was left behind. Source after common.sh, rootfs.sh and gpu.sh, and call
# gpu_setup first.
#
#   load_topology_8              the eight-gpus topology's NVML index -> minor and UUID tables
#                                (LOAD_MINOR[i], LOAD_UUID[i])
#   load_expect <request> [cdi]  for an NVIDIA_VISIBLE_DEVICES value (all, i, i,j, a GPU UUID)
#                                sets LOAD_WANT_NODES (the /dev/nvidia* nodes the report lists)
#                                and LOAD_WANT_SMI (nvidia-smi -L's GPUs joined by |); with
#                                "cdi", the CDI common edits' /dev/nvidia-modeset too (cdi.md
#                                §6.3: every existing control node, whatever the capabilities)
#   load_request_of <k>          container k's NVIDIA_VISIBLE_DEVICES: mostly one index, every
#                                fifth two, every seventh a UUID, every tenth "all"
#   load_check_report <out> <request> [cdi]
#                                status 0 when report <out> lists exactly the request's GPUs
#   load_template <dir> <variant> a rootfs with $GPU_REPORT at /report.sh, shared by the bundles
#   load_base_spec               writes $LOAD_SPEC (see below)
#   load_bundle <template> <bundle> <cgroup-path> <request> [spec]
#                                a bundle whose rootfs is an overlay on <template> and whose
#                                config.json ($LOAD_SPEC or [spec]) runs /report.sh with
#                                NVIDIA_VISIBLE_DEVICES=<request> in that cgroup
#   load_batch <name> <n> <fn>   runs `<fn> <k>` for k = 0..n-1 all at once, each in the
#                                background; <fn> returns the container's exit status. Records each
#                                one's milliseconds and status in $E2E_TMP/<name>.times and prints
#                                "LOAD <name>: n=.. failures=.. wall_s=.. median_s=.. max_s=.."
#   load_median <file>           the median of the first column (milliseconds) of a times file
#   load_mounts                  this test's lines of the host mount table (dir and nvidia paths)
#   load_cgroups <pattern>       cgroup directories (all hierarchies) whose path matches <pattern>
#   load_fds <pid>               the number of open fds of a process
#   load_fd_profile <pid> <api-socket>
#                                a process's open fds by kind ("N socket", "N pipe:[]", "N file
#                                <dev>:<ino>"), leaving out the connections it accepted on its own API
#                                socket: those are its clients' (the docker CLI's); dockerd keeps
#                                some of them a while after concurrent runs even with plain runc
#                                and no GPU, so they say nothing about a leak
#   load_find <find args...>     find that never fails the script (files vanish under it)
#   load_shared_temps <depth> <dir...>  load_temp_files for shared dirs (/run, /tmp), depth-limited
#   load_temp_files <dir...>     files under the dirs whose names follow nvct's temporary-file
#                                patterns (grep the source: base/file.cpp temp_name,
#                                mount/symlink.cpp temp_name, ctk/system_dev_char.cpp,
#                                cdi_hooks/device_node_modification.cpp, mount/ldcache_writer.cpp,
#                                driver/facts_cache.cpp)

declare -a LOAD_MINOR LOAD_UUID
load_topology_8() {
  local conf="$NVCT_SOURCE_DIR/tests/mock-driver/topologies/eight-gpus.conf" i=0 line
  [ -f "$conf" ] || e2e_die "$conf is missing"
  # NVML enumerates by PCI bus id; the topology lists the GPUs in bus order.
  while IFS= read -r line; do
    LOAD_MINOR[i]="$(sed -n 's/.*minor=\([0-9]*\);.*/\1/p' <<<"$line")"
    LOAD_UUID[i]="$(sed -n 's/.*uuid=\([^;]*\);.*/\1/p' <<<"$line")"
    i=$((i + 1))
  done < <(grep '^gpu = ' "$conf" | sort -t';' -k2,2)
  [ "$i" -eq 8 ] || e2e_die "eight-gpus.conf lists $i GPUs, want 8"
}

LOAD_GPU_MODEL="NVIDIA H100 80GB HBM3"
load_expect() {
  local request="$1" how="${2:-legacy}" i idx=()
  case "$request" in
    all) idx=(0 1 2 3 4 5 6 7) ;;
    GPU-*)
      for i in "${!LOAD_UUID[@]}"; do [ "${LOAD_UUID[i]}" = "$request" ] && idx=("$i"); done ;;
    *) IFS=, read -r -a idx <<<"$request" ;;
  esac
  [ "${#idx[@]}" -gt 0 ] || e2e_die "load_expect: no GPU for '$request'"
  local nodes=(/dev/nvidia-uvm /dev/nvidia-uvm-tools /dev/nvidiactl) smi=()
  [ "$how" = cdi ] && nodes+=(/dev/nvidia-modeset)
  mapfile -t idx < <(printf '%s\n' "${idx[@]}" | sort -n -u)
  for i in "${idx[@]}"; do
    nodes+=("/dev/nvidia${LOAD_MINOR[i]}")
    smi+=("$LOAD_GPU_MODEL (UUID: ${LOAD_UUID[i]})")
  done
  LOAD_WANT_NODES="$(printf '%s\n' "${nodes[@]}" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
  LOAD_WANT_SMI="$(printf '%s\n' "${smi[@]}" | tr '\n' '|' | sed 's/|$//')"
}

# Container k's request: mostly one index, every fifth two, every seventh a UUID, every tenth all.
load_request_of() {
  local k="$1"
  if [ $((k % 10)) -eq 9 ]; then echo all
  elif [ $((k % 7)) -eq 6 ]; then echo "${LOAD_UUID[k % 8]}"
  elif [ $((k % 5)) -eq 4 ]; then echo "$((k % 8)),$(((k + 3) % 8))"
  else echo "$((k % 8))"
  fi
}

# load_check_report <out> <request> [cdi]: the container saw exactly its GPUs (0 = yes). Messages on
# stderr.
load_check_report() {
  local out="$1" request="$2" nodes smi
  load_expect "$request" "${3:-legacy}"
  grep -qx "done" "$out" || { echo "$out: the report did not finish" >&2; return 1; }
  nodes="$(gpu_nodes "$out")"
  smi="$(gpu_smi_gpus "$out")"
  if [ "$nodes" != "$LOAD_WANT_NODES" ]; then
    echo "$out ($request): nodes [$nodes], want [$LOAD_WANT_NODES]" >&2
    return 1
  fi
  if [ "$smi" != "$LOAD_WANT_SMI" ]; then
    echo "$out ($request): nvidia-smi [$smi], want [$LOAD_WANT_SMI]" >&2
    return 1
  fi
}

load_template() {
  local dir="$1" variant="${2:-glibc}"
  make_rootfs "$dir" "$variant"
  printf '%s' "$GPU_REPORT" >"$dir/report.sh"
}

# Bundles are cheap to make: the rootfs is an overlay on the shared template (one mount; the
# hook's writes go to the container's own upper dir), config.json a text substitution of
# $LOAD_SPEC. load_unmount_bundles (registered on exit) removes the overlays.
load_bundle() {
  local template="$1" bundle="$2" cgroup="$3" request="$4" spec="${5:-$LOAD_SPEC}" text
  mkdir -p "$bundle/rootfs" "$bundle/upper" "$bundle/work"
  mount -t overlay overlay \
    -o "lowerdir=$template,upperdir=$bundle/upper,workdir=$bundle/work" "$bundle/rootfs" ||
    e2e_die "cannot mount an overlay rootfs at $bundle/rootfs"
  text="$(<"$spec")"
  text="${text//@CGROUP@/$cgroup}"
  printf '%s\n' "${text//@REQUEST@/$request}" >"$bundle/config.json"
}

load_unmount_bundles() {
  awk -v dir="$E2E_TMP/" 'index($5, dir) == 1 && $5 ~ /\/rootfs$/ { print $5 }' /proc/self/mountinfo |
    sort -r | while read -r m; do umount "$m" || umount -l "$m"; done
}

# $LOAD_SPEC: the config.json all bundles start from (runc spec; /report.sh as the process, a
# tmpfs on /proc/driver, NVIDIA_VISIBLE_DEVICES=@REQUEST@, cgroupsPath @CGROUP@).
load_base_spec() {
  LOAD_SPEC="$E2E_TMP/base-config.json"
  (cd "$E2E_TMP" && runc spec && mv config.json "$LOAD_SPEC.runc")
  jq '.process.terminal = false | .process.args = ["sh", "/report.sh"]
    | .process.env += ["NVIDIA_VISIBLE_DEVICES=@REQUEST@"]
    | .linux.cgroupsPath = "@CGROUP@"
    | .mounts += [{"destination":"/proc/driver","type":"tmpfs","source":"tmpfs",
                   "options":["nosuid","nodev","noexec","mode=755"]}]' "$LOAD_SPEC.runc" >"$LOAD_SPEC"
  rm -f "$LOAD_SPEC.runc"
  e2e_on_exit load_unmount_bundles
}

load_now_ms() { echo $(($(date +%s%N) / 1000000)); }

load_median() {
  sort -n "$1" | awk '{ v[NR] = $1 } END {
    if (NR == 0) { print "nan"; exit }
    if (NR % 2) m = v[(NR + 1) / 2]; else m = (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.2f\n", m / 1000 }'
}

load_batch() {
  local name="$1" n="$2" fn="$3" k start end failures pids=() pid
  local times="$E2E_TMP/$name.times"
  : >"$times"
  start="$(load_now_ms)"
  for ((k = 0; k < n; k++)); do
    (
      t0="$(load_now_ms)"
      rc=0
      "$fn" "$k" || rc=$?
      echo "$(($(load_now_ms) - t0)) $rc $k" >>"$times"
    ) &
    pids+=($!)
  done
  # Only these jobs: the script's other children (dockerd, containerd) never end.
  for pid in "${pids[@]}"; do wait "$pid" || true; done
  end="$(load_now_ms)"
  failures="$(awk '$2 != 0' "$times" | wc -l)"
  LOAD_WALL_S="$(awk -v ms=$((end - start)) 'BEGIN { printf "%.2f", ms / 1000 }')"
  LOAD_MEDIAN_S="$(load_median "$times")"
  echo "LOAD $name: n=$n failures=$failures wall_s=$LOAD_WALL_S median_s=$LOAD_MEDIAN_S" \
    "max_s=$(sort -n "$times" | tail -1 | awk '{ printf "%.2f", $1 / 1000 }')"
  check_eq "$name: all $n containers recorded" "$n" "$(wc -l <"$times")"
  check_eq "$name: 0 failures (k with non-zero status: $(awk '$2 != 0 { print $3 }' "$times" | tr '\n' ' '))" \
    0 "$failures"
}

load_mounts() {
  grep -E "$E2E_TMP|nvidia" /proc/self/mountinfo | awk '{ $1 = ""; $2 = ""; print }' | sort || true
}

load_cgroups() {
  find /sys/fs/cgroup -mindepth 1 -type d 2>/dev/null | grep -E -- "$1" | sort || true
}

# find that never fails the script: files of other tests come and go while it walks /tmp or /run.
load_find() { find "$@" 2>/dev/null || true; }

load_fds() { load_find "/proc/$1/fd" -mindepth 1 -maxdepth 1 | wc -l; }

load_fd_profile() {
  local pid="$1" api="$2" skip
  skip="$(ss -xpn 2>/dev/null | awk -v api="$api" -v pid="pid=$pid," '$5 == api && index($0, pid) { print $6 }' |
    tr '\n' ' ' || true)"
  # Files by device:inode, not by name: a file the daemon inherited (ctest's log) may be renamed
  # or replaced while the test runs.
  {
    load_find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 -printf 'L %f %l\n'
    load_find -L "/proc/$pid/fd" -mindepth 1 -maxdepth 1 -printf 'I %f %D:%i\n'
  } | awk -v skip=" $skip" '
    $1 == "L" { link[$2] = $3; next }
    { ino[$2] = $3 }
    END {
      for (fd in link) {
        l = link[fd]
        if (l ~ /^socket:\[/) { i = l; gsub(/[^0-9]/, "", i); if (!index(skip, " " i " ")) print "socket"; continue }
        if (l ~ /^(pipe|anon_inode):/) { gsub(/\[[0-9]+\]/, "[]", l); print l; continue }
        print "file " ino[fd]
      }
    }' | sort | uniq -c | awk '{ $1 = $1; print }'
}

LOAD_TEMP_REGEX='(^[.].+[.][0-9]+-[A-Za-z0-9]{6}$)|(^[.].+[.]nvct-[0-9a-f]+$)|(^nvct-params-)'
load_temp_files() {
  local d
  for d in "$@"; do
    [ -d "$d" ] || continue
    load_find "$d" -xdev -printf '%p\t%f\n' | awk -F'\t' -v re="$LOAD_TEMP_REGEX" '$2 ~ re { print $1 }'
  done | sort
}

# load_shared_temps <maxdepth> <dir...>: the same in shared dirs (/run, /tmp), depth-limited;
# compare before/after, other tests use them too.
load_shared_temps() {
  local depth="$1"
  shift
  load_find "$@" -maxdepth "$depth" -xdev -printf '%p\t%f\n' |
    awk -F'\t' -v re="$LOAD_TEMP_REGEX" '$2 ~ re { print $1 }' | sort
}
