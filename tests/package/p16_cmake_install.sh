#!/usr/bin/env bash
# P16: `cmake --install` with DESTDIR for the prefixes /usr and /opt/nvct (spec/packaging.md §4.3,
# §5): the installed files are the §4.3 list under each prefix (units, udev rule and preset under
# <prefix>/lib unless the prefix is /usr, the env file under GNUInstallDirs' sysconfdir), and the
# paths compiled into an /opt/nvct build follow its prefix: `runtime configure
# --runtime=containerd --dry-run` names /opt/nvct/bin/nvidia-container-runtime, generated CDI
# specs name /opt/nvct/bin/nvidia-cdi-hook, the unit runs /opt/nvct/bin/nvidia-ctk, while
# config.toml stays /etc/nvidia-container-runtime/config.toml.
#
# Both trees are built from packaging/stage.sh's staged sources with the package builds' flags
# (dpkg-buildflags, CMAKE_BUILD_TYPE=None, unity build as NVCT_UNITY_BUILD says, as
# packaging/rpm/nvct.spec's %build) and ccache, in build directories at the depth of the rpm's
# (build/p16usr, build/p16opt):
# after P1 every object of the /usr tree is a cache hit, and the /opt/nvct tree compiles one file
# again, the generated install_dirs.cpp that holds the prefix (cmake/NvctInstallPaths.cmake).
# That is checked from the two trees themselves, not from ccache's counters (which a warm cache
# from an earlier run of the same sources leaves at zero misses): only that object may read a
# build-tree file that differs between the trees or have different compile flags, since a prefix
# in a header recompiled whole unity units (14 of them, 6 minutes of this test in CI). With
# NVCT_PACKAGE_DIR set, that directory's stage/ and ccache/ are used.
# The /opt/nvct tree is then run from /opt/nvct itself, bind-mounted in this test's private
# mount namespace over a tmpfs /opt; /etc is an overlay there too.
source "$(dirname "$0")/lib/pkg.sh"
source "$NVCT_SOURCE_DIR/tests/e2e/lib/containerd.sh"

pkg_require_cmd dpkg-buildflags
pkg_require_mock_driver
T="$E2E_TMP"
[ -f "$NVCT_SOURCE_DIR/packaging/stage.sh" ] || e2e_die "packaging/stage.sh is missing"
export NVCT_PACKAGES_DIR="$PKG_DIR"
nvct_script=p16_cmake_install.sh
# shellcheck source=../../packaging/stage.sh
source "$NVCT_SOURCE_DIR/packaging/stage.sh"

pkg_step "staging the sources into $nvct_stage"
nvct_stage_sources
commit="$(nvct_commit)"
flags() { (cd "$nvct_stage" && DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --get "$1"); }
CPPFLAGS_="$(flags CPPFLAGS)"
CFLAGS="$(flags CFLAGS) $CPPFLAGS_"
CXXFLAGS="$(flags CXXFLAGS) $CPPFLAGS_"
LDFLAGS="$(flags LDFLAGS)"
export CFLAGS CXXFLAGS LDFLAGS
# As build-rpm.sh: the deb build's SOURCE_DATE_EPOCH (hashed by ccache for __DATE__ users).
if declare -F nvct_source_date_epoch >/dev/null; then
  export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(nvct_source_date_epoch)}"
fi
nvct_setup_ccache

# build_prefix <prefix> <dir name>: configure + build; prints the build directory.
build_prefix() {
  local prefix="$1" b="$nvct_stage/build/$2" start=$SECONDS
  cmake -S "$nvct_stage" -B "$b" -G 'Unix Makefiles' -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DBUILD_TESTING=OFF -DNVCT_PACKAGE_VERSION="$PKG_V" \
    -DCMAKE_UNITY_BUILD="${NVCT_UNITY_BUILD:-ON}" -DNVCT_WERROR="${NVCT_WERROR:-OFF}" \
    -DNVCT_GIT_COMMIT="$commit" >"$T/$2-configure.log" 2>&1 ||
    e2e_die "configuring prefix $prefix failed: $(tail -10 "$T/$2-configure.log")"
  cmake --build "$b" --parallel "$(nproc)" >"$T/$2-build.log" 2>&1 ||
    e2e_die "building prefix $prefix failed: $(tail -20 "$T/$2-build.log")"
  echo "# prefix $prefix built in $((SECONDS - start)) s ($(nvct_ccache_report))" >&2
  echo "$b"
}
cache_var() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"; }

# The §4.3 list for a prefix, as "<type> <path>[ -> <target>]" (find's %y), sorted.
expected() {
  local p="$1" b="$2" sysconf bin units udev preset man
  case "$p" in
    /usr) sysconf=/etc ;;
    /opt/*) sysconf="/etc$p" ;;
    *) sysconf="$p/etc" ;;
  esac
  units="$(cache_var "$b" NVCT_SYSTEMDUNITDIR)"
  udev="$(cache_var "$b" NVCT_UDEVRULESDIR)"
  preset="$(cache_var "$b" NVCT_SYSTEMDPRESETDIR)"
  bin="$p/bin"
  man="$p/share/man/man1"
  {
    for f in nvidia-container-runtime nvidia-container-runtime-hook nvidia-container-cli \
      nvidia-ctk nvidia-cdi-hook; do echo "f $bin/$f"; done
    echo "l $bin/nvidia-container-toolkit -> nvidia-container-runtime-hook"
    echo "l $bin/nvidia-container-runtime.cdi -> nvidia-container-runtime"
    echo "l $bin/nvidia-container-runtime.legacy -> nvidia-container-runtime"
    echo "f $p/libexec/nvct/nvidia-container-runtime-nvml"
    echo "f $units/nvidia-cdi-refresh.service"
    echo "f $units/nvidia-cdi-refresh.path"
    echo "f $udev/99-nvidia-cdi-refresh.rules"
    echo "f $preset/90-nvidia-container-toolkit.preset"
    echo "f $sysconf/nvidia-container-toolkit/nvidia-cdi-refresh.env"
    echo "f $p/share/bash-completion/completions/nvidia-ctk"
    if [ "$(cache_var "$b" NVCT_MANPAGES)" = ON ]; then
      for f in nvidia-ctk nvidia-container-cli nvidia-cdi-hook nvidia-container-runtime \
        nvidia-container-runtime-hook; do echo "f $man/$f.1"; done
      echo "l $man/nvidia-container-toolkit.1 -> nvidia-container-runtime-hook.1"
      echo "l $man/nvidia-container-runtime.cdi.1 -> nvidia-container-runtime.1"
      echo "l $man/nvidia-container-runtime.legacy.1 -> nvidia-container-runtime.1"
    fi
  } | sort
}
installed() {
  (cd "$1" && find . ! -type d -printf '%y /%P -> %l\n') | sed 's/ -> $//' | sort
}

# check_install <prefix> <build dir> <destdir>
check_install() {
  local p="$1" b="$2" dest="$3" want got
  rm -rf "$dest"
  if DESTDIR="$dest" cmake --install "$b" >"$T/install.log" 2>&1; then
    pass "DESTDIR=... cmake --install for prefix $p exits 0"
  else
    failed "cmake --install for prefix $p: $(tail -5 "$T/install.log" | tr '\n' ' ')"
  fi
  want="$(expected "$p" "$b")"
  got="$(installed "$dest")"
  if [ "$want" = "$got" ]; then
    pass "prefix $p: the installed files are the §4.3 list ($(echo "$got" | wc -l) files)"
  else
    failed "prefix $p: installed files differ (< §4.3, > installed): $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')"
  fi
  check_eq "prefix $p: executables are 0755" "" \
    "$(cd "$dest" && find . -type f -path '*/bin/*' ! -perm 0755 -printf '%P %m ')"
  check_eq "prefix $p: nothing under /usr/local, /run or /var" "" \
    "$(cd "$dest" && find usr/local run var -mindepth 0 2>/dev/null | head -5)"
}

pkg_step "prefix /usr"
b_usr="$(build_prefix /usr p16usr)"
check_install /usr "$b_usr" "$T/dest-usr"
units="$(cache_var "$b_usr" NVCT_SYSTEMDUNITDIR)"
check_contains "prefix /usr: the unit runs /usr/bin/nvidia-ctk" "ExecStart=/usr/bin/nvidia-ctk cdi generate" \
  "$(cat "$T/dest-usr$units/nvidia-cdi-refresh.service" 2>&1)"
check_contains "prefix /usr: the unit's EnvironmentFile is in /etc" \
  "EnvironmentFile=-/etc/nvidia-container-toolkit/nvidia-cdi-refresh.env" \
  "$(cat "$T/dest-usr$units/nvidia-cdi-refresh.service" 2>&1)"

pkg_step "prefix /opt/nvct"
b_opt="$(build_prefix /opt/nvct p16opt)"
# What a change of prefix recompiles, whatever ccache holds from earlier runs: the objects of the
# /opt build that read a file of its build tree that differs from the /usr build's copy, or whose
# target's compile flags differ (build directories aside). Only the generated install_dirs.cpp
# may (a prefix in a widely included generated header once recompiled 14 unity units).
prefix_dependent_objects() {
  local d o t dep cwd bo bu
  bo="$(realpath "$b_opt")" bu="$(realpath "$b_usr")"
  for d in $(find "$bo" -name '*.o.d'); do
    o="${d%.d}"
    t="${d%%.dir/*}.dir"  # the target's directory: <b>/src/cdi/CMakeFiles/nvct_cdi.dir
    [ -f "$t/flags.make" ] || e2e_die "no flags.make for $o"
    if ! cmp -s <(sed "s#$bo#B#g" "$t/flags.make") \
      <(sed "s#$bu#B#g" "$bu${t#"$bo"}/flags.make" 2>/dev/null); then
      echo "${o#"$bo"/}"
      continue
    fi
    # The inputs, relative to the directory the compiler ran in when ccache's base dir made
    # them so (<b>/src/cdi for <b>/src/cdi/CMakeFiles/...).
    cwd="${d%%/CMakeFiles/*}"
    for dep in $(tr -d '\\' <"$d" | tr ' ' '\n' | grep -v ':$' | grep . |
      sed "\#^/#!s#^#$cwd/#" | xargs realpath -m | grep "^$bo/" | sort -u); do
      if ! cmp -s "$dep" "$bu${dep#"$bo"}"; then
        echo "${o#"$bo"/}"
        break
      fi
    done
  done
}
dependent="$(prefix_dependent_objects | sort)"
check_eq "the only object a change of prefix recompiles is generated/install_dirs.cpp's" \
  "1 install_dirs.cpp.o" "$(echo "$dependent" | grep -c .) $(basename "$(echo "$dependent" | head -1)")"
[ "$(echo "$dependent" | grep -c .)" = 1 ] || echo "# prefix-dependent objects: $(echo "$dependent" | tr '\n' ' ')" >&2
check_install /opt/nvct "$b_opt" "$T/dest-opt"
service="$T/dest-opt$(cache_var "$b_opt" NVCT_SYSTEMDUNITDIR)/nvidia-cdi-refresh.service"
check_contains "the unit runs /opt/nvct/bin/nvidia-ctk" "ExecStart=/opt/nvct/bin/nvidia-ctk cdi generate" \
  "$(cat "$service" 2>&1)"
check_contains "the unit's condition names /opt/nvct/bin/nvidia-ctk" \
  "ConditionPathExists=/opt/nvct/bin/nvidia-ctk" "$(cat "$service" 2>&1)"
check_contains "the path unit watches /opt/nvct/bin/nvidia-ctk" "PathChanged=/opt/nvct/bin/nvidia-ctk" \
  "$(cat "${service%.service}.path" 2>&1)"

# Run the tree from /opt/nvct (private: a tmpfs /opt and an overlay /etc in this namespace).
mount -t tmpfs -o mode=0755 nvct-p16-opt /opt
mkdir -p /opt/nvct "$T/etc-up" "$T/etc-wk"
mount --bind "$T/dest-opt/opt/nvct" /opt/nvct
mount -t overlay nvct-p16-etc -o "lowerdir=/etc,upperdir=$T/etc-up,workdir=$T/etc-wk" /etc
e2e_on_exit "umount -l /etc /opt/nvct /opt"
CTK=/opt/nvct/bin/nvidia-ctk
out="$("$CTK" runtime configure --runtime=containerd --config="$T/none/config.toml" --dry-run 2>"$T/dry.err")" ||
  failed "runtime configure --runtime=containerd --dry-run: $(cat "$T/dry.err")"
check_contains "runtime configure --runtime=containerd --dry-run: BinaryName under /opt/nvct" \
  'BinaryName = "/opt/nvct/bin/nvidia-container-runtime"' "$out"
check "... and writes nothing" test ! -e "$T/none"
out="$("$CTK" runtime configure --runtime=crio --config="$T/none/crio.conf" --dry-run 2>/dev/null)" || true
check_contains "runtime configure --runtime=crio --dry-run: runtime_path under /opt/nvct" \
  'runtime_path = "/opt/nvct/bin/nvidia-container-runtime"' "$out"
MOCK="$T/driver-root"
pkg_mock_root "$MOCK" one-gpu
"$CTK" cdi generate --driver-root "$MOCK" --output "$T/spec.yaml" 2>"$T/generate.err" ||
  failed "cdi generate: $(tail -3 "$T/generate.err")"
check_contains "cdi generate: the hooks are /opt/nvct/bin/nvidia-cdi-hook" \
  "path: /opt/nvct/bin/nvidia-cdi-hook" "$(cat "$T/spec.yaml" 2>&1)"
check "cdi generate: no hook under /usr/bin" bash -c "! grep -q 'path: /usr/bin/' '$T/spec.yaml'"
check_contains "config default: nvidia-container-cli's path under /opt/nvct" "/opt/nvct/bin/nvidia-container-cli" \
  "$("$CTK" config default 2>&1)"
# The default config file is still /etc/nvidia-container-runtime/config.toml.
rm -rf /etc/nvidia-container-runtime
"$CTK" config --set nvidia-container-cli.no-cgroups --in-place 2>"$T/set.err" ||
  failed "config --set --in-place: $(cat "$T/set.err")"
check_eq "config --in-place writes /etc/nvidia-container-runtime/config.toml" true \
  "$(toml_get /etc/nvidia-container-runtime/config.toml nvidia-container-cli no-cgroups 2>&1)"
check "... and nothing under /opt/nvct/etc or /etc/opt" bash -c \
  "! ls /opt/nvct/etc/nvidia-container-runtime /etc/opt/nvct/nvidia-container-runtime 2>/dev/null | grep -q ."
e2e_finish
