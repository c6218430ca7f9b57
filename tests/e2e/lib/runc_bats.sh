# shellcheck shell=bash
# Helpers for e2e_runc_bats.sh: fetch runc's own bats integration suite from Debian's runc source
# package, build the suite's helper programs and its busybox image offline, and run the suite with
# a chosen $RUNC (bare runc or the nvct shim) into a TAP file.
#
#   runc_bats_fetch <cache-dir> <dest>      Debian's runc source (cached .dsc + tarballs) unpacked
#                                           into <dest> (a fresh copy per run: the suite writes
#                                           into its own tree)
#   runc_bats_build_helpers <src> <cache>   recvtty + seccompagent built from <src>/contrib/cmd with
#                                           Debian's golang-*-dev packages (GOPATH mode, no network),
#                                           cached by source version, copied to where helpers.bash
#                                           looks for them
#   runc_bats_busybox_image <out.tar>       busybox rootfs tarball from Debian's busybox-static
#   runc_bats_stub_images <src> <busybox> <debian>
#                                           replaces get-images.sh (which downloads from GitHub and
#                                           needs `go env`) by one printing our image paths
#   runc_bats_debian_image <cache>          debian image (mmdebstrap), cached; prints its path
#   runc_bats_run <src> <runc> <tap> [bats files...]
#                                           runs the suite with RUNC=<runc>, TAP into <tap>, each
#                                           file under `script` in runc_bats_ns.sh's namespace
# Source common.sh first.

RUNC_BATS_LIB="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The runc version under test: Debian 12's runc, the same binary the shim execs; the source
# package fetched is the installed binary's exact version (a security update changes both).
RUNC_BATS_PKG="runc"
RUNC_BATS_SOURCE_LINES=(
  "http://deb.debian.org/debian bookworm main"
  "http://deb.debian.org/debian bookworm-updates main"
  "http://deb.debian.org/debian-security bookworm-security main"
)

# Private apt configuration (never the host's sources): prints the -o options.
_runc_bats_apt_opts() {
  local d="$1"
  printf '%s\n' -o "Dir::Etc::SourceList=$d/sources.list" -o "Dir::Etc::SourceParts=/dev/null" \
    -o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o "Dir::State::status=/var/lib/dpkg/status" \
    -o "APT::Sandbox::User=root"
}

# True when <dir> holds the .dsc of runc <version> and all its files with the right sha256.
_runc_bats_dsc_ok() {
  local dir="$1" dsc="$1/${RUNC_BATS_PKG}_${2#*:}.dsc"
  [ -f "$dsc" ] || return 1
  # dpkg-source -x verifies every file against the .dsc's checksums; a dry check lists them.
  awk '/^Checksums-Sha256:/{on=1;next} /^[^ ]/{on=0} on&&NF==3{print $1"  "$3}' "$dsc" >"$dir/.sums" || return 1
  [ -s "$dir/.sums" ] && (cd "$dir" && sha256sum --quiet -c .sums) >/dev/null 2>&1
}

runc_bats_fetch() {
  local cache="$1" dest="$2" apt="$1/apt" src="$1/src" dsc ver
  ver="$(dpkg-query -W -f '${Version}' "$RUNC_BATS_PKG")" || e2e_die "Debian package runc not installed"
  mkdir -p "$src"
  if ! _runc_bats_dsc_ok "$src" "$ver"; then
    echo "# fetching Debian's runc $ver source package into $src"
    rm -rf "$apt" "${src:?}"/*
    mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
    printf 'deb-src %s\n' "${RUNC_BATS_SOURCE_LINES[@]}" >"$apt/sources.list"
    mapfile -t opts < <(_runc_bats_apt_opts "$apt")
    apt-get "${opts[@]}" -qq update >"$cache/apt.log" 2>&1 ||
      e2e_die "apt-get update (private deb-src list) failed: $(tail -n5 "$cache/apt.log")"
    (cd "$src" && apt-get "${opts[@]}" -qq source --download-only "$RUNC_BATS_PKG=$ver") \
      >>"$cache/apt.log" 2>&1 ||
      e2e_die "apt-get source --download-only runc=$ver failed: $(tail -n5 "$cache/apt.log")"
    _runc_bats_dsc_ok "$src" "$ver" || e2e_die "downloaded runc source does not match its .dsc checksums"
  fi
  dsc="$src/${RUNC_BATS_PKG}_${ver#*:}.dsc"
  rm -rf "$dest"
  dpkg-source -x "$dsc" "$dest" >"$cache/dpkg-source.log" 2>&1 ||
    e2e_die "dpkg-source -x $dsc failed: $(tail -n5 "$cache/dpkg-source.log")"
  local f
  for f in helpers.bash get-images.sh run.bats exec.bats; do
    [ -f "$dest/tests/integration/$f" ] || e2e_die "runc source lacks tests/integration/$f"
  done
  RUNC_BATS_VERSION="$(basename "$dsc" .dsc)"
  RUNC_BATS_VERSION="${RUNC_BATS_VERSION#"${RUNC_BATS_PKG}"_}"
}

# Builds recvtty and seccompagent (the sd-helper is only used with --systemd-cgroup, which this
# run does not use). Debian's source is "+ds" (no vendor/): the imports come from the
# golang-*-dev packages under /usr/share/gocode, in GOPATH mode, with the proxy off.
runc_bats_build_helpers() {
  local src="$1" cache="$2" out="$2/helpers-$RUNC_BATS_VERSION" gp t
  if [ ! -x "$out/recvtty" ] || [ ! -x "$out/seccompagent" ]; then
    require_cmd go
    echo "# building recvtty and seccompagent from runc $RUNC_BATS_VERSION"
    gp="$E2E_TMP/gopath"
    mkdir -p "$gp/src/github.com/opencontainers" "$out.tmp"
    ln -sfn "$src" "$gp/src/github.com/opencontainers/runc"
    for t in recvtty seccompagent; do
      (cd "$gp/src/github.com/opencontainers/runc" &&
        GOPATH="$gp:/usr/share/gocode" GO111MODULE=off GOPROXY=off GOFLAGS='' \
          GOCACHE="$E2E_TMP/gocache" GOENV=off CGO_ENABLED=1 \
          go build -tags seccomp -o "$out.tmp/$t" "./contrib/cmd/$t") >"$E2E_TMP/go-$t.log" 2>&1 ||
        e2e_die "go build contrib/cmd/$t failed (golang-go and the golang-*-dev packages from" \
          "scripts/install-deps.sh needed): $(tail -n8 "$E2E_TMP/go-$t.log")"
    done
    rm -rf "$out" && mv "$out.tmp" "$out"
  fi
  for t in recvtty seccompagent; do
    install -m 0755 "$out/$t" "$src/contrib/cmd/$t/$t"
  done
}

# The suite's busybox image (helpers.bash untars it into each bundle's rootfs with
# `tar --exclude './dev/*' -C rootfs -xf`): Debian's static busybox with every applet hard-linked
# in /bin, and the passwd/group entries tests rely on (nobody = 65534).
runc_bats_busybox_image() {
  local out="$1" r="$E2E_TMP/busybox-rootfs" a
  if ! file -L /bin/busybox 2>/dev/null | grep -q 'statically linked'; then
    e2e_die "a static /bin/busybox (Debian package busybox-static) is required for the busybox image"
  fi
  rm -rf "$r"
  # No proc/ or sys/: like a registry image, runc creates the mount points (mask.bats replaces
  # them by symlinks and expects runc to refuse).
  mkdir -p "$r"/{bin,dev,etc,home,root,tmp,usr/bin,usr/sbin,var/spool/mail,var/www}
  chmod 1777 "$r/tmp"
  cp /bin/busybox "$r/bin/busybox"
  for a in $(/bin/busybox --list); do
    [ "$a" = busybox ] || ln "$r/bin/busybox" "$r/bin/$a"
  done
  cat >"$r/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/bin/sh
daemon:x:1:1:daemon:/usr/sbin:/bin/false
bin:x:2:2:bin:/bin:/bin/false
sys:x:3:3:sys:/dev:/bin/false
sync:x:4:100:sync:/bin:/bin/sync
mail:x:8:8:mail:/var/spool/mail:/bin/false
www-data:x:33:33:www-data:/var/www:/bin/false
operator:x:37:37:Operator:/var:/bin/false
nobody:x:65534:65534:nobody:/home:/bin/false
EOF
  cat >"$r/etc/group" <<'EOF'
root:x:0:
daemon:x:1:
bin:x:2:
sys:x:3:
adm:x:4:
tty:x:5:
disk:x:6:
lp:x:7:
mail:x:8:
kmem:x:9:
wheel:x:10:root
cdrom:x:11:
dialout:x:18:
floppy:x:19:
video:x:28:
audio:x:29:
tape:x:32:
www-data:x:33:
operator:x:37:
utmp:x:43:
users:x:100:
staff:x:50:
nogroup:x:65534:
EOF
  echo "127.0.0.1 localhost" >"$r/etc/hosts"
  tar --numeric-owner --owner=0 --group=0 -C "$r" -cf "$out" . || e2e_die "cannot write $out"
  rm -rf "$r"
}

# The suite's debian image (only hooks.bats uses it: /bin/sh, ldconfig, grep and a /lib): Debian
# bookworm's Essential set built by mmdebstrap from the Debian archive, docs and locales left out,
# cached as <cache>/debian-bookworm.tar (written under a temp name, renamed when complete).
runc_bats_debian_image() {
  local cache="$1" out="$1/debian-bookworm.tar"
  if [ ! -s "$out" ]; then
    require_cmd mmdebstrap
    echo "# building the debian image with mmdebstrap (cached as $out)" >&2
    rm -f "$out.tmp"
    mmdebstrap --quiet --mode=root --variant=essential --format=tar \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
      --dpkgopt='path-exclude=/usr/share/locale/*' --dpkgopt='path-exclude=/usr/share/info/*' \
      bookworm "$out.tmp" http://deb.debian.org/debian >"$E2E_TMP/mmdebstrap.log" 2>&1 ||
      e2e_die "mmdebstrap of the debian image failed: $(tail -n8 "$E2E_TMP/mmdebstrap.log")"
    mv "$out.tmp" "$out"
  fi
  echo "$out"
}

# get-images.sh downloads from GitHub; the stub prints the same variables for our images.
runc_bats_stub_images() {
  local src="$1" busybox="$2" debian="$3"
  cat >"$src/tests/integration/get-images.sh" <<EOF
#!/bin/bash
# Replaced by nvct's e2e_runc_bats.sh: local images, no download.
echo "BUSYBOX_IMAGE=$busybox"
echo "DEBIAN_IMAGE=$debian"
EOF
  chmod 0755 "$src/tests/integration/get-images.sh"
}

# Runs bats over <src>/tests/integration (or the named .bats files) with RUNC=<runc>. Each run
# gets its own TMPDIR, so bats' BATS_RUN_TMPDIR (where helpers.bash puts every test's ROOT: state
# dir, bundle, tty socket) is private and removed afterwards. Per-file wall times go to <tap>.times.
runc_bats_run() {
  local src="$1" runc="$2" tap="$3" f t0 tmp
  shift 3
  local files=("$@")
  if [ "${#files[@]}" -eq 0 ]; then
    mapfile -t files < <(find "$src/tests/integration" -maxdepth 1 -name '*.bats' -printf '%f\n' | sort)
  fi
  : >"$tap"
  : >"$tap.times"
  for f in "${files[@]}"; do
    tmp="$(mktemp -d "$E2E_TMP/bats-tmp.XXXXXX")"
    # userns.bats runs containers as an unmapped uid that must traverse to the rootfs.
    chmod a+x "$E2E_TMP" "$tmp"
    t0=$(date +%s%N)
    # One bats process per file so a file's time is measurable; test names are unique per file
    # and the parser prefixes them with the file name.
    echo "# file $f" >>"$tap"
    # Under `script`, as runc's own CI does: tests running a container with "terminal": true in
    # the foreground need a controlling terminal (CTest has none). The TAP goes to a file, not
    # through the pty (which would turn \n into \r\n). In a private mount namespace with a
    # throw-away /etc (runc_bats_ns.sh).
    mkdir "$tmp/.etc-overlay"
    # shellcheck disable=SC2016,SC2094 # $F/$TAP expand in script's shell; $tap is only appended to
    (cd "$src/tests/integration" &&
      RUNC="$runc" TMPDIR="$tmp" F="$f" TAP="$tap" timeout --kill-after=10 \
        "${RUNC_BATS_FILE_TIMEOUT:-300}" "$RUNC_BATS_LIB/runc_bats_ns.sh" "$tmp/.etc-overlay" \
        script -q -e -c 'bats --tap "$F" >>"$TAP" 2>&1' /dev/null \
        </dev/null >/dev/null 2>>"$tap") || true
    t0=$((($(date +%s%N) - t0) / 1000000))
    printf '%s %d.%01d\n' "$f" $((t0 / 1000)) $((t0 % 1000 / 100)) >>"$tap.times"
    rm -rf "$tmp" 2>/dev/null || true
  done
}
