# shellcheck shell=bash
# Fresh Debian 12 roots for the package tests. Source after pkg.sh.
#
# The base root ($PKG_BASE_ROOT) is made once per build directory by the package_base_root
# fixture (mmdebstrap, the host's own apt sources so that no mirror is named here) and never
# written afterwards: each test gets an overlay of it under its temp dir, in the private mount
# namespace pkg.sh entered, with its own procfs, a tmpfs /dev holding only the basic nodes and a
# tmpfs /run, and runs apt/dpkg in it with chroot.
#
#   pkg_new_root <name>              -> prints the root's path ($E2E_TMP/<name>/root)
#   pkg_chroot <root> <cmd...>       runs a command in the root with a clean environment
#                                    (PKG_CHROOT_ENV=(NAME=VALUE...) adds variables)
#   pkg_sh <root> <script>           sh -c <script> in the root
#   pkg_add_repo <root> <repo-dir> <name>   bind-mounts a flat repo (read-only) at
#                                    /srv/<name>, adds `deb [trusted=yes] file:/srv/<name> ./`
#                                    and updates that list only (offline)
#   pkg_apt <root> <apt-get args...> apt-get -y, quiet, no pty, stdin from /dev/null
#   pkg_snapshot <root>              find etc usr var/lib (one line per entry) minus dpkg/apt
#                                    logs, caches and backup files
#   pkg_make_repo <dir> <deb...>     a flat repo (hard links or copies, Packages, Release)

PKG_BASE_ROOT="$PKG_WORK/base-root"
PKG_BASE_MARKER="$PKG_BASE_ROOT/.nvct-base-root"
PKG_ARCHIVES="$PKG_WORK/apt-archives"
PKG_REPO="$PKG_WORK/repo"
PKG_CHROOT_ENV=()

# Fails unless the base root fixture finished (its marker is written last).
pkg_require_base_root() {
  [ -f "$PKG_BASE_MARKER" ] ||
    e2e_die "no base root at $PKG_BASE_ROOT (the package_base_root fixture makes it: ctest -R package_)"
}

pkg_new_root() {
  local name="$1" d="$E2E_TMP/$1" n
  pkg_require_base_root
  mkdir -p "$d/upper" "$d/work" "$d/root"
  mount -t overlay "nvct-pkg-$name" \
    -o "lowerdir=$PKG_BASE_ROOT,upperdir=$d/upper,workdir=$d/work" "$d/root" ||
    e2e_die "cannot mount an overlay of $PKG_BASE_ROOT (overlayfs needed)"
  local r="$d/root" node major minor
  mount -t proc proc "$r/proc"
  mount -t tmpfs -o mode=0755,nosuid,size=16m nvct-dev "$r/dev"
  for n in "null 1 3" "zero 1 5" "full 1 7" "random 1 8" "urandom 1 9" "tty 5 0"; do
    read -r node major minor <<<"$n"
    mknod -m 0666 "$r/dev/$node" c "$major" "$minor"
  done
  mkdir -p "$r/dev/pts" "$r/dev/shm"
  mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$r/dev/pts"
  ln -s pts/ptmx "$r/dev/ptmx"
  ln -s /proc/self/fd "$r/dev/fd"
  ln -s /proc/self/fd/0 "$r/dev/stdin"
  ln -s /proc/self/fd/1 "$r/dev/stdout"
  ln -s /proc/self/fd/2 "$r/dev/stderr"
  mount -t tmpfs -o mode=0755,nosuid,nodev nvct-run "$r/run"
  # Debian packages the tests install come from the shared cache the repo fixture filled, so
  # apt downloads nothing (a copy: apt locks its archive directory, tests run concurrently).
  if compgen -G "$PKG_ARCHIVES/*.deb" >/dev/null; then
    cp "$PKG_ARCHIVES"/*.deb "$r/var/cache/apt/archives/"
  fi
  echo "$r"
}

pkg_chroot() {
  local root="$1"
  shift
  chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive "${PKG_CHROOT_ENV[@]}" "$@"
}
pkg_sh() { pkg_chroot "$1" /bin/sh -c "$2"; }

pkg_apt() {
  local root="$1"
  shift
  pkg_chroot "$root" apt-get -y -q -o Dpkg::Use-Pty=0 -o APT::Color=0 "$@" </dev/null
}

pkg_add_repo() {
  local root="$1" repo="$2" name="$3"
  [ -f "$repo/Packages" ] || e2e_die "$repo is not a flat repo (no Packages file)"
  mkdir -p "$root/srv/$name"
  mount --bind -o ro "$repo" "$root/srv/$name"
  echo "deb [trusted=yes] file:/srv/$name ./" >"$root/etc/apt/sources.list.d/$name.list"
  pkg_apt "$root" update -o "Dir::Etc::SourceList=sources.list.d/$name.list" \
    -o Dir::Etc::SourceParts=- -o APT::Get::List-Cleanup=0 >"$E2E_TMP/apt-update-$name.log" 2>&1 ||
    e2e_die "apt-get update of the local repo $name failed: $(tail -5 "$E2E_TMP/apt-update-$name.log")"
}

pkg_make_repo() {
  local dir="$1" deb
  shift
  pkg_require_cmd apt-ftparchive
  rm -rf "$dir"
  mkdir -p "$dir"
  for deb in "$@"; do
    ln "$deb" "$dir/" 2>/dev/null || cp "$deb" "$dir/"
  done
  (cd "$dir" && apt-ftparchive packages . >Packages && apt-ftparchive release . >Release) ||
    e2e_die "apt-ftparchive failed in $dir"
  chmod -R a+rX "$dir"
}

# The state a package leaves on the system. Excluded: apt's and dpkg's logs, caches and the
# backup copies they rotate (*-old), apt's lists and its record of automatically installed
# packages, and the rpm database (P13 compares roots where only rpm ran).
pkg_snapshot() {
  (cd "$1" && find etc usr var/lib -xdev -printf '%p %y %l\n') |
    grep -vE '^(var/lib/dpkg/[a-z]+-old |var/lib/dpkg/(lock|lock-frontend|triggers/Lock) |var/lib/apt/lists/|var/lib/apt/extended_states |var/lib/rpm/|var/lib/rpm )' |
    sort
}

# The Packages entry field of an installed package: pkg_status <root> <package> <field>.
pkg_query() {
  pkg_chroot "$1" dpkg-query -W -f="\${$3}" "$2" 2>/dev/null
}

# pkg_root_with <name> <apt-get install args...>: a fresh root with the local repo, after a
# successful `apt-get install -y <args>`; its output is in $E2E_TMP/<name>-install.log.
pkg_root_with() {
  local name="$1" root
  shift
  root="$(pkg_new_root "$name")"
  pkg_add_repo "$root" "$PKG_REPO" nvct
  if ! pkg_apt "$root" install "$@" >"$E2E_TMP/$name-install.log" 2>&1; then
    tail -n 30 "$E2E_TMP/$name-install.log" >&2
    e2e_die "apt-get install $* failed in a fresh root (log above)"
  fi
  echo "$root"
}

# The installed packages among the five, as "<name> <version>" lines.
pkg_installed() {
  # dpkg-query exits 1 when one of the names is unknown: not an error here.
  { pkg_chroot "$1" dpkg-query -W -f='${db:Status-Abbrev} ${Package} ${Version}\n' \
    "${PKG_NAMES[@]}" 2>/dev/null || true; } | awk '$1 == "ii" {print $2, $3}' | sort
}
