#!/usr/bin/env python3
"""Compares two TAP transcripts of runc's bats suite (bare runc vs. the nvct shim).

Usage: runc_bats_compare.py <bare.tap> <shim.tap> <expected-total>

The TAP files are the concatenated output of one `bats --tap FILE` per .bats file, each preceded
by a "# file NAME" line (written by runc_bats_run). A test is named "FILE: description".

- "ok N desc"              passed
- "ok N desc # skip ..."   skipped by the suite itself (its `requires`, e.g. cgroup v2 only)
- "not ok N desc"          failed; the "# ..." lines after it are its diagnostics
- a test announced by a file's "1..N" plan but never reported (bats killed by the per-file
  timeout) counts as failed.

Prints both counts, the tests failing on both runtimes, the tests the suite skipped itself, and
every difference with the diagnostics of the failing side. Exit 0 only when the outcome of every
test is the same on both runtimes, both runs report <expected-total> tests and bare runc passed
some.
"""
import re
import sys

RESULT = re.compile(r"^(ok|not ok) (\d+) (.*?)(?: # (skip)\b ?(.*))?$")


def parse(path):
    """Returns {name: (status, [diagnostic lines])} with status pass/skip/fail."""
    results = {}
    current_file = None
    plan = 0
    seen = 0
    last = None

    def close_file():
        # Tests of the plan that never reported: bats died or was killed.
        if current_file is not None:
            for i in range(seen + 1, plan + 1):
                results[f"{current_file}: <test #{i} not reported>"] = (
                    "fail", ["bats stopped before reporting this test (timeout or crash)"])

    with open(path, encoding="utf-8", errors="replace") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if line.startswith("# file "):
                close_file()
                current_file = line[len("# file "):].strip()
                plan, seen, last = 0, 0, None
                continue
            m = re.match(r"^1\.\.(\d+)$", line)
            if m:
                plan = int(m.group(1))
                continue
            m = RESULT.match(line)
            if m and current_file is not None:
                seen = int(m.group(2))
                name = f"{current_file}: {m.group(3)}"
                status = "fail" if m.group(1) == "not ok" else ("skip" if m.group(4) else "pass")
                results[name] = (status, [m.group(5)] if status == "skip" and m.group(5) else [])
                last = name
                continue
            if last is not None and results[last][0] == "fail":
                results[last][1].append(line)
        close_file()
    return results


def counts(res):
    c = {"pass": 0, "skip": 0, "fail": 0}
    for status, _ in res.values():
        c[status] += 1
    return c


def main():
    bare_path, shim_path, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
    bare, shim = parse(bare_path), parse(shim_path)
    cb, cs = counts(bare), counts(shim)
    ok = True
    print(f"bare runc: {cb['pass'] + cb['skip']} passed ({cb['skip']} of them skipped by the suite)"
          f" / {cb['fail']} failed; shim: {cs['pass'] + cs['skip']} passed ({cs['skip']} skipped)"
          f" / {cs['fail']} failed")
    for label, res in (("bare runc", bare), ("shim", shim)):
        if len(res) != expected:
            print(f"MISMATCH: {label} reported {len(res)} tests, want {expected}")
            ok = False
    both = sorted(n for n in bare if bare[n][0] == "fail" and shim.get(n, ("fail",))[0] == "fail")
    print(f"failing on both runtimes ({len(both)}):")
    for n in both:
        print(f"  - {n}")
    skipped = sorted(n for n in bare if bare[n][0] == "skip")
    print(f"skipped by the suite's own `requires` on bare runc ({len(skipped)}):")
    for n in skipped:
        print(f"  - {n} ({' '.join(bare[n][1])})")
    for n in sorted(set(bare) | set(shim)):
        b = bare.get(n, ("missing", []))[0]
        s = shim.get(n, ("missing", []))[0]
        if b != s:
            ok = False
            print(f"DIFFERENCE: {n}: bare runc {b}, shim {s}")
            diag = (shim.get(n) if s == "fail" else bare.get(n, (None, [])))[1]
            for d in diag[-40:]:
                print(f"    {d}")
    if cb["pass"] == 0:
        print("MISMATCH: no test passed on bare runc: the harness is broken")
        ok = False
    print("RESULT: " + ("pass/fail sets are equal" if ok else "pass/fail sets DIFFER"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
