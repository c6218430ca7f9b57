#!/usr/bin/env bash
# nvidia-ctk runtime configure --runtime=containerd keeps containerd working, whatever the starting
# config.toml (issue 14, spec/ctk.md §6). Starting points:
#   a  Debian's stock /etc/containerd/config.toml (containerd 1.6.20~ds1-1+deb12u3)
#   b  `containerd config default` of the installed containerd
#   c  no file at all
#   d  an admin's file: comments, keys out of go-toml's order, `imports` of their own drop-in
#      directory holding an unrelated drop-in
# each configured in drop-in mode (the default) and in place (--drop-in-config=""), with and
# without --set-as-default. For every one of those 16 runs:
#   - `containerd config dump` of the edited main file succeeds and lists both the runc and the
#     nvidia runtime (BinaryName = the --nvidia-runtime-path);
#   - default_runtime_name is still runc, or nvidia with --set-as-default;
#   - the admin's file keeps its comments, key order and other sections: in drop-in mode the only
#     line that may change is `imports`; in place, the only changes are the nvidia (and, when the
#     file had none, runc) runtime tables and the default_runtime_name line;
#   - a second identical run changes no byte of either file;
#   - the CRI plugin loads (`ctr plugins ls` on a private containerd started on the result).
#   d2 like d, in drop-in mode, with a second admin drop-in holding CRI settings: those stay in
#      effect (nvct's drop-in starts from the CRI table containerd 1.x would use)
#   e  a version-3 (containerd 2.x) file, checked at file level against spec/ctk.md §6.1 (Debian
#      12 has no containerd 2.x and 1.6 ignores version-3 files): a stand-in `containerd
#      --version` of 2.1 via --executable-path lets nvct write it; the drop-in is version 3 with
#      the runtime under plugins."io.containerd.cri.v1.runtime", options inherited from runc.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/containerd.sh"
source "$(dirname "$0")/lib/containerd_cri.sh"

require_root
require_cmd containerd ctr python3 unshare
[ "$(containerd_major)" = 1 ] ||
  e2e_die "this test pins containerd 1.x behaviour (Debian 12's 1.6); found $(containerd --version)"
ctk="$(nvct_bin nvidia-ctk)"
cri='io.containerd.grpc.v1.cri'
dir="$E2E_TMP"
# The runtime path must be an executable file; containerd only records it.
rt="$dir/bin/nvidia-container-runtime"
mkdir -p "$dir/bin"
printf '#!/bin/sh\n' >"$rt"
chmod 0755 "$rt"

# --- the starting configs ------------------------------------------------------------------------
# seed <a|b|c|d> <case dir>: writes the starting config.toml (none for c).
seed() {
  local kind="$1" d="$2"
  mkdir -p "$d"
  case "$kind" in
    a) containerd_debian_stock_config "$d/config.toml" ;;
    b) containerd config default >"$d/config.toml" ;;
    c) ;;
    d)
      mkdir -p "$d/mine"
      cat >"$d/config.toml" <<TOML
# Managed by the cluster admin.
oom_score = -999
version = 2
imports = ["$d/mine/*.toml"]  # site drop-ins

[plugins."io.containerd.grpc.v1.cri"]
  # pinned pause image
  sandbox_image = "registry.example/pause:3.9"

  [plugins."io.containerd.grpc.v1.cri".containerd]
    snapshotter = "overlayfs"
    default_runtime_name = "runc"

    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
        SystemdCgroup = true

[plugins."io.containerd.internal.v1.opt"]
  path = "/var/lib/containerd/opt"
TOML
      # An unrelated drop-in of the admin's (a plugin nvct does not touch).
      printf 'version = 2\n\n[plugins."io.containerd.gc.v1.scheduler"]\n  pause_threshold = 0.05\n' \
        >"$d/mine/10-gc.toml"
      ;;
  esac
}

# preserved <mode> <before> <after> <had_runc>: prints a diff of what changed beyond what the mode
# allows (nothing when the file is preserved). Drop-in: only an `imports = ...` line may be added
# or changed. In place: the nvidia runtime tables (and runc's when the file had none) may be
# added, default_runtime_name may be set (with a `[...containerd]` header when the file had
# none) and blank lines may come; every other line stays, in order.
preserved() {
  python3 - "$@" <<'PY'
import difflib, re, sys
mode, before, after, had_runc = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4] == "1"
old = open(before).read().splitlines()
new = open(after).read().splitlines()
owned = "nvidia" if had_runc else "nvidia|runc"
header = re.compile(r'^\s*\[+\s*(.*?)\s*\]+\s*(#.*)?$')

def kept(lines):
    if mode == "drop-in":
        return [l for l in lines if not re.match(r'^\s*imports\s*=', l)]
    out, inside = [], False
    for line in lines:
        m = header.match(line)
        if m:
            inside = re.search(r'\.runtimes\.(%s)(\.|$)' % owned, m.group(1)) is not None
        if inside or not line.strip() or re.match(r'^\s*default_runtime_name\s*=', line):
            continue
        out.append(line)
    return out

k_old, k_new = kept(old), kept(new)
if mode == "in-place":
    k_new = [l for l in k_new if l in k_old or not re.match(r'^\s*\[.*\.containerd\]\s*$', l)]
print("\n".join(difflib.unified_diff(k_old, k_new, lineterm="", n=0)))
PY
}

# --- the 16 runs ---------------------------------------------------------------------------------
# One row per run for the summary table at the end.
declare -a table=("config  mode     default   result")
run_case() {
  local kind="$1" mode="$2" def="$3" name="$1-$2-$3" d="$dir/$1-$2-$3" status
  local -a args=(runtime configure --runtime=containerd --config "$d/config.toml"
    --nvidia-runtime-path "$rt")
  local main="$d/config.toml" dropin="$d/conf.d/99-nvidia.toml" want_default=runc had_runc=0
  local fails_before="$E2E_FAILURES"
  seed "$kind" "$d"
  if [ "$mode" = drop-in ]; then args+=(--drop-in-config "$dropin"); else args+=(--drop-in-config ""); fi
  if [ "$def" = default ]; then args+=(--set-as-default); want_default=nvidia; fi
  [ -e "$main" ] && cp "$main" "$d/seed.toml"
  if [ -e "$main" ] && [ "$(toml_get "$main" plugins "$cri" containerd runtimes runc)" != null ]; then
    had_runc=1
  fi

  if ! "$ctk" "${args[@]}" 2>"$d/ctk.err"; then
    failed "$name: runtime configure failed: $(tr '\n' ' ' <"$d/ctk.err")"
    table+=("$kind       $(printf '%-8s' "$mode") $(printf '%-9s' "$def") configure FAILED")
    return
  fi
  # The text editor handled the file: no fallback to a full rewrite (which loses comments).
  if grep -q "line by line" "$d/ctk.err"; then
    failed "$name: the main file was rewritten in full: $(grep "line by line" "$d/ctk.err")"
  fi
  if [ "$mode" = drop-in ]; then
    check "$name: drop-in written" test -s "$dropin"
  else
    check "$name: no drop-in in place" test ! -e "$d/conf.d"
  fi

  # containerd's own view of the result.
  if containerd --config "$main" config dump >"$d/dump.toml" 2>"$d/dump.err"; then
    pass "$name: containerd config dump succeeds"
    check_eq "$name: dump: nvidia BinaryName" "\"$rt\"" \
      "$(toml_get "$d/dump.toml" plugins "$cri" containerd runtimes nvidia options BinaryName)"
    check_eq "$name: dump: nvidia runtime_type" '"io.containerd.runc.v2"' \
      "$(toml_get "$d/dump.toml" plugins "$cri" containerd runtimes nvidia runtime_type)"
    check_eq "$name: dump: runc runtime_type" '"io.containerd.runc.v2"' \
      "$(toml_get "$d/dump.toml" plugins "$cri" containerd runtimes runc runtime_type)"
    check_eq "$name: dump: default_runtime_name" "\"$want_default\"" \
      "$(toml_get "$d/dump.toml" plugins "$cri" containerd default_runtime_name)"
    case "$kind" in
      a | d)
        check_eq "$name: dump: the file's opt path kept" '"/var/lib/containerd/opt"' \
          "$(toml_get "$d/dump.toml" plugins io.containerd.internal.v1.opt path)" ;;
    esac
    case "$kind" in
      a) check_eq "$name: dump: the file's CNI bin_dir kept" '"/usr/lib/cni"' \
        "$(toml_get "$d/dump.toml" plugins "$cri" cni bin_dir)" ;;
      d)
        check_eq "$name: dump: sandbox_image kept" '"registry.example/pause:3.9"' \
          "$(toml_get "$d/dump.toml" plugins "$cri" sandbox_image)"
        check_eq "$name: dump: nvidia inherits SystemdCgroup" true \
          "$(toml_get "$d/dump.toml" plugins "$cri" containerd runtimes nvidia options SystemdCgroup)"
        check_eq "$name: dump: runc keeps SystemdCgroup" true \
          "$(toml_get "$d/dump.toml" plugins "$cri" containerd runtimes runc options SystemdCgroup)"
        check_eq "$name: dump: the admin's own drop-in still applies" 0.05 \
          "$(toml_get "$d/dump.toml" plugins io.containerd.gc.v1.scheduler pause_threshold)"
        check_eq "$name: dump: top-level oom_score kept" -999 "$(toml_get "$d/dump.toml" oom_score)"
        ;;
    esac
  else
    failed "$name: containerd config dump failed: $(tr '\n' ' ' <"$d/dump.err")"
  fi

  # The admin's file.
  if [ "$kind" = c ]; then
    if [ "$mode" = drop-in ]; then
      check_eq "$name: the new main file only imports the drop-in dir" \
        "$(printf 'imports = ["%s/conf.d/*.toml"]\nversion = 2' "$d")" "$(cat "$main")"
    fi
  else
    local extra
    extra="$(preserved "$mode" "$d/seed.toml" "$main" "$had_runc")"
    check_eq "$name: the main file keeps comments, order and other sections" "" "$extra"
    if [ "$mode" = drop-in ]; then
      local want_imports="[\"$d/conf.d/*.toml\"]"
      [ "$kind" = d ] && want_imports="[\"$d/mine/*.toml\", \"$d/conf.d/*.toml\"]"
      check_eq "$name: imports" "$want_imports" "$(toml_get "$main" imports)"
    fi
  fi

  # A second run is a no-op, byte for byte.
  cp "$main" "$d/first.toml"
  [ "$mode" = drop-in ] && cp "$dropin" "$d/first-dropin.toml"
  "$ctk" "${args[@]}" 2>"$d/ctk2.err" || failed "$name: second run failed: $(cat "$d/ctk2.err")"
  check "$name: second run: main file byte-identical" same_file "$main" "$d/first.toml"
  if [ "$mode" = drop-in ]; then
    check "$name: second run: drop-in byte-identical" same_file "$dropin" "$d/first-dropin.toml"
  fi
  check_eq "$name: no lock or temp files left" "" \
    "$(find "$d" -maxdepth 2 -name '.*' | tr '\n' ' ')"

  # The CRI plugin loads (private containerd on the edited file).
  status="$(cri_plugin_status "$main" "$d/cri")"
  check_eq "$name: CRI plugin status" ok "$status"
  if [ "$status" != ok ]; then
    cat "$d/cri/cri_status.err" >&2
    grep -i 'cri' "$d/cri/containerd.log" | grep -iE 'error|fail' | tail -n 3 >&2
  fi

  local result=pass
  [ "$E2E_FAILURES" -eq "$fails_before" ] || result="FAIL ($((E2E_FAILURES - fails_before)))"
  table+=("$kind       $(printf '%-8s' "$mode") $(printf '%-9s' "$def") cri=$status $result")
}

# The CRI check can fail: a drop-in that replaces the CRI table with only an nvidia runtime (the
# reference's 1.x hazard, spec/ctk.md §6.2) must read "error" here.
ctl="$dir/control"
mkdir -p "$ctl/conf.d"
printf 'version = 2\nimports = ["%s/conf.d/*.toml"]\n' "$ctl" >"$ctl/config.toml"
printf 'version = 2\n[plugins."%s".containerd.runtimes.nvidia]\n  runtime_type = "io.containerd.runc.v2"\n' \
  "$cri" >"$ctl/conf.d/99-nvidia.toml"
check_eq "control: a runtime-only drop-in breaks the CRI plugin" error \
  "$(cri_plugin_status "$ctl/config.toml" "$ctl/cri")"

for kind in a b c d; do
  for mode in drop-in in-place; do
    for def in no-default default; do
      run_case "$kind" "$mode" "$def"
    done
  done
done

# --- (d2) the admin's own drop-in carries CRI settings (drop-in mode) ----------------------------
# containerd 1.x takes the CRI table of the last file that has one, so the admin's drop-in is what
# is in effect; nvct's drop-in (imported after it) must start from that table, not the main
# file's, or the admin's settings vanish. (In place cannot work here on 1.x: the admin's drop-in
# replaces the main file's CRI table, nvidia included; not a mode to use with such imports.)
for def in no-default default; do
  d="$dir/d2-drop-in-$def"
  seed d "$d"
  printf 'version = 2\n\n[plugins."%s"]\n  sandbox_image = "registry.example/pause:3.10"\n' "$cri" \
    >"$d/mine/20-cri.toml"
  args=(--quiet runtime configure --runtime=containerd --config "$d/config.toml"
    --drop-in-config "$d/conf.d/99-nvidia.toml" --nvidia-runtime-path "$rt")
  want_default=runc
  [ "$def" = default ] && { args+=(--set-as-default); want_default=nvidia; }
  fails_before="$E2E_FAILURES"
  if "$ctk" "${args[@]}" 2>"$d/ctk.err"; then
    containerd_dump "$d/config.toml" "$d/dump.toml"
    check_eq "d2-$def: dump: the admin's drop-in's sandbox_image kept" \
      '"registry.example/pause:3.10"' "$(toml_get "$d/dump.toml" plugins "$cri" sandbox_image)"
    check_eq "d2-$def: dump: nvidia BinaryName" "\"$rt\"" \
      "$(toml_get "$d/dump.toml" plugins "$cri" containerd runtimes nvidia options BinaryName)"
    check_eq "d2-$def: dump: runc runtime_type" '"io.containerd.runc.v2"' \
      "$(toml_get "$d/dump.toml" plugins "$cri" containerd runtimes runc runtime_type)"
    check_eq "d2-$def: dump: default_runtime_name" "\"$want_default\"" \
      "$(toml_get "$d/dump.toml" plugins "$cri" containerd default_runtime_name)"
    cp "$d/config.toml" "$d/first.toml"
    cp "$d/conf.d/99-nvidia.toml" "$d/first-dropin.toml"
    "$ctk" "${args[@]}" 2>/dev/null || failed "d2-$def: second run failed"
    check "d2-$def: second run: main byte-identical" same_file "$d/config.toml" "$d/first.toml"
    check "d2-$def: second run: drop-in byte-identical" same_file "$d/conf.d/99-nvidia.toml" \
      "$d/first-dropin.toml"
    status="$(cri_plugin_status "$d/config.toml" "$d/cri")"
    check_eq "d2-$def: CRI plugin status" ok "$status"
  else
    failed "d2-$def: runtime configure failed: $(cat "$d/ctk.err")"
    status=-
  fi
  result=pass
  [ "$E2E_FAILURES" -eq "$fails_before" ] || result="FAIL ($((E2E_FAILURES - fails_before)))"
  table+=("d2      drop-in  $(printf '%-9s' "$def") cri=$status $result")
done

# --- (e) version 3, at file level ----------------------------------------------------------------
v3cri='io.containerd.cri.v1.runtime'
fake="$dir/containerd2"
printf '#!/bin/sh\necho "containerd github.com/containerd/containerd/v2 v2.1.4 75cb2b7"\n' >"$fake"
chmod 0755 "$fake"
seed_v3() {
  mkdir -p "$1"
  cat >"$1/config.toml" <<'TOML'
# containerd 2.x
version = 3

[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"

[plugins."io.containerd.cri.v1.runtime".containerd]
  default_runtime_name = "runc"

  [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
    runtime_type = "io.containerd.runc.v2"

    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
      SystemdCgroup = true
TOML
  cp "$1/config.toml" "$1/seed.toml"
}
for def in no-default default; do
  e="$dir/e-drop-in-$def"
  seed_v3 "$e"
  args=(--quiet runtime configure --runtime=containerd --config "$e/config.toml"
    --drop-in-config "$e/conf.d/99-nvidia.toml" --nvidia-runtime-path "$rt" --executable-path "$fake")
  want_default=runc
  [ "$def" = default ] && { args+=(--set-as-default); want_default=nvidia; }
  fails_before="$E2E_FAILURES"
  if "$ctk" "${args[@]}" 2>"$e/ctk.err"; then
    f="$e/conf.d/99-nvidia.toml"
    check_eq "e-drop-in-$def: drop-in version" 3 "$(toml_get "$f" version)"
    check_eq "e-drop-in-$def: nvidia BinaryName under $v3cri" "\"$rt\"" \
      "$(toml_get "$f" plugins "$v3cri" containerd runtimes nvidia options BinaryName)"
    check_eq "e-drop-in-$def: nvidia runtime_type" '"io.containerd.runc.v2"' \
      "$(toml_get "$f" plugins "$v3cri" containerd runtimes nvidia runtime_type)"
    check_eq "e-drop-in-$def: nvidia inherits SystemdCgroup" true \
      "$(toml_get "$f" plugins "$v3cri" containerd runtimes nvidia options SystemdCgroup)"
    check_eq "e-drop-in-$def: runc copied" true \
      "$(toml_get "$f" plugins "$v3cri" containerd runtimes runc options SystemdCgroup)"
    check_eq "e-drop-in-$def: default_runtime_name" "\"$want_default\"" \
      "$(toml_get "$f" plugins "$v3cri" containerd default_runtime_name)"
    check_eq "e-drop-in-$def: no version-2 plugin names" null "$(toml_get "$f" plugins "$cri")"
    check_eq "e-drop-in-$def: main file imports" "[\"$e/conf.d/*.toml\"]" \
      "$(toml_get "$e/config.toml" imports)"
    check_eq "e-drop-in-$def: main file otherwise unchanged" "" \
      "$(preserved drop-in "$e/seed.toml" "$e/config.toml" 1)"
    cp "$e/config.toml" "$e/first.toml"
    cp "$f" "$e/first-dropin.toml"
    "$ctk" "${args[@]}" 2>/dev/null || failed "e-drop-in-$def: second run failed"
    check "e-drop-in-$def: second run: main byte-identical" same_file "$e/config.toml" "$e/first.toml"
    check "e-drop-in-$def: second run: drop-in byte-identical" same_file "$f" "$e/first-dropin.toml"
  else
    failed "e-drop-in-$def: runtime configure failed: $(cat "$e/ctk.err")"
  fi
  result=pass
  [ "$E2E_FAILURES" -eq "$fails_before" ] || result="FAIL ($((E2E_FAILURES - fails_before)))"
  table+=("e       drop-in  $(printf '%-9s' "$def") file-level $result")

  e="$dir/e-in-place-$def"
  seed_v3 "$e"
  args=(--quiet runtime configure --runtime=containerd --config "$e/config.toml"
    --drop-in-config "" --nvidia-runtime-path "$rt" --executable-path "$fake")
  [ "$def" = default ] && args+=(--set-as-default)
  fails_before="$E2E_FAILURES"
  if "$ctk" "${args[@]}" 2>"$e/ctk.err"; then
    f="$e/config.toml"
    check_eq "e-in-place-$def: version" 3 "$(toml_get "$f" version)"
    check_eq "e-in-place-$def: nvidia BinaryName under $v3cri" "\"$rt\"" \
      "$(toml_get "$f" plugins "$v3cri" containerd runtimes nvidia options BinaryName)"
    check_eq "e-in-place-$def: default_runtime_name" "\"$want_default\"" \
      "$(toml_get "$f" plugins "$v3cri" containerd default_runtime_name)"
    check_eq "e-in-place-$def: images plugin kept" '"overlayfs"' \
      "$(toml_get "$f" plugins io.containerd.cri.v1.images snapshotter)"
    check_eq "e-in-place-$def: only the runtime tables changed" "" \
      "$(preserved in-place "$e/seed.toml" "$f" 1)"
    cp "$f" "$e/first.toml"
    "$ctk" "${args[@]}" 2>/dev/null || failed "e-in-place-$def: second run failed"
    check "e-in-place-$def: second run: byte-identical" same_file "$f" "$e/first.toml"
  else
    failed "e-in-place-$def: runtime configure failed: $(cat "$e/ctk.err")"
  fi
  result=pass
  [ "$E2E_FAILURES" -eq "$fails_before" ] || result="FAIL ($((E2E_FAILURES - fails_before)))"
  table+=("e       in-place $(printf '%-9s' "$def") file-level $result")
done

printf '# %s\n' "${table[@]}"
e2e_finish
