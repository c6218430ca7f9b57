#!/usr/bin/env bash
# nvidia-ctk runtime configure for docker (daemon.json) and CRI-O (crio.conf and its drop-in),
# from each starting point of issue 14: a missing file, an empty (0-byte) file, a file with
# unrelated keys, a symlinked file and a read-only file; every successful run is repeated and
# must change no byte. What nvct does (spec/ctk.md §2, §5, §7), pinned here:
#   - missing / empty daemon.json: written as {"runtimes": {"nvidia": ...}} (the 0-byte file is
#     read as {}); a missing or empty crio.conf is left as it is and the drop-in gets the runtime
#     with runtime_type "oci" (CRI-O's built-in defaults apply to the rest);
#   - unrelated keys: every docker key and value is kept (the file is re-serialised in the
#     reference's layout: 4-space indent, keys sorted, which is what `jq -S` compares);
#     default-runtime changes only with --set-as-default. crio.conf stays byte-identical in
#     drop-in mode; edited in place (--drop-in-config="") only the nvidia table and
#     default_runtime change, comments and order stay;
#   - a symlinked file: written through to the link's target, the link itself stays (never
#     replaced by a regular file), and the log names both;
#   - a read-only file (a read-only bind mount of its directory: EROFS; of the file itself: the
#     rename onto it fails with EBUSY; chattr +i: EPERM): exit 1 with the path and the reason,
#     the file untouched, no temp or lock file left behind.
# Debian 12's dockerd (20.10) has no `--validate` (Docker 23+) and CRI-O is not packaged, so the
# engines' acceptance is not checked here (e2e_ctk_runtime_docker.sh starts dockerd on an edited
# daemon.json).
source "$(dirname "$0")/lib/common.sh"

require_root
require_cmd jq python3 unshare chattr lsattr
ctk="$(nvct_bin nvidia-ctk)"
dir="$E2E_TMP"
rt="$dir/bin/nvidia-container-runtime"
mkdir -p "$dir/bin"
printf '#!/bin/sh\n' >"$rt"
chmod 0755 "$rt"
# chattr +i needs a file system that has the flag (not tmpfs): probe it once.
probe="$dir/probe"
touch "$probe"
chattr +i "$probe" 2>/dev/null ||
  e2e_die "chattr +i is not supported on $(df --output=fstype "$dir" | tail -n 1) ($dir)"
chattr -i "$probe"
rm -f "$probe"
e2e_on_exit "find '$dir' -type f -exec chattr -i {} + 2>/dev/null"

# run_twice <name> <file...> -- <nvidia-ctk args...>: configure, then configure again and check
# that the files (paths before --) are byte-identical after the second run.
run_twice() {
  local name="$1" f i=0
  shift
  local -a files=()
  while [ "$1" != -- ]; do files+=("$1"); shift; done
  shift
  if ! "$ctk" "$@" 2>"$dir/$name.err"; then
    failed "$name: runtime configure failed: $(tr '\n' ' ' <"$dir/$name.err")"
    return 1
  fi
  for f in "${files[@]}"; do
    cp "$f" "$dir/$name.first.$i" 2>/dev/null || : >"$dir/$name.first.$i.missing"
    i=$((i + 1))
  done
  "$ctk" "$@" 2>"$dir/$name.err2" || failed "$name: second run failed: $(cat "$dir/$name.err2")"
  i=0
  for f in "${files[@]}"; do
    if [ -e "$dir/$name.first.$i.missing" ]; then
      check "$name: second run: $(basename "$f") still absent" test ! -e "$f"
    else
      check "$name: second run: $(basename "$f") byte-identical" same_file "$f" "$dir/$name.first.$i"
    fi
    i=$((i + 1))
  done
}
# no_leftovers <name> <dir> <expected listing>: nothing but the expected names in <dir>.
no_leftovers() {
  check_eq "$1: no temp or lock file left" "$3" "$(ls -A "$2" | tr '\n' ' ' | sed 's/ $//')"
}

# --- docker --------------------------------------------------------------------------------------
D="$dir/docker"
dk=(runtime configure --runtime=docker --nvidia-runtime-path "$rt")

# missing file (its directory too).
run_twice docker-missing "$D/missing/daemon.json" -- "${dk[@]}" --config "$D/missing/daemon.json" &&
  check_eq "docker-missing: only the nvidia runtime" \
    "{\"runtimes\":{\"nvidia\":{\"args\":[],\"path\":\"$rt\"}}}" "$(jq -c . "$D/missing/daemon.json")"

# empty (0-byte) file.
mkdir -p "$D/empty"
: >"$D/empty/daemon.json"
run_twice docker-empty "$D/empty/daemon.json" -- "${dk[@]}" --config "$D/empty/daemon.json" &&
  check_eq "docker-empty: read as {}" "{\"runtimes\":{\"nvidia\":{\"args\":[],\"path\":\"$rt\"}}}" \
    "$(jq -c . "$D/empty/daemon.json")"
no_leftovers docker-empty "$D/empty" daemon.json

# unrelated keys, with and without --set-as-default.
seed_json='{"storage-driver":"overlay2","log-opts":{"max-size":"10m","max-file":"3"},"features":{"buildkit":true},"default-runtime":"other","runtimes":{"other":{"path":"/usr/sbin/runc","runtimeArgs":["--debug"]}},"exec-opts":["native.cgroupdriver=systemd"],"log-driver":"local"}'
for def in no-default default; do
  u="$D/keys-$def"
  mkdir -p "$u"
  printf '%s\n' "$seed_json" >"$u/daemon.json"
  chmod 0640 "$u/daemon.json"
  extra=()
  want_default=other
  [ "$def" = default ] && { extra=(--set-as-default); want_default=nvidia; }
  run_twice "docker-keys-$def" "$u/daemon.json" -- "${dk[@]}" --config "$u/daemon.json" "${extra[@]}" || continue
  check_eq "docker-keys-$def: every other key and value kept" \
    "$(jq -S --arg d "$want_default" '. + {"default-runtime": $d}' <<<"$seed_json")" \
    "$(jq -S 'del(.runtimes.nvidia)' "$u/daemon.json")"
  check_eq "docker-keys-$def: nvidia added" "$rt" "$(jq -r .runtimes.nvidia.path "$u/daemon.json")"
  check_eq "docker-keys-$def: default-runtime" "$want_default" \
    "$(jq -r '."default-runtime"' "$u/daemon.json")"
  check_eq "docker-keys-$def: written in the reference's layout (sorted, 4 spaces)" \
    "$(jq -S --indent 4 . "$u/daemon.json")" "$(cat "$u/daemon.json")"
  check_eq "docker-keys-$def: mode kept" 640 "$(stat -c %a "$u/daemon.json")"
done

# symlinked file: written through, the link stays.
s="$D/link"
mkdir -p "$s/real"
echo '{"log-driver":"local"}' >"$s/real/daemon.json"
ln -s real/daemon.json "$s/daemon.json"
if run_twice docker-symlink "$s/real/daemon.json" -- "${dk[@]}" --config "$s/daemon.json"; then
  check "docker-symlink: the link is still a link" test -L "$s/daemon.json"
  check_eq "docker-symlink: ... to the same target" real/daemon.json "$(readlink "$s/daemon.json")"
  check_eq "docker-symlink: the target got nvidia" "$rt" "$(jq -r .runtimes.nvidia.path "$s/real/daemon.json")"
  check_eq "docker-symlink: the target kept its key" local "$(jq -r '."log-driver"' "$s/real/daemon.json")"
  check_contains "docker-symlink: the log names the target and the link" \
    "Wrote updated config to $s/real/daemon.json (through the symbolic link $s/daemon.json)" \
    "$(cat "$dir/docker-symlink.err")"
  no_leftovers docker-symlink "$s/real" daemon.json
fi

# read-only: refused <name> <dir> <file> <reason> <unshare setup> <nvidia-ctk args...>
# The setup (a mount) runs in a private mount namespace, together with nvidia-ctk.
refused() {
  local name="$1" d="$2" f="$3" reason="$4" setup="$5" rc=0
  shift 5
  cp "$f" "$dir/$name.seed"
  unshare --mount --propagation private bash -c "$setup && exec \"\$@\"" nvct "$ctk" "$@" \
    >"$dir/$name.out" 2>"$dir/$name.err" || rc=$?
  check_eq "$name: exit status" 1 "$rc"
  check_contains "$name: the error gives the path and the reason" "$reason" "$(cat "$dir/$name.err")"
  check "$name: the file is untouched" same_file "$f" "$dir/$name.seed"
  no_leftovers "$name" "$d" "$(basename "$f")"
}
r="$D/ro-dir"
mkdir -p "$r"
echo '{"log-driver":"local"}' >"$r/daemon.json"
refused docker-ro-mount "$r" "$r/daemon.json" "$r/.daemon.json.lock: Read-only file system" \
  "mount --bind '$r' '$r' && mount -o remount,bind,ro '$r'" \
  "${dk[@]}" --config "$r/daemon.json"
r="$D/ro-file"
mkdir -p "$r"
echo '{"log-driver":"local"}' >"$r/daemon.json"
refused docker-ro-file-mount "$r" "$r/daemon.json" "to daemon.json: Device or resource busy" \
  "mount --bind '$r/daemon.json' '$r/daemon.json' && mount -o remount,bind,ro '$r/daemon.json'" \
  "${dk[@]}" --config "$r/daemon.json"
r="$D/immutable"
mkdir -p "$r"
echo '{"log-driver":"local"}' >"$r/daemon.json"
chattr +i "$r/daemon.json"
refused docker-immutable "$r" "$r/daemon.json" "to daemon.json: Operation not permitted" true \
  "${dk[@]}" --config "$r/daemon.json"
chattr -i "$r/daemon.json"

# --- CRI-O ---------------------------------------------------------------------------------------
C="$dir/crio"
co=(runtime configure --runtime=crio --nvidia-runtime-path "$rt")
toml() {
  python3 - "$@" <<'PY'
import json, sys, tomllib
node = tomllib.load(open(sys.argv[1], "rb"))
for k in sys.argv[2:]:
    node = node.get(k) if isinstance(node, dict) else None
print(json.dumps(node))
PY
}
nvidia_entry() { toml "$1" crio runtime runtimes nvidia | jq -c .; }

# missing and empty main file: the drop-in has the runtime, the main file stays as it was.
for kind in missing empty; do
  m="$C/$kind"
  mkdir -p "$m"
  [ "$kind" = empty ] && : >"$m/crio.conf"
  run_twice "crio-$kind" "$m/crio.conf" "$m/crio.conf.d/99-nvidia.toml" -- "${co[@]}" \
    --config "$m/crio.conf" --drop-in-config "$m/crio.conf.d/99-nvidia.toml" || continue
  check_eq "crio-$kind: drop-in entry" "{\"runtime_path\":\"$rt\",\"runtime_type\":\"oci\"}" \
    "$(nvidia_entry "$m/crio.conf.d/99-nvidia.toml")"
  if [ "$kind" = missing ]; then
    check "crio-missing: no main file created" test ! -e "$m/crio.conf"
  else
    check_eq "crio-empty: the main file is still empty" 0 "$(stat -c %s "$m/crio.conf")"
  fi
  no_leftovers "crio-$kind" "$m/crio.conf.d" 99-nvidia.toml
done

# unrelated keys, drop-in and in place, with and without --set-as-default.
write_crio() {
  cat >"$1" <<'TOML'
# CRI-O configuration (admin)
[crio]
  log_dir = "/var/log/crio/pods"  # pod logs

[crio.runtime]
  # crun for everything
  default_runtime = "crun"
  conmon_cgroup = "pod"

  [crio.runtime.runtimes.crun]
    runtime_path = "/usr/bin/crun"
    runtime_root = "/run/crun"
    monitor_path = "/usr/libexec/crio/conmon"

[crio.image]
  pause_image = "registry.example/pause:3.9"
TOML
}
for mode in drop-in in-place; do
  for def in no-default default; do
    n="crio-keys-$mode-$def"
    k="$C/$n"
    mkdir -p "$k"
    write_crio "$k/crio.conf"
    cp "$k/crio.conf" "$k/seed.conf"
    extra=()
    want_default='"crun"'
    [ "$def" = default ] && { extra=(--set-as-default); want_default='"nvidia"'; }
    if [ "$mode" = drop-in ]; then
      out="$k/crio.conf.d/99-nvidia.toml"
      run_twice "$n" "$k/crio.conf" "$out" -- "${co[@]}" --config "$k/crio.conf" \
        --drop-in-config "$out" "${extra[@]}" || continue
      check "$n: the main file is byte-identical" same_file "$k/crio.conf" "$k/seed.conf"
      if [ "$def" = default ]; then
        check_eq "$n: the drop-in sets the default" '"nvidia"' "$(toml "$out" crio runtime default_runtime)"
      else
        check_eq "$n: the drop-in leaves the default alone" null "$(toml "$out" crio runtime default_runtime)"
      fi
    else
      out="$k/crio.conf"
      run_twice "$n" "$out" -- "${co[@]}" --config "$out" --drop-in-config "" "${extra[@]}" || continue
      check "$n: no drop-in" test ! -e "$k/crio.conf.d"
      check_eq "$n: default_runtime" "$want_default" "$(toml "$out" crio runtime default_runtime)"
      # Only the nvidia table (and the default_runtime line) may differ from the seed.
      check_eq "$n: comments, order and other keys kept" "" "$(python3 - "$k/seed.conf" "$out" <<'PY'
import difflib, re, sys
def kept(path):
    out, inside = [], False
    for line in open(path).read().splitlines():
        m = re.match(r'^\s*\[(.*)\]\s*$', line)
        if m:
            inside = m.group(1).startswith("crio.runtime.runtimes.nvidia")
        if inside or not line.strip() or re.match(r'^\s*default_runtime\s*=', line):
            continue
        out.append(line)
    return out
print("\n".join(difflib.unified_diff(kept(sys.argv[1]), kept(sys.argv[2]), lineterm="", n=0)))
PY
)"
      check_eq "$n: crun kept" '"/usr/bin/crun"' "$(toml "$out" crio runtime runtimes crun runtime_path)"
    fi
    # Options come from the default runtime (crun): its monitor_path and runtime_root.
    check_eq "$n: nvidia entry" \
      "{\"monitor_path\":\"/usr/libexec/crio/conmon\",\"runtime_path\":\"$rt\",\"runtime_root\":\"/run/crun\",\"runtime_type\":\"oci\"}" \
      "$(nvidia_entry "$out")"
  done
done

# symlinked files: a symlinked crio.conf is read (drop-in) or edited through (in place); a
# symlinked drop-in is written through.
l="$C/link"
mkdir -p "$l/real" "$l/real.d" "$l/crio.conf.d"
write_crio "$l/real/crio.conf"
ln -s real/crio.conf "$l/crio.conf"
: >"$l/real.d/99-nvidia.toml"
ln -s ../real.d/99-nvidia.toml "$l/crio.conf.d/99-nvidia.toml"
if run_twice crio-symlink-drop-in "$l/real.d/99-nvidia.toml" -- "${co[@]}" --config "$l/crio.conf" \
  --drop-in-config "$l/crio.conf.d/99-nvidia.toml"; then
  check "crio-symlink-drop-in: the drop-in link stays a link" test -L "$l/crio.conf.d/99-nvidia.toml"
  check_eq "crio-symlink-drop-in: its target has nvidia (options read through the main link)" \
    '"/run/crun"' "$(toml "$l/real.d/99-nvidia.toml" crio runtime runtimes nvidia runtime_root)"
fi
cp "$l/real/crio.conf" "$dir/crio-link.seed"
if run_twice crio-symlink-in-place "$l/real/crio.conf" -- "${co[@]}" --config "$l/crio.conf" \
  --drop-in-config ""; then
  check "crio-symlink-in-place: the link stays a link" test -L "$l/crio.conf"
  check_eq "crio-symlink-in-place: the target has nvidia" "\"$rt\"" \
    "$(toml "$l/real/crio.conf" crio runtime runtimes nvidia runtime_path)"
  check_contains "crio-symlink-in-place: the target keeps its comments" "# crun for everything" \
    "$(cat "$l/real/crio.conf")"
  no_leftovers crio-symlink-in-place "$l/real" crio.conf
fi

# read-only: the drop-in directory on a read-only mount; crio.conf immutable (in place).
r="$C/ro"
mkdir -p "$r/crio.conf.d"
write_crio "$r/crio.conf"
printf '# placeholder\n' >"$r/crio.conf.d/99-nvidia.toml"
refused crio-ro-drop-in-dir "$r/crio.conf.d" "$r/crio.conf.d/99-nvidia.toml" \
  "$r/crio.conf.d/.99-nvidia.toml.lock: Read-only file system" \
  "mount --bind '$r/crio.conf.d' '$r/crio.conf.d' && mount -o remount,bind,ro '$r/crio.conf.d'" \
  "${co[@]}" --config "$r/crio.conf" --drop-in-config "$r/crio.conf.d/99-nvidia.toml"
r="$C/immutable"
mkdir -p "$r"
write_crio "$r/crio.conf"
chattr +i "$r/crio.conf"
refused crio-immutable-in-place "$r" "$r/crio.conf" "to crio.conf: Operation not permitted" true \
  "${co[@]}" --config "$r/crio.conf" --drop-in-config ""
chattr -i "$r/crio.conf"

e2e_finish
