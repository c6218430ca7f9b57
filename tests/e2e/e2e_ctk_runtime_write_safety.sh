#!/usr/bin/env bash
# Host-config write safety of nvidia-ctk runtime configure (spec/ctk.md §2, security checklist
# #38 and #46): runs on one daemon.json at the same time all land (they queue on the sidecar lock
# file), a holder of that lock makes a run wait, and a writer killed with SIGKILL at any point
# leaves either the old or the new file, never a partial one; a runtime that is not there (not on
# PATH, or a missing --nvidia-runtime-path) is an error that writes nothing, a warning with --dry-run.
source "$(dirname "$0")/lib/common.sh"

require_cmd jq python3 flock
ctk="$(nvct_bin nvidia-ctk)"
# docker's default runtime, the bare name nvidia-container-runtime, must be on PATH.
export PATH="$NVCT_BUILD_DIR/bin:$PATH"
dir="$E2E_TMP"
cfg="$dir/daemon.json"

# --- two concurrent writers, 25 runs each ---
echo '{"log-driver": "json-file"}' >"$cfg"
writer() {
  local who="$1" i
  for i in $(seq 25); do
    "$ctk" --quiet runtime configure --config "$cfg" --nvidia-runtime-name "nv-$who-$i" \
      >/dev/null 2>>"$dir/writer-$who.err" || echo "nv-$who-$i" >>"$dir/writer-$who.failed"
  done
}
writer a &
pid_a=$!
writer b &
pid_b=$!
wait "$pid_a" "$pid_b"
failed_runs="$({ cat "$dir"/writer-*.failed 2>/dev/null || true; } | wc -l)"
check_eq "concurrent: no run failed" 0 "$failed_runs"
check "concurrent: result parses" jq -e . "$cfg"
check_eq "concurrent: every run landed" 50 "$(jq '.runtimes | length' "$cfg")"
check_eq "concurrent: unrelated key kept" json-file "$(jq -r '."log-driver"' "$cfg")"

check_eq "concurrent: no lock or temporary file left next to daemon.json" "daemon.json" \
  "$(ls -A "$dir" | grep -E '^\.?daemon\.json' | tr '\n' ' ' | sed 's/ $//')"

# --- a process holding the lock file makes the run wait for it ---
flock "$dir/.daemon.json.lock" sleep 2 &
holder=$!
sleep 0.3
start=$(date +%s%N)
"$ctk" --quiet runtime configure --config "$cfg" --nvidia-runtime-name waited >/dev/null
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
wait "$holder"
check "lock: run waited for the holder (${elapsed_ms} ms)" test "$elapsed_ms" -ge 1200
check_eq "lock: run landed after the holder" '"nvidia-container-runtime"' \
  "$(jq '.runtimes.waited.path' "$cfg")"

# --- SIGKILL at random points: old or new file, never anything else ---
# A large file (about 4 MB of unrelated keys) keeps each writer busy long enough to be killed in
# the middle of parsing, serialising or writing.
python3 - "$cfg" <<'PY'
import json, sys
doc = {f"x-filler-{i:04d}": "v" * 2000 for i in range(2000)}
doc["runtimes"] = {}
with open(sys.argv[1], "w") as f:
    json.dump(doc, f)
PY
t0=$(date +%s%N)
"$ctk" --quiet runtime configure --config "$cfg" --nvidia-runtime-name probe >/dev/null
run_ms=$((($(date +%s%N) - t0) / 1000000))
echo "# one run on the large file takes ${run_ms} ms"
[ "$run_ms" -gt 0 ] || run_ms=1

old_kept=0 new_written=0 broken=0
for i in $(seq 40); do
  before="$(sha256sum <"$cfg")"
  "$ctk" --quiet runtime configure --config "$cfg" --nvidia-runtime-name "killed-$i" \
    >/dev/null 2>&1 &
  victim=$!
  sleep "$(awk -v ms="$run_ms" -v r="$RANDOM" 'BEGIN { printf "%.3f", (r % (ms * 2 + 10)) / 1000 }')"
  kill -KILL "$victim" 2>/dev/null || true
  wait "$victim" 2>/dev/null || true
  if ! jq -e '.runtimes' "$cfg" >/dev/null 2>&1; then
    broken=$((broken + 1))
  elif [ "$(sha256sum <"$cfg")" = "$before" ]; then
    old_kept=$((old_kept + 1))
  elif [ "$(jq -r --arg n "killed-$i" '.runtimes[$n].path' "$cfg")" = nvidia-container-runtime ] &&
    [ "$(jq 'keys | length' "$cfg")" = 2001 ]; then
    new_written=$((new_written + 1))
  else
    broken=$((broken + 1))
  fi
done
echo "# SIGKILL: old file kept $old_kept times, new file complete $new_written times"
check_eq "SIGKILL: never a partial or foreign file" 0 "$broken"
check "SIGKILL: the kills landed both before and after the rename" \
  test "$old_kept" -gt 0 -a "$new_written" -gt 0
# A later run is not blocked by killed writers: flock is released with the process.
check "after kills: a run succeeds" "$ctk" --quiet runtime configure --config "$cfg" \
  --nvidia-runtime-name after
check_eq "after kills: its runtime landed" '"nvidia-container-runtime"' \
  "$(jq '.runtimes.after.path' "$cfg")"
check "after kills: the next run deleted the killed writers' lock file" \
  test ! -e "$dir/.daemon.json.lock"

# --- a runtime that is not there is never written (spec/packaging.md §4.3) ---
echo '{"log-driver": "local"}' >"$dir/missing.json"
cp "$dir/missing.json" "$dir/missing.seed"
if PATH=/usr/sbin:/usr/bin:/sbin:/bin "$ctk" runtime configure --config "$dir/missing.json" \
  2>"$dir/missing.err"; then
  failed "missing runtime on PATH: expected exit 1"
else
  check_contains "missing runtime on PATH: the error names it, PATH and the flag" \
    "nvidia-container-runtime (--nvidia-runtime-path) is not in any directory of PATH (/usr/sbin:" \
    "$(cat "$dir/missing.err")"
fi
if "$ctk" runtime configure --runtime=containerd --config "$dir/missing.toml" \
  --nvidia-runtime-path "$dir/none/nvidia-container-runtime" 2>"$dir/missing2.err"; then
  failed "missing runtime path: expected exit 1"
else
  check_contains "missing runtime path: the error names the path and the flag" \
    "$dir/none/nvidia-container-runtime (--nvidia-runtime-path) is not an executable file" \
    "$(cat "$dir/missing2.err")"
fi
check "missing runtime: daemon.json untouched" cmp -s "$dir/missing.json" "$dir/missing.seed"
check "missing runtime: no containerd file created" test ! -e "$dir/missing.toml"
out="$(PATH=/usr/sbin:/usr/bin:/sbin:/bin "$ctk" runtime configure --dry-run \
  --config "$dir/missing.json" 2>"$dir/missing3.err")" || failed "--dry-run with a missing runtime failed"
check_contains "--dry-run with a missing runtime: printed" '"nvidia-container-runtime"' "$out"
check_contains "--dry-run with a missing runtime: warned" "level=warning" "$(cat "$dir/missing3.err")"

e2e_finish
