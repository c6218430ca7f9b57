#!/usr/bin/env bash
# CRI conformance through nvct: critest (cri-tools 1.26.1) runs its whole suite twice against one
# private containerd 1.6.20 whose config `nvidia-ctk runtime configure --runtime=containerd`
# wrote (drop-in mode, from Debian's stock config.toml): once with --runtime-handler=runc
# (containerd's own runc) and once with --runtime-handler=nvidia (nvct's nvidia-container-runtime,
# legacy mode, mock driver root). The two ginkgo JSON reports must name the same specs with the
# same outcome, and every spec must pass except the ones that need the internet, skipped by name:
#   "public image with digest should be pulled and removed" (it pins the upstream image's digest).
# critest pulls every image through CRI PullImage, and containerd asks a registry on every pull,
# so the test images (one rootfs: glibc + Debian's dynamically linked busybox, fetched once into
# $NVCT_CACHE_DIR/cri with a private apt config, plus small static stand-ins from lib/cri_*.c;
# OCI images made by lib/cri_images.py) are pushed with skopeo to Debian's docker-registry on
# 127.0.0.1:5000, which containerd reaches through hosts.toml mirrors for registry.k8s.io and
# gcr.io. Pods get a CNI bridge (containernetworking-plugins) in the test's private network
# namespace. Counts per handler are printed; nvct's runtime log must stay empty during the runc
# run and fill during the nvidia run; no pod, shim or cgroup is left afterwards.
# Knobs: NVCT_CRI_TOOLS_DIR (crictl/critest), NVCT_CRITEST_FOCUS (a ginkgo focus, for debugging),
# NVCT_CRITEST_TIMEOUT (per handler, default 270 s), NVCT_CRI_DEBUG_DIR (keep logs/reports),
# NVCT_CRI_HOLD (seconds to keep the namespace up before the runs, for nsenter debugging).
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"
source "$(dirname "$0")/lib/cri.sh"

# Debian's dynamically linked busybox (see lib/cri.sh) is fetched before entering the private
# network namespace, which has no route out.
[ -n "${NVCT_CRI_INNER:-}" ] || cri_fetch_busybox
cri_enter "$@"
require_cmd containerd ctr jq python3 docker-registry skopeo gcc iptables curl
[ -x /usr/lib/cni/bridge ] || e2e_die "CNI plugins missing (apt-get install containernetworking-plugins)"
cri_tools
gpu_setup one-gpu
W="$E2E_TMP/cri"
mkdir -p "$W/tmp"
export TMPDIR="$W/tmp"
SKIP='public image with digest'
REG=127.0.0.1:5000

# --- images ---------------------------------------------------------------------------------------
ROOT="$E2E_TMP/rootfs"
# glibc + Debian's dynamic busybox, every applet a hard link (as in the upstream busybox images:
# critest masks /bin/ls, which must not mask busybox through a symlink, and expects the shell to
# exec commands from PATH).
make_rootfs "$ROOT" glibc
find "$ROOT/bin" -maxdepth 1 -type l -lname busybox -delete
dpkg-deb -x "$CRI_CACHE/busybox.deb" "$E2E_TMP/busybox-deb" || e2e_die "cannot unpack $CRI_CACHE/busybox.deb"
cp "$E2E_TMP/busybox-deb/bin/busybox" "$ROOT/bin/busybox"
cp -L /lib/x86_64-linux-gnu/libresolv.so.2 "$ROOT/lib/x86_64-linux-gnu/"
for a in $("$ROOT/bin/busybox" --list); do
  [ -e "$ROOT/bin/$a" ] || ln "$ROOT/bin/busybox" "$ROOT/bin/$a"
done
"$ROOT/sbin/ldconfig" -r "$ROOT" 2>/dev/null || true
mkdir -p "$ROOT/var/run" "$ROOT/www" "$ROOT/usr/local/bin"
# Users and groups the user images name.
cat >"$ROOT/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
www-data:x:33:33:www-data:/var/www:/bin/sh
user-defined-in-image:x:1000:1000:user:/home/user:/bin/sh
nobody:x:65534:65534:nobody:/:/bin/false
EOF
cat >"$ROOT/etc/group" <<'EOF'
root:x:0:
www-data:x:33:
user-defined-in-image:x:1000:
group-defined-in-image:x:50000:user-defined-in-image
nogroup:x:65534:
EOF
# Debian's busybox has no pgrep or ipcs applets, which critest execs: small stand-ins.
rm -f "$ROOT/bin/pgrep" "$ROOT/bin/ipcs"
cat >"$ROOT/bin/pgrep" <<'EOF'
#!/bin/sh
# pgrep [-f] PATTERN: pids whose command line (-f) or name matches
full=""
[ "$1" = "-f" ] && { full=1; shift; }
rc=1
for d in /proc/[0-9]*; do
  p="${d#/proc/}"
  [ "$p" = "$$" ] && continue
  if [ -n "$full" ]; then s="$(tr '\0' ' ' <"$d/cmdline" 2>/dev/null)"; else s="$(cat "$d/comm" 2>/dev/null)"; fi
  case "$s" in *"$1"*) echo "$p"; rc=0 ;; esac
done
exit $rc
EOF
cat >"$ROOT/bin/ipcs" <<'EOF'
#!/bin/sh
# ipcs [-m|-q|-s]: the kernel's System V IPC tables of this IPC namespace
case "${1:--m}" in
  -q) cat /proc/sysvipc/msg ;;
  -s) cat /proc/sysvipc/sem ;;
  *) cat /proc/sysvipc/shm ;;
esac
EOF
chmod 0755 "$ROOT/bin/pgrep" "$ROOT/bin/ipcs"
echo '<html>nvct test web server</html>' >"$ROOT/www/index.html"
# Static helper programs (lib/cri_nnp.c: the setuid nonewprivs program; lib/cri_web.c: a web
# server that looks like the nginx/httpd test images to critest; lib/cri_pause.c: the sandbox).
gcc -static -O2 -o "$E2E_TMP/nnp" "$CRI_PY_DIR/cri_nnp.c" || e2e_die "cannot build cri_nnp.c"
gcc -static -O2 -o "$E2E_TMP/web" "$CRI_PY_DIR/cri_web.c" || e2e_die "cannot build cri_web.c"
gcc -static -O2 -o "$E2E_TMP/pause" "$CRI_PY_DIR/cri_pause.c" || e2e_die "cannot build cri_pause.c"
PATH_ENV='"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"'
img() { # img <ref> <config-json> [files-json]
  printf '{"ref": "%s", "name": "%s", "rootfs": "%s", "config": %s, "files": %s}' \
    "$1" "$1" "$ROOT" "$2" "${3:-{\}}"
}
# A busybox image: shell by default, extra config keys in $1, a distinct label per image so that
# images meant to differ get different IDs.
sh_cfg() { printf '{"Cmd": ["sh"], "Env": [%s], "Labels": {"nvct.image": "%s"}%s}' "$PATH_ENV" "$1" "${2:-}"; }
web_file() { printf '{"%s": {"source": "%s", "mode": 493}}' "$1" "$E2E_TMP/web"; }
{
  echo '{"images": ['
  img pause "{\"Entrypoint\": [\"/pause\"], \"Env\": [$PATH_ENV]}" \
    "{\"/pause\": {\"source\": \"$E2E_TMP/pause\", \"mode\": 493}}"; echo ,
  img busybox "$(sh_cfg busybox)"; echo ,
  img test-latest "$(sh_cfg test-latest)"; echo ,
  img test-tag "$(sh_cfg test-tag)"; echo ,
  img test-tags "$(sh_cfg test-tags)"; echo ,
  img nginx "{\"Entrypoint\": [\"/usr/sbin/nginx\", \"-g\", \"daemon off;\"], \"Env\": [$PATH_ENV, \"WEB_PORT=80\"]}" \
    "$(web_file /usr/sbin/nginx)"; echo ,
  img hostnet-nginx "{\"Entrypoint\": [\"/usr/sbin/nginx\", \"-g\", \"daemon off;\"], \"Env\": [$PATH_ENV, \"WEB_PORT=12003\"]}" \
    "$(web_file /usr/sbin/nginx)"; echo ,
  img httpd "{\"Entrypoint\": [\"/usr/local/apache2/bin/httpd\", \"-D\", \"FOREGROUND\"], \"Env\": [$PATH_ENV, \"WEB_PORT=80\"]}" \
    "$(web_file /usr/local/apache2/bin/httpd)"; echo ,
  img nonewprivs "{\"Entrypoint\": [\"/usr/local/bin/nnp\"], \"Env\": [$PATH_ENV]}" \
    "{\"/usr/local/bin/nnp\": {\"source\": \"$E2E_TMP/nnp\", \"mode\": 3565}}"; echo ,
  img test-1 "$(sh_cfg test-1)"; echo ,
  img test-2 "$(sh_cfg test-2)"; echo ,
  img test-3 "$(sh_cfg test-3)"; echo ,
  img user-uid "$(sh_cfg user-uid ', "User": "1002"')"; echo ,
  img user-username "$(sh_cfg user-username ', "User": "www-data"')"; echo ,
  img user-uid-group "$(sh_cfg user-uid-group ', "User": "1003:1004"')"; echo ,
  img user-username-group "$(sh_cfg user-username-group ', "User": "www-data:1004"')"; echo ,
  img predefined-group "$(sh_cfg predefined-group ', "User": "1000"')"
  echo ']}'
} >"$E2E_TMP/images.json"
python3 "$CRI_PY_DIR/cri_images.py" build "$E2E_TMP/images.json" "$E2E_TMP/layout" ||
  e2e_die "building the test images failed ($E2E_TMP/images.json)"

# --- the registry on 127.0.0.1:5000 (this network namespace only) ---------------------------------
mkdir -p "$W/registry"
cat >"$W/registry.yml" <<EOF
version: 0.1
log:
  level: warn
storage:
  filesystem:
    rootdirectory: $W/registry
http:
  addr: $REG
EOF
docker-registry serve "$W/registry.yml" >"$W/registry.log" 2>&1 &
echo $! >"$W/registry.pid"
for _ in $(seq 100); do curl -fs "http://$REG/v2/" >/dev/null 2>&1 && break; sleep 0.1; done
curl -fs "http://$REG/v2/" >/dev/null || e2e_die "docker-registry did not come up: $(tail -5 "$W/registry.log")"
# push <ref> <repo:tag>...
push() {
  local ref="$1" dest
  shift
  for dest in "$@"; do
    skopeo copy --quiet --dest-tls-verify=false "oci:$E2E_TMP/layout:$ref" "docker://$REG/$dest" \
      >"$W/skopeo.log" 2>&1 || e2e_die "skopeo copy $ref -> $dest failed: $(cat "$W/skopeo.log")"
  done
}
E2E=e2e-test-images
CT=k8s-staging-cri-tools
push pause pause:3.6
push busybox "$E2E/busybox:1.29-2"
push test-latest "$CT/test-image-latest:latest"
push test-tag "$CT/test-image-tag:test" "$CT/test-image-tag:all"
push nginx "$E2E/nginx:1.14-2"
push httpd "$E2E/httpd:2.4.39-4"
push hostnet-nginx "$CT/hostnet-nginx-amd64:latest"
push nonewprivs "$E2E/nonewprivs:1.3"
push test-1 "$CT/test-image-1:latest"
push test-2 "$CT/test-image-2:latest"
push test-3 "$CT/test-image-3:latest"
push test-tags "$CT/test-image-tags:1" "$CT/test-image-tags:2" "$CT/test-image-tags:3"
push user-uid "$CT/test-image-user-uid:latest"
push user-username "$CT/test-image-user-username:latest"
push user-uid-group "$CT/test-image-user-uid-group:latest"
push user-username-group "$CT/test-image-user-username-group:latest"
push predefined-group "$CT/test-image-predefined-group:latest"
check_contains "registry serves the pushed repositories" "$E2E/busybox" \
  "$(curl -fs "http://$REG/v2/_catalog?n=100")"

# --- containerd configured by nvidia-ctk, mirrors, CNI ---------------------------------------------
# Plain legacy-mode runtime config (containers without NVIDIA_* requests pass through to runc),
# logging at debug level: its log shows which handler ran through nvct.
sed -i "s|^debug = \"$E2E_TMP/shim-debug.log\"|&\nlog-level = \"debug\"|" "$GPU_CONFIG"
grep -q '^log-level = "debug"' "$GPU_CONFIG" || e2e_die "cannot set the runtime's log level in $GPU_CONFIG"
SHIM_LOG="$E2E_TMP/shim-debug.log"
touch "$SHIM_LOG"
cri_start_config "$W" stock
cri_configure "$W" "$GPU_SHIM"
for host in registry.k8s.io gcr.io; do
  mkdir -p "$W/certs.d/$host"
  cat >"$W/certs.d/$host/hosts.toml" <<EOF
server = "https://$host"

[host."http://$REG"]
  capabilities = ["pull", "resolve"]
EOF
done
cri_cni_bridge "$W"
# critest's pods name no cgroup parent: containerd puts them under /k8s.io on each hierarchy.
cri_cgroups_track k8s.io
cgroups_before="$(cri_cgroups_below k8s.io)"
cri_start "$W"
crictl info >"$W/info.json"
check_eq "crictl info: RuntimeReady and NetworkReady" "true true" \
  "$(jq -r '[.status.conditions[] | select(.type == "RuntimeReady" or .type == "NetworkReady") | .status] | join(" ")' "$W/info.json")"
check_eq "crictl info: handlers nvidia and runc" "nvidia runc" \
  "$(jq -r '.config.containerd.runtimes | keys | join(" ")' "$W/info.json")"
check_eq "crictl info: nvidia runs nvct's runtime" "$GPU_SHIM" \
  "$(jq -r '.config.containerd.runtimes.nvidia.options.BinaryName' "$W/info.json")"

cat >"$W/test-images.yaml" <<EOF
defaultTestContainerImage: registry.k8s.io/$E2E/busybox:1.29-2
webServerTestImage: registry.k8s.io/$E2E/nginx:1.14-2
EOF

# --- critest, once per handler ---------------------------------------------------------------------
run_critest() {
  local handler="$1" rc=0 t0
  local dir="$W/critest-$handler"
  mkdir -p "$dir"
  t0=$SECONDS
  (cd "$dir" && timeout "${NVCT_CRITEST_TIMEOUT:-270}" "$CRITEST" \
    --runtime-endpoint "unix://$CRI_SOCK" --image-endpoint "unix://$CRI_SOCK" \
    --runtime-handler "$handler" --test-images-file "$W/test-images.yaml" \
    --ginkgo.skip "$SKIP" --ginkgo.json-report "$dir/report.json" --ginkgo.no-color \
    ${NVCT_CRITEST_FOCUS:+--ginkgo.focus "$NVCT_CRITEST_FOCUS"}) >"$dir/critest.log" 2>&1 || rc=$?
  echo "# critest --runtime-handler=$handler: exit $rc in $((SECONDS - t0)) s"
  [ -s "$dir/report.json" ] || { tail -30 "$dir/critest.log"; e2e_die "critest ($handler) wrote no report"; }
  # One line per spec: "<state> <full name>".
  jq -r '.[].SpecReports[] | select(.LeafNodeType == "It")
         | "\(.State) \(.ContainerHierarchyTexts | join(" ")) \(.LeafNodeText)"' \
    "$dir/report.json" | sort >"$dir/results.txt"
  local n
  n="$(wc -l <"$dir/results.txt")"
  echo "# $handler: $n specs: $(cut -d' ' -f1 "$dir/results.txt" | sort | uniq -c | awk '{ printf "%s %s, ", $2, $1 }' | sed 's/, $//')"
  # Each spec that did not pass or skip, with ginkgo's failure message and location.
  jq -r '.[].SpecReports[] | select(.LeafNodeType == "It" and .State != "passed" and .State != "skipped")
         | "#   \(.State): \(.ContainerHierarchyTexts | join(" ")) \(.LeafNodeText)\n#     \(.Failure.Message // "" | gsub("\n"; "\n#     "))\n#     at \(.Failure.Location.FileName // ""):\(.Failure.Location.LineNumber // "")"' \
    "$dir/report.json" | sed "s/^#   /#   $handler: /"
  return 0
}
# NVCT_CRI_HOLD=<seconds>: keep the namespace (containerd, registry) up before the runs, for
# debugging with nsenter.
[ -n "${NVCT_CRI_HOLD:-}" ] && { echo "# holding: W=$W CRI_SOCK=$CRI_SOCK"; sleep "$NVCT_CRI_HOLD"; }
run_critest runc
shim_lines_runc="$(wc -l <"$SHIM_LOG")"
run_critest nvidia
shim_lines_nvidia="$(( $(wc -l <"$SHIM_LOG") - shim_lines_runc ))"
echo "# nvct runtime log lines: $shim_lines_runc during the runc run, $shim_lines_nvidia during the nvidia run"
check_eq "the runc handler never ran nvct's runtime" 0 "$shim_lines_runc"
check "the nvidia handler ran nvct's runtime" test "$shim_lines_nvidia" -gt 100
R="$W/critest-runc/results.txt"
N="$W/critest-nvidia/results.txt"
crictl rmp -fa >/dev/null 2>&1 || true
check_eq "no pods left after both runs" "" "$(crictl pods -q)"
check_eq "no containerd-shim left after both runs" "" "$(cri_shims)"
check_eq "no cgroups left below /k8s.io after both runs" "$cgroups_before" "$(cri_cgroups_below k8s.io)"
check "critest ran specs" test "$(wc -l <"$R")" -gt 50
if same_file "$R" "$N"; then
  pass "runc and nvidia handlers: the same specs with the same outcomes"
else
  failed "runc and nvidia results differ: $(diff "$R" "$N" | grep '^[<>]' | tr '\n' ' ')"
fi
# critest registers its benchmark specs in the same suite and skips them unless -benchmark is
# given: they are not part of the conformance run.
BENCH='^skipped \[k8s.io\] [A-Za-z]+ benchmark about '
for h in runc nvidia; do
  f="$W/critest-$h/results.txt"
  check_eq "$h: every spec passed or was skipped" "" "$(grep -v -E '^(passed|skipped) ' "$f" || true)"
  check_eq "$h: skipped exactly the specs needing the internet (besides the benchmarks)" \
    "skipped [k8s.io] Image Manager public image with digest should be pulled and removed [Conformance]" \
    "$(grep '^skipped ' "$f" | grep -v -E "$BENCH" | tr '\n' ' ' | sed 's/ $//')"
done
echo "# skipped on both handlers, needing the internet:"
grep '^skipped ' "$R" | grep -v -E "$BENCH" | sed 's/^skipped /#   /'
echo "# skipped on both handlers, benchmarks (critest runs them only with -benchmark):"
grep -E "$BENCH" "$R" | sed 's/^skipped /#   /'
if [ -n "${NVCT_CRI_DEBUG_DIR:-}" ]; then
  mkdir -p "$NVCT_CRI_DEBUG_DIR"
  cp -r "$W"/critest-* "$NVCT_CRI_DEBUG_DIR/" 2>/dev/null || true
fi
e2e_finish
