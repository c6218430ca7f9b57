#!/usr/bin/env bash
# The issue-18 fuzz campaign: runs each libFuzzer harness of the `fuzz` preset until it has
# NVCT_FUZZ_TARGET executions in total (default 10 million), in slices, so that a campaign can
# stop and resume across sessions without losing what it found.
#
#   tests/fuzz/campaign.sh [harness ...]        (default: every harness in the fuzzer dir)
#
# Environment:
#   NVCT_FUZZ_BIN    fuzzer binaries (default build/fuzz/fuzz; copy them elsewhere first if the
#                    tree keeps changing under a long campaign)
#   NVCT_FUZZ_STATE  state directory (default /var/tmp/nvct-fuzz-campaign): corpus/<h> (the
#                    working corpus, seeded from tests/fuzz/corpus/<h>), crashes/<h>,
#                    <h>.<pid>.slice (the running slice's output, one file per campaign
#                    process, removed once recorded), <h>.log (every slice's libFuzzer output), <h>.tsv (one line per slice:
#                    date, execs, seconds, cov, ft, exit status)
#   NVCT_FUZZ_TARGET executions per harness (default 10000000)
#   NVCT_FUZZ_SLICE  seconds per slice (default 600)
#
# Options given to libFuzzer: -max_len=16384 -timeout=10 -rss_limit_mb=2048 (tests/fuzz/README.md).
# A crash ends that harness's slice with a nonzero status and leaves the input under crashes/<h>;
# the campaign goes on with the other harnesses and `campaign.sh --report` lists it. A crash
# input becomes a regression under tests/fuzz/regressions/<h> once it is fixed.
#
#   tests/fuzz/campaign.sh --report             prints the table of tests/fuzz/README.md
#
# To stop a campaign without losing its slices: `touch $NVCT_FUZZ_STATE/STOP`, then SIGINT the
# running fuzz_* processes (never SIGSTOP: libFuzzer's wall-clock alarm turns the pause into a
# false timeout). Each slice ends with its final stats, is recorded, and the campaign exits
# instead of starting the next one. Remove STOP before the next run.
#
# One harness on both cores: start a second `campaign.sh <harness>` with the same state. Each
# slice runs what is left when it starts, so together they overshoot the target; SIGINT one of
# them once the two counts add up (each records its own slice, from its own slice file).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
bin=${NVCT_FUZZ_BIN:-$root/build/fuzz/fuzz}
state=${NVCT_FUZZ_STATE:-/var/tmp/nvct-fuzz-campaign}
target=${NVCT_FUZZ_TARGET:-10000000}
slice=${NVCT_FUZZ_SLICE:-600}

total_of() { # <harness> <column>: sum of a column of the harness's tsv
  [ -f "$state/$1.tsv" ] || { echo 0; return; }
  awk -F'\t' -v c="$2" '{ s += $c } END { printf "%d\n", s }' "$state/$1.tsv"
}
last_of() { # <harness> <column>: the last slice's value
  [ -f "$state/$1.tsv" ] || { echo -; return; }
  tail -n1 "$state/$1.tsv" | cut -f"$2"
}

report() {
  printf '| Harness | Execs | Time (s) | exec/s | Edges (`cov:`) | Features (`ft:`) | Crash inputs |\n'
  printf '|---|---:|---:|---:|---:|---:|---|\n'
  for t in "$state"/*.tsv; do
    [ -f "$t" ] || continue
    h=$(basename "$t" .tsv)
    e=$(total_of "$h" 2); s=$(total_of "$h" 3)
    r=0; [ "$s" -gt 0 ] && r=$((e / s))
    # No crashes/<h> before a harness's first slice on this machine (carried totals only).
    c=$( (find "$state/crashes/$h" -type f 2>/dev/null || true) | wc -l)
    printf '| `%s` | %s | %s | %s | %s | %s | %s |\n' "$h" "$e" "$s" "$r" \
      "$(last_of "$h" 4)" "$(last_of "$h" 5)" "$c"
  done
}

if [ "${1:-}" = --report ]; then report; exit 0; fi
[ -d "$bin" ] || { echo "campaign: no fuzzers in $bin: build them with cmake --preset fuzz && cmake --build --preset fuzz" >&2; exit 2; }

harnesses=("$@")
if [ ${#harnesses[@]} -eq 0 ]; then
  for f in "$bin"/fuzz_*; do harnesses+=("$(basename "$f" | sed 's/^fuzz_//')"); done
fi
mkdir -p "$state"

# Round-robin slices until every harness has its target.
while :; do
  pending=0
  for h in "${harnesses[@]}"; do
    if [ -e "$state/STOP" ]; then echo "campaign: $state/STOP exists; stopping" >&2; report; exit 0; fi
    done_execs=$(total_of "$h" 2)
    [ "$done_execs" -ge "$target" ] && continue
    [ -n "$(find "$state/crashes/$h" -type f 2>/dev/null)" ] && { echo "campaign: $h has crash inputs under $state/crashes/$h; skipped" >&2; continue; }
    pending=1
    mkdir -p "$state/corpus/$h" "$state/crashes/$h"
    left=$((target - done_execs))
    start=$(date +%s)
    out="$state/$h.$$.slice"
    set +e
    "$bin/fuzz_$h" -max_len=16384 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -runs="$left" -max_total_time="$slice" -artifact_prefix="$state/crashes/$h/" \
      "$state/corpus/$h" "$here/corpus/$h" > "$out" 2>&1
    rc=$?
    set -e
    secs=$(($(date +%s) - start))
    cat "$out" >> "$state/$h.log"
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out" | tail -n1)
    # -a: never let grep take the output for a binary file (it did once, when two campaigns
    # wrote one shared slice file).
    cov=$(grep -ao 'cov: [0-9]*' "$out" | tail -n1 | cut -d' ' -f2)
    ft=$(grep -ao 'ft: [0-9]*' "$out" | tail -n1 | cut -d' ' -f2)
    if [ -z "$execs" ]; then # a crash ends libFuzzer before its final stats: count the last status line
      execs=$(grep -ao '^#[0-9]*' "$out" | tail -n1 | tr -d '#')
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "${execs:-0}" "$secs" "${cov:--}" "${ft:--}" "$rc" >> "$state/$h.tsv"
    rm -f "$out"
    echo "campaign: $h: +${execs:-0} execs in ${secs}s (total $(total_of "$h" 2)), cov ${cov:--}, exit $rc"
  done
  [ "$pending" = 1 ] || break
done
report
