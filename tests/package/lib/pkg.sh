# shellcheck shell=bash
# Shared helpers of the package tests (spec/packaging.md §5). Source it first: it re-executes the
# calling script in a private mount namespace (every overlay, procfs and tmpfs a test mounts goes
# away with it), then sources tests/e2e/lib/common.sh (temp dir, cleanups, check/pass/failed).
#
#   PKG_V                 the package version V (packaging/version.cmake, NVCT_PACKAGE_VERSION)
#   PKG_WORK              this build's package-test state: $NVCT_BUILD_DIR/package
#   PKG_DIR               the packages (deb/, rpm/): $NVCT_PACKAGE_DIR when set (prebuilt), else
#                         $PKG_WORK/packages, where the P1/P2 fixtures build them
#   PKG_ARCH / PKG_RPM_ARCH   amd64 / x86_64 (dpkg --print-architecture, rpm's name for it)
#   PKG_NAMES             the five binary package names (§4.2)
#   pkg_deb <name> [dir] / pkg_rpm <name> [dir]   the path of that package at V; fails if absent
#   pkg_deb_list <deb>    `dpkg-deb -c` normalised as tests/package/data/deb-files.txt is:
#                         "<mode> <path>[ -> <target>]" (mode as dpkg-deb prints it), by path
#   pkg_deb_list_expected <package>   that package's section of data/deb-files.txt
#   pkg_require_debs      fails unless the five .debs at V exist (the P1 fixture)
#   pkg_require_cmd <cmd>...  fails, naming the Debian package, when a command is missing
#   pkg_require_mock_driver   fails unless the mock driver is built in $NVCT_BUILD_DIR
#   pkg_mock_root <dir> [topology]   a mock driver root (tests/mock-driver) at <dir>
# Root and apt helpers are in lib/root.sh.

if [ -z "${NVCT_PKG_NS:-}" ]; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "FATAL [$(basename "$0")]: the package tests run as root (mounts, chroot, dpkg)" >&2
    exit 1
  fi
  if ! command -v unshare >/dev/null 2>&1; then
    echo "FATAL [$(basename "$0")]: unshare not found (apt-get install util-linux)" >&2
    exit 1
  fi
  export NVCT_PKG_NS=1
  exec unshare --mount --propagation private bash "$0" "$@"
fi
unset NVCT_PKG_NS

# shellcheck source=../../e2e/lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../e2e/lib/common.sh"

# Command substitutions ($(pkg_new_root ...)) stop at their first failing command too.
shopt -s inherit_errexit

# The package builds of these tests (P1, P2 and P16, all through dpkg-buildflags) compile with
# -g1 after Debian's -g: line tables only in the -dbgsym packages. -g does not change the code
# GCC generates, so the stripped programs in the packages are the release build's; the .debs
# differ only in their debug symbols. -g was a quarter of each unit's compile time (nvct_cdi:
# 37.1 CPU-s with -g, 27.7 with -g1), and P1 is the longest test of a CI run.
# NVCT_PACKAGE_TEST_FULL_DEBUG=1 builds them with -g, as scripts/package.sh alone does.
if [ "${NVCT_PACKAGE_TEST_FULL_DEBUG:-0}" != 1 ]; then
  export DEB_CFLAGS_APPEND="${DEB_CFLAGS_APPEND:+$DEB_CFLAGS_APPEND }-g1"
  export DEB_CXXFLAGS_APPEND="${DEB_CXXFLAGS_APPEND:+$DEB_CXXFLAGS_APPEND }-g1"
fi
PKG_WORK="$NVCT_BUILD_DIR/package"
PKG_DIR="${NVCT_PACKAGE_DIR:-$PKG_WORK/packages}"
# The package builds (P1, P2, P16) take the build's ccache (scripts/build.sh puts it in
# $NVCT_BUILD_DIR/ccache) and its NVCT_WERROR: the ci preset compiles with the packages' flags
# in a build directory at the packages' depth, so their libraries and programs are cache hits
# on the ci build's objects (P1 prints the counts). With NVCT_PACKAGE_DIR, that directory's
# ccache stays theirs.
if [ -z "${NVCT_PACKAGE_DIR:-}" ]; then
  export CCACHE_DIR="$NVCT_BUILD_DIR/ccache"
fi
NVCT_WERROR="$(sed -n 's/^NVCT_WERROR:[A-Z]*=//p' "$NVCT_BUILD_DIR/CMakeCache.txt" 2>/dev/null)"
export NVCT_WERROR="${NVCT_WERROR:-OFF}"
PKG_NAMES=(nvidia-container-toolkit-base nvidia-container-toolkit libnvidia-container-tools
  libnvidia-container1 nvidia-container-toolkit-operator-extensions)
export LC_ALL=C

# Runs last of all cleanups (registered first): lazily detaches whatever this test mounted under
# its temp dir, deepest first, so that removing the temp dir never reaches into a mount.
_pkg_umount_tmp() {
  local m
  for m in $(awk -v t="$E2E_TMP" '$5 == t || index($5, t "/") == 1 {print $5}' /proc/self/mountinfo |
    sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}
e2e_on_exit _pkg_umount_tmp

# Prints a line saying what the next checks are about.
pkg_step() { echo "# --- $*"; }

# pkg_require_cmd <command>...: fails, naming the Debian package to install, when one is missing.
pkg_require_cmd() {
  local c p
  for c in "$@"; do
    command -v "$c" >/dev/null 2>&1 && continue
    case "$c" in
      apt-ftparchive) p=apt-utils ;;
      dh) p=debhelper ;;
      dpkg-buildpackage | dpkg-buildflags | dpkg-architecture) p=dpkg-dev ;;
      rpmbuild) p=rpm ;;
      docker | dockerd) p=docker.io ;;
      ctr | containerd-shim-runc-v2) p=containerd ;;
      busybox) p=busybox-static ;;
      runuser | unshare | findmnt) p=util-linux ;;
      md5sum | sha256sum) p=coreutils ;;
      *) p="$c" ;;
    esac
    e2e_die "required command '$c' not found: apt-get install $p (scripts/install-deps.sh installs it)"
  done
}
pkg_require_cmd dpkg-deb dpkg cmake
PKG_ARCH="$(dpkg --print-architecture)"
case "$PKG_ARCH" in
  amd64) PKG_RPM_ARCH=x86_64 ;;
  arm64) PKG_RPM_ARCH=aarch64 ;;
  *) PKG_RPM_ARCH="$PKG_ARCH" ;;
esac
[ -f "$NVCT_SOURCE_DIR/packaging/version.cmake" ] ||
  e2e_die "packaging/version.cmake is missing: the packaging tree has not landed"
PKG_V="$(cmake -P "$NVCT_SOURCE_DIR/packaging/version.cmake")" ||
  e2e_die "cmake -P packaging/version.cmake failed"
[ -n "$PKG_V" ] || e2e_die "packaging/version.cmake printed no version"

pkg_deb() {
  local name="$1" dir="${2:-$PKG_DIR/deb}" f
  f="$dir/${name}_${PKG_V}_${PKG_ARCH}.deb"
  [ -f "$f" ] || e2e_die "$f not found (scripts/package.sh builds it; NVCT_PACKAGE_DIR=$PKG_DIR)"
  echo "$f"
}
pkg_rpm() {
  local name="$1" dir="${2:-$PKG_DIR/rpm}" f
  f="$dir/${name}-${PKG_V}-1.${PKG_RPM_ARCH}.rpm"
  [ -f "$f" ] || e2e_die "$f not found (scripts/package.sh builds it; NVCT_PACKAGE_DIR=$PKG_DIR)"
  echo "$f"
}
pkg_require_debs() {
  local n
  for n in "${PKG_NAMES[@]}"; do pkg_deb "$n" >/dev/null; done
}

# dpkg-deb -c in the form of tests/package/data/deb-files.txt: "<mode> <path>[ -> <target>]",
# <mode> as dpkg-deb prints it (type letter and permissions), <path> absolute without a trailing
# "/", the root directory left out; sorted by path.
pkg_deb_list() {
  dpkg-deb -c "$1" | awk '{
      path = $6; sub(/^\./, "", path); if (path != "/") sub(/\/$/, "", path)
      if (path == "/") next
      line = $1 " " path
      if ($7 == "->") line = line " -> " $8
      print line
    }' | sort -k2,2
}
# The entries of one package in tests/package/data/deb-files.txt (its "[<package>]" section).
pkg_deb_list_expected() {
  awk -v want="[$1]" '/^#/ || /^[[:space:]]*$/ {next} /^\[/ {on = ($0 == want); next} on' \
    "$NVCT_SOURCE_DIR/tests/package/data/deb-files.txt" | sort -k2,2
}

pkg_require_mock_driver() {
  [ -f "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" ] ||
    e2e_die "tests/mock-driver/make-driver-root.sh is missing"
  [ -e "$NVCT_BUILD_DIR/tests/mock-driver/bin/nvidia-smi" ] ||
    e2e_die "mock driver not built (cmake --build $NVCT_BUILD_DIR --target mock_driver)"
}
pkg_mock_root() {
  local out="$1" topology="${2:-one-gpu}"
  pkg_require_mock_driver
  bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topology.conf" --out "$out" \
    >"$E2E_TMP/make-driver-root.log" 2>&1 ||
    e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make-driver-root.log")"
  [ -c "$out/dev/nvidia0" ] || e2e_die "the mock root $out has no /dev/nvidia0 node"
}

# A string quoted for use in an extended regular expression (grep -E, sed -E).
pkg_ere() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }
